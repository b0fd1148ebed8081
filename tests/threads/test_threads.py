"""Threads of real langgraph apps, stored by langgraph's own SqliteSaver and PostgresSaver, opened in
StepScope: every superstep re-folds to the checkpointed values, the tasks and writes are the ones
langgraph reported live, and opening a thread never writes to the app's checkpointer."""

from __future__ import annotations

import sqlite3
from typing import Any, Iterator

import pytest
from apps import SCENARIOS, interrupt_app

from debugger.diagnostics import diagnose
from debugger.diagnostics.replay import Replay
from debugger.runtimes.checkpointers.savers import open_checkpointer
from debugger.runtimes.langgraph.recorder import recording
from debugger.runtimes.langgraph.threads.reader import read_thread
from debugger.runtimes.threads_api import CheckpointerError, ThreadRead
from engine.codec import encode
from engine.trace import RunRecord, Trace
from engine.tracefile import from_json, to_json

pytestmark = pytest.mark.slow  # starts PostgreSQL and runs real langgraph apps: `make test`, not `make check`

EXPECTED_STATUS = {"agent": "done", "fan_out": "done", "conflict": "error", "interrupt": "done"}


def runs(run: RunRecord) -> Iterator[RunRecord]:
    yield run
    for step in run.steps:
        for task in step.tasks:
            for sub in task.subgraphs:
                yield from runs(sub)


def state_writes(writes: list[Any], keys: set[str]) -> list[Any]:
    return [[c, v] for c, v in writes if c in keys]


def without_made_up_ids(value: Any) -> Any:
    """`value` without message ids. `add_messages` gives an id-less message a random id during the merge
    by setting it on the written object itself, and the saver serializes the write in the background
    (durability "async"), so a stored write has that id or not depending on timing; the live recorder
    encodes the write before the merge. Ids are compared through the state values instead."""
    if isinstance(value, list):
        return [without_made_up_ids(v) for v in value]
    if isinstance(value, dict):
        if value.get("$type") == "message":
            data = {k: v for k, v in value["message"]["data"].items() if k != "id"}
            return {**value, "message": {**value["message"], "data": data}}
        return {k: without_made_up_ids(v) for k, v in value.items()}
    return value


def compare_with_live(thread: Trace, live: list[Trace]) -> None:
    """Each superstep the live recorder recorded (the last time it ran: a step interrupted and then
    resumed is recorded by both runs) has the same tasks, writes and reducer calls in the thread."""
    assert live, "the live recorder recorded nothing"
    last: dict[tuple[tuple[str, ...], int], tuple[RunRecord, Any]] = {}
    for trace in live:
        for run in runs(trace):
            for step in run.steps:
                if step.tasks:
                    last[(tuple(run.ns), step.step)] = (run, step)
    mine = {(tuple(run.ns), step.step): (run, step) for run in runs(thread) for step in run.steps}
    for key, (live_run, live_step) in last.items():
        assert key in mine, f"step {key} is missing from the thread"
        run, step = mine[key]
        keys = set(run.graph["channels"])
        expected = {t.id: (t.name, without_made_up_ids(state_writes(t.writes, keys))) for t in live_step.tasks}
        got = {t.id: (t.name, without_made_up_ids(state_writes(t.writes, keys))) for t in step.tasks}
        assert got == expected, f"tasks of step {key}"
        calls = lambda r, n: [
            (
                c.channel,
                c.writer,
                c.writer_name,
                c.reducer,
                without_made_up_ids(c.write),  # noqa: E731
                without_made_up_ids(b),
                without_made_up_ids(a),
                (c.error or {}).get("class"),
            )
            for c, b, a in Replay(r).call_values(n)
        ]
        assert calls(run, step.step) == calls(live_run, live_step.step), f"reducer calls of step {key}"
        assert step.committed == live_step.committed or not live_step.committed


@pytest.mark.parametrize("scenario", sorted(SCENARIOS))
def test_a_stored_thread_refolds_to_its_checkpoints_and_matches_the_live_run(backend, scenario):
    with recording(db=False) as recorded:  # the live recorder watching langgraph's own run
        graph, live = SCENARIOS[scenario](backend.saver, "thread-1")
    before = backend.fingerprint()

    with open_checkpointer(backend.url) as checkpointer:
        listed = {t.thread_id: t for t in checkpointer.threads()}
        trace = read_thread(checkpointer, graph, ThreadRead("thread-1"))
        stored = checkpointer.history("thread-1")

    assert backend.fingerprint() == before, "opening a thread must never write to the app's checkpointer"
    with open_checkpointer(backend.url) as checkpointer, pytest.raises(Exception, match="(?i)read.?only"):
        checkpointer.conn.execute("DELETE FROM checkpoints")  # the connection itself refuses writes
    root = [t for t in stored if t.config["configurable"]["checkpoint_ns"] == ""]
    assert listed["thread-1"].checkpoints == len(root)
    assert trace.status == EXPECTED_STATUS[scenario]

    # every superstep's reducer calls re-fold to the checkpointed values
    by_ns = {}
    for saved in stored:
        by_ns.setdefault(saved.config["configurable"]["checkpoint_ns"], []).append(saved)
    for run in runs(trace):
        ns = "|".join(run.ns)
        assert all(not step.mismatches for step in run.steps), [s.mismatches for s in run.steps if s.mismatches]
        keys = set(run.graph["channels"])
        replay = Replay(run)
        checked = 0
        for saved in by_ns[ns]:
            step = saved.metadata["step"]
            values = saved.checkpoint["channel_values"]
            expected = {k: encode(v) for k, v in values.items() if k in keys}
            got = {k: v for k, v in replay.state_after(step).items() if k in values}
            assert got == expected, f"{scenario} ns={ns!r} step {step}"
            checked += 1
        assert checked == len(by_ns[ns])

    # the tasks, their writes and every reducer call are what the live recorder recorded of the same run
    compare_with_live(trace, recorded.traces)

    # it is a trace like any other: a file round trip, and diagnose
    assert to_json(from_json(to_json(trace))) == to_json(trace)
    findings = diagnose(None, trace)
    if scenario == "conflict":
        assert trace.error["class"] == "InvalidUpdateError"
        conflict = [f for f in findings if f.kind == "concurrent_update"]
        assert conflict and conflict[0].key == "status" and set(conflict[0].nodes) == {"approve", "fraud_check"}
        assert not trace.steps[-1].committed


