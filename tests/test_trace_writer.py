"""The one trace writer (`engine/trace_writer.py`) used directly, as a runtime other than the engine
uses it: raw values from an observed runtime, and values that arrive encoded (LangGraph.js)."""

from __future__ import annotations

from typing import Any

from debugger.diagnostics.replay import Replay
from engine.codec import MISSING, TYPE
from engine.records import SAME, SAME_AS_WRITES, ReducerCallRecord, RunRecord
from engine.run_start import CHECKPOINT_KEYS, new_run, plain_config
from engine.trace_edits import join_segments, stepscope_error, update_step
from engine.trace_writer import TraceWriter


def _writer(**options: Any) -> TraceWriter:
    record = new_run(ns=[], graph={}, input={"log": []}, config={}, started_at="t0", trace=True, run_id="r")
    return TraceWriter(record, **options)


def _plan(writer: TraceWriter, step: int, task_id: str, node_input: Any) -> Any:
    return writer.plan_task(
        step,
        id=task_id,
        name="add",
        path=["__pregel_pull", "add"],
        triggers=["branch:to:add"],
        fired=["branch:to:add"],
        seen_versions={"branch:to:add": step},
        input=writer.input_view(node_input),
    )


def test_raw_values_become_a_trace_whose_deltas_replay_to_the_committed_state() -> None:
    writer = _writer(check_commits=True)
    writer.commit(-1, {"log": []}, {"log": 1}, ["log"])
    state: list[Any] = []
    for step in range(2):
        task = _plan(writer, step, f"t{step}", {"log": state})
        write = [step]
        writer.task_done(task, writes=[("log", write)], result={"log": write}, has_result=True, duration=0.5)
        after = state + write
        writer.add_call(step, "log", "operator.add", task.id, task.name, state, write, after)
        writer.commit(step, {"log": after}, {"log": step + 2}, ["log"])
        state = after
    trace = writer.finish("done", {"log": state})
    assert trace.status == "done" and trace.output == {"log": [0, 1]}
    one = trace.steps[2]
    assert one.tasks[0].input == {"$view": ["log"]}  # the node read the recorded state
    assert one.tasks[0].result == SAME_AS_WRITES and one.tasks[0].duration == 0.5
    assert (one.reducer_calls[0].before, one.reducer_calls[0].after) == (SAME, {"extend": [1]})
    assert one.versions == {"log": 3} and not one.mismatches and one.state == {}
    assert Replay(trace).state_after(1) == {"log": [0, 1]}


def test_a_committed_value_the_recorded_calls_do_not_give_is_a_mismatch() -> None:
    writer = _writer(check_commits=True)
    writer.commit(-1, {"log": []})
    writer.add_call(0, "log", "operator.add", "t0", "add", [], [1], [1])
    step = writer.commit(0, {"log": [1, 1]})
    assert step.mismatches == [{"channel": "log", "recorded": [1], "committed": [1, 1]}]
    assert step.state == {"log": {"extend": [1]}}  # and the committed value is the truth from here on


def test_values_that_arrive_encoded_are_kept_as_they_are() -> None:
    writer = _writer()
    message = {TYPE: "message", "message": {"type": "human", "data": {"content": "hi"}}}
    task = _plan(writer, 0, "t0", {})
    writer.task_done(task, writes=[("messages", [message])], result=None, has_result=True, encoded=True)
    writer.add_call_record(
        0, ReducerCallRecord(0, "messages", "add_messages", "t0", "add", [message], {"set": []}, {"extend": [message]})
    )
    step = writer.commit_encoded(0, {"other": {"set": 1}}, {"messages": 2}, ["messages"])
    trace = writer.finish("done", {"messages": [message]}, encoded=True)
    assert task.writes == [["messages", [message]]]  # not escaped as a dict that looks like an encoding
    assert step.committed and step.state == {"other": {"set": 1}} and step.versions == {"messages": 2}
    assert trace.output == {"messages": [message]}


