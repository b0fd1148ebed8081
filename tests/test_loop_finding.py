"""The loop finding (issue 41, item 4): a run ended by its recursion limit, or stopped after many rounds of
one cycle, is told as the cycle's nodes, its route, the keys the route reads, which of them stopped
changing and since which step, with a fix in the app's own language."""

from __future__ import annotations

import dataclasses
import operator
import shutil
from pathlib import Path
from typing import Annotated, TypedDict

import pytest

from debugger.diagnostics import diagnose, diagnose_trace
from debugger.diagnostics.facts import runs
from debugger.diagnostics.loops import find_cycle
from debugger.sources.runs import record
from engine import END, START, StateGraph
from sample_graphs.gallery import load_sample

ROOT = Path(__file__).resolve().parents[1]


class Review(TypedDict):
    text: str
    approved: bool
    notes: Annotated[list, operator.add]


def review_loop(reviewer_approves_after: int | None = None):
    """draft -> review -> draft; `route` reads `approved`, which the scripted reviewer never changes."""

    def draft(state: Review) -> dict:
        return {"text": "a first draft"}

    def review(state: Review) -> dict:
        ok = reviewer_approves_after is not None and len(state["notes"]) >= reviewer_approves_after
        return {"approved": ok, "notes": ["needs more detail"]}

    def route(state: Review) -> str:
        return END if state["approved"] else "draft"

    builder = StateGraph(Review)
    builder.add_node("draft", draft)
    builder.add_node("review", review)
    builder.add_edge(START, "draft")
    builder.add_edge("draft", "review")
    builder.add_conditional_edges("review", route, ["draft", END])
    return builder.compile()


def _loop_findings(graph, graph_input, config=None, *, with_graph=True):
    trace = record(graph, graph_input, config, "review_loop")
    return trace, [f for f in diagnose(graph if with_graph else None, trace) if f.kind == "stuck_loop"]


def test_a_review_loop_at_its_recursion_limit_names_its_cycle_route_and_the_key_that_stopped_changing():
    trace, (finding,) = _loop_findings(review_loop(), {"approved": False}, {"recursion_limit": 12})
    assert trace.status == "recursion_limit"
    assert finding.severity == "error" and finding.nodes == ("draft", "review")
    assert finding.title == (
        "The loop draft → review → draft never ended: route reads 'approved', which stopped changing"
    )
    assert "From step 1 on, the run went round draft → review → draft 6 times" in finding.explanation
    assert "recursion limit (step 12)" in finding.explanation
    assert "The route route (after review) decides each round whether to go round again, from 'approved'" in (
        finding.explanation
    )
    assert "'approved' is written every round, and has stayed False since step 0" in finding.explanation
    assert finding.key == "approved" and finding.node == "review" and finding.step == 12
    assert "in review: write what route reads" in finding.fix
    assert [label for label, _ in finding.other_fixes][0] == "Count the rounds and stop after a few"
    assert finding.evidence[0]["key"] == "approved" and finding.evidence[0]["since"] == 0


def test_a_counter_that_is_overwritten_gets_the_additive_fix():
    sample = load_sample("endless_loop")
    trace = record(sample.graph, sample.example_input, sample.example_config, "endless_loop")
    (finding,) = [f for f in diagnose(sample.graph, trace) if f.kind == "stuck_loop"]
    assert finding.nodes == ("try_once",) and "try_once → try_once" in finding.title
    assert "'attempts' is written every round, and has stayed 1 since step 1" in finding.explanation
    assert finding.fix.startswith("attempts: Annotated[int, operator.add]")


def test_without_the_graphs_code_every_key_is_looked_at_and_the_stuck_ones_named():
    _, (finding,) = _loop_findings(review_loop(), {"approved": False}, {"recursion_limit": 12}, with_graph=False)
    assert (
        finding.title
        == "The loop draft → review → draft never ended: 'text' and 'approved' stopped changing while it went round"
    )
    assert "from 'approved'" not in finding.explanation  # the route's reads are not known without its source


