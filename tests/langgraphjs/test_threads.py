"""LangGraph.js checkpointer threads (`debugger/runtimes/langgraphjs/threads.py`, `thread_replay.mjs`): a thread
written by a real JS app on `@langchain/langgraph-checkpoint-sqlite` (and `-postgres`, on Debian's server
started here) is listed, then opened with the app's graph: each step rebuilt in node by LangGraph.js's own
planning and barrier, every reducer call recorded, the final state the one node committed; read-only; a
damaged or foreign database is one line."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest

from debugger.cli import main
from debugger.diagnostics.replay import Replay
from debugger.runtimes.checkpointers.open import fork_from_options, list_threads, load_app, open_thread
from debugger.runtimes.checkpointers.savers import open_checkpointer
from debugger.runtimes.langgraphjs import record_js_app
from debugger.runtimes.threads_api import CheckpointerError, ThreadRead

from .conftest import ROOT_MODULES, app

pytestmark = pytest.mark.slow

SAVER_APP = "thread_saver.mjs"
"""Parallel appends, a subgraph that returns its whole state, messages by id: on the app's own saver."""


@pytest.fixture
def js_savers(langgraph_js):
    """Skips when the JS saver packages are not installed at the repo root."""
    for name in ("langgraph-checkpoint-sqlite", "langgraph-checkpoint-postgres"):
        if not (ROOT_MODULES / "@langchain" / name).exists():
            pytest.skip(f"@langchain/{name} is not installed at the repo root: run `npm ci` there")
    return ROOT_MODULES


def run_app(name: str, where: str, monkeypatch, graph_input=None, thread="t1", **options):
    """The app run once by the recorder on its own saver at `where` (a file or a postgresql:// URL)."""
    monkeypatch.setenv("STEPSCOPE_TEST_THREADS", where)
    config = {"configurable": {"thread_id": thread}}
    return record_js_app(app(name), "graph", graph_input, config, timeout=60, **options)


def fingerprint(path: Path) -> dict[str, str]:
    """The database file and its write-ahead log, byte for byte (the shared-memory index excepted)."""
    return {
        p.name: hashlib.sha256(p.read_bytes()).hexdigest()
        for p in sorted(path.parent.iterdir())
        if p.name.startswith(path.name) and not p.name.endswith("-shm")
    }


def test_an_interrupted_sqlite_thread_opens_and_its_answer_from_a_later_process_too(
    js_savers, tmp_path, monkeypatch
) -> None:
    threads_file = tmp_path / "threads.db"
    asked = run_app("interrupt_sqlite.mjs", str(threads_file), monkeypatch, {}, thread="refund-17")
    assert asked.status == "interrupted"
    (listed,) = list_threads(str(threads_file))
    assert (listed.thread_id, listed.status, listed.checkpoints) == ("refund-17", "interrupted", 3)
    loaded = load_app(f"{app('interrupt_sqlite.mjs')}:graph")
    before = fingerprint(threads_file)
    trace = open_thread(str(threads_file), loaded, ThreadRead("refund-17"))
    assert fingerprint(threads_file) == before  # read-only: not a byte of the app's file changed
    assert (trace.status, trace.thread_id) == ("interrupted", "refund-17")
    assert [i["value"] for i in trace.interrupts] == [{"ask": "Refund order 17?"}]
    assert trace.interrupts[0]["node"] == "ask"
    assert [[t.name for t in s.tasks] for s in trace.steps] == [[], ["__start__"], ["prepare"], ["ask"]]
    (call,) = trace.steps[2].reducer_calls
    assert (call.channel, call.writer_name, call.reducer) == ("question", "prepare", "LastValue")
    answered = run_app("interrupt_sqlite.mjs", str(threads_file), monkeypatch, thread="refund-17", resume="yes")
    assert answered.status == "done"
    again = open_thread(str(threads_file), loaded, ThreadRead("refund-17"))
    assert again.status == "done" and again.run_id != trace.run_id  # a new head, a new run
    assert Replay(again).state_after(max(Replay(again).order)) == answered.output  # node's own final state
    resumed = next(c for s in again.steps for c in s.reducer_calls if c.channel == "answer")
    assert (resumed.writer_name, resumed.after) == ("ask", {"set": "yes"})


