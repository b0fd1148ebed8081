"""A step's file form leaves out what the rest of the step says (schema 3, issue 43 item 1), and every
reader puts it back: the file and the run database grow by what each step adds. Files of schema 2 (the
golden trace as it was recorded before) still load, checked, to the same Trace."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import engine
from debugger.sources.trace_check import parse_trace
from engine.records import SAME
from engine.trace import Recorder
from engine.tracefile import from_dict, from_json, to_dict, to_json
from tests.test_golden import GOLDEN, recorded

OLD_GOLDEN = GOLDEN.with_name("subgraph_trap_schema2.json")


def _messages_trace(steps: int) -> engine.trace.Trace:
    sys.path.append(str(Path(__file__).resolve().parents[1] / "benchmarks"))
    from workloads import build_messages

    graph, graph_input, config = build_messages(engine, steps)
    recorder = Recorder()
    graph.invoke(graph_input, config, hooks=recorder)
    return recorder.trace


def test_a_schema_2_file_loads_checked_to_the_trace_a_schema_3_file_gives() -> None:
    old = json.loads(OLD_GOLDEN.read_text(encoding="utf-8"))
    assert old["schema_version"] == 2 and "writer" in old["steps"][1]["reducer_calls"][0]
    new = recorded()
    assert new["schema_version"] == 3 and "writer" not in new["steps"][1]["reducer_calls"][0]
    old_trace = parse_trace(json.dumps(old))
    new_trace = parse_trace(json.dumps(new))
    old_trace.schema_version = new_trace.schema_version
    assert old_trace == new_trace
    assert old_trace.steps[1].reducer_calls[0].writer == old["steps"][1]["reducer_calls"][0]["writer"]


def test_a_long_runs_steps_leave_out_their_bookkeeping_and_load_back_whole() -> None:
    trace = _messages_trace(30)
    data = to_dict(trace)
    step = data["steps"][10]
    (call,) = step["reducer_calls"]
    (task,) = step["tasks"]
    assert {"index", "before", "writer"}.isdisjoint(call) and call["writer_name"] == "speak"
    assert {"path", "fired"}.isdisjoint(task)
    loaded = from_json(to_json(trace))
    assert loaded == trace
    loaded_call = loaded.steps[10].reducer_calls[0]
    assert (loaded_call.index, loaded_call.before, loaded_call.writer) == (0, SAME, loaded.steps[10].tasks[0].id)
    assert loaded.steps[10].tasks[0].path == ["__pregel_pull", "speak"]


def test_two_tasks_of_one_name_keep_their_writer_ids() -> None:
    trace = _messages_trace(3)
    step = trace.steps[2]
    twin = type(step.tasks[0])(**{**{f: getattr(step.tasks[0], f) for f in step.tasks[0].__slots__}, "id": "twin"})
    step.tasks.append(twin)
    step.reducer_calls.append(
        type(step.reducer_calls[0])(1, "messages", "add_messages", "twin", twin.name, [], SAME, SAME)
    )
    data = to_dict(trace)
    calls = data["steps"][2]["reducer_calls"]
    assert [c["writer"] for c in calls] == [step.tasks[0].id, "twin"] and "writer_name" not in calls[0]
    assert from_dict(json.loads(json.dumps(data))) == trace