def test_a_loop_that_ends_by_itself_is_no_finding():
    trace, found = _loop_findings(review_loop(reviewer_approves_after=3), {"approved": False}, {"recursion_limit": 50})
    assert trace.status == "done" and found == []


def test_a_run_stopped_from_outside_after_many_rounds_is_a_warning_and_a_few_rounds_are_nothing():
    trace = record(review_loop(), {"approved": False}, {"recursion_limit": 30}, "review_loop")
    stopped = dataclasses.replace(trace, status="timeout", error=None)
    (finding,) = [f for f in diagnose_trace(stopped) if f.kind == "stuck_loop"]
    assert finding.severity == "warning" and "before it was stopped (step 30)" in finding.explanation
    short = record(review_loop(), {"approved": False}, {"recursion_limit": 8}, "review_loop")
    assert [
        f for f in diagnose_trace(dataclasses.replace(short, status="timeout", error=None)) if f.kind == "stuck_loop"
    ] == []


def test_the_cycle_is_the_shortest_repeated_tail():
    trace = record(review_loop(), {"approved": False}, {"recursion_limit": 12}, "review_loop")
    (facts,) = list(runs(trace, None))
    cycle = find_cycle(facts, 3)
    assert (cycle.nodes, cycle.first_step, cycle.rounds, cycle.last_step) == (("draft", "review"), 1, 6, 12)


@pytest.mark.slow
@pytest.mark.skipif(
    shutil.which("node") is None or not (ROOT / "node_modules" / "@langchain" / "langgraph").exists(),
    reason="needs node and @langchain/langgraph in node_modules (`npm ci` at the repository root)",
)
def test_a_langgraphjs_review_loop_gets_the_finding_with_its_fix_in_javascript():
    from debugger.runtimes.langgraphjs import record_js_app

    app = str(ROOT / "tests" / "langgraphjs" / "apps" / "review_loop.mjs")
    trace = record_js_app(app, "graph", {"approved": False}, {"recursion_limit": 12}, timeout=60)
    assert trace.status == "recursion_limit", trace.status
    (finding,) = [f for f in diagnose_trace(trace) if f.kind == "stuck_loop"]
    assert finding.language == "javascript" and finding.nodes == ("draft", "review")
    assert "draft → review → draft never ended" in finding.title and "'approved'" in finding.title
    assert "return { approved: new_value };" in finding.fix and "Annotated" not in finding.fix
    counter = dict(finding.other_fixes)["Count the rounds and stop after a few"]
    assert "rounds: Annotation({ reducer: (a, b) => a + b, default: () => 0 })" in counter
    assert "if (state.rounds >= 3) {" in counter and "def " not in counter
    # its route named by its own function and the key it read as it ran, as a langgraph route's source tells
    assert (
        finding.title == "The loop draft → review → draft never ended: route reads 'approved', which stopped changing"
    )
    assert "function route(state) {" in counter


@pytest.mark.slow
def test_a_langgraph_review_loop_gets_the_same_finding():
    langgraph = pytest.importorskip("langgraph.graph")

    def draft(state: Review) -> dict:
        return {"text": "a first draft"}

    def review(state: Review) -> dict:
        return {"approved": False, "notes": ["needs more detail"]}

    def route(state: Review) -> str:
        return langgraph.END if state["approved"] else "draft"

    builder = langgraph.StateGraph(Review)
    builder.add_node("draft", draft)
    builder.add_node("review", review)
    builder.add_edge(langgraph.START, "draft")
    builder.add_edge("draft", "review")
    builder.add_conditional_edges("review", route, ["draft", langgraph.END])
    graph = builder.compile()
    trace, (finding,) = _loop_findings(graph, {"approved": False}, {"recursion_limit": 12})
    assert trace.status == "recursion_limit" and finding.nodes == ("draft", "review")
    assert (
        finding.title == "The loop draft → review → draft never ended: route reads 'approved', which stopped changing"
    )
    assert "'approved' is written every round, and has stayed False since step" in finding.explanation