def test_parallel_writes_subgraphs_and_messages_are_rebuilt_as_node_committed_them(
    js_savers, tmp_path, monkeypatch
) -> None:
    where = tmp_path / "saver.sqlite"
    first = run_app(SAVER_APP, str(where), monkeypatch, example_input=True)
    second = run_app(SAVER_APP, str(where), monkeypatch, {"log": ["again"]})
    assert first.status == second.status == "done"
    trace = open_thread(str(where), load_app(f"{app(SAVER_APP)}:graph"), ThreadRead("t1"))
    replay = Replay(trace)
    assert trace.status == "done" and replay.state_after(max(replay.order)) == second.output
    assert not [m for s in trace.steps for m in s.mismatches]  # every step matched what node stored
    fan_out = next(s for s in trace.steps if [t.name for t in s.tasks] == ["a", "b"])
    # a finished last (it sleeps) but LangGraph.js applies writes in task order: a's first
    assert [(c.channel, c.writer_name) for c in fan_out.reducer_calls] == [
        ("log", "a"),
        ("log", "b"),
        ("messages", "b"),
    ]
    assert fan_out.reducer_calls[2].reducer == "messagesStateReducer"
    child = next(t for s in trace.steps for t in s.tasks if t.name == "child")
    (inner,) = child.subgraphs
    assert [t.name for s in inner.steps for t in s.tasks if t.name != "__start__"] == ["s1"]
    trap = next(c for s in trace.steps for c in s.reducer_calls if c.writer_name == "child" and c.channel == "log")
    assert trap.after["extend"] == ["start", "a", "b", "sub-1"]  # the subgraph's whole log, appended again
    assert open_thread(str(where), load_app(f"{app(SAVER_APP)}:graph"), ThreadRead("t1")).run_id == trace.run_id


def test_show_and_diagnose_open_a_thread_and_an_older_checkpoint_ends_it_there(
    js_savers, tmp_path, monkeypatch, capsys
) -> None:
    where = tmp_path / "saver.sqlite"
    run_app(SAVER_APP, str(where), monkeypatch, example_input=True)
    target = f"{app(SAVER_APP)}:graph"
    assert main(["show", target, "--checkpointer", str(where), "--thread", "t1"]) == 0
    shown = capsys.readouterr().out
    assert "messagesStateReducer" in shown and "child" in shown
    assert main(["diagnose", target, "--checkpointer", str(where), "--thread", "t1"]) in (0, 1)
    assert "subgraph" in capsys.readouterr().out.lower()  # the trap is found in the thread, as in a recording
    states = list(sqlite3.connect(where).execute("SELECT checkpoint_id FROM checkpoints WHERE checkpoint_ns = ''"))
    second = sorted(states)[1][0]  # after step 0: the input merged, a and b planned
    early = open_thread(str(where), load_app(target), ThreadRead("t1", second))
    assert early.status == "running" and max(s.step for s in early.steps) == 0


def test_a_damaged_checkpoint_and_a_foreign_database_are_one_line(js_savers, tmp_path, monkeypatch, capsys) -> None:
    where = tmp_path / "saver.sqlite"
    run_app(SAVER_APP, str(where), monkeypatch, example_input=True)
    with sqlite3.connect(where) as db:
        db.execute("UPDATE checkpoints SET checkpoint = X'7B6E6F74206A736F6E' WHERE checkpoint_ns = ''")
    target = f"{app(SAVER_APP)}:graph"
    with pytest.raises(CheckpointerError, match="damaged data") as refused:
        open_thread(str(where), load_app(target), ThreadRead("t1"))
    assert "\n" not in str(refused.value)
    foreign = tmp_path / "other.sqlite"
    sqlite3.connect(foreign).execute("CREATE TABLE notes (t TEXT)").connection.commit()
    assert main(["show", target, "--checkpointer", str(foreign), "--thread", "t1"]) == 2
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "is not a langgraph SqliteSaver database" in error
    assert "Traceback" not in error
    with pytest.raises(CheckpointerError, match="no thread 'nope'"):
        open_thread(str(where), load_app(target), ThreadRead("nope"))


