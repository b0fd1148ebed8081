"""Interrupts as LangGraph.js does them (issue 41, item 2): each app is run turn by turn by `stepscope`'s
recorder (its MemorySaver thread kept between processes) and by LangGraph.js alone in one plain node process
(turns_plain.mjs, which reads LangGraph.js's values without StepScope's codec); after every turn the recorded
output is LangGraph.js's own invoke return, `__interrupt__` included (a breakpoint's empty one too), and the
recorded state and interrupts are what its getState() holds. Interrupt ids are per run, so they are compared
by their values (tests/realistic/plain_state.py's shape)."""

from __future__ import annotations

import json
import subprocess
from typing import Any

import pytest

from debugger.diagnostics.replay import Replay
from debugger.runtimes.langgraphjs import record_js_app
from engine.tracefile import from_dict
from tests.answer_by_id import printed_questions, stepscope_run, stepscope_turns
from tests.realistic.plain_state import plain_recorded

from .conftest import HERE, app

pytestmark = pytest.mark.slow

CONVERSATIONS = {
    "interrupt_twice.mjs": [{"order": "17"}, "12.50", "yes"],
    "interrupt_subgraph.mjs": [{}, "yes"],
    "breakpoint_before.mjs": [{"draft": "v1"}, None],
    "breakpoint_after.mjs": [{"draft": "v1"}, None, None],
}
BY_ID = {
    "one id, then two at once": [{"draft": "v1"}, {"style": "fix commas"}, {"legal": "ok", "tone": "warm"}],
    "all three at once": [{"draft": "v1"}, {"legal": "ok", "style": "fix commas", "tone": "warm"}],
}
"""interrupt_parallel.mjs's conversations: its input, then the answers of each turn by reviewer."""
PARALLEL = "interrupt_parallel.mjs"


def _own_turns(name: str, config: dict[str, Any], turns: list[Any]) -> list[tuple[Any, dict[str, Any]]]:
    """LangGraph.js's own invoke return and getState() after each turn, in one plain node process."""
    done = subprocess.run(
        ["node", str(HERE / "turns_plain.mjs"), app(name), "graph", json.dumps(config), json.dumps(turns)],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    own = json.loads(done.stdout.strip().splitlines()[-1])
    return list(zip(own["outputs"], own["states"]))


def _recorded(trace: Any) -> tuple[Any, dict[str, Any]]:
    """The recorded run's output and its state after its last step, in the plain shape turns_plain.mjs prints."""
    values = Replay(trace).state_after(trace.steps[-1].step)
    asked = [plain_recorded(item["value"]) for item in trace.interrupts]
    return plain_recorded(trace.output), {"values": plain_recorded(values), "asked": asked}


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
        recorded.append(_recorded(trace))
    assert recorded == _own_turns(name, config, CONVERSATIONS[name])
    outputs = [output for output, _ in recorded]
    assert any("__interrupt__" in o for o in outputs[:-1]) and "__interrupt__" not in outputs[-1]


@pytest.mark.parametrize("conversation", sorted(BY_ID))
def test_parallel_questions_answered_by_id_with_stepscope_run_are_langgraphjs_own(conversation, langgraph_js, tmp_path):
    """Each answer is `--resume '{"ID": ANSWER}'` with the ids `stepscope run` printed, as a user answers."""
    first, *answers = BY_ID[conversation]
    traces = stepscope_turns(f"{app(PARALLEL)}:graph", BY_ID[conversation], tmp_path)
    own_turns = [first, *({"by": "reviewer", "answers": given} for given in answers)]
    own = _own_turns(PARALLEL, {"configurable": {"thread_id": "t"}}, own_turns)
    assert [_recorded(from_dict(trace)) for trace in traces] == own


def test_parallel_questions_are_recorded_in_getstate_order_not_as_they_stopped(langgraph_js, tmp_path):
    """The reviewers stop tone, style, legal (GraphInterrupt's and invoke's order); getState lists them as
    the tasks were planned: legal, style, tone."""
    trace, printed = stepscope_run(f"{app(PARALLEL)}:graph", ["--input", json.dumps({"draft": "v1"})], tmp_path, 0)
    assert [i["value"]["reviewer"] for i in trace["output"]["__interrupt__"]] == ["tone", "style", "legal"]
    assert [i["node"] for i in trace["interrupts"]] == ["legal", "style", "tone"]
    assert [node for node, _ in printed_questions(printed)] == ["legal", "style", "tone"]
