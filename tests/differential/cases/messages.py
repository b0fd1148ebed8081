"""Differential cases: Messages."""

# No `from __future__ import annotations`: state schemas defined inside builders refer to local names.
from typing import Annotated, TypedDict

from ._common import COERCION, Built, case, sleep_ms


@case(
    expect={
        "result": {
            "messages": [
                ("HumanMessage", "human", "hello", None, None, None, "<uuid-1>"),
                ("AIMessage", "ai", "hi there", None, [], None, "<uuid-2>"),
                ("SystemMessage", "system", "be brief", None, None, None, "<uuid-3>"),
                ("HumanMessage", "human", "from dict", None, None, None, "<uuid-4>"),
                ("AIMessage", "ai", "pong", None, [], None, "<uuid-5>"),
            ]
        }
    }
)
def build_messages_coercion(lg):
    """MessagesState with a str input, then a node returning a tuple, a dict and a message."""
    b = lg.StateGraph(lg.MessagesState)
    b.add_node(
        "chat",
        lambda s: {
            "messages": [
                ("ai", "hi there"),
                ("system", "be brief"),
                {"role": "user", "content": "from dict"},
                lg.AIMessage("pong"),
            ]
        },
    )
    b.add_edge(lg.START, "chat")
    return Built(b, {"messages": "hello"})


def _messages_graph(lg, right):
    class S(TypedDict):
        messages: Annotated[list, lg.add_messages]

    b = lg.StateGraph(S)
    b.add_node("edit", lambda s: {"messages": right()})
    b.add_edge(lg.START, "edit")
    return b


def _seed_history(lg):
    return [lg.HumanMessage("hi", id="1"), lg.AIMessage("hello", id="2")]


@case(
    expect={
        "result": {
            "messages": [
                ("HumanMessage", "human", "hi", None, None, None, "1"),
                ("AIMessage", "ai", "hello", None, [], None, "2"),
                ("AIMessage", "ai", "again", None, [], None, "3"),
            ]
        }
    }
)
def build_seed001_messages_append(lg):
    """Seed 001 6.3: a message with a new id is appended."""
    b = _messages_graph(lg, lambda: [lg.AIMessage("again", id="3")])
    return Built(b, {"messages": _seed_history(lg)})


@case(
    expect={
        "result": {
            "messages": [
                ("HumanMessage", "human", "hi", None, None, None, "1"),
                ("AIMessage", "ai", "改写了", None, [], None, "2"),
            ]
        }
    }
)
def build_seed001_messages_replace(lg):
    """Seed 001 6.3: a message with an existing id replaces it in place."""
    b = _messages_graph(lg, lambda: [lg.AIMessage("改写了", id="2")])
    return Built(b, {"messages": _seed_history(lg)})


@case(expect={"result": {"messages": [("AIMessage", "ai", "hello", None, [], None, "2")]}})
def build_seed001_messages_remove(lg):
    """Seed 001 6.3: RemoveMessage(id="1") deletes that message."""
    b = _messages_graph(lg, lambda: [lg.RemoveMessage(id="1")])
    return Built(b, {"messages": _seed_history(lg)})


@case(
    expect={
        "result": {
            "messages": [
                ("HumanMessage", "human", "x", None, None, None, "1"),
                ("SystemMessage", "system", "new", None, None, None, "<uuid-1>"),
            ]
        }
    }
)
def build_messages_replace_then_remove(lg):
    """Within one right side: replace id 1, remove id 2, remove then re-add id 1, append a new one."""
    b = _messages_graph(
        lg,
        lambda: [
            lg.HumanMessage("changed", id="1"),
            lg.RemoveMessage(id="2"),
            lg.RemoveMessage(id="1"),
            lg.HumanMessage("x", id="1"),
            lg.SystemMessage("new"),
        ],
    )
    return Built(b, {"messages": _seed_history(lg)})


@case(
    expect={
        "result": {
            "messages": [
                ("HumanMessage", "human", "fresh", None, None, None, "<uuid-1>"),
                ("AIMessage", "ai", "start", None, [], None, "<uuid-2>"),
            ]
        }
    }
)
def build_messages_remove_all(lg):
    """RemoveMessage(id=REMOVE_ALL_MESSAGES): only what follows the marker survives."""
    b = _messages_graph(
        lg,
        lambda: [
            lg.HumanMessage("dropped"),
            lg.RemoveMessage(id=lg.REMOVE_ALL_MESSAGES),
            lg.HumanMessage("fresh"),
            ("ai", "start"),
        ],
    )
    return Built(b, {"messages": _seed_history(lg)})


@case(
    expect={
        "error": (
            "ValueError",
            "Attempting to delete a message with an ID that doesn't exist ('nope')",
        ),
        "notes": [],  # raised by the reducer at the barrier, not inside a task
    }
)
def build_messages_remove_missing(lg):
    """Removing an id that does not exist raises."""
    b = _messages_graph(lg, lambda: [lg.RemoveMessage(id="nope")])
    return Built(b, {"messages": _seed_history(lg)})


@case(
    expect={
        "error": (
            "ValueError",
            "Message dict must contain 'role' and 'content' keys, got {'role': 'x'}" + COERCION,
        )
    }
)
def build_messages_bad_dict(lg):
    """A dict without content cannot be coerced to a message."""
    b = _messages_graph(lg, lambda: [{"role": "x"}])
    return Built(b, {"messages": []})


@case(
    expect={
        "error": (
            "ValueError",
            "Unexpected message type: 'wizard'. Use one of 'human', 'user', 'ai', 'assistant', "
            "'function', 'tool', 'system', or 'developer'." + COERCION,
        )
    }
)
def build_messages_bad_role(lg):
    """A tuple with an unknown role."""
    b = _messages_graph(lg, lambda: [("wizard", "hi")])
    return Built(b, {"messages": []})


@case(
    expect={
        "result": {
            "messages": [
                ("HumanMessage", "human", "q", None, None, None, "<uuid-1>"),
                ("AIMessage", "ai", "a", None, [], None, "<uuid-2>"),
            ]
        },
        "probe": [("HumanMessage", "human", "q", None, None, None, "<uuid-1>")],
    }
)
def build_messages_input_ids_mutated(lg):
    """add_messages gives the caller's own message objects ids, in place."""
    given = [lg.HumanMessage("q")]
    b = lg.StateGraph(lg.MessagesState)
    b.add_node("n", lambda s: {"messages": [lg.AIMessage("a")]})
    b.add_edge(lg.START, "n")
    return Built(b, {"messages": given}, probe=lambda: given)


@case(
    expect={
        "result": {
            "messages": [
                ("HumanMessage", "human", "q", None, None, None, "<uuid-1>"),
                ("AIMessage", "ai", "from a", None, [], None, "<uuid-2>"),
                ("AIMessage", "ai", "from b", None, [], None, "<uuid-3>"),
            ]
        }
    }
)
def build_messages_parallel_ids(lg):
    """Two parallel nodes append id-less messages: ids are given in application order."""
    b = lg.StateGraph(lg.MessagesState)

    def a(s):
        sleep_ms(10)
        return {"messages": [lg.AIMessage("from a")]}

    b.add_node("a", a)
    b.add_node("b", lambda s: {"messages": [lg.AIMessage("from b")]})
    b.add_edge(lg.START, "a")
    b.add_edge(lg.START, "b")
    return Built(b, {"messages": [("user", "q")]})
