"""Issue 24, item 3: a task that called `interrupt()` asked for an answer; it did not fail. It is drawn
paused (⏸, class `paused`), never ✖, on the Live run page (while it asks and in its recorded step) and
on the step-through page, and the status line says it asked."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

from debugger.live import start_live_run
from debugger.live.status import LiveSnapshot
from debugger.model import live_page
from debugger.model.drawing import Highlight
from debugger.model.live_stepper import LiveModels
from debugger.model.trace_view import Scope, TraceView
from debugger.runtimes.registry import runtime_of
from debugger.runtimes.runtime import RunRequest
from engine import END, START, InMemorySaver, StateGraph, interrupt


class State(TypedDict):
    log: Annotated[list[str], operator.add]


def asking_builder() -> StateGraph:
    def approve(state: State) -> dict:
        return {"log": [f"answer: {interrupt('Approve the plan?')}"]}

    builder = StateGraph(State)
    builder.add_node("plan", lambda state: {"log": ["plan"]})
    builder.add_node("approve", approve)
    builder.add_edge(START, "plan")
    builder.add_edge("plan", "approve")
    builder.add_edge("approve", END)
    return builder


def test_a_live_task_that_asks_is_drawn_paused_and_the_status_line_says_it_asked() -> None:
    run = start_live_run(asking_builder().compile(), {"log": []}, target="asking", store=False)
    snap = run.wait_until(lambda s: s.status == "paused" and any(t.name == "approve" for t in s.running))
    try:
        line = live_page.status_line(snap)
        assert "approve ⏸ asked" in line and "✖" not in line
        nodes = live_nodes(snap, None)  # the stepper's step running now, the one it follows
        assert nodes["node_approve"] == "paused" and "failed" not in nodes.values()
    finally:
        run.stop()
        run.join(10)


def test_a_recorded_interrupt_is_paused_on_the_step_page_and_in_the_live_timeline() -> None:
    graph = asking_builder().compile(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "t"}}
    trace = runtime_of(graph).record(RunRequest(graph, {"log": []}, config, "asking")).trace
    assert trace.status == "interrupted"
    asked = next(s for s in trace.steps if any(t.name == "approve" for t in s.tasks))
    view = TraceView(trace, graph).view(Scope())
    assert view.highlight(asked.step).state_of("approve") == "paused"
    assert 'class="stepscope-node paused"' in view.dot(asked.step)
    shown = live_nodes(_finished(trace), asked.step)
    assert shown["node_approve"] == "paused" and "failed" not in shown.values()


def test_paused_outranks_ran_and_is_outranked_by_failed() -> None:
    assert Highlight(ran={"a"}, paused={"a"}).state_of("a") == "paused"
    assert Highlight(failed={"a"}, paused={"a"}).state_of("a") == "failed"


def _finished(trace) -> LiveSnapshot:
    return LiveSnapshot(version=1, status="interrupted", trace=trace)


def live_nodes(snap: LiveSnapshot, step: int | None) -> dict[str, str]:
    """The node states the Live run page's stepper shows at `step` (None: the newest, as it follows)."""
    model = LiveModels(snap.run_id).model(snap, None, step, svg_of=lambda dot: "")
    return model["window"]["steps"][model["at"] - model["window"]["offset"]]["nodes"]
