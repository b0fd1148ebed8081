"""Diagnose on the graphs a new user wrote (issue 24, item 9): no warning where the code is right, and
a failing write named by the node that made it."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

import pytest

from debugger.diagnostics import diagnose, diagnose_graph
from debugger.diagnostics.facts import RunFacts
from debugger.sources.recording import record_run
from engine import END, START, Send, StateGraph


def run(graph, graph_input):
    return record_run(graph, graph_input, {}, target="test").trace


def kinds(findings) -> list[str]:
    return [f.kind for f in findings]


# ---- a subgraph reached only through Send ---------------------------------------------------------


class Research(TypedDict):
    topics: list[str]
    results: Annotated[list[str], operator.add]


class Worker(TypedDict):
    topic: str
    results: Annotated[list[str], operator.add]


def send_only_subgraph(payload):
    worker = StateGraph(Worker)
    worker.add_node("look_up", lambda s: {"results": [f"found {s['topic']}"]})
    worker.add_edge(START, "look_up")
    parent = StateGraph(Research)
    parent.add_node("plan", lambda s: {"results": ["plan"]})
    parent.add_node("research", worker.compile())
    parent.add_edge(START, "plan")
    parent.add_conditional_edges("plan", lambda s: [Send("research", payload(s, t)) for t in s["topics"]])
    parent.add_edge("research", END)
    return parent.compile()


def test_a_subgraph_started_by_send_with_its_own_list_is_not_said_to_re_append_the_parents():
    graph = send_only_subgraph(lambda s, t: {"topic": t, "results": []})
    assert "subgraph_duplication" not in kinds(diagnose_graph(graph))
    trace = run(graph, {"topics": ["owls", "bats"], "results": []})
    assert sorted(trace.output["results"]) == ["found bats", "found owls", "plan"]  # nothing came back twice
    assert not [f for f in diagnose(graph, trace) if f.kind in ("subgraph_duplication", "read_modify_write")]


def test_a_subgraph_sent_the_parents_whole_state_is_still_caught_in_the_run():
    graph = send_only_subgraph(lambda s, t: {**s, "topic": t})
    trace = run(graph, {"topics": ["owls"], "results": []})
    assert trace.output["results"] == ["plan", "plan", "found owls"]  # the parent's item came back
    assert [f for f in diagnose(graph, trace) if f.kind == "subgraph_duplication" and f.severity == "error"]


def test_a_subgraph_mounted_on_an_edge_is_still_warned_about_before_the_run():
    worker = StateGraph(Worker)
    worker.add_node("look_up", lambda s: {"results": ["x"]})
    worker.add_edge(START, "look_up")
    parent = StateGraph(Worker)
    parent.add_node("research", worker.compile())
    parent.add_edge(START, "research")
    assert "subgraph_duplication" in kinds(diagnose_graph(parent.compile()))


# ---- [] as "nothing to add" -----------------------------------------------------------------------


class Search(TypedDict):
    query: str
    hits: Annotated[list[str], operator.add]


def search_graph(node):
    builder = StateGraph(Search)
    builder.add_node("seed", lambda s: {"hits": ["first"]})
    builder.add_node("search", node)
    builder.add_edge(START, "seed")
    builder.add_edge("seed", "search")
    builder.add_edge("search", END)
    return builder.compile()


def search_nothing_new(state: Search) -> dict:
    return {"hits": [] if state["hits"] else [f"about {state['query']}"]}


def search_nothing_new_named(state: Search) -> dict:
    new = [f"about {state['query']}"] if not state["hits"] else []
    return {"hits": new}


def search_clears(state: Search) -> dict:
    return {"hits": []}


@pytest.mark.parametrize("node", [search_nothing_new, search_nothing_new_named])
def test_an_empty_list_meaning_nothing_to_add_is_not_called_a_failed_clear(node):
    graph = search_graph(node)
    trace = run(graph, {"query": "owls", "hits": []})
    assert "empty_list_clear" not in kinds(diagnose(graph, trace))


def test_a_literal_empty_list_written_to_clear_is_still_called_out():
    graph = search_graph(search_clears)
    trace = run(graph, {"query": "owls", "hits": []})
    assert "empty_list_clear" in kinds(diagnose(graph, trace))


# ---- why a task ran, when no channel fired for it ---------------------------------------------------


def test_a_task_no_channel_fired_for_is_explained_not_scheduled():
    graph = search_graph(search_nothing_new)
    trace = run(graph, {"query": "owls", "hits": []})
    step = next(s for s in trace.steps if any(t.name == "search" for t in s.tasks))
    task = next(t for t in step.tasks if t.name == "search")
    task.fired = []  # as a resumed run's first task reads: it was due before the recording began
    why = RunFacts(trace, ()).why(step.step, task)
    assert "scheduled" not in why
    assert why.startswith("seed finished") and why.endswith("it was still due"), why


# ---- a pydantic state that rejects a node's write -------------------------------------------------


def pydantic_graph():
    pydantic = pytest.importorskip("pydantic")

    class Counted(pydantic.BaseModel):
        count: int
        note: str = ""

    builder = StateGraph(Counted)
    builder.add_node("bad", lambda s: {"count": "lots"})
    builder.add_node("after", lambda s: {"note": "read"})
    builder.add_edge(START, "bad")
    builder.add_edge("bad", "after")
    builder.add_edge("after", END)
    return builder.compile()


def test_a_write_the_pydantic_state_rejects_is_named_by_the_node_that_wrote_it():
    from debugger.commands.run import superstep_rows
    from debugger.model.trace_view import Scope, TraceView

    graph = pydantic_graph()
    trace = run(graph, {"count": 1})
    assert trace.status == "error" and trace.error["class"] == "ValidationError"
    (finding,) = [f for f in diagnose(graph, trace) if f.kind == "rejected_write"]
    assert (finding.step, finding.node, finding.key) == (1, "bad", "count")
    assert finding.title == "bad wrote count = 'lots', which Counted rejects"
    view = TraceView(trace, graph).view(Scope())
    (report,) = view.errors(1)
    assert report.title == finding.title and report.culprits == ("bad",)
    assert view.timeline[1] == {"node": "bad", "0": "", "1": "✖"}, "the writer is marked as the cause"
    rows = superstep_rows(trace)
    assert rows[-1][-1].strip('"') == "ValidationError: bad wrote count = 'lots', which Counted rejects"
