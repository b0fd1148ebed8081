"""The recorder holds any value a node can return (issue 14, part 1): cycles, deep nesting, lone
surrogates, huge ints and objects that raise when read are recorded, marked, and never lose the run."""

import json
import operator
from typing import Annotated, Any, TypedDict

from debugger.sources.trace_check import parse_trace
from engine import START, StateGraph
from engine.codec import MAX_DEPTH, decode, encode
from engine.trace import Recorder
from engine.tracefile import from_json, to_json


class S(TypedDict):
    v: Any
    log: Annotated[list, operator.add]


def run_returning(value_factory, graph_input=None):
    g = StateGraph(S)
    g.add_node("make", lambda s: {"v": value_factory(), "log": [value_factory()]})
    g.add_edge(START, "make")
    recorder = Recorder()
    output = g.compile().invoke(graph_input or {"v": 0, "log": []}, hooks=recorder)
    return output, recorder.trace


def cyclic_list():
    items = [1]
    items.append(items)
    return items


def test_a_cyclic_list_is_recorded_with_a_marked_repr_and_the_run_is_done():
    output, trace = run_returning(cyclic_list)
    assert trace.status == "done" and trace.error is None
    assert output["v"][1] is output["v"]  # the run itself is untouched
    encoded = encode(output["v"])
    assert encoded[0] == 1 and encoded[1] == {"$type": "repr", "class": "list", "repr": "[1, [...]]", "cut": "cycle"}
    assert parse_trace(to_json(trace)) == trace


def test_a_dict_that_contains_itself_twice_costs_no_more_than_its_size():
    def twice():
        d: dict[str, Any] = {}
        d["a"] = d
        d["b"] = d
        return d

    encoded = encode(twice())
    assert set(encoded) == {"a", "b"} and encoded["a"]["cut"] == "cycle"
    _, trace = run_returning(twice)
    assert len(to_json(trace)) < 20_000


def test_deep_nesting_is_cut_at_the_depth_limit_and_marked():
    def deep():
        value: list[Any] = []
        for _ in range(5000):
            value = [value]
        return value

    _, trace = run_returning(deep)
    assert trace.status == "done"
    value = encode(deep())
    depth = 0
    while isinstance(value, list):
        value, depth = value[0], depth + 1
    assert value["cut"] == "depth" and depth == MAX_DEPTH + 1
    assert parse_trace(to_json(trace)) == trace


def test_lone_surrogates_are_kept_losslessly_in_a_valid_utf8_file():
    _, trace = run_returning(lambda: "half an emoji: \ud83d", graph_input={"v": "\udc80", "log": []})
    text = to_json(trace)
    text.encode("utf-8")  # valid UTF-8, never an exception at save time
    loaded = parse_trace(text.encode("utf-8"))
    assert loaded == trace
    assert loaded.input == {"v": "\udc80", "log": []}


def test_huge_ints_are_recorded_in_hex_and_decode_to_the_same_int():
    big = 7**20_000  # about 17,000 digits: json refuses more than 4,300
    assert decode(encode(big)) == big and decode(encode(-big)) == -big
    assert encode(10**100) == 10**100  # ordinary big ints stay plain
    _, trace = run_returning(lambda: big)
    assert decode(from_json(to_json(trace)).output["v"]) == big


class Broken:
    @property
    def boom(self):
        raise RuntimeError("property failed")

    def __repr__(self):
        raise ValueError("repr failed")


def test_an_object_that_raises_when_read_or_shown_is_recorded_as_a_marked_stand_in():
    import dataclasses

    @dataclasses.dataclass
    class Holder:
        x: int

        def __getattribute__(self, name):
            if name == "x":
                raise RuntimeError("cannot read x")
            return object.__getattribute__(self, name)

    encoded = encode(Holder.__new__(Holder))
    assert encoded["$type"] == "repr" and encoded["cut"].startswith("unencodable")
    assert encode(Broken())["repr"] == "<unrepresentable: ValueError>"


def test_an_error_whose_str_raises_still_has_a_message():
    from engine.codec import encode_error

    class Weird(Exception):
        def __str__(self):
            raise RuntimeError("no")

    assert encode_error(Weird())["message"].startswith("<message unavailable")
    json.dumps(encode_error(Weird()))
