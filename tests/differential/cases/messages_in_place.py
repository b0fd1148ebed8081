"""Differential cases: a loop whose node changes the state's messages in place (the list or a
message's id) and then writes by id. The engine's `add_messages` channel reads the ids of its value
from an index it keeps (`engine/message_channel.py`); each case is a change that index must notice,
every step a router's fresh read and the barrier both calling the reducer."""

# No `from __future__ import annotations`: state schemas defined inside builders refer to local names.

from ._common import Built, case

_STEPS = 4


def _loop(lg, talk):
    """`talk` runs `_STEPS` times; `talk(state, turn)` returns the node's update."""
    turns = []

    def node(state):
        turns.append(len(state["messages"]))
        return talk(state, len(turns))

    b = lg.StateGraph(lg.MessagesState)
    b.add_node("talk", node)
    b.add_edge(lg.START, "talk")
    b.add_conditional_edges("talk", lambda s: "talk" if len(turns) < _STEPS else lg.END, ["talk", lg.END])
    return Built(b, {"messages": [lg.HumanMessage("q", id="q")]}, probe=lambda: turns)


def _said(turn):
    return ("AIMessage", "ai", f"turn {turn}", None, [], None, f"t{turn}")


def _q():
    return ("HumanMessage", "human", "q", None, None, None, "q")


@case(
    expect={
        "result": {"messages": [_q(), _said(1), ("AIMessage", "ai", "official", None, [], None, "x"), _said(3)]},
        "probe": [1, 2, 3, 4],
    }
)
def build_messages_appended_in_place_then_replaced(lg):
    """Turn 2 appends to the state's list in place, then writes a message with the same id: replaced."""

    def talk(state, turn):
        if turn == 2:
            state["messages"].append(lg.AIMessage("sneaked", id="x"))
            return {"messages": [lg.AIMessage("official", id="x")]}
        return {"messages": [] if turn == 4 else [lg.AIMessage(f"turn {turn}", id=f"t{turn}")]}  # 4: nothing

    return _loop(lg, talk)


@case(
    expect={
        "result": {"messages": [("AIMessage", "ai", "again", None, [], None, "new"), _said(1), _said(3), _said(4)]},
        "probe": [1, 2, 2, 3],
    }
)
def build_messages_set_in_place_then_replaced(lg):
    """Turn 2 puts another message where the first stood, in place; turn 2's write replaces it by its id."""

    def talk(state, turn):
        if turn == 2:
            state["messages"][0] = lg.AIMessage("swapped", id="new")
            return {"messages": [lg.AIMessage("again", id="new")]}
        return {"messages": [lg.AIMessage(f"turn {turn}", id=f"t{turn}")]}

    return _loop(lg, talk)


@case(
    expect={
        "result": {"messages": [_q(), ("AIMessage", "ai", "renamed", None, [], None, "r"), _said(3), _said(4)]},
        "probe": [1, 2, 2, 3],
    }
)
def build_messages_id_changed_in_place_then_replaced(lg):
    """Turn 2 renames the last message's id in place and writes a message with the new id: replaced."""

    def talk(state, turn):
        if turn == 2:
            state["messages"][-1].id = "r"
            return {"messages": [lg.AIMessage("renamed", id="r")]}
        return {"messages": [lg.AIMessage(f"turn {turn}", id=f"t{turn}")]}

    return _loop(lg, talk)


@case(
    expect={
        "result": {
            "messages": [
                _q(),
                ("AIMessage", "ai", "turn 1", None, [], None, "<uuid-1>"),
                _said(2),
                _said(3),
                _said(4),
            ]
        },
        "probe": [1, 2, 3, 4],
    }
)
def build_messages_id_cleared_in_place(lg):
    """Turn 2 takes the id off the last message and writes that very message again: it gets a new
    id on the state's side and replaces itself."""

    def talk(state, turn):
        if turn == 2:
            mine = state["messages"][-1]
            mine.id = None
            return {"messages": [mine, lg.AIMessage("turn 2", id="t2")]}
        return {"messages": [lg.AIMessage(f"turn {turn}", id=f"t{turn}")]}

    return _loop(lg, talk)


@case(
    expect={
        "result": {"messages": [_said(1), ("AIMessage", "ai", "q again", None, [], None, "q"), _said(3), _said(4)]},
        "probe": [1, 2, 2, 3],
    }
)
def build_messages_removed_in_place_then_written(lg):
    """Turn 2 deletes the first message in place and writes a message with its id: appended."""

    def talk(state, turn):
        if turn == 2:
            del state["messages"][0]
            return {"messages": [lg.AIMessage("q again", id="q")]}
        return {"messages": [lg.AIMessage(f"turn {turn}", id=f"t{turn}")]}

    return _loop(lg, talk)
