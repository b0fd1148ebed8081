"""Differential cases: add_messages called directly: add_messages(left, right)."""

# No `from __future__ import annotations`: state schemas defined inside builders refer to local names.

from ._common import COERCION, fcase
from .messages import _seed_history


def _h(*fields):
    return ("HumanMessage", "human", *fields)


def _ai(content, id, tool_calls=()):
    return ("AIMessage", "ai", content, None, list(tool_calls), None, id)


@fcase({"result": [_h("hi", None, None, None, "1"), _ai("hello", "2"), _ai("again", "3")]})
def args_append_new_id(lg):
    return _seed_history(lg), [lg.AIMessage("again", id="3")]


@fcase({"result": [_h("hi", None, None, None, "1"), _ai("改写了", "2")]})
def args_replace_existing_id(lg):
    return _seed_history(lg), lg.AIMessage("改写了", id="2")


@fcase({"result": [_ai("hello", "2")]})
def args_remove_by_id(lg):
    return _seed_history(lg), [lg.RemoveMessage(id="1")]


@fcase({"result": [_h("a", None, None, None, "<uuid-1>"), _h("b", None, None, None, "<uuid-2>")]})
def args_single_messages_both_sides(lg):
    return lg.HumanMessage("a"), lg.HumanMessage("b")


@fcase({"result": [_h("a", None, None, None, "<uuid-1>"), _h("b", None, None, None, "<uuid-2>")]})
def args_strings_both_sides(lg):
    return "a", "b"


@fcase({"result": [_h("hi", None, None, None, "1"), _ai("hello", "2"), _ai("y", "5")]})
def args_duplicate_ids_in_right_collapse(lg):
    return _seed_history(lg), [lg.AIMessage("x", id="5"), lg.AIMessage("y", id="5")]


@fcase({"result": [_h("back", None, None, None, "1"), _ai("hello", "2")]})
def args_remove_then_readd(lg):
    return _seed_history(lg), [lg.RemoveMessage(id="1"), lg.HumanMessage("back", id="1")]


@fcase({"result": [_ai("kept", "<uuid-1>")]})
def args_remove_all(lg):
    return _seed_history(lg), [
        lg.AIMessage("gone"),
        lg.RemoveMessage(id=lg.REMOVE_ALL_MESSAGES),
        lg.AIMessage("kept"),
    ]


@fcase({"error": ("ValueError", "Attempting to delete a message with an ID that doesn't exist ('nope')")})
def args_remove_missing(lg):
    return _seed_history(lg), [lg.RemoveMessage(id="nope")]


@fcase(
    {
        "result": [
            _h("u", None, None, None, "<uuid-1>"),
            _ai("a", "<uuid-2>"),
            ("SystemMessage", "system", "s", None, None, None, "<uuid-3>"),
            ("SystemMessage", "system", "d", None, None, None, "<uuid-4>"),
            ("ToolMessage", "tool", "5", None, None, "c1", "<uuid-5>"),
            _h("named", "bob", None, None, "<uuid-6>"),
        ]
    }
)
def args_coercion_tuples_and_dicts(lg):
    return [], [
        ("user", "u"),
        ("assistant", "a"),
        ("system", "s"),
        ("developer", "d"),
        {"role": "tool", "content": "5", "tool_call_id": "c1"},
        {"role": "human", "content": "named", "name": "bob"},
    ]


@fcase(
    {
        "error": (
            "ValueError",
            "Unexpected message type: 'wizard'. Use one of 'human', 'user', 'ai', 'assistant', "
            "'function', 'tool', 'system', or 'developer'." + COERCION,
        )
    }
)
def args_bad_role(lg):
    return [], [("wizard", "hi")]


@fcase(
    {
        "error": (
            "ValueError",
            "Message dict must contain 'role' and 'content' keys, got {'role': 'x'}" + COERCION,
        )
    }
)
def args_bad_dict(lg):
    return [], [{"role": "x"}]


@fcase({"error": ("NotImplementedError", "Unsupported message type: <class 'int'>" + COERCION)})
def args_unsupported_type(lg):
    return [], [5]
