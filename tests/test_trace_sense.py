"""Traces that fit the schema but do not add up are refused in one line (issue 25), and every trace
StepScope writes itself still opens."""

from __future__ import annotations

import copy
import json

import pytest

from debugger.sources.runs import record
from debugger.sources.trace_check import TraceFileError, parse_trace
from engine.step_form import put_back
from engine.tracefile import to_json
from sample_graphs.gallery import SAMPLES, load_sample


def _recorded(name: str) -> dict:
    module = load_sample(name)
    trace = record(module.graph, module.example_input, dict(getattr(module, "example_config", None) or {}), name)
    return json.loads(to_json(trace))


@pytest.fixture(scope="module")
def refund() -> dict:
    return _recorded("refund_concurrent_update")


def _refused(data: dict, match: str) -> str:
    with pytest.raises(TraceFileError, match=match) as caught:
        parse_trace(json.dumps(data), source="crafted.json")
    message = str(caught.value)
    assert "\n" not in message and message.startswith("crafted.json: ")
    return message


@pytest.mark.parametrize("name", sorted(SAMPLES))
def test_every_sample_trace_adds_up(name):
    parse_trace(json.dumps(_recorded(name)), source=name)


def test_every_step_numbered_the_same_is_refused(refund):
    data = copy.deepcopy(refund)
    for step in data["steps"]:
        step["step"] = 1
    _refused(data, "superstep 1 again|out of order")


def test_steps_out_of_order_are_refused(refund):
    data = copy.deepcopy(refund)
    data["steps"][1]["step"], data["steps"][2]["step"] = data["steps"][2]["step"], data["steps"][1]["step"]
    _refused(data, "out of order")


def test_a_call_into_a_channel_the_graph_does_not_have_is_refused(refund):
    data = copy.deepcopy(refund)
    call = next(c for step in data["steps"] for c in step.get("reducer_calls", ()))
    call["channel"] = "no_such_key"
    _refused(data, "'no_such_key', which is not a channel of the graph")


def test_a_plain_key_that_became_something_other_than_its_write_is_refused():
    data = _recorded("command_goto")
    for step in data["steps"]:
        for call in step.get("reducer_calls", ()):
            if call["reducer"] == "LastValue" and call.get("error") is None and "set" in call["after"]:
                call["after"] = {"set": "not what was written"}
                _refused(data, "became something other than its write")
                return
    pytest.skip("the sample has no plain-key call that sets a value")


def test_an_edge_to_a_node_that_does_not_exist_is_refused(refund):
    data = copy.deepcopy(refund)
    data["graph"]["edges"].append(["__start__", "ghost"])
    _refused(data, "'ghost', which is not a node of the graph")


def test_a_task_of_a_node_that_does_not_exist_is_refused(refund):
    data = copy.deepcopy(refund)
    step = put_back(next(step for step in data["steps"] if step.get("tasks")))  # its calls name their writer
    step["tasks"][0]["name"] = "ghost"
    _refused(data, "runs 'ghost', which is not a node")
