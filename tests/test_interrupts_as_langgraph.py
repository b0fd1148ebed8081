"""Interrupts as langgraph does them (issue 41, item 2): each app of tests/apps/langgraph_interrupts.py is
run turn by turn, recorded, and after every turn the recorded output is what langgraph's own `invoke`
returned in that same run, `__interrupt__` included (with langgraph's ids), and the recorded interrupts and
final state are what `get_state` holds: several questions in one node, one inside a compiled subgraph,
parallel questions answered by id, static breakpoints. The parallel questions are answered through
`stepscope run` too, as a user answers them, against langgraph alone in this process."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("langgraph")

from langgraph.types import Command  # noqa: E402

from debugger.diagnostics.replay import Replay  # noqa: E402
from debugger.runtimes.langgraph.recorder.runs import run_graph  # noqa: E402
from engine.codec import encode  # noqa: E402
from engine.tracefile import from_dict  # noqa: E402
from tests.answer_by_id import stepscope_turns  # noqa: E402
from tests.apps.langgraph_interrupts import APPS, RESUMES, TURNS, parallel_reviews  # noqa: E402
from tests.realistic.plain_state import plain, plain_recorded  # noqa: E402

PARALLEL = Path(__file__).parent / "apps" / "langgraph_parallel_reviews.py"
BY_ID = {
    "one id, then two at once": [{"draft": "v1"}, {"style": "fix commas"}, {"legal": "ok", "tone": "warm"}],
    "all three at once": [{"draft": "v1"}, {"legal": "ok", "style": "fix commas", "tone": "warm"}],
}
"""The parallel reviewers' conversations: the input, then each turn's answers by reviewer."""


def _turns(name: str):
    """Each turn's RunResult and langgraph's own snapshot of the thread after it."""
    graph, config = APPS[name](), {"configurable": {"thread_id": f"t-{name}"}}
    for number, turn in enumerate(TURNS[name]):
        if number == 0:
            given = turn
        elif name in RESUMES:
            given = Command(resume=turn(list(graph.get_state(config).interrupts)) if callable(turn) else turn)
        else:
            given = None
        result = run_graph(graph, given, target=name, config=config, db=False, keep_thread=False)
        yield result, graph.get_state(config)


@pytest.mark.parametrize("name", sorted(APPS))
def test_the_recorded_output_after_every_turn_is_langgraphs_own(name):
    statuses = []
    for result, snapshot in _turns(name):
        assert result.error is None, result.error
        assert result.trace.output == encode(result.output)
        assert [i["id"] for i in result.trace.interrupts] == [i.id for i in snapshot.interrupts]
        last = result.trace.steps[-1].step
        assert Replay(result.trace).state_after(last) == snapshot.values
        statuses.append(result.trace.status)
    assert statuses[-1] == "done" and set(statuses[:-1]) == {"interrupted"}


def test_the_second_question_of_a_node_is_in_the_output_after_the_first_answer():
    first, second, done = (result for result, _ in _turns("two_questions"))
    asked = [r.trace.output["__interrupt__"][0]["fields"]["value"] for r in (first, second)]
    assert asked == [{"ask": "amount for 17?"}, {"ask": "refund 12.50?"}]
    assert done.trace.output == {"order": "17", "amount": "12.50", "approved": "yes"}


def test_parallel_questions_answered_one_by_id_leave_the_others_pending():
    first, answered_one, done = (result for result, _ in _turns("parallel_reviews"))
    assert [i["node"] for i in first.trace.interrupts] == ["legal", "style", "tone"]  # as get_state lists them
    left = answered_one.trace.output["__interrupt__"]
    assert sorted(i["fields"]["value"]["reviewer"] for i in left) == ["style", "tone"]
    assert [i["node"] for i in answered_one.trace.interrupts] == ["style", "tone"]
    assert answered_one.trace.output["verdicts"] == ["legal: ok"]
    assert sorted(done.trace.output["verdicts"]) == ["legal: ok", "style: fix commas", "tone: warm"]


def test_a_breakpoint_pauses_with_no_interrupt_in_the_output_as_in_langgraph():
    after_draft, before_send, done = (result for result, _ in _turns("breakpoints"))
    for paused in (after_draft, before_send):
        assert paused.trace.status == "interrupted" and "__interrupt__" not in paused.trace.output
        assert paused.trace.interrupts == [] and paused.trace.error is None
    assert [r.output for r in (after_draft, before_send)] == [
        {"draft": "v1 (drafted)", "verdicts": []},
        {"draft": "v1 (drafted)", "verdicts": ["checked"]},
    ]
    assert done.trace.output == {"draft": "v1 (drafted)", "verdicts": ["checked", "sent"]}


def _in_any_order(output: Any) -> Any:
    """invoke's `__interrupt__` comes in the order the reviewers' threads stopped, which differs run to run."""
    if isinstance(output, dict) and "__interrupt__" in output:
        return {**output, "__interrupt__": sorted(output["__interrupt__"], key=json.dumps)}
    return output


def _own_by_id(turns: list[Any]) -> list[tuple[Any, dict[str, Any]]]:
    """langgraph's own invoke return and get_state after each turn, no StepScope, in plain_state's shape."""
    graph, config, seen = parallel_reviews(), {"configurable": {"thread_id": "own"}}, []
    for number, given in enumerate(turns):
        if number:
            pending = graph.get_state(config).interrupts
            given = Command(resume={i.id: given[i.value["reviewer"]] for i in pending if i.value["reviewer"] in given})
        output = graph.invoke(given, config)
        snapshot = graph.get_state(config)
        state = {"values": plain(snapshot.values), "asked": [plain(i.value) for i in snapshot.interrupts]}
        seen.append((_in_any_order(plain(output)), state))
    return seen


def _recorded(trace: Any) -> tuple[Any, dict[str, Any]]:
    values = Replay(trace).state_after(trace.steps[-1].step)
    asked = [plain_recorded(item["value"]) for item in trace.interrupts]
    return _in_any_order(plain_recorded(trace.output)), {"values": plain_recorded(values), "asked": asked}


@pytest.mark.slow
@pytest.mark.parametrize("conversation", sorted(BY_ID))
def test_parallel_questions_answered_by_id_with_stepscope_run_are_langgraphs_own(conversation, tmp_path):
    """Each answer is `--resume '{"ID": ANSWER}'` with the ids `stepscope run` printed, as a user answers."""
    traces = stepscope_turns(f"{PARALLEL}:graph", BY_ID[conversation], tmp_path)
    assert [_recorded(from_dict(trace)) for trace in traces] == _own_by_id(BY_ID[conversation])