@pytest.fixture(scope="module")
def pg_server():
    """Debian's PostgreSQL, started for this module on 127.0.0.1 (tests/threads/postgres_server.py)."""
    from threads.postgres_server import PostgresServer, find_binaries

    if find_binaries() is None:
        pytest.skip("PostgreSQL is not installed: `make test` installs it (apt-get install postgresql)")
    server = PostgresServer().start()
    try:
        yield server
    finally:
        server.stop()


def pg_fingerprint(url: str) -> dict[str, tuple]:
    """Every row of the saver's tables, hashed: what must not change when a thread is read."""
    import psycopg

    tables = ("checkpoints", "checkpoint_blobs", "checkpoint_writes", "checkpoint_migrations")
    with psycopg.connect(url) as conn:
        return {
            t: conn.execute(
                f"SELECT count(*), md5(coalesce(string_agg(x::text, '|' ORDER BY x::text), '')) FROM {t} x"
            ).fetchone()
            for t in tables
        }


def test_a_langgraphjs_postgres_thread_is_listed_and_opened_read_only(js_savers, pg_server, monkeypatch) -> None:
    url = pg_server.create_database("js_threads")
    done = run_app(SAVER_APP, url, monkeypatch, example_input=True)
    asked = run_app("interrupt_sqlite.mjs", url, monkeypatch, {}, thread="refund-17")
    assert done.status == "done" and asked.status == "interrupted"
    # LangGraph.js's own tables (schema migration 4), listed with SQL alone, newest first
    listed = [(t.thread_id, t.status, t.checkpoints, t.step) for t in list_threads(url)]
    assert listed == [("refund-17", "interrupted", 3, 1), ("t1", "done", 4, 2)]
    before = pg_fingerprint(url)
    trace = open_thread(url, load_app(f"{app(SAVER_APP)}:graph"), ThreadRead("t1"))
    newest = open_thread(url, load_app(f"{app(SAVER_APP)}:graph"), ThreadRead("t1", newest=1))  # one by one
    assert pg_fingerprint(url) == before  # read-only sessions: nothing written
    assert [s.step for s in newest.steps] == [s.step for s in trace.steps[-2:]] and newest.status == "done"
    assert [t.name for t in newest.steps[-1].tasks] == [t.name for t in trace.steps[-1].tasks] == ["child"]
    replay = Replay(trace)
    assert trace.status == "done" and replay.state_after(max(replay.order)) == done.output
    fan_out = next(s for s in trace.steps if [t.name for t in s.tasks] == ["a", "b"])
    assert [(c.channel, c.writer_name) for c in fan_out.reducer_calls] == [
        ("log", "a"),
        ("log", "b"),
        ("messages", "b"),
    ]
    assert not [m for s in trace.steps for m in s.mismatches]
    waiting = open_thread(url, load_app(f"{app('interrupt_sqlite.mjs')}:graph"), ThreadRead("refund-17"))
    assert waiting.status == "interrupted" and waiting.interrupts[0]["value"] == {"ask": "Refund order 17?"}
    with open_checkpointer(url) as checkpointer:  # what a Python app's thread reading asks first: refused
        with pytest.raises(CheckpointerError, match="LangGraph.js's PostgresSaver tables") as refused:
            checkpointer.history("t1")
    assert "\n" not in str(refused.value)