def test_a_thread_waiting_at_an_interrupt_opens_as_interrupted(backend):
    from apps import drive

    graph, _ = interrupt_app(backend.saver, "warm-up")
    drive(graph, [{"request": "upgrade", "log": []}], "waiting")
    with open_checkpointer(backend.url) as checkpointer:
        summary = next(t for t in checkpointer.threads() if t.thread_id == "waiting")
        trace = read_thread(checkpointer, graph, ThreadRead("waiting"))
    assert summary.status == "interrupted"
    assert trace.status == "interrupted"
    last = trace.steps[-1]
    assert not last.committed
    by_name = {t.name: t for t in last.tasks}
    assert by_name["approval"].error["class"] == "GraphInterrupt"
    assert ["log", ["notify"]] in by_name["notify"].writes  # the sibling finished; its writes are kept


def test_threads_are_listed_newest_first(backend):
    from apps import drive, fan_out_app

    graph, _ = fan_out_app(backend.saver, "older")
    drive(graph, [{"topic": "x"}], "newer")
    with open_checkpointer(backend.url) as checkpointer:
        listed = checkpointer.threads()
    assert [t.thread_id for t in listed] == ["newer", "older"]
    assert [t.status for t in listed] == ["done", "done"]


def test_bad_checkpointers_get_clear_messages(tmp_path, pg_url):
    with pytest.raises(CheckpointerError, match="does not exist"):
        open_checkpointer(str(tmp_path / "missing.sqlite"))
    other = tmp_path / "other.sqlite"
    with sqlite3.connect(other) as conn:
        conn.execute("CREATE TABLE notes (x)")
    with pytest.raises(CheckpointerError, match="not a langgraph SqliteSaver database"):
        open_checkpointer(str(other))
    text = tmp_path / "text.sqlite"
    text.write_text("hello, not a database" * 100)
    with pytest.raises(CheckpointerError, match="not a SQLite database"):
        open_checkpointer(str(text)).threads()
    with pytest.raises(CheckpointerError, match="no langgraph PostgresSaver tables"):
        open_checkpointer(pg_url)
    with pytest.raises(CheckpointerError, match="cannot connect"):
        open_checkpointer(pg_url.rsplit("/", 1)[0] + "/no_such_db")


def test_an_unknown_thread_is_named(backend):
    graph, _ = SCENARIOS["fan_out"](backend.saver, "t")
    with open_checkpointer(backend.url) as checkpointer, pytest.raises(CheckpointerError, match="no thread 'nope'"):
        read_thread(checkpointer, graph, ThreadRead("nope"))


def test_a_graph_that_is_not_the_one_that_ran_shows_as_a_finding(backend):
    from apps import fan_out_graph

    graph, _ = SCENARIOS["fan_out"](backend.saver, "t")
    changed = fan_out_graph(None, findings_reducer=lambda old, new: new)  # "the code changed since"
    with open_checkpointer(backend.url) as checkpointer:
        trace = read_thread(checkpointer, changed, ThreadRead("t"))
        stored = {
            s.metadata["step"]: s.checkpoint["channel_values"]
            for s in checkpointer.history("t")
            if s.config["configurable"]["checkpoint_ns"] == ""
        }
    bad = [s for s in trace.steps if s.mismatches]
    assert bad and bad[0].step == 2 and bad[0].mismatches[0]["channel"] == "findings"
    assert bad[0].mismatches[0]["committed"] == encode(stored[2]["findings"])
    assert Replay(trace).state_after(2)["findings"] == encode(stored[2]["findings"])  # the views show what was stored
    found = [f for f in diagnose(None, trace) if f.kind == "committed_mismatch"]
    assert found and found[0].severity == "error" and found[0].key == "findings" and found[0].step == 2


def test_a_graph_of_another_app_is_refused_in_words(backend):
    from apps import conflict_graph

    SCENARIOS["agent"](backend.saver, "chat")
    with open_checkpointer(backend.url) as checkpointer:
        trace = read_thread(checkpointer, conflict_graph(None), ThreadRead("chat"))
    assert [t.name for t in trace.steps[2].tasks] == ["(unknown task)"]  # stored writes of a node it does not have
    found = [f for f in diagnose(None, trace) if f.kind == "committed_mismatch"]
    assert {"messages", "branch:to:agent"} <= {f.key for f in found}
