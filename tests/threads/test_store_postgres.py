"""The PostgreSQL run store: the SQLite store's operations and rules, a versioned layout, and many
processes on several hosts recording into one server at once."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import psycopg
import pytest

from debugger.sources.runs import record
from debugger.stores.opening import open_store
from debugger.stores.postgres import VERSION, PostgresRunStore, RunExistsError
from debugger.stores.protocol import StoreError
from debugger.stores.rows import digest
from debugger.stores.sqlite import RunStore
from engine.tracefile import to_json
from sample_graphs import gallery

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow  # starts PostgreSQL and subprocesses: `make test`, not `make check`


def _trace(sample: str = "subgraph_trap"):
    module = gallery.load_sample(sample)
    return record(module.graph, module.example_input, dict(getattr(module, "example_config", None) or {}), sample)


def test_open_store_picks_the_backend_from_the_url(pg_url, tmp_path, monkeypatch):
    assert isinstance(open_store(pg_url), PostgresRunStore)
    assert isinstance(open_store(tmp_path / "runs.sqlite3"), RunStore)
    monkeypatch.setenv("STEPSCOPE_DB", pg_url)
    assert isinstance(open_store(None), PostgresRunStore)
    monkeypatch.setenv("STEPSCOPE_DB", str(tmp_path / "other.sqlite3"))
    assert isinstance(open_store(None), RunStore)


def test_save_list_load_export_import_delete(pg_url, tmp_path):
    store = PostgresRunStore(pg_url)
    first, second = _trace("subgraph_trap"), _trace("parallel_append_race")
    store.save(first)
    store.save(second)
    listed = store.list()
    assert {r.run_id for r in listed} == {first.run_id, second.run_id}
    assert store.list(graph=second.graph["name"])[0].run_id == second.run_id
    assert to_json(store.load(first.run_id)) == to_json(first)
    assert store.load(first.run_id[:6]).run_id == first.run_id  # an unambiguous prefix
    out = store.export(first.run_id, tmp_path / "run.json")
    assert json.loads(out.read_text())["run_id"] == first.run_id
    assert store.delete(first.run_id[:8]) == first.run_id
    with pytest.raises(StoreError, match="no stored run"):
        store.load(first.run_id)
    assert store.import_file(out) == first.run_id
    assert store.import_file(out) == first.run_id  # the same run again is harmless


def test_ids_are_exact_or_a_long_enough_prefix_never_a_pattern(pg_url):
    store = PostgresRunStore(pg_url)
    trace = _trace()
    trace.run_id = "abcd_1234"
    store.save(trace)
    with pytest.raises(StoreError, match="at least 4"):
        store.load("abc")
    with pytest.raises(StoreError, match="no stored run"):
        store.load("ab%d")  # a LIKE pattern matches nothing
    with pytest.raises(StoreError, match="no stored run"):
        store.load("abcd%")
    other = _trace()
    other.run_id = "abcd_5678"
    store.save(other)
    with pytest.raises(StoreError, match="several"):
        store.load("abcd_")


def test_import_of_a_different_run_under_a_stored_id_is_refused_unless_replace(pg_url, tmp_path):
    store = PostgresRunStore(pg_url)
    trace = _trace()
    store.save(trace)
    other = _trace("parallel_append_race")
    other.run_id = trace.run_id
    path = tmp_path / "other.json"
    path.write_text(to_json(other))
    with pytest.raises(RunExistsError, match="--replace"):
        store.import_file(path)
    assert store.load(trace.run_id).graph["name"] == trace.graph["name"]
    store.import_file(path, replace=True)
    assert to_json(store.load(trace.run_id)) == to_json(other)


def test_newer_and_foreign_databases_are_refused_and_left_alone(pg_url):
    PostgresRunStore(pg_url)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("UPDATE stepscope_meta SET value = %s WHERE key = 'version'", (str(VERSION + 1),))
    with pytest.raises(StoreError, match="newer StepScope"):
        PostgresRunStore(pg_url)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("UPDATE stepscope_meta SET value = 'someone-else' WHERE key = 'application'")
    with pytest.raises(StoreError, match="another application"):
        PostgresRunStore(pg_url)
    with psycopg.connect(pg_url, autocommit=True) as conn:
        conn.execute("DROP TABLE stepscope_meta")
        conn.execute("CREATE TABLE stepscope_meta (x int)")
        conn.execute("DROP TABLE stepscope_snapshots, stepscope_steps, stepscope_blobs, stepscope_runs")
    with pytest.raises(StoreError, match="did not make"):
        PostgresRunStore(pg_url)
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT to_regclass('stepscope_runs')").fetchone()[0] is None


def test_a_server_that_is_not_there_gets_a_clear_message(pg_server):
    url = f"postgresql://postgres@127.0.0.1:{pg_server.port}/no_such_database"
    with pytest.raises(StoreError, match="cannot use the run database .*no_such_database"):
        PostgresRunStore(url)


WRITER = """
import sys
from debugger.stores.opening import open_store
from debugger.sources.runs import record
from sample_graphs import gallery

