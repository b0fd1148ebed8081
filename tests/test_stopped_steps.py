"""A step the run stopped in (Stop in a live run, Ctrl-C, a time limit, a cut-off recording, a langgraph
stream its caller stopped reading) never committed: the tasks that had not finished are drawn ⏹
"never finished", not ▶ "ran" nor ✖ "caused a failure", and the summary says so."""

from __future__ import annotations

import copy
import gc
import operator
from dataclasses import replace
from typing import Annotated, TypedDict

import pytest
from streamlit.testing.v1 import AppTest

from debugger.live.ending import stopped_step
from debugger.model.trace_view import Scope, TraceView
from debugger.sources import runs as sources
from debugger.stores.sqlite import RunStore
from tests import stepper_shown
from tests.test_app import APP, node_state

pytestmark = pytest.mark.usefixtures("fresh_store")  # tests/conftest.py


def stopped_in_the_parallel_step():
    """slow_research stopped while search_docs still ran (search_web had finished), as Stop leaves it."""
    trace = copy.deepcopy(sources.open_sample("slow_research", store=False).trace)
    index = next(i for i, s in enumerate(trace.steps) if {t.name for t in s.tasks} == {"search_web", "search_docs"})
    record = trace.steps[index]
    docs = next(t for t in record.tasks if t.name == "search_docs")
    unfinished = replace(docs, result=None, writes=[], duration=0.0)
    record = replace(record, tasks=[unfinished if t is docs else t for t in record.tasks])
    trace.steps = [*trace.steps[:index], stopped_step(record, {docs.id})]
    trace.status, trace.output = "cancelled", None
    return trace, record.step


def test_a_task_the_stop_cut_short_is_drawn_stopped_and_its_finished_sibling_ran():
    trace, step = stopped_in_the_parallel_step()
    view = TraceView(trace).view(Scope())
    highlight = view.highlight(step)
    assert highlight.stopped == {"search_docs"}
    assert highlight.ran == {"search_web"}
    assert highlight.failed == set(), "being stopped is not causing a failure"
    row = next(r for r in view.timeline if r["node"] == "search_docs")
    assert row[str(step)] == "⏹"


@pytest.mark.slow  # reads the drawing graphviz's `dot` process laid out
def test_the_step_page_says_which_task_never_finished(fresh_store):
    trace, step = stopped_in_the_parallel_step()
    RunStore(str(fresh_store)).save(trace)
    at = AppTest.from_file(APP, default_timeout=30)
    at.query_params.update({"run": trace.run_id, "step": str(step)})
    at.run()
    assert not at.exception, at.exception
    texts = [text for _, text in stepper_shown.summary(at)]
    assert (
        f"In step {step}, search_web ran; search_docs never finished: the run stopped first, so the "
        "step never committed." in texts
    ), texts
    assert node_state(at, "search_docs") == "stopped" and node_state(at, "search_web") == "ran"


def test_a_langgraph_stream_left_early_draws_its_unrun_step_as_never_finished():
    pytest.importorskip("langgraph")
    from langgraph.graph import END, START, StateGraph

    from debugger.runtimes.langgraph.recorder import recording

    class State(TypedDict):
        log: Annotated[list[str], operator.add]

    g = StateGraph(State)
    for name in "ab":
        g.add_node(name, lambda state, name=name: {"log": [name]})
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("b", END)
    with recording(db=False) as session:
        for _chunk in g.compile().stream({"log": []}):
            break
        gc.collect()
    (trace,) = session.traces
    view = TraceView(trace).view(Scope())
    assert view.highlight(view.last).stopped == {"b"} and view.highlight(view.last).ran == set()


def test_stop_in_a_live_run_marks_the_hanging_task_never_finished_and_its_sibling_ran(tmp_path):
    import threading

    from debugger.live import start_live_run
    from tests.test_interrupt_marks import live_nodes
    from tests.test_live import INPUT, pipeline

    gate = threading.Event()
    db = tmp_path / "runs.sqlite3"
    run = start_live_run(pipeline(gate=gate).compile(), dict(INPUT), target="pipeline", db=str(db))
    try:
        run.wait_until(lambda s: any(t.name == "b" and t.state == "running" for t in s.running))
        run.wait_until(lambda s: any(t.name == "c" and t.state == "done" for t in s.running))
        final = run.stop()
    finally:
        gate.set()
    stopped = final.trace.steps[-1]
    assert stopped.step == 2 and not stopped.committed
    nodes = live_nodes(final, stopped.step)  # as the Live run page's stepper shows the step
    assert (nodes["node_b"], nodes["node_c"]) == ("stopped", "ran") and "failed" not in nodes.values()
    view = TraceView(RunStore(db).load(final.run_id)).view(Scope())
    light = view.highlight(2)
    assert (light.stopped, light.ran, light.failed) == ({"b"}, {"c"}, set())
    assert view.culprits(2) == set()
    # the sibling that finished keeps what it wrote and its time (never applied: the step did not commit)
    by_name = {t.name: t for t in RunStore(db).load(final.run_id).steps[-1].tasks}
    assert ["log", ["c"]] in by_name["c"].writes and by_name["c"].duration > 0
    assert by_name["b"].writes == []
