"""Large values cost their size once per trace file (issue 14, part 5), whatever how many places
(input, the start task, its write, the reducer result, the output) and steps hold them."""

import json
from typing import Any, TypedDict

import pytest

from debugger.model.present import short
from debugger.sources.trace_check import TraceFileError, parse_trace
from engine import END, START, StateGraph
from engine.blobs import BLOB_MIN
from engine.codec import decode, encode
from engine.trace import SCHEMA_VERSION, Recorder
from engine.tracefile import from_json, to_json


class Doc(TypedDict):
    doc: Any
    n: int


def carried(value, steps=10):
    g = StateGraph(Doc)
    g.add_node("step", lambda s: {"n": s["n"] + 1})
    g.add_edge(START, "step")
    g.add_conditional_edges("step", lambda s: "step" if s["n"] < steps else END)
    recorder = Recorder()
    g.compile().invoke({"doc": value, "n": 0}, hooks=recorder)
    return recorder.trace


def test_a_large_string_carried_through_ten_steps_is_stored_once():
    big = "lorem ipsum " * 200_000  # 2.4 MB
    trace = carried(big)
    text = to_json(trace)
    assert len(text) < len(big) * 1.05
    loaded = parse_trace(text)
    assert loaded == trace
    assert loaded.input["doc"] is loaded.output["doc"]  # held once in memory too
    assert json.loads(text)["schema_version"] == SCHEMA_VERSION == 3


@pytest.mark.slow  # a 20,000-row value encoded, stored and parsed: over a second
def test_a_large_list_of_small_items_is_stored_once_and_a_wrapper_keeps_its_small_parts():
    rows = [{"id": i, "name": f"row {i}"} for i in range(20_000)]
    trace = carried({"rows": rows, "note": "small"})
    text = to_json(trace)
    single = len(json.dumps(rows))
    assert single < len(text) < single * 1.1
    assert parse_trace(text) == trace


def test_small_values_stay_in_place():
    trace = carried("short", steps=3)
    assert "$blob" not in to_json(trace) and "blobs" not in json.loads(to_json(trace))


def test_version_1_files_still_load():
    trace = carried("short", steps=3)
    data = json.loads(to_json(trace))
    data["schema_version"] = 1
    loaded = parse_trace(json.dumps(data))
    assert loaded.schema_version == 1 and loaded.steps == trace.steps
    assert from_json(json.dumps(data)).steps == trace.steps


def test_a_pointer_to_a_missing_large_value_is_refused_in_one_line(tmp_path):
    text = to_json(carried("y" * (BLOB_MIN + 10), steps=2))
    data = json.loads(text)
    data["blobs"]["$blobs"] = {}
    path = tmp_path / "cut.json"
    path.write_text(json.dumps(data))
    with pytest.raises(TraceFileError, match="points at a large value it does not hold"):
        parse_trace(path.read_text(), source=str(path))


def test_a_node_s_own_dict_with_file_markers_is_never_mistaken_for_one():
    for marker in ({"$blob": "abc"}, {"$blobs": {}}, {"$type": "repr"}):
        assert decode(encode(marker)) == marker
        trace = carried(marker, steps=2)
        assert decode(parse_trace(to_json(trace)).output["doc"]) == marker


def test_previews_of_long_lists_render_only_what_they_show():
    long = [f"item {i}" for i in range(100_000)]
    assert short(long, 30) == repr(long)[:29] + "…"
    nested = {"rows": long, "n": 1}
    assert short(nested, 50) == repr(nested)[:49] + "…"
    assert short(["a", "b"]) == "['a', 'b']"


def test_a_streamed_run_holds_no_finished_steps_and_stores_every_one(tmp_path):
    from debugger.sources.recording import StoreSink
    from debugger.stores.sqlite import RunStore

    store = RunStore(tmp_path / "runs.sqlite3")
    seen = []
    sink = StoreSink(store, on_steps=lambda steps: seen.extend(s.step for s in steps))
    held = []

    graph = StateGraph(Doc)
    graph.add_node("step", lambda s: (held.append(len(recorder.trace.steps)), {"n": s["n"] + 1})[1])
    graph.add_edge(START, "step")
    graph.add_conditional_edges("step", lambda s: "step" if s["n"] < 50 else END)
    recorder = Recorder(sink=sink)
    graph.compile().invoke({"doc": "x" * (BLOB_MIN * 2), "n": 0}, hooks=recorder)
    sink.finish(recorder.trace)
    assert max(held) == 1  # while a node runs, only its own step is in memory
    assert recorder.trace.steps == []
    stored = store.load(recorder.trace.run_id)
    assert [s.step for s in stored.steps] == list(range(-1, 51)) == seen
    assert store.list()[0].steps == 51 and stored.status == "done"
    plain = Recorder(run_id=recorder.trace.run_id)
    graph.compile().invoke({"doc": "x" * (BLOB_MIN * 2), "n": 0}, hooks=plain)
    assert [s.reducer_calls for s in stored.steps] == [s.reducer_calls for s in plain.trace.steps]
    assert decode(stored.output["doc"]) == "x" * (BLOB_MIN * 2)


@pytest.mark.parametrize("value", ["small", "文" * (BLOB_MIN // 5), "x" * BLOB_MIN], ids=["small", "cjk", "large"])
def test_a_stored_step_is_packed_as_its_file_form_whether_or_not_it_is_sized(value):
    """`step_json` skips sizing each value of a step too small to hold a large one; a step of text that
    is short but long as ASCII JSON (CJK, escaped six characters each) is still sized and pooled."""
    from engine.blobs import BlobPacker
    from engine.tracefile import dumps, step_dict, step_json

    trace = carried(value, steps=2)
    for step in trace.steps:
        fast, slow = BlobPacker(), BlobPacker()
        assert step_json(step, fast) == dumps(step_dict(step, slow))
        assert fast.take_fresh() == slow.take_fresh()