url, host, worker, count = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
store = open_store(url)
for n in range(count):
    name = ["subgraph_trap", "parallel_append_race", "fan_out_search"][n % 3]
    module = gallery.load_sample(name)
    trace = record(module.graph, module.example_input, dict(getattr(module, "example_config", None) or {}), name)
    trace.run_id = f"{host}-w{worker}-{n:02d}-{trace.run_id}"
    store.save(trace)
print("ok")
"""


def test_eight_processes_on_two_hosts_record_into_one_server_at_once(pg_server, pg_url, tmp_path):
    """Host A reaches the server over TCP, host B over its Unix socket; each host runs four writers,
    each with its own home folder, all started together."""
    per_writer = 5
    database = pg_url.rsplit("/", 1)[1]
    urls = {
        "hostA": pg_url,
        "hostB": f"postgresql://postgres@/{database}?host={pg_server.folder}&port={pg_server.port}",
    }
    procs = []
    for host, url in urls.items():
        for worker in range(4):
            home = tmp_path / host / str(worker)
            home.mkdir(parents=True)
            env = {**os.environ, "HOME": str(home), "HOSTNAME": host, "STEPSCOPE_DB": url, "PYTHONPATH": str(ROOT)}
            procs.append(
                subprocess.Popen(
                    [sys.executable, "-c", WRITER, url, host, str(worker), str(per_writer)],
                    cwd=ROOT,
                    env=env,
                    stdout=subprocess.PIPE,
                    stderr=subprocess.PIPE,
                    text=True,
                )
            )
    for proc in procs:
        out, err = proc.communicate(timeout=300)
        assert proc.returncode == 0, err[-3000:]
        assert out.strip() == "ok"
    store = PostgresRunStore(pg_url)
    runs = store.list(limit=1000)
    assert len(runs) == 8 * per_writer
    assert {r.run_id.split("-")[0] for r in runs} == {"hostA", "hostB"}
    for summary in runs:
        assert store.load(summary.run_id).run_id == summary.run_id


def test_the_cli_records_into_and_reads_from_the_server(pg_url, capsys):
    from debugger.cli import main

    assert main(["run", "parallel_append_race", "--db", pg_url]) == 0
    run_id = capsys.readouterr().out.split("run: ")[1].split()[0]
    assert main(["runs", "--db", pg_url]) == 0
    assert run_id[:12] in capsys.readouterr().out
    assert main(["show", run_id[:8], "--db", pg_url]) == 0
    assert f"run {run_id}" in capsys.readouterr().out
    assert main(["delete", run_id, "--db", pg_url]) == 0
    assert main(["show", run_id, "--db", pg_url]) == 2
    assert "no stored run" in capsys.readouterr().err


LANGGRAPH_APP = """
import operator
from typing import Annotated, TypedDict
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph


class S(TypedDict):
    log: Annotated[list, operator.add]

def step(state):
    return {"log": ["turn"]}

