"""Forking a recorded run at a step, and resuming an interrupted one (debugger/sources/runs/forks.py)."""

import operator
from typing import Annotated, TypedDict

import pytest

from debugger.diagnostics.replay import Replay
from debugger.sources.forks import ForkRequest, TimeTravelError, fork, resume
from engine import START, StateGraph, interrupt
from engine.trace import Recorder


def recorded(graph, graph_input, config=None):
    recorder = Recorder()
    try:
        graph.invoke(graph_input, config, hooks=recorder)
    except Exception:
        pass
    return recorder.trace


def test_fork_replaces_a_nodes_write_and_marks_the_steps_that_differ():
    from sample_graphs.subgraph_trap import example_input, graph

    original = recorded(graph, example_input)
    branch = fork(ForkRequest(graph, example_input, {}, original, 1, "p1", "log", ["EDITED"]))
    assert branch.replay_matches
    assert branch.trace.output == {"log": ["EDITED", "EDITED", "sub-1"]}
    assert branch.differing_steps == [1, 2]
    assert Replay(branch.trace).state_after(1) == {"log": ["EDITED"]}


def test_fork_with_the_same_value_changes_nothing():
    from sample_graphs.subgraph_trap import example_input, graph

    original = recorded(graph, example_input)
    branch = fork(ForkRequest(graph, example_input, {}, original, 1, "p1", "log", ["parent"]))
    assert branch.differing_steps == []


def test_fork_follows_the_chosen_nodes_edges():
    class S(TypedDict):
        n: int
        log: Annotated[list, operator.add]

    g = StateGraph(S)
    g.add_node("a", lambda s: {"n": 1, "log": ["a"]})
    g.add_node("big", lambda s: {"log": ["big"]})
    g.add_node("small", lambda s: {"log": ["small"]})
    g.add_edge(START, "a")
    g.add_conditional_edges("a", lambda s: "big" if s["n"] > 5 else "small", ["big", "small"])
    graph = g.compile()
    original = recorded(graph, {"n": 0, "log": []})
    assert original.output["log"] == ["a", "small"]
    branch = fork(ForkRequest(graph, {"n": 0, "log": []}, {}, original, 1, "a", "n", 10))
    assert branch.trace.output == {"n": 10, "log": ["a", "big"]}  # only `n` of a's write was replaced


def test_resume_an_interrupted_run_with_an_answer():
    class S(TypedDict):
        answer: str
        log: Annotated[list, operator.add]

    def ask(state):
        reply = interrupt("Approve?")
        return {"answer": reply, "log": ["asked"]}

    g = StateGraph(S)
    g.add_node("ask", ask)
    g.add_node("after", lambda s: {"log": [f"after:{s['answer']}"]})
    g.add_edge(START, "ask")
    g.add_edge("ask", "after")
    graph = g.compile()
    from engine import InMemorySaver  # an interrupt needs a checkpointer to be resumable

    paused = g.compile(checkpointer=InMemorySaver())
    original = recorded(paused, {"log": []}, {"configurable": {"thread_id": "t"}})
    assert original.status == "interrupted"
    branch = resume(graph, {"log": []}, {}, original, "yes")
    assert branch.trace.output == {"answer": "yes", "log": ["asked", "after:yes"]}


def test_bad_requests_name_the_fix():
    from sample_graphs.subgraph_trap import example_input, graph

    original = recorded(graph, example_input)
    with pytest.raises(TimeTravelError, match="needs the graph's code"):
        fork(ForkRequest(None, example_input, {}, original, 1, "p1", "log", []))
    with pytest.raises(TimeTravelError, match="not a node"):
        fork(ForkRequest(graph, example_input, {}, original, 1, "nope", "log", []))
    with pytest.raises(TimeTravelError, match="not a state key"):
        fork(ForkRequest(graph, example_input, {}, original, 1, "p1", "nope", []))
    with pytest.raises(TimeTravelError, match="no checkpoint before step 9"):
        fork(ForkRequest(graph, example_input, {}, original, 9, "p1", "log", []))
    with pytest.raises(TimeTravelError, match="Only an interrupted run"):
        resume(graph, example_input, {}, original, "x")


def test_a_run_that_never_ends_is_shown_as_far_as_it_got():
    import threading

    from debugger.sources.runs import record

    release = threading.Event()

    class S(TypedDict):
        log: Annotated[list, operator.add]

    g = StateGraph(S)
    g.add_node("quick", lambda s: {"log": ["quick"]})
    g.add_node("stuck", lambda s: (release.wait(30), {"log": ["late"]})[1])
    g.add_edge(START, "quick")
    g.add_edge("quick", "stuck")
    try:
        trace = record(g.compile(), {"log": []}, {}, "stuck-graph", timeout=0.5)
    finally:
        release.set()
    assert trace.status == "timeout" and trace.error["class"] == "RunTimeout"
    assert "did not finish within 0.5 s" in trace.error["message"]
    assert "while stuck ran" in trace.error["message"]
    assert Replay(trace).state_after(1) == {"log": ["quick"]}


def test_forking_one_writer_of_a_step_keeps_the_others_writes():
    from sample_graphs.fan_out_search import example_input, graph

    original = recorded(graph, example_input)
    branch = fork(ForkRequest(graph, example_input, {}, original, 2, "search_db", "results", ["db: EDITED"]))
    step = next(s for s in branch.trace.steps if s.step == 2)
    assert sorted(t.name for t in step.tasks) == ["search_db", "search_web"]
    results = Replay(branch.trace).state_after(2)["results"]
    assert "db: EDITED" in results and any(r.startswith("web:") for r in results), "search_web's write is kept"
    assert [c.step for c in branch.comparison][0] == 2, "the comparison starts at the fork"


def test_a_fork_refuses_a_value_its_reducer_cannot_take():
    from sample_graphs.subgraph_trap import example_input, graph

    original = recorded(graph, example_input)
    with pytest.raises(TimeTravelError, match=r"operator\.add cannot merge \"hello\" into 'log'"):
        fork(ForkRequest(graph, example_input, {}, original, 1, "p1", "log", "hello"))


def test_step_ranges_read_right():
    from debugger.sources.forks import ranges

    assert ranges([2]) == "step 2"
    assert ranges([2, 4]) == "steps 2 and 4"
    assert ranges(list(range(3, 250)) + [251]) == "steps 3-249 and 251"
