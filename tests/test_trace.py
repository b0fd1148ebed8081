"""The Trace: what is recorded, that history cannot change, that files round-trip and fail clearly."""

import json
import operator
import time
from typing import Annotated, TypedDict

import pytest

from engine import START, AIMessage, MessagesState, StateGraph
from engine.codec import Recorded, decode, encode
from engine.message_reducer import set_id_factory
from engine.trace import SCHEMA_VERSION, Recorder, Trace
from engine.tracefile import TraceFileError, from_json, to_json


class Log(TypedDict):
    log: Annotated[list, operator.add]
    v: int


def record(graph, graph_input, config=None, **kw):
    recorder = Recorder(run_id="run-1", clock=lambda: "2026-01-01T00:00:00+00:00", **kw)
    try:
        graph.invoke(graph_input, config, hooks=recorder)
    except Exception:
        pass
    return recorder.trace


def fan_in():
    g = StateGraph(Log)
    g.add_node("a", lambda s: {"log": ["a"]})
    g.add_node("b", lambda s: {"log": ["b"]})
    g.add_node("c", lambda s: {"log": ["c"], "v": len(s["log"])})
    g.add_edge(START, "a")
    g.add_edge(START, "b")
    g.add_edge(["a", "b"], "c")
    return g.compile()


def test_trace_has_every_superstep_task_and_reducer_call():
    trace = record(fan_in(), {"log": ["in"]})
    assert trace.status == "done" and trace.error is None
    assert [s.step for s in trace.steps] == [-1, 0, 1, 2]
    step1 = trace.steps[2]
    assert [t.name for t in step1.tasks] == ["a", "b"]
    assert [(c.channel, c.writer_name, c.write) for c in step1.reducer_calls] == [
        ("log", "a", ["a"]),
        ("log", "b", ["b"]),
    ]
    assert (
        step1.tasks[0].fired == ["branch:to:a"]
        and step1.tasks[0].input == {"$view": ["log", "v"]}
        or step1.tasks[0].input == {"$view": ["log"]}
    )
    assert trace.output == {"log": ["in", "a", "b", "c"], "v": 3}


def test_graph_description_lists_nodes_edges_waiting_edges_and_reducers():
    trace = record(fan_in(), {"log": []})
    graph = trace.graph
    assert [n["name"] for n in graph["nodes"]] == ["a", "b", "c"]
    assert graph["waiting_edges"] == [[["a", "b"], "c"]]
    assert graph["channels"]["log"] == {"kind": "BinaryOperatorAggregate", "reducer": "operator.add"}
    assert graph["channels"]["v"]["kind"] == "LastValue"
    assert {e["source"] for e in graph["drawing"]["edges"]} >= {"__start__", "a", "b", "c"}


def test_in_place_mutation_after_recording_does_not_change_history():
    kept = []

    def a(state):
        kept.append(state["log"])  # the step-1 input list, recorded as the state after step 0
        return {"log": ["a"]}

    def b(state):
        kept[0].append("MUTATED")  # no longer the live value: only history could be hurt
        return {"v": 1}

    g = StateGraph(Log)
    g.add_node("a", a)
    g.add_node("b", b)
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    trace = record(g.compile(), {"log": ["in"]})
    from debugger.diagnostics.replay import Replay

    replay = Replay(trace)
    assert kept[0] == ["in", "MUTATED"]
    assert replay.state_after(0) == {"log": ["in"]}
    assert replay.state_after(2) == {"log": ["in", "a"], "v": 1}


def test_mutating_the_live_state_is_recorded_as_a_change_outside_the_reducers():
    def b(state):
        state["log"].append("MUTATED")  # the live channel value: LangGraph keeps this change
        return {"v": 1}

    g = StateGraph(Log)
    g.add_node("a", lambda s: {"log": ["a"]})
    g.add_node("b", b)
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    trace = record(g.compile(), {"log": ["in"]})
    from debugger.diagnostics.replay import Replay

    replay = Replay(trace)
    assert replay.state_after(1) == {"log": ["in", "a"]}
    assert replay.state_after(2) == {"log": ["in", "a", "MUTATED"], "v": 1}
    assert trace.steps[-1].state == {"log": {"extend": ["MUTATED"]}}
    origins = replay.provenance(2, "log")
    assert origins[2].call_index is None and origins[1].task == "a"