builder = StateGraph(S)
builder.add_node("step", step)
builder.add_edge(START, "step")
graph = builder.compile(checkpointer=InMemorySaver())
example_input = {"log": []}
"""


def test_langgraph_runs_go_to_the_server_and_their_thread_files_stay_local(pg_url, tmp_path, monkeypatch, capsys):
    from debugger.cli import main

    app = tmp_path / "lg_app.py"
    app.write_text(LANGGRAPH_APP)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.delenv("XDG_DATA_HOME", raising=False)
    monkeypatch.chdir(tmp_path)
    assert main(["run", f"{app}:graph", "--thread", "t1", "--db", pg_url]) == 0
    assert main(["run", f"{app}:graph", "--thread", "t1", "--db", pg_url]) == 0
    capsys.readouterr()
    runs = PostgresRunStore(pg_url).list()
    assert len(runs) == 2
    assert not any(p.name.startswith("postgres") for p in tmp_path.iterdir()), "no folder named after the URL"
    assert list((tmp_path / "home" / ".local" / "share" / "stepscope" / "langgraph-threads").glob("*.json"))


def test_the_turns_of_a_thread_are_listed_from_the_server(pg_url):
    from debugger.stores.opening import thread_runs

    store = PostgresRunStore(pg_url)
    for n, started in enumerate(["2026-01-01T10:00:00", "2026-01-01T09:00:00", "2026-01-01T11:00:00"]):
        trace = _trace()
        trace.run_id, trace.target, trace.started_at = f"turn-{n}", "my_app.py:graph", started
        trace.thread_id = "chat-1" if n < 2 else "chat-2"
        store.save(trace)
    turns = thread_runs("chat-1", "my_app.py:graph", db=pg_url)
    assert [t.run_id for t in turns] == ["turn-1", "turn-0"]  # oldest first
    assert thread_runs("chat-1", "other.py:graph", db=pg_url) == []


LAYOUT_V1 = (
    "CREATE TABLE stepscope_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    """CREATE TABLE stepscope_runs (
        run_id TEXT PRIMARY KEY CHECK (run_id <> ''), graph TEXT NOT NULL, target TEXT NOT NULL,
        started_at TEXT NOT NULL, status TEXT NOT NULL, steps INTEGER NOT NULL, error TEXT NOT NULL,
        trace TEXT NOT NULL, digest TEXT NOT NULL, thread_id TEXT NOT NULL DEFAULT '', saved BIGSERIAL NOT NULL
    )""",
    "CREATE INDEX stepscope_runs_by_graph ON stepscope_runs (graph, started_at)",
    "CREATE INDEX stepscope_runs_by_thread ON stepscope_runs (target, thread_id, started_at)",
    "CREATE INDEX stepscope_runs_by_time ON stepscope_runs (started_at, saved)",
    "INSERT INTO stepscope_meta VALUES ('application', 'stepscope'), ('version', '1')",
)


def test_a_version_1_store_is_migrated_and_every_run_reads_back_the_same(pg_url, tmp_path):
    """Version 1 (each whole trace in stepscope_runs.trace, written when the run ended): each run is
    split into its head and steps, reads back as before, can be re-imported as itself, and the store
    then records step by step."""
    from engine.blobs import BLOB_MIN

    done, big, cut_off = _trace("subgraph_trap"), _trace("parallel_append_race"), _trace("fan_out_search")
    big.input = {"doc": "x" * (BLOB_MIN * 2)}  # pooled in the file's blobs table
    cut_off.status, cut_off.steps = "running", cut_off.steps[:2]  # version 1 wrote its head only
    broken = ("broken-run", "g", "t", "2026-01-01", "done", 1, "", '{"schema_version": 1, "steps": [', "", "")
    with psycopg.connect(pg_url) as conn:
        for statement in LAYOUT_V1:
            conn.execute(statement)
        for trace in (done, big, cut_off):
            text = to_json(trace)
            row = (trace.run_id, trace.graph["name"], trace.target, trace.started_at, trace.status, 3, "", text)
            conn.execute(
                "INSERT INTO stepscope_runs (run_id, graph, target, started_at, status, steps, error, trace, "
                "digest, thread_id) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, '')",
                (*row, digest(text)),
            )
        conn.execute("INSERT INTO stepscope_runs VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)", broken)

    store = PostgresRunStore(pg_url)
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT value FROM stepscope_meta WHERE key = 'version'").fetchone()[0] == str(VERSION)
        assert conn.execute("SELECT count(*) FROM stepscope_steps").fetchone()[0] == sum(
            len(t.steps) for t in (done, big, cut_off)
        )
    for trace in (done, big):
        assert to_json(store.load(trace.run_id)) == to_json(trace)
        path = tmp_path / f"{trace.run_id}.json"
        path.write_text(to_json(trace))
        assert store.import_file(path) == trace.run_id  # the same run: no --replace needed
    reread = store.load(cut_off.run_id)
    assert [s.step for s in reread.steps] == [s.step for s in cut_off.steps] and reread.error["class"] == "RunCutOff"
    with pytest.raises(StoreError, match="broken-run.*stepscope delete broken-run"):
        store.load("broken-run")
    assert store.delete("broken-run") == "broken-run"
    assert PostgresRunStore(pg_url).list(status="done")[0].run_id in {done.run_id, big.run_id}  # opens again as is
    fresh = _trace()
    store.save(fresh)
    assert to_json(store.load(fresh.run_id)) == to_json(fresh)


def test_a_long_run_reads_its_rows_when_asked_and_opens_from_its_kept_states(pg_url, monkeypatch):
    """The kept states of tests/test_kept_states.py on the PostgreSQL store: saved with the run, read
    instead of a fold, written at first open where there were none, gone with the run."""
    from debugger.diagnostics import snapshots
    from debugger.diagnostics.replay import Replay
    from debugger.stores import row_store
    from tests.test_kept_states import CountingReads, _run

    monkeypatch.setattr(row_store, "STREAM_MIN_BYTES", 0)
    monkeypatch.setattr(snapshots, "MIN_GAP", 16)
    store = PostgresRunStore(pg_url)
    trace = _run(150)
    store.save(trace)
    with psycopg.connect(pg_url) as conn:
        kept = [
            p for (p,) in conn.execute("SELECT position FROM stepscope_snapshots WHERE run_id = %s", (trace.run_id,))
        ]
    assert len(kept) >= 3 and max(kept) == len(trace.steps) - 1
    plain = Replay(trace)
    loaded = store.load(trace.run_id)
    assert isinstance(loaded.steps.source.seqs, range) and list(loaded.steps.numbers) == [s.step for s in trace.steps]
    reads = CountingReads(loaded)
    replay = Replay(loaded)
    assert replay.state_after(replay.order[-1]) == plain.state_after(plain.order[-1])
    assert reads.positions == []
    assert all(replay.histories_after(n) == plain.histories_after(n) for n in reversed(plain.order))
    assert to_json(loaded) == to_json(trace)

    with psycopg.connect(pg_url) as conn:
        conn.execute("DELETE FROM stepscope_snapshots")  # a run stored by layout 2
    first = Replay(store.load(trace.run_id))
    first.state_after(first.order[-1])
    again = store.load(trace.run_id)
    reads = CountingReads(again)
    assert Replay(again).state_after(first.order[-1]) == plain.state_after(plain.order[-1])
    assert reads.positions == []
    store.delete(trace.run_id)
    with psycopg.connect(pg_url) as conn:
        assert conn.execute("SELECT count(*) FROM stepscope_snapshots").fetchone()[0] == 0

    import engine
    from debugger.sources.recording import StoreSink
    from engine.trace import Recorder
    from tests.test_kept_states import Chat

    g = engine.StateGraph(Chat)  # recorded into the store as it goes: its states are kept when it ends
    g.add_node("step", lambda s: {"n": s["n"] + 1, "log": [f"line {s['n']}"]})
    g.add_edge(engine.START, "step")
    g.add_conditional_edges("step", lambda s: "step" if s["n"] < 120 else engine.END)
    sink = StoreSink(store)
    recorder = Recorder(sink=sink)
    g.compile().invoke({"n": 0, "log": []}, {"recursion_limit": 130}, hooks=recorder)
    sink.finish(recorder.trace)
    run_id = recorder.trace.run_id
    with psycopg.connect(pg_url) as conn:
        kept = [p for (p,) in conn.execute("SELECT position FROM stepscope_snapshots WHERE run_id = %s", (run_id,))]
    stored = store.load(run_id)
    assert kept and max(kept) == len(stored.steps) - 1
    reads = CountingReads(stored)
    assert Replay(stored).state_after(stored.steps.numbers[-1])["n"] == 120
    assert reads.positions == []


def test_a_long_runs_output_is_stored_as_its_last_state_saved_or_recorded(pg_url, monkeypatch):
    """tests/test_stored_output.py on the PostgreSQL store: the output's blob row points at the run's state
    after its last step (saved whole, and recorded as it goes), and the run reads back the same."""
    from debugger.diagnostics import snapshots
    from debugger.sources.recording import StoreSink
    from debugger.stores import row_store
    from debugger.stores.final_state import STATE_POINTER
    from engine.trace import Recorder
    from tests.test_stored_output import _graph, _recorded

    monkeypatch.setattr(row_store, "STREAM_MIN_BYTES", 0)
    monkeypatch.setattr(snapshots, "MIN_GAP", 16)
    store = PostgresRunStore(pg_url)
    saved = _recorded(100)
    store.save(saved)
    sink = StoreSink(store)
    recorder = Recorder(sink=sink)
    _graph(100).invoke({"n": 0, "log": [], "last": []}, {"recursion_limit": 110}, hooks=recorder)
    sink.finish(recorder.trace)
    for run_id in (saved.run_id, recorder.trace.run_id):
        with psycopg.connect(pg_url) as conn:
            found = conn.execute("SELECT data FROM stepscope_blobs WHERE run_id = %s AND key <> '$rows'", (run_id,))
            rows = [data for (data,) in found]
        assert len(rows) == 1 and rows[0].startswith(STATE_POINTER)
    assert to_json(store.load(saved.run_id)) == to_json(saved)
    assert store.load(recorder.trace.run_id).output["n"] == 100
    assert len(store.load(recorder.trace.run_id).output["log"]) == 100
