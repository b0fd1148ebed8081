"""The run database (issue 14, part 3): exact ids or unambiguous prefixes, never patterns; imports
that would silently replace another run are refused; a versioned layout, migrated from the first
releases' table, refusing newer and foreign databases without touching them."""

import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from debugger.stores.protocol import RunExistsError, StoreError
from debugger.stores.sqlite import APPLICATION_ID, VERSION, RunStore
from engine.tracefile import to_json
from tests.test_replay_and_store import concat_graph, recorded

ROOT = Path(__file__).resolve().parents[1]

V1_TABLE = """
    CREATE TABLE IF NOT EXISTS runs (
        run_id TEXT PRIMARY KEY, graph TEXT NOT NULL, target TEXT NOT NULL, started_at TEXT NOT NULL,
        status TEXT NOT NULL, steps INTEGER NOT NULL, error TEXT NOT NULL, trace TEXT NOT NULL
    );
    CREATE INDEX IF NOT EXISTS runs_by_graph ON runs (graph, started_at);
"""


def trace_with_id(run_id, target="concat"):
    return recorded(concat_graph(), {"s": "", "log": []}, run_id=run_id, target=target)


def test_ids_are_exact_or_an_unambiguous_prefix_of_four_characters_never_a_pattern(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite3")
    for run_id in ("abcd1111", "abce2222", "x7ea6yyy"):
        store.save(trace_with_id(run_id))
    assert store.load("abcd").run_id == "abcd1111"
    assert store.resolve("abcd1111") == "abcd1111"
    for pattern in ("", "%", "%7ea6", "_bcd1111", "abc%", "ab"):
        with pytest.raises(StoreError):
            store.delete(pattern)
    assert len(store.list()) == 3
    with pytest.raises(StoreError, match="at least 4 characters"):
        store.load("abc")
    store.save(trace_with_id("abcd1112"))
    with pytest.raises(StoreError, match="several run ids"):
        store.load("abcd111")
    assert store.delete("x7ea") == "x7ea6yyy"
    assert {r.run_id for r in store.list()} == {"abcd1111", "abcd1112", "abce2222"}


def test_import_refuses_a_different_run_with_a_stored_id_unless_replace(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite3")
    original = trace_with_id("same-id", target="first")
    store.save(original)
    copy = tmp_path / "copy.json"
    copy.write_text(to_json(original, indent=1))
    assert store.import_file(copy) == "same-id"  # the same run again: harmless
    other = tmp_path / "other.json"
    other.write_text(to_json(trace_with_id("same-id", target="second")))
    with pytest.raises(RunExistsError, match="pass --replace"):
        store.import_file(other)
    assert store.load("same-id").target == "first"
    store.import_file(other, replace=True)
    assert store.load("same-id").target == "second"


def test_cli_import_replace_flag(tmp_path):
    db = tmp_path / "runs.sqlite3"
    store = RunStore(db)
    store.save(trace_with_id("cli-id", target="first"))
    other = tmp_path / "other.json"
    other.write_text(to_json(trace_with_id("cli-id", target="second")))
    run = lambda *a: subprocess.run(
        [sys.executable, "-m", "debugger.cli", *a, "--db", str(db)],  # noqa: E731
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )
    refused = run("import", str(other))
    assert refused.returncode == 2 and "pass --replace" in refused.stderr
    assert run("import", str(other), "--replace").returncode == 0
    assert RunStore(db).load("cli-id").target == "second"
    assert "matches several" not in run("delete", "").stderr and run("delete", "").returncode == 2


def test_a_first_release_database_is_migrated_and_its_unnamed_rows_become_usable(tmp_path):
    path = tmp_path / "old.sqlite3"
    good = trace_with_id("good-run")
    broken = json.loads(to_json(trace_with_id("x")))
    broken["run_id"] = None
    with sqlite3.connect(path) as db:
        db.executescript(V1_TABLE)
        db.execute(
            "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            ("good-run", "LangGraph", "concat", good.started_at, "done", 2, "", to_json(good)),
        )
        db.execute(
            "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
            (None, "LangGraph", "concat", "2020", "done", 2, "", json.dumps(broken)),
        )
    store = RunStore(path)
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == VERSION
        assert db.execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID
    ids = [r.run_id for r in store.list()]
    assert "good-run" in ids and len(ids) == 2
    assert store.load("good-run") == good
    unnamed = next(i for i in ids if i != "good-run")
    with pytest.raises(StoreError, match="run_id"):
        store.load(unnamed)  # its trace is damaged: said so, with how to remove it
    assert store.delete(unnamed) == unnamed
    assert [r.run_id for r in RunStore(path).list()] == ["good-run"]


def test_newer_and_foreign_databases_are_refused_and_left_unchanged(tmp_path):
    newer = tmp_path / "newer.sqlite3"
    RunStore(newer)
    with sqlite3.connect(newer) as db:
        db.execute(f"PRAGMA user_version = {VERSION + 1}")
    with pytest.raises(StoreError, match="newer StepScope"):
        RunStore(newer)

    foreign = tmp_path / "foreign.sqlite3"
    with sqlite3.connect(foreign) as db:
        db.execute("CREATE TABLE customers (id INTEGER, name TEXT)")
    before = foreign.read_bytes()
    with pytest.raises(StoreError, match="not a StepScope run database.*customers"):
        RunStore(foreign)
    assert foreign.read_bytes() == before

    same_width = tmp_path / "same_width.sqlite3"
    with sqlite3.connect(same_width) as db:
        db.execute("CREATE TABLE runs (a TEXT, b TEXT, c TEXT, d TEXT, e TEXT, f INTEGER, g TEXT, h TEXT)")
    with pytest.raises(StoreError, match="not a StepScope run database"):
        RunStore(same_width)

    other_app = tmp_path / "other_app.sqlite3"
    with sqlite3.connect(other_app) as db:
        db.execute("PRAGMA application_id = 1234")
        db.execute("PRAGMA user_version = 7")
    with pytest.raises(StoreError, match="another application"):
        RunStore(other_app)


def test_an_unwritable_database_is_refused_when_opened(tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root can write read-only files; the read-only open below stands in")
    path = tmp_path / "ro.sqlite3"
    RunStore(path)
    path.chmod(0o444)
    with pytest.raises(StoreError, match="read-only"):
        RunStore(path)


def test_a_read_only_database_is_refused_when_opened(tmp_path):
    path = tmp_path / "ro.sqlite3"
    RunStore(path)
    uri = RunStore(path)
    uri.dialect.connect = lambda: sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None)  # type: ignore[method-assign]
    with pytest.raises(sqlite3.OperationalError, match="readonly"):
        with uri.dialect.transaction() as db:
            db.execute("DELETE FROM runs")
    with pytest.raises(StoreError, match="read-only"):
        uri.save(trace_with_id("ro-run"))


def test_a_trace_without_a_run_id_is_never_stored(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite3")
    trace = trace_with_id("x")
    trace.run_id = ""
    with pytest.raises(StoreError, match="no run id"):
        store.save(trace)
    with sqlite3.connect(tmp_path / "runs.sqlite3") as db:
        with pytest.raises(sqlite3.IntegrityError):
            db.execute("INSERT INTO runs VALUES (NULL, '', '', '', '', 0, '', '', '')")


@pytest.mark.slow  # starts eight processes
def test_eight_processes_saving_at_once_all_land(tmp_path):
    db = tmp_path / "runs.sqlite3"
    code = (
        "import sys; from debugger.stores.sqlite import RunStore; from tests.test_store_versions import trace_with_id; "
        "RunStore(sys.argv[1]).save(trace_with_id(sys.argv[2]))"
    )
    procs = [subprocess.Popen([sys.executable, "-c", code, str(db), f"run-{i}"], cwd=ROOT) for i in range(8)]
    assert all(p.wait(timeout=120) == 0 for p in procs)
    assert len(RunStore(db).list()) == 8