def test_recorded_input_and_result_are_snapshots():
    shared = {"items": [1]}

    def node(state):
        return {"log": [shared]}

    g = StateGraph(Log)
    g.add_node("n", node)
    g.add_edge(START, "n")
    recorder = Recorder()
    g.compile().invoke({"log": []}, hooks=recorder)
    shared["items"].append(2)
    (task,) = recorder.trace.steps[-1].tasks
    assert task.writes[0] == ["log", [{"items": [1]}]]


def test_unencodable_values_are_kept_as_repr_with_their_type():
    class Opaque:
        def __repr__(self):
            return "<Opaque 7>"

    g = StateGraph(Log)
    g.add_node("n", lambda s: {"v": Opaque()})
    g.add_edge(START, "n")
    trace = record(g.compile(), {"log": []})
    write = trace.steps[-1].tasks[0].writes[0][1]
    assert write["$type"] == "repr" and write["repr"] == "<Opaque 7>" and write["class"].endswith("Opaque")
    assert isinstance(decode(write), Recorded)
    json.dumps(json.loads(to_json(trace)))  # still valid JSON


def test_errors_are_recorded_with_status_and_traceback():
    def boom(state):
        raise RuntimeError("kaput")

    g = StateGraph(Log)
    g.add_node("ok", lambda s: {"log": ["ok"]})
    g.add_node("boom", boom)
    g.add_edge(START, "ok")
    g.add_edge(START, "boom")
    trace = record(g.compile(), {"log": []})
    assert trace.status == "error" and trace.error["class"] == "RuntimeError"
    failed = trace.steps[-1]
    assert not failed.committed
    boom_task = next(t for t in failed.tasks if t.name == "boom")
    assert "kaput" in boom_task.error["traceback"] and boom_task.error["notes"][0].startswith(
        "During task with name 'boom'"
    )
    ok_task = next(t for t in failed.tasks if t.name == "ok")
    assert ok_task.writes == [["log", ["ok"]]]  # the sibling's writes are kept, though never applied


def test_concurrent_update_records_both_refused_writes():
    g = StateGraph(Log)
    g.add_node("x", lambda s: {"v": 1})
    g.add_node("y", lambda s: {"v": 2})
    g.add_edge(START, "x")
    g.add_edge(START, "y")
    trace = record(g.compile(), {"log": []})
    calls = trace.steps[-1].reducer_calls
    assert [(c.writer_name, c.write, c.error is not None) for c in calls] == [("x", 1, True), ("y", 2, True)]
    assert "INVALID_CONCURRENT_GRAPH_UPDATE" in trace.error["message"]


def test_recursion_limit_status():
    g = StateGraph(Log)
    g.add_node("spin", lambda s: {"v": 1})
    g.add_edge(START, "spin")
    g.add_edge("spin", "spin")
    trace = record(g.compile(), {"log": []}, {"recursion_limit": 4})
    assert trace.status == "recursion_limit" and trace.error["class"] == "GraphRecursionError"


def test_subgraph_runs_nest_under_the_parent_task():
    from sample_graphs.subgraph_trap import example_input, graph

    trace = record(graph, example_input)
    child_task = trace.steps[-1].tasks[0]
    (sub,) = child_task.subgraphs
    assert sub.ns[0].startswith(f"child:{child_task.id}") or sub.ns == [f"child:{child_task.id}"]
    assert [s.step for s in sub.steps] == [-1, 0, 1]
    assert sub.steps[-1].reducer_calls[0].writer_name == "s1"
    assert sub.output == {"log": ["parent", "sub-1"]}


def test_json_round_trip_gives_an_equal_trace():
    trace = record(fan_in(), {"log": ["in"]})
    assert from_json(to_json(trace)) == trace
    assert isinstance(from_json(to_json(trace)), Trace)


