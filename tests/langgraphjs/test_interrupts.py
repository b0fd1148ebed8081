"""Interrupts as LangGraph.js does them (issue 41, item 2): each app is run turn by turn by `stepscope`'s
recorder (its MemorySaver thread kept between processes) and by LangGraph.js alone in one plain node process
(turns_plain.mjs); after every turn the recorded output is LangGraph.js's own invoke return, `__interrupt__`
included (a breakpoint's empty one too). Interrupt ids are per run, so they are compared by their values."""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest

from debugger.runtimes.langgraphjs import record_js_app

from .conftest import HERE, app

pytestmark = pytest.mark.slow

CONVERSATIONS = {
    "interrupt_twice.mjs": [{"order": "17"}, "12.50", "yes"],
    "interrupt_subgraph.mjs": [{}, "yes"],
    "breakpoint_before.mjs": [{"draft": "v1"}, None],
}


def _without_ids(output: Any) -> Any:
    if isinstance(output, dict) and "__interrupt__" in output:
        return {**output, "__interrupt__": [{**i, "id": bool(i.get("id"))} for i in output["__interrupt__"]]}
    return output


def _own_outputs(name: str, config: dict[str, Any]) -> list[Any]:
    turns = json.dumps(CONVERSATIONS[name])
    done = subprocess.run(
        ["node", str(HERE / "turns_plain.mjs"), app(name), "graph", json.dumps(config), turns],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    return json.loads(done.stdout.strip().splitlines()[-1])["outputs"]


@pytest.mark.parametrize("name", sorted(CONVERSATIONS))
def test_the_recorded_output_after_every_turn_is_langgraphjs_own(name, langgraph_js, tmp_path):
    config = {"configurable": {"thread_id": "t-1"}}
    recorded = []
    for number, turn in enumerate(CONVERSATIONS[name]):
        resume = turn if number and turn is not None else None
        given = turn if number == 0 else None
        trace = record_js_app(
            app(name), "graph", given, config, timeout=60, resume=resume, thread_file=str(tmp_path / "thread.json")
        )
        recorded.append(_without_ids(trace.output))
    assert recorded == [_without_ids(o) for o in _own_outputs(name, config)]
    assert any("__interrupt__" in o for o in recorded[:-1]) and "__interrupt__" not in recorded[-1]
