"""Interrupts as langgraph does them (issue 41, item 2): each app of tests/apps/langgraph_interrupts.py is
run turn by turn, recorded, and after every turn the recorded output is what langgraph's own `invoke`
returned in that same run, `__interrupt__` included (with langgraph's ids), and the recorded interrupts and
final state are what `get_state` holds: several questions in one node, one inside a compiled subgraph,
parallel questions answered by id, static breakpoints."""

from __future__ import annotations

import pytest

pytest.importorskip("langgraph")

from langgraph.types import Command  # noqa: E402

from debugger.diagnostics.replay import Replay  # noqa: E402
from debugger.runtimes.langgraph.recorder.runs import run_graph  # noqa: E402
from engine.codec import encode  # noqa: E402
from tests.apps.langgraph_interrupts import APPS, RESUMES, TURNS  # noqa: E402


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
