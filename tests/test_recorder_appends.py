"""The Recorder's append delta (`RunEvents.appended`): a call of the engine's `add_messages` that only
appended is recorded from the write's few messages, without comparing the long list again. It must
give exactly the trace the full comparison gives: every sample, every differential case and a few
hostile graphs (a node that changes the state's list in place, an `Overwrite`, a replaced message)
are recorded both ways and the files compared."""

from __future__ import annotations

from typing import Annotated, Any, TypedDict

import pytest
from differential.cases import CASES
from test_recorder_lazy import BIG_LOOP_CASES, _case_run, _sample_run, recorded

import engine
from engine import (
    END,
    START,
    AIMessage,
    HumanMessage,
    MessagesState,
    Overwrite,
    StateGraph,
    codec,
    recorder,
    trace_events,
)
from sample_graphs.gallery import SAMPLES


def both_ways(run: Any, monkeypatch: pytest.MonkeyPatch, at_once: bool = False) -> tuple[str, str, int]:
    """The trace file with the append delta, without it, and how often the delta was used (`at_once`:
    recorded to a sink, each event built as it comes, as `stepscope run` records)."""
    used = []
    extend = codec.DeltaTracker.extend

    def counting(self: codec.DeltaTracker, *args: Any, **kwargs: Any) -> Any:
        used.append(1)
        return extend(self, *args, **kwargs)

    with monkeypatch.context() as patch:
        patch.setattr(codec.DeltaTracker, "extend", counting)
        fast = recorded(run, at_once=at_once)
    with monkeypatch.context() as patch:
        patch.setattr(recorder, "message_channels", lambda graph: frozenset())
        full = recorded(run, at_once=at_once)
    return fast, full, len(used)


@pytest.mark.parametrize("name", SAMPLES)
def test_sample_records_the_same_trace_with_the_append_delta(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fast, full, _ = both_ways(_sample_run(name), monkeypatch)
    assert fast == full


@pytest.mark.parametrize(
    "name", [pytest.param(name, marks=pytest.mark.slow) if name in BIG_LOOP_CASES else name for name in sorted(CASES)]
)
def test_case_records_the_same_trace_with_the_append_delta(name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    fast, full, _ = both_ways(_case_run(name), monkeypatch)
    assert fast == full


def _graph(speak: Any, steps: int = 6) -> Any:
    def again(state: dict) -> str:
        return "speak" if len(state["messages"]) < steps else END

    g = StateGraph(MessagesState)
    g.add_node("speak", speak)
    g.add_edge(START, "speak")
    g.add_conditional_edges("speak", again, ["speak", END])
    return g.compile()


def _run(graph: Any):
    def run(rec: recorder.Recorder) -> None:
        graph.invoke({"messages": [HumanMessage(content="hi")]}, {"recursion_limit": 50}, hooks=rec)

    return run


def test_a_chat_loop_is_recorded_with_the_append_delta(monkeypatch: pytest.MonkeyPatch) -> None:
    graph = _graph(lambda s: {"messages": [AIMessage(content=f"turn {len(s['messages'])}")]})
    fast, full, used = both_ways(_run(graph), monkeypatch)
    assert fast == full
    assert used >= 4  # every call after the first appended to a list the previous call made


def _mutating(state: dict) -> dict:
    """Changes the state's list in place (a dict the next call turns into a new message), and writes."""
    if len(state["messages"]) == 3:
        state["messages"].append({"role": "user", "content": "slipped in"})
        return {}
    if len(state["messages"]) == 5:
        state["messages"][0] = HumanMessage(content="rewritten", id=state["messages"][0].id)
    return {"messages": [AIMessage(content=f"turn {len(state['messages'])}")]}


def _replacing(state: dict) -> dict:
    """Replaces the last message by id some steps (nothing appended), appends the others."""
    last = state["messages"][-1]
    if len(state["messages"]) % 2 == 0 and isinstance(last, AIMessage) and "again" not in last.content:
        return {"messages": [AIMessage(content=f"{last.content} again", id=last.id)]}
    return {"messages": AIMessage(content=f"turn {len(state['messages'])}")}


def _overwriting(state: dict) -> dict:
    """Overwrites the list with raw dicts once (the next call converts them to new messages)."""
    if len(state["messages"]) == 3:
        return {"messages": Overwrite([{"role": "user", "content": "a"}, {"role": "ai", "content": "b"}] * 2)}
    return {"messages": [AIMessage(content=f"turn {len(state['messages'])}")]}


def _sneaking_and_undoing(state: dict) -> dict:
    """Appends to the state's list in place without writing (the commit records it), then takes it out
    again in place: the list then holds what the channel's last call made, not what was recorded last."""
    if len(state["messages"]) == 3:
        state["messages"].append(AIMessage(content="sneaked", id="sneaked"))
        return {}
    if state["messages"][-1].id == "sneaked":
        state["messages"].pop()
    return {"messages": [AIMessage(content=f"turn {len(state['messages'])}")]}


@pytest.mark.parametrize("at_once", [False, True])
@pytest.mark.parametrize("speak", [_mutating, _replacing, _overwriting, _sneaking_and_undoing])
def test_a_hostile_chat_records_the_same_trace_with_the_append_delta(
    speak: Any, at_once: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    fast, full, _ = both_ways(_run(_graph(speak, steps=9)), monkeypatch, at_once)
    assert fast == full


def test_a_chat_loop_compares_its_long_list_only_once_a_step(monkeypatch: pytest.MonkeyPatch) -> None:
    """The engine's `add_messages` channel compares the list with its last result at every barrier;
    the recorder takes its word (`ReducerCall.before_unchanged`) and does not compare it again."""
    compared = []
    unchanged_list = trace_events.unchanged_list
    monkeypatch.setattr(trace_events, "unchanged_list", lambda *args: compared.append(1) or unchanged_list(*args))
    graph = _graph(lambda s: {"messages": [AIMessage(content=f"turn {len(s['messages'])}")]}, steps=30)
    proofs = []
    observed = recorder.Recorder()
    called = observed.reducer_called

    def watching(*, ns: tuple[str, ...], call: Any) -> None:
        proofs.append(call.before_unchanged)
        called(ns=ns, call=call)

    observed.reducer_called = watching
    graph.invoke({"messages": [HumanMessage(content="hi")]}, {"recursion_limit": 50}, hooks=observed)
    assert proofs.count(True) >= 27  # every call after the input's and the first node's
    assert len(compared) <= 2


class Chat(TypedDict):
    messages: Annotated[list, engine.add_messages(format="langchain-openai")]
    plain: Annotated[list, engine.add_messages]


def test_a_formatting_add_messages_is_not_taken_for_an_append() -> None:
    g = StateGraph(Chat)
    g.add_node("n", lambda s: {})
    g.add_edge(START, "n")
    assert recorder.message_channels(g.compile()) == {"plain"}
