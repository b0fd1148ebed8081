"""The `add_messages` channel's index of ids (`engine/message_channel.py`): a loop that appends is
read from the index (indexed once, then only what each step adds), fresh reads never change it, and
a change it cannot hold for makes it index the value again. That the results are LangGraph's is
`tests/differential/cases/messages_in_place.py`."""

from __future__ import annotations

from typing import Any

import pytest

from engine import END, START, AIMessage, HumanMessage, MessagesState, StateGraph, message_channel
from engine.message_channel import MessagesChannel


def _counted(monkeypatch: pytest.MonkeyPatch) -> dict[str, int]:
    counts = {"learn": 0, "learn_appended": 0}
    for name in counts:
        method = getattr(message_channel.MessageIndex, name)

        def counting(self: Any, *args: Any, _method: Any = method, _name: str = name) -> Any:
            counts[_name] += 1
            return _method(self, *args)

        monkeypatch.setattr(message_channel.MessageIndex, name, counting)
    return counts


def _chat_loop(steps: int, talk: Any = None) -> Any:
    def speak(state: dict) -> dict:
        if talk is not None:
            talk(state)
        return {"messages": [AIMessage(f"turn {len(state['messages'])}")]}

    g = StateGraph(MessagesState)
    g.add_node("speak", speak)
    g.add_edge(START, "speak")
    g.add_conditional_edges("speak", lambda s: "speak" if len(s["messages"]) < steps else END, ["speak", END])
    return g.compile()


def test_a_chat_loop_is_indexed_once_then_by_what_each_step_adds(monkeypatch: pytest.MonkeyPatch) -> None:
    counts = _counted(monkeypatch)
    out = _chat_loop(50).invoke({"messages": [HumanMessage("hi")]}, {"recursion_limit": 60})
    assert len(out["messages"]) == 50
    # the input's barrier indexes the list; each of the 49 steps adds to the index (its router's
    # fresh read only looks up: were it to learn, the barrier would index the whole list again)
    assert counts == {"learn": 1, "learn_appended": 49}


def test_a_node_that_changes_the_list_in_place_has_it_indexed_again(monkeypatch: pytest.MonkeyPatch) -> None:
    counts = _counted(monkeypatch)

    def swap_first(state: dict) -> None:
        if len(state["messages"]) == 10:
            state["messages"][0] = HumanMessage("swapped", id="s")

    out = _chat_loop(20, swap_first).invoke({"messages": [HumanMessage("hi")]}, {"recursion_limit": 30})
    assert [m.content for m in out["messages"][:2]] == ["swapped", "turn 1"]
    assert counts == {"learn": 2, "learn_appended": 18}


def test_a_fresh_read_leaves_the_index_as_it_was() -> None:
    run_channel = MessagesChannel("messages", list).fresh()
    run_channel.update([[HumanMessage("hi", id="1")]])
    known = run_channel.index.known
    ahead = run_channel.get_after([[AIMessage("a", id="2"), AIMessage("b", id="1")]])
    copied_ahead = run_channel.get_after([AIMessage("c", id="3"), AIMessage("d", id="4")])  # two writes: a copy
    assert [m.id for m in ahead] == ["1", "2"] and [m.id for m in copied_ahead] == ["1", "3", "4"]
    assert run_channel.index.known is known and len(known[0]) == 1
    assert run_channel.get() == [HumanMessage("hi", id="1")]
