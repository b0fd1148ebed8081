"""Time travel on a production thread runs on a local copy: the app's checkpointer is never written."""

from __future__ import annotations

import pytest
from apps import SCENARIOS, drive, interrupt_graph

from debugger.diagnostics.replay import Replay
from debugger.runtimes.checkpointers.savers import open_checkpointer
from debugger.runtimes.langgraph.threads.fork import fork_thread
from debugger.runtimes.threads_api import App, CheckpointerError

pytestmark = pytest.mark.slow  # starts PostgreSQL and runs real langgraph apps: `make test`, not `make check`


def _root_checkpoints(url, thread):
    with open_checkpointer(url) as checkpointer:
        return [t for t in checkpointer.history(thread) if t.config["configurable"]["checkpoint_ns"] == ""]


def test_resume_an_interrupted_production_thread_locally(backend, tmp_path):
    graph = interrupt_graph(backend.saver)
    drive(graph, [{"request": "refund", "log": []}], "waiting")
    before = backend.fingerprint()
    head = _root_checkpoints(backend.url, "waiting")[-1].config["configurable"]["checkpoint_id"]

    result = fork_thread(backend.url, "waiting", App("app", graph), head, resume="no", local=tmp_path / "fork.sqlite")

    assert result.error is None and result.trace.status == "done"
    final = Replay(result.trace).state_after(result.trace.steps[-1].step)
    assert final["decision"] == "no" and "decided no" in final["log"]
    assert backend.fingerprint() == before, "the production checkpointer must not change"
    with open_checkpointer(backend.url) as production:
        assert next(t for t in production.threads() if t.thread_id == "waiting").status == "interrupted"


def test_fork_an_earlier_step_with_an_edit(backend, tmp_path):
    graph, _ = SCENARIOS["fan_out"](backend.saver, "research")
    before = backend.fingerprint()
    roots = _root_checkpoints(backend.url, "research")
    after_plan = next(t for t in roots if t.metadata["step"] == 1).config["configurable"]["checkpoint_id"]

    result = fork_thread(
        backend.url,
        "research",
        App("app", graph),
        after_plan,
        values={"queries": ["sqlite only"]},
        as_node="plan",
        local=tmp_path / "fork.sqlite",
    )

    assert result.trace.status == "done" and not any(s.mismatches for s in result.trace.steps)
    final = Replay(result.trace).state_after(result.trace.steps[-1].step)
    assert final["queries"] == ["sqlite only"]
    assert final["findings"] == ["result for sqlite only"]  # the edit made as `plan` routed one Send
    assert final["summary"] == "1 findings"
    assert backend.fingerprint() == before
    with pytest.raises(CheckpointerError, match="exists already"):
        fork_thread(backend.url, "research", App("app", graph), after_plan, local=tmp_path / "fork.sqlite")
    with pytest.raises(CheckpointerError, match="no checkpoint 'nope'"):
        fork_thread(backend.url, "research", App("app", graph), "nope", local=tmp_path / "other.sqlite")


def test_a_fork_copy_that_fails_midway_leaves_no_file(tmp_path, monkeypatch):
    """The local copy is whole or not there: a copy the disk refuses part-way (SQLite's own error after
    some checkpoints were written) leaves no file at --out and no temporary file beside it."""
    import sqlite3

    from langgraph.checkpoint.sqlite import SqliteSaver

    from debugger.runtimes.langgraph.threads import fork

    source = tmp_path / "app.sqlite"
    conn = sqlite3.connect(source, check_same_thread=False)
    saver = SqliteSaver(conn)
    saver.setup()
    graph, _ = SCENARIOS["fan_out"](saver, "t")
    conn.close()
    copy = fork._copy_into

    def fills_up(path, *args):
        copy(path, *args)
        assert path.stat().st_size > 0, "the copy was under way"
        raise sqlite3.OperationalError("database or disk is full")

    monkeypatch.setattr(fork, "_copy_into", fills_up)
    head = _root_checkpoints(str(source), "t")[-1].config["configurable"]["checkpoint_id"]
    local = tmp_path / "out" / "fork.sqlite"
    with pytest.raises(CheckpointerError, match="database or disk is full; nothing was left there"):
        fork.copy_thread(str(source), "t", head, local)
    assert list(local.parent.iterdir()) == []
