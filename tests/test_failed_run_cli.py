"""A run that failed or hung reads as such on the command line (newcomer QA): `diagnose` exits 1 and
names the step and node even with no finding, `show` names them and prints a step with no reducer calls,
an error message of several lines stays one line without a literal escape, and a stopped run says the
last step that committed, not a count of the steps it began.

The commands run in this process (`debugger.cli.main`, output captured): no process is started."""

from __future__ import annotations

import threading
from pathlib import Path
from typing import TypedDict

from debugger.cli import main
from debugger.model.trace_view import Scope, TraceView
from debugger.sources.recording import record_run
from engine import END, START, StateGraph
from engine.trace import StepRecord, TaskRecord, where_stopped
from engine.tracefile import to_json

HERE = Path(__file__)


class State(TypedDict):
    n: int


def _adds(state):
    return {"n": state["n"] + 1}


def _raises(state):
    raise ValueError("bad value for n\nsecond line of the message")


def chain(*nodes):
    """START -> each (name, action) in turn -> END."""
    builder = StateGraph(State)
    names = [START, *(name for name, _ in nodes), END]
    for name, action in nodes:
        builder.add_node(name, action)
    for source, target in zip(names, names[1:]):
        builder.add_edge(source, target)
    return builder.compile()


graph, fine = chain(("ok", _adds), ("boom", _raises)), chain(("ok", _adds))
example_input = {"n": 0}


def printed(capsys, args: list[str]) -> tuple[int, str]:
    code = main(args)
    out = capsys.readouterr()
    return code, out.out + out.err


def test_diagnose_fails_on_a_run_whose_node_raised_and_names_where(tmp_path, capsys):
    store = str(tmp_path / "runs.sqlite3")
    code, text = printed(capsys, ["diagnose", f"{HERE}:graph", "--db", store])
    assert code == 1, text
    assert "no findings" in text  # no reducer mistake: the failure itself is what fails the command
    assert "The run failed (error) in step 2, where boom raised: ValueError: bad value for n" in text


def test_show_names_the_failing_step_and_prints_a_step_without_reducer_calls(tmp_path, capsys):
    store, trace_file = str(tmp_path / "runs.sqlite3"), str(tmp_path / "run.json")
    assert printed(capsys, ["run", f"{HERE}:graph", "--db", store, "--out", trace_file])[0] == 1
    code, text = printed(capsys, ["show", trace_file])
    assert code == 0, text
    assert "error in step 2, where boom raised: ValueError: bad value for n second line of the message" in text
    assert "\\x0a" not in text
    code, text = printed(capsys, ["show", trace_file, "--step", "2"])
    assert "step 2: boom\nerror in boom: ValueError: bad value for n second line of the message" in text


def test_diagnose_of_a_run_that_finished_still_exits_0(tmp_path, capsys):
    store = str(tmp_path / "runs.sqlite3")
    code, text = printed(capsys, ["diagnose", f"{HERE}:fine", "--db", store])
    assert code == 0, text
    assert "(run status: done): no findings." in text and "The run failed" not in text


def _task(name: str) -> TaskRecord:
    return TaskRecord(id=name, name=name, path=[], triggers=[], fired=[], seen_versions={}, input=None)


def test_a_stopped_run_says_the_last_committed_step_and_what_still_ran():
    trace = record_run(graph, {"n": 0}, {}, target="t").trace
    committed = [s for s in trace.steps if s.committed]
    hung = StepRecord(step=committed[-1].step + 1, tasks=[_task("hang")], committed=False)
    trace.steps = [*committed, hung]
    assert where_stopped(trace) == f"after step {committed[-1].step}, while hang ran"
    trace.steps = [hung]  # the steps before it were handed to the run store
    assert where_stopped(trace, stored_up_to=committed[-1].step) == f"after step {committed[-1].step}, while hang ran"
    trace.steps = []
    assert where_stopped(trace) == "before its first superstep"


def _waits(state):
    RELEASE.wait(5)  # released by the test once the run timed out, so no thread outlives it
    return {}


RELEASE = threading.Event()


def test_a_timed_out_run_says_where_it_hung_and_opens_on_that_step():
    try:
        trace = record_run(chain(("ok", _adds), ("hang", _waits)), {"n": 0}, {}, target="t", timeout=0.3).trace
    finally:
        RELEASE.set()
    assert trace.status == "timeout"
    assert "stopped after step 1, while hang ran" in trace.error["message"]
    view = TraceView(trace, trace.graph).view(Scope())
    assert view.opening_step == 2 == view.last  # the step that hung, not the input step


def _good(state):
    return {"n": 7}


def test_a_siblings_write_in_a_step_where_a_node_raised_is_shown_as_discarded(tmp_path, capsys):
    builder = StateGraph(State)
    builder.add_node("good", _good)
    builder.add_node("boom", _raises)
    for name in ("good", "boom"):
        builder.add_edge(START, name)
        builder.add_edge(name, END)
    trace = record_run(builder.compile(), {"n": 0}, {}, target="t").trace
    view = TraceView(trace, trace.graph).view(Scope())
    assert view.merge(1) == [] and view.discarded_writes(1) == [("good", "n", 7)]
    trace_file = tmp_path / "par.json"
    trace_file.write_text(to_json(trace))
    code, text = printed(capsys, ["show", str(trace_file), "--step", "1"])
    assert "  good wrote n: 7 (discarded: the step failed)" in text, text


def test_compare_leaves_out_a_runtimes_own_error_channel():
    """langgraph records a raising task's error as a write to __error__ too; the engine does not. The
    `raised` row says the error in both, so the same graph on both runtimes compares the same."""
    import copy

    from debugger.model.compare import compare_runs

    engine_trace = record_run(graph, {"n": 0}, {}, target="t").trace
    langgraph_like = copy.deepcopy(engine_trace)
    raised = next(t for t in langgraph_like.steps[-1].tasks if t.error)
    raised.writes = [*raised.writes, ["__error__", {"$type": "error", "class": "ValueError"}]]
    assert compare_runs(engine_trace, langgraph_like, findings=False).agree