def test_same_graph_same_input_gives_identical_files_except_timings():
    def normalised(trace):
        data = json.loads(to_json(trace))

        def scrub(node):
            if isinstance(node, dict):
                return {k: (0 if k == "duration" else scrub(v)) for k, v in node.items()}
            if isinstance(node, list):
                return [scrub(v) for v in node]
            return node

        return json.dumps(scrub(data))

    def slow_fan():
        g = StateGraph(Log)
        for i, delay in enumerate([0.004, 0.0, 0.002]):
            g.add_node(f"n{i}", lambda s, i=i, d=delay: (time.sleep(d), {"log": [i]})[1])
            g.add_edge(START, f"n{i}")
        return g.compile()

    first = normalised(record(slow_fan(), {"log": []}))
    for _ in range(4):
        assert normalised(record(slow_fan(), {"log": []})) == first


def test_message_ids_are_the_only_other_difference_and_can_be_fixed():
    counter = iter(range(10**6))
    previous = set_id_factory(lambda: f"id-{next(counter)}")
    try:
        g = StateGraph(MessagesState)
        g.add_node("talk", lambda s: {"messages": [AIMessage("hi")]})
        g.add_edge(START, "talk")
        trace = record(g.compile(), {"messages": [("human", "yo")]})
    finally:
        set_id_factory(previous)
    assert json.dumps(trace.output).count("id-") == 2


# ---- bad files -----------------------------------------------------------------------------------


def test_newer_schema_is_refused_with_the_fix():
    data = json.loads(to_json(record(fan_in(), {"log": []})))
    data["schema_version"] = SCHEMA_VERSION + 1
    with pytest.raises(TraceFileError, match="newer StepScope.*Upgrade"):
        from_json(json.dumps(data), source="new.json")


def test_a_file_that_is_not_a_trace_is_named():
    with pytest.raises(TraceFileError, match="notes.json is not a StepScope trace"):
        from_json('{"hello": 1}', source="notes.json")
    with pytest.raises(TraceFileError, match="photo.png is not"):
        from_json(b"\x89PNG\r\n\x1a\n\x00\x00", source="photo.png")


def test_truncated_and_corrupted_files_fail_clearly_at_every_cut():
    text = to_json(record(fan_in(), {"log": ["in"]}), indent=1)
    cuts = range(0, len(text), max(1, len(text) // 150))
    for cut in cuts:
        with pytest.raises(TraceFileError) as err:
            from_json(text[:cut], source="run.json")
        assert str(err.value).startswith("run.json")
    data = json.loads(text)
    damaged = [
        lambda d: d.update(steps="oops"),
        lambda d: d["steps"][1].update(tasks=[{"id": "x"}]),
        lambda d: d["steps"][1]["tasks"][0].update(unexpected=1),
        lambda d: d.update(schema_version="one"),
        lambda d: d["steps"].__setitem__(0, 5),
    ]
    for damage in damaged:
        copy = json.loads(text)
        damage(copy)
        with pytest.raises(TraceFileError, match="run.json"):
            from_json(json.dumps(copy), source="run.json")
    assert data["schema_version"] == SCHEMA_VERSION


def test_loading_never_executes_anything_in_the_file():
    trace = json.loads(to_json(record(fan_in(), {"log": []})))
    trace["output"] = {"$type": "object", "class": "os.system", "fields": {"cmd": "touch /tmp/pwned"}}
    loaded = from_json(json.dumps(trace))
    value = decode(loaded.output)
    assert isinstance(value, Recorded) and value.cls == "os.system"


def test_encode_keeps_dicts_that_look_like_tags_unambiguous():
    tricky = {"$type": "message", "x": 1}
    assert decode(encode(tricky)) == tricky
    assert decode(encode({1: "a", (2, 3): "b"})) == {1: "a", (2, 3): "b"}
    assert decode(encode(float("nan"))) != decode(encode(float("nan")))  # NaN survives as NaN
