"""The event reader alone (no node): events become records as the protocol says, and a committed value
the reducer calls do not explain is a `committed_mismatch` finding."""

from __future__ import annotations

from debugger.diagnostics import diagnose_trace
from debugger.runtimes.langgraphjs.reader import EventReader

GRAPH = {"name": "LangGraph", "nodes": [{"name": "a", "subgraph": False, "defer": False, "metadata": {}}], "edges": []}


def feed(reader: EventReader, *events: dict) -> None:
    for event in events:
        reader.feed(event)


def started() -> EventReader:
    reader = EventReader(target="app.mjs:graph", run_id="run-1")
    feed(
        reader,
        {"e": "hello", "langgraph": "1.7.3"},
        {"e": "graph", "gid": 1, "graph": GRAPH},
        {"e": "run", "run": 1, "parent_run": None, "ns": [], "gid": 1, "input": {"n": 0}, "config": {}},
        {"e": "commit", "run": 1, "step": -1, "versions": {"__start__": 1}, "updated": ["__start__"]},
        {"e": "task", "run": 1, "step": 1, "task": task("t1", "a")},
    )
    return reader


def task(task_id: str, name: str) -> dict:
    return {
        "id": task_id,
        "name": name,
        "path": ["__pregel_pull", name],
        "triggers": [f"branch:to:{name}"],
        "fired": [f"branch:to:{name}"],
        "seen_versions": {f"branch:to:{name}": 2},
        "input": {"$view": ["n"]},
    }


def call(after: dict) -> dict:
    return {
        "e": "call",
        "run": 1,
        "step": 1,
        "call": {
            "channel": "n",
            "reducer": "LastValue",
            "writer": "t1",
            "writer_name": "a",
            "write": 1,
            "before": {"same": True},
            "after": after,
        },
    }


def test_events_become_the_records_of_a_trace():
    reader = started()
    feed(
        reader,
        {
            "e": "task_done",
            "run": 1,
            "step": 1,
            "id": "t1",
            "writes": [["n", 1]],
            "result": {"$type": "same_as_writes"},
        },
        call({"set": 1}),
        {"e": "commit", "run": 1, "step": 1, "versions": {"n": 3}, "updated": ["n"]},
        {"e": "end", "run": 1, "status": "done", "output": {"n": 1}, "duration": 0.1},
        {"e": "result", "output": {"n": 1}},
        {"e": "an event from a newer recorder", "run": 1},
    )
    trace = reader.close(empty_run=lambda: None)
    assert (trace.graph["name"], trace.run_id, trace.status, trace.output) == (
        "app.mjs:graph",
        "run-1",
        "done",
        {"n": 1},
    )
    step = trace.steps[1]
    assert step.committed and step.versions == {"n": 3} and step.tasks[0].writes == [["n", 1]]
    assert [(c.index, c.writer_name, c.after) for c in step.reducer_calls] == [(0, "a", {"set": 1})]


def test_a_value_the_calls_do_not_explain_is_a_committed_mismatch_finding():
    reader = started()
    mismatch = {"channel": "n", "recorded": 1, "committed": 2}
    feed(
        reader,
        {"e": "task_done", "run": 1, "step": 1, "id": "t1", "writes": [["n", 1]]},
        call({"set": 1}),
        {
            "e": "commit",
            "run": 1,
            "step": 1,
            "versions": {"n": 3},
            "state": {"n": {"set": 2}},
            "mismatches": [mismatch],
        },
        {"e": "end", "run": 1, "status": "done", "output": {"n": 2}},
        {"e": "result", "output": {"n": 2}},
    )
    trace = reader.close(empty_run=lambda: None)
    assert trace.steps[1].mismatches == [mismatch]
    assert "committed_mismatch" in [f.kind for f in diagnose_trace(trace)]


def test_node_gone_mid_step_ends_the_run_with_the_committed_steps_kept():
    reader = started()
    trace = reader.close(
        stopped="timeout", why="The run did not finish within 1 s; stopped {where}.", empty_run=lambda: None
    )
    assert trace.status == "timeout"
    assert (
        trace.error["message"] == "The run did not finish within 1 s; stopped before its first superstep, while a ran."
    )
    assert [s.committed for s in trace.steps] == [True, False]