def test_a_sink_takes_each_step_once_the_next_opens_and_the_rest_at_the_end() -> None:
    taken: list[list[int]] = []

    class Sink:
        def flush(self, record: RunRecord) -> None:
            taken.append([s.step for s in record.steps])
            record.steps.clear()

    writer = _writer(sink=Sink())
    for step in range(3):
        writer.commit(step, {"log": [step]})
    assert taken == [[0], [1]]
    writer.finish("done")
    assert taken == [[0], [1], [2]]


def test_a_subgraph_run_is_nested_in_the_task_that_started_it() -> None:
    writer = _writer()
    task = _plan(writer, 0, "t0", {})
    child = writer.subrun(task, new_run(ns=["add:t0"], graph={}, input=None, config={}, started_at="t1"))
    child.commit(0, {"x": MISSING})
    assert task.subgraphs == [child.record] and child.record.steps[0].committed


def test_one_plain_config_says_what_a_trace_keeps_of_a_config() -> None:
    config = {
        "callbacks": [object()],
        "metadata": {"langgraph_step": 2},
        "recursion_limit": 10,
        "tags": [],
        "configurable": {"thread_id": "t", "checkpoint_ns": "", "checkpoint_id": "c", "__pregel_send": print},
    }
    assert "callbacks" not in plain_config(config) and plain_config(config)["metadata"] == {"langgraph_step": 2}
    assert plain_config(config, given_only=True) == {
        "recursion_limit": 10,
        "configurable": {"thread_id": "t", "checkpoint_ns": "", "checkpoint_id": "c"},
    }
    assert plain_config(config, CHECKPOINT_KEYS) == {
        "configurable": {"thread_id": "t", "checkpoint_ns": "", "checkpoint_id": "c"}
    }
    assert plain_config(None) is None


def test_a_config_shows_only_the_recursion_limit_the_user_set() -> None:
    class FilledInDefault(int):  # langgraph's `ensure_config` marks the limit it fills in with an int subclass
        pass

    assert plain_config({"recursion_limit": FilledInDefault(10007)}, given_only=True) == {}
    assert plain_config({"recursion_limit": 10007}, given_only=True) == {"recursion_limit": 10007}


def test_edits_add_an_update_step_and_join_a_runs_segments() -> None:
    first, second = _writer(), _writer()
    first.commit(0, {"log": [0]})
    first.finish("interrupted")
    second.commit(0, {"log": [0]})  # a resumed segment reloads the checkpoint the last one ended on
    second.commit(1, {"log": [0, 1]})
    second.finish("done", {"log": [0, 1]})
    edit = update_step(1, "add", [("log", "operator.add", [9])], {"log": [0, 9]}, {"checkpoint_id": "c"})
    joined = join_segments([first.record, second.record], [edit], final=True, run_id="live", target="app")  # type: ignore[list-item]
    assert [(s.step, s.kind) for s in joined.steps] == [(0, "loop"), (1, "update"), (1, "loop")]
    assert joined.status == "done" and joined.run_id == "live"
    assert edit.reducer_calls[0].writer == "edit:add" and edit.reducer_calls[0].after == {"set": [0, 9]}
    assert stepscope_error("RunCancelled", "stopped")["class"] == "RunCancelled"


def test_records_built_with_every_field_given_hold_the_defaults() -> None:
    """`open_step` and the Recorder's `build_planned` give every field in order (no default factory is
    called): a field added to `StepRecord` or `TaskRecord` must be given there too."""
    from engine.records import StepRecord, TaskRecord
    from engine.trace_events import Encode, build_planned

    writer = _writer()
    assert writer.open_step(3) == StepRecord(3)
    assert writer.open_step(4, "update") == StepRecord(4, kind="update")
    event = (build_planned, 4, "t1", "add", ("__pregel_pull", "add"), ("a",), ("a",), Encode(1), {"a": 1})
    build_planned(writer, event)
    assert writer.tasks_by_id["t1"] == TaskRecord("t1", "add", ["__pregel_pull", "add"], ["a"], ["a"], {"a": 1}, 1)