def test_time_travel_on_a_thread_runs_on_a_local_copy_with_an_answer_or_an_edit(
    js_savers, tmp_path, monkeypatch, capsys
) -> None:
    threads_file = tmp_path / "threads.db"
    run_app("interrupt_sqlite.mjs", str(threads_file), monkeypatch, {}, thread="refund-17")
    before = fingerprint(threads_file)
    target = f"{app('interrupt_sqlite.mjs')}:graph"
    answered, checkpoint = fork_from_options(
        target, str(threads_file), "refund-17", resume_json='"yes"', local=str(tmp_path / "fork.sqlite")
    )
    assert fingerprint(threads_file) == before  # the app's thread is still waiting, untouched
    assert answered.error is None and answered.trace.status == "done"
    assert Replay(answered.trace).state_after(max(Replay(answered.trace).order))["answer"] == "yes"
    assert (tmp_path / "fork.sqlite").is_file() and checkpoint.startswith("1")
    where = tmp_path / "saver.sqlite"
    run_app(SAVER_APP, str(where), monkeypatch, example_input=True)
    after_fan_out = sorted(
        sqlite3.connect(where).execute("SELECT checkpoint_id FROM checkpoints WHERE checkpoint_ns = ''")
    )
    edit = main(
        ["fork", f"{app(SAVER_APP)}:graph", "--checkpointer", str(where), "--thread", "t1", "--checkpoint",
         after_fan_out[2][0], "--update", '{"log": ["edited"]}', "--as-node", "b",
         "--out", str(tmp_path / "edit.sqlite")]
    )  # fmt: skip
    assert edit == 0, capsys.readouterr()
    edited = open_thread(str(tmp_path / "edit.sqlite"), load_app(f"{app(SAVER_APP)}:graph"), ThreadRead("t1"))
    final = Replay(edited).state_after(max(Replay(edited).order))
    assert final["log"] == ["start", "a", "b", "edited", "start", "a", "b", "edited", "sub-1"]  # the child ran again


def test_a_graph_that_is_not_the_one_that_wrote_the_thread_is_a_mismatch_and_the_stored_value_wins(
    js_savers, tmp_path, monkeypatch, capsys
) -> None:
    where = tmp_path / "saver.sqlite"
    written = run_app(SAVER_APP, str(where), monkeypatch, example_input=True)
    changed = load_app(f"{app(SAVER_APP)}:changed")  # its log reducer drops repeats
    trace = open_thread(str(where), changed, ThreadRead("t1"))
    (mismatch,) = [(s.step, m) for s in trace.steps for m in s.mismatches]
    assert mismatch[0] == 2 and mismatch[1]["channel"] == "log"  # the child's whole log, appended again
    replay = Replay(trace)
    assert replay.state_after(max(replay.order)) == written.output  # from there on the stored value is the truth
    main(["diagnose", f"{app(SAVER_APP)}:changed", "--checkpointer", str(where), "--thread", "t1"])
    report = capsys.readouterr().out
    assert "[committed_mismatch] 'log' after step 2" in report
    assert "in_place_mutation" not in report  # the stored value differing is the mismatch, not a node's edit


@pytest.mark.parametrize(
    ("export", "failed_in", "error_class"), [("graph", "boom", "TypeError"), ("conflict", "x", "InvalidUpdateError")]
)
def test_a_thread_that_failed_opens_with_langgraphjs_own_error_uncut(
    js_savers, tmp_path, monkeypatch, export, failed_in, error_class
) -> None:
    where = tmp_path / "failures.sqlite"
    monkeypatch.setenv("STEPSCOPE_TEST_THREADS", str(where))
    config = {"configurable": {"thread_id": export}}
    recorded = record_js_app(app("thread_failures.mjs"), export, {}, config, timeout=60)
    trace = open_thread(str(where), load_app(f"{app('thread_failures.mjs')}:{export}"), ThreadRead(export))
    assert trace.status == recorded.status == "error"
    assert (trace.error["class"], trace.error["message"]) == (error_class, recorded.error["message"])
    last = trace.steps[-1]
    assert failed_in in [t.name for t in last.tasks] and not last.committed
    if export == "conflict":  # the merge that failed, replayed: LangGraph.js's LastValue refuses the second write
        assert [(c.writer_name, c.error["class"]) for c in last.reducer_calls] == [
            ("x", "InvalidUpdateError"),
            ("y", "InvalidUpdateError"),
        ]
