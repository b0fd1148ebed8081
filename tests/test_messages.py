"""engine.messages, message_convert, message_reducer: message classes, convert_to_messages, add_messages.

The first part tests our module alone. The second part (skipped without langgraph/langchain-core)
feeds the same inputs to the real `langgraph.graph.message.add_messages` and to ours and compares
the results field by field, their reprs, the ids given to the caller's objects, and error texts.
"""

from __future__ import annotations

import functools
import itertools
import json
import typing
import uuid
from types import SimpleNamespace

import pytest

from engine import message_convert, message_reducer
from engine import messages as ours
from engine.message_convert import convert_to_messages, message_to_dict
from engine.message_reducer import REMOVE_ALL_MESSAGES, MessagesState, add_messages, set_id_factory
from engine.messages import AIMessage, HumanMessage, RemoveMessage, SystemMessage, ToolMessage


@pytest.fixture
def counting_ids():
    """Ids "id-1", "id-2", ... for the messages add_messages has to name."""
    counter = itertools.count(1)
    previous = set_id_factory(lambda: f"id-{next(counter)}")
    yield
    set_id_factory(previous)


def summary(messages):
    return [(m.type, m.content, m.id) for m in messages]


# --- merging ---------------------------------------------------------------------------------------


def test_new_id_is_appended():
    result = add_messages([HumanMessage("hi", id="1")], [AIMessage("hello", id="2")])
    assert summary(result) == [("human", "hi", "1"), ("ai", "hello", "2")]


def test_same_id_replaces_in_place_keeping_position():
    left = [HumanMessage("a", id="1"), AIMessage("b", id="2"), HumanMessage("c", id="3")]
    result = add_messages(left, [AIMessage("B", id="2")])
    assert summary(result) == [("human", "a", "1"), ("ai", "B", "2"), ("human", "c", "3")]


def test_left_list_is_not_mutated():
    left = [HumanMessage("a", id="1")]
    result = add_messages(left, [AIMessage("b", id="1")])
    assert result is not left and summary(left) == [("human", "a", "1")]


def test_duplicate_ids_in_right_collapse_to_the_later_one():
    result = add_messages([], [HumanMessage("x", id="1"), HumanMessage("y", id="1")])
    assert summary(result) == [("human", "y", "1")]


def test_remove_message_deletes_by_id():
    result = add_messages([HumanMessage("a", id="1"), AIMessage("b", id="2")], [RemoveMessage(id="1")])
    assert summary(result) == [("ai", "b", "2")]


def test_removing_an_unknown_id_raises_langgraphs_text():
    with pytest.raises(ValueError) as caught:
        add_messages([HumanMessage("a", id="1")], [RemoveMessage(id="nope")])
    assert str(caught.value) == "Attempting to delete a message with an ID that doesn't exist ('nope')"


def test_later_message_with_removed_id_cancels_the_removal():
    result = add_messages([HumanMessage("a", id="1")], [RemoveMessage(id="1"), HumanMessage("b", id="1")])
    assert summary(result) == [("human", "b", "1")]


def test_removal_is_applied_after_replacements():
    result = add_messages([HumanMessage("a", id="1")], [HumanMessage("b", id="1"), RemoveMessage(id="1")])
    assert result == []


def test_remove_all_keeps_only_what_follows_the_last_marker():
    right = [
        AIMessage("x", id="5"),
        RemoveMessage(id=REMOVE_ALL_MESSAGES),
        AIMessage("y", id="6"),
        RemoveMessage(id=REMOVE_ALL_MESSAGES),
        AIMessage("z", id="7"),
    ]
    assert REMOVE_ALL_MESSAGES == "__remove_all__"
    assert summary(add_messages([HumanMessage("a", id="1")], right)) == [("ai", "z", "7")]


def test_remove_all_skips_unknown_id_checks_after_it():
    # LangGraph returns the tail as is, so a RemoveMessage for an unknown id survives in the state.
    result = add_messages([HumanMessage("a", id="1")], [RemoveMessage(id=REMOVE_ALL_MESSAGES), RemoveMessage(id="x")])
    assert [(type(m).__name__, m.id) for m in result] == [("RemoveMessage", "x")]


# --- coercion --------------------------------------------------------------------------------------


def test_string_becomes_human_message(counting_ids):
    assert summary(add_messages([], "hello")) == [("human", "hello", "id-1")]


def test_single_message_on_either_side_is_wrapped_in_a_list():
    result = add_messages(HumanMessage("a", id="1"), AIMessage("b", id="2"))
    assert summary(result) == [("human", "a", "1"), ("ai", "b", "2")]


def test_role_tuples_map_to_classes():
    result = convert_to_messages(
        [("user", "u"), ("human", "h"), ("assistant", "a"), ("ai", "i"), ("system", "s"), ("developer", "d")]
    )
    assert [type(m) for m in result] == [HumanMessage, HumanMessage, AIMessage, AIMessage, SystemMessage, SystemMessage]
    assert result[-1].additional_kwargs == {"__openai_role__": "developer"}


def test_dicts_with_role_or_type_and_extra_keys():
    human, ai, tool = convert_to_messages(
        [
            {"role": "user", "content": "q", "id": "7", "name": "ann", "foo": "bar"},
            {
                "type": "ai",
                "content": None,
                "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "f", "arguments": '{"a": 1}'}}],
            },
            {"role": "tool", "content": "42", "tool_call_id": "c1", "status": "error"},
        ]
    )
    assert (human.id, human.name, human.additional_kwargs) == ("7", "ann", {"foo": "bar"})
    assert ai.content == "" and ai.tool_calls == [{"name": "f", "args": {"a": 1}, "id": "c1", "type": "tool_call"}]
    assert (tool.tool_call_id, tool.status) == ("c1", "error")


def test_dict_without_content_raises_langchains_text():
    with pytest.raises(ValueError) as caught:
        add_messages([], [{"role": "user"}])
    assert str(caught.value).startswith("Message dict must contain 'role' and 'content' keys, got {'role': 'user'}")


def test_unknown_role_raises_langchains_text():
    with pytest.raises(ValueError) as caught:
        add_messages([], [("wizard", "abracadabra")])
    assert str(caught.value).splitlines()[0] == (
        "Unexpected message type: 'wizard'. Use one of 'human', 'user', 'ai', 'assistant', 'function', "
        "'tool', 'system', or 'developer'."
    )


def test_a_tuple_of_messages_is_not_a_list():
    with pytest.raises(NotImplementedError, match=r"must be \(role string, template\)"):
        add_messages((HumanMessage("a", id="1"),), [])


# --- ids -------------------------------------------------------------------------------------------


def test_missing_ids_are_assigned_in_place_on_both_sides(counting_ids):
    left, right = HumanMessage("a"), AIMessage("b")
    result = add_messages([left], [right])
    assert (left.id, right.id) == ("id-1", "id-2")
    assert result[0] is left and result[1] is right


def test_default_ids_are_uuid4_strings():
    (message,) = add_messages([], [HumanMessage("a")])
    assert uuid.UUID(message.id).version == 4


def test_empty_string_id_is_kept():
    assert add_messages([HumanMessage("a", id="")], [HumanMessage("b", id="")])[0].content == "b"


# --- format= and the partial form --------------------------------------------------------------------


def test_unknown_format_raises():
    with pytest.raises(ValueError, match=r"^Unrecognized format='bogus'\. Expected one of 'langchain-openai', None\.$"):
        add_messages([HumanMessage("a", id="1")], [], format="bogus")


def test_keyword_only_call_returns_a_reducer():
    reducer = add_messages(format="langchain-openai")
    assert isinstance(reducer, functools.partial)
    (message,) = reducer([], [HumanMessage(["a", {"type": "text", "text": "b", "cache_control": {}}], id="1")])
    assert message.content == "a\nb" and message.id is None  # text-only content is joined; ids are dropped


def test_only_one_side_raises_and_tests_truthiness():
    with pytest.raises(ValueError, match=r"Only received: 'left'\.$"):
        add_messages(["a"], None)
    with pytest.raises(ValueError, match=r"Only received: 'right'\.$"):
        add_messages([], None)  # an empty left is falsy, so LangGraph names 'right'


# --- the message classes ---------------------------------------------------------------------------


def test_repr_matches_langchain_core():
    assert (
        repr(HumanMessage("hi", id="1"))
        == "HumanMessage(content='hi', additional_kwargs={}, response_metadata={}, id='1')"
    )
    assert (
        repr(AIMessage("x", name="bot"))
        == "AIMessage(content='x', additional_kwargs={}, response_metadata={}, name='bot', tool_calls=[], "
        "invalid_tool_calls=[])"
    )
    assert repr(ToolMessage("42", tool_call_id="c1")) == "ToolMessage(content='42', tool_call_id='c1')"
    assert (
        repr(RemoveMessage(id="1")) == "RemoveMessage(content='', additional_kwargs={}, response_metadata={}, id='1')"
    )
    assert str(HumanMessage("hi", id="1")) == "content='hi' additional_kwargs={} response_metadata={} id='1'"


def test_equality_is_same_class_and_same_fields():
    assert HumanMessage("hi", id="1") == HumanMessage(content="hi", id="1", name=None)
    assert HumanMessage("hi", id="1") != AIMessage("hi", id="1")
    assert HumanMessage("hi", id="1") != HumanMessage("hi", id="2")
    assert HumanMessage("hi", id="1") != HumanMessage("hi", id="1", foo=1)
    with pytest.raises(TypeError):
        hash(HumanMessage("hi"))


def test_tool_calls_get_type_and_keep_order():
    message = AIMessage("", tool_calls=[{"name": "search", "args": {"q": "x"}, "id": "c1"}])
    assert message.tool_calls == [{"name": "search", "args": {"q": "x"}, "id": "c1", "type": "tool_call"}]
    with pytest.raises(TypeError, match="missing 1 required keyword-only argument: 'id'"):
        AIMessage("", tool_calls=[{"name": "search", "args": {}}])


def test_tool_message_requires_tool_call_id_and_stringifies_content():
    with pytest.raises(KeyError):
        ToolMessage("42")
    message = ToolMessage(42, tool_call_id=7)
    assert (message.content, message.tool_call_id, message.status) == ("42", "7", "success")


def test_remove_message_rejects_content():
    with pytest.raises(ValueError, match="RemoveMessage does not support 'content' field."):
        RemoveMessage(id="1", content="x")


def test_messages_are_mutable_and_text_joins_text_blocks():
    message = HumanMessage(["a", {"type": "text", "text": "b"}, {"type": "image_url"}])
    message.id = "z"
    assert message.id == "z" and message.text == "ab" and message.text() == "ab"


def test_message_to_dict_is_json_able():
    data = message_to_dict(AIMessage("hi", id="1", tool_calls=[{"name": "f", "args": {}, "id": "c"}]))
    assert json.loads(json.dumps(data)) == data
    assert data == {
        "type": "ai",
        "data": {
            "content": "hi",
            "additional_kwargs": {},
            "response_metadata": {},
            "type": "ai",
            "name": None,
            "id": "1",
            "tool_calls": [{"name": "f", "args": {}, "id": "c", "type": "tool_call"}],
            "invalid_tool_calls": [],
            "usage_metadata": None,
        },
    }


def test_messages_state_annotation_carries_the_reducer():
    hint = typing.get_type_hints(MessagesState, include_extras=True)["messages"]
    assert hint.__metadata__ == (add_messages,)


def test_public_surface():
    homes = {
        ours: [
            "BaseMessage",
            "HumanMessage",
            "AIMessage",
            "SystemMessage",
            "ToolMessage",
            "RemoveMessage",
            "AnyMessage",
        ],
        message_reducer: ["REMOVE_ALL_MESSAGES", "add_messages", "MessagesState"],
        message_convert: ["convert_to_messages", "message_to_dict"],
    }
    for module, names in homes.items():
        for name in names:
            assert name in module.__all__ and hasattr(module, name)


# --- the seed article's example --------------------------------------------------------------------


def test_seed_article_example():
    start = [HumanMessage("hi", id="1"), AIMessage("hello", id="2")]
    assert summary(add_messages(start, [AIMessage("again", id="3")])) == [
        ("human", "hi", "1"),
        ("ai", "hello", "2"),
        ("ai", "again", "3"),
    ]
    assert summary(add_messages(start, [AIMessage("改写了", id="2")])) == [("human", "hi", "1"), ("ai", "改写了", "2")]
    assert summary(add_messages(start, [RemoveMessage(id="1")])) == [("ai", "hello", "2")]


# --- differential: the same inputs through the real libraries ----------------------------------------


@pytest.fixture(scope="module")
def real():
    lc = pytest.importorskip("langchain_core.messages")
    lg = pytest.importorskip("langgraph.graph.message")
    return SimpleNamespace(
        HumanMessage=lc.HumanMessage,
        AIMessage=lc.AIMessage,
        SystemMessage=lc.SystemMessage,
        ToolMessage=lc.ToolMessage,
        RemoveMessage=lc.RemoveMessage,
        add_messages=lg.add_messages,
        REMOVE_ALL_MESSAGES=lg.REMOVE_ALL_MESSAGES,
        message_to_dict=lc.message_to_dict,
    )


OURS = SimpleNamespace(
    HumanMessage=HumanMessage,
    AIMessage=AIMessage,
    SystemMessage=SystemMessage,
    ToolMessage=ToolMessage,
    RemoveMessage=RemoveMessage,
    add_messages=add_messages,
    REMOVE_ALL_MESSAGES=REMOVE_ALL_MESSAGES,
    message_to_dict=message_to_dict,
)

TC = {"name": "search", "args": {"q": "x"}, "id": "c1"}
OPENAI_TC = {"id": "c2", "type": "function", "function": {"name": "f", "arguments": '{"a": [1, 2]}'}}

# name -> function(namespace) -> (left, right, keyword arguments); each is built fresh per backend.
# Not covered on purpose (engine.messages does not implement them): serialized {"lc": 1, "type": "constructor"}
# dicts, OpenAI tool calls given only in additional_kwargs, message chunks, and most content-block rewrites of
# format="langchain-openai".
MERGE_CASES = {
    "append": lambda M: ([M.HumanMessage("hi", id="1")], [M.AIMessage("hello", id="2")], {}),
    "replace": lambda M: (
        [M.HumanMessage("hi", id="1"), M.AIMessage("hello", id="2")],
        [M.AIMessage("改写了", id="2")],
        {},
    ),
    "remove": lambda M: ([M.HumanMessage("hi", id="1"), M.AIMessage("hello", id="2")], [M.RemoveMessage(id="1")], {}),
    "remove unknown": lambda M: ([M.HumanMessage("hi", id="1")], [M.RemoveMessage(id="nope")], {}),
    "remove then re-add": lambda M: (
        [M.HumanMessage("a", id="1")],
        [M.RemoveMessage(id="1"), M.AIMessage("b", id="1")],
        {},
    ),
    "re-add then remove": lambda M: (
        [M.HumanMessage("a", id="1")],
        [M.AIMessage("b", id="1"), M.RemoveMessage(id="1")],
        {},
    ),
    "remove what right added": lambda M: ([], [M.HumanMessage("a", id="9"), M.RemoveMessage(id="9")], {}),
    "remove twice": lambda M: ([M.HumanMessage("a", id="1")], [M.RemoveMessage(id="1"), M.RemoveMessage(id="1")], {}),
    "duplicate ids in left": lambda M: (
        [M.HumanMessage("a", id="1"), M.HumanMessage("b", id="1")],
        [M.AIMessage("c", id="1")],
        {},
    ),
    "remove duplicate ids": lambda M: (
        [M.HumanMessage("a", id="1"), M.HumanMessage("b", id="1")],
        [M.RemoveMessage(id="1")],
        {},
    ),
    "remove all": lambda M: (
        [M.HumanMessage("a")],
        [M.HumanMessage("b"), M.RemoveMessage(id=M.REMOVE_ALL_MESSAGES), M.AIMessage("c"), "d"],
        {},
    ),
    "remove all then unknown": lambda M: ([], [M.RemoveMessage(id=M.REMOVE_ALL_MESSAGES), M.RemoveMessage(id="x")], {}),
    "remove all ignores bad format": lambda M: ([], [M.RemoveMessage(id=M.REMOVE_ALL_MESSAGES)], {"format": "bogus"}),
    "ids assigned both sides": lambda M: ([M.HumanMessage("a"), M.AIMessage("b")], [M.HumanMessage("c")], {}),
    "strings": lambda M: ("a", "b", {}),
    "single messages": lambda M: (M.HumanMessage("a", id="1"), M.AIMessage("b"), {}),
    "role tuples": lambda M: (
        [("user", "u"), ("assistant", "a")],
        [("system", "s"), ("developer", "d"), ("human", ["x"])],
        {},
    ),
    "role dicts": lambda M: (
        [],
        [
            {"role": "user", "content": "q", "id": "7", "name": "n", "x": 1},
            {"type": "ai", "content": None, "tool_calls": [OPENAI_TC, dict(TC)]},
            {"role": "tool", "content": "r", "tool_call_id": "c1", "artifact": [1], "status": "error"},
            {
                "role": "user",
                "content": "m",
                "response_metadata": {"r": 1},
                "additional_kwargs": {"k": 2},
                "example": True,
            },
            {"role": "user", "type": "ai", "content": "role wins"},
            {"type": "remove", "content": "ignored", "id": "7"},
        ],
        {},
    ),
    "tool calls": lambda M: (
        [M.HumanMessage("q", id="1")],
        [
            M.AIMessage("", id="2", tool_calls=[dict(TC)]),
            M.ToolMessage("res", tool_call_id="c1", id="3", name="search"),
        ],
        {},
    ),
    "empty string ids": lambda M: ([M.HumanMessage("a", id="")], [M.HumanMessage("b", id="")], {}),
    "tuple is not a list": lambda M: ((M.HumanMessage("a", id="1"),), [], {}),
    "bad role": lambda M: ([], [("wizard", "x")], {}),
    "bad role in dict": lambda M: ([], [{"role": "wizard", "content": "x"}], {}),
    "dict without role": lambda M: ([], [{"content": "x", "id": "1"}], {}),
    "unsupported item": lambda M: ([], [42], {}),
    "three-tuple": lambda M: ([], [("human", "a", "b")], {}),
    "bytes pair": lambda M: ([], [b"hi"], {}),
    "tool tuple lacks id": lambda M: ([], [("tool", "x")], {}),
    "remove dict lacks id": lambda M: ([], [{"type": "remove", "content": ""}], {}),
    "bad format": lambda M: ([M.HumanMessage("a", id="1")], [], {"format": "bogus"}),
    "bad format after bad remove": lambda M: ([], [M.RemoveMessage(id="nope")], {"format": "bogus"}),
    "openai format": lambda M: (
        [
            M.HumanMessage("a", id="1", name="ann"),
            M.SystemMessage("d", id="s", additional_kwargs={"__openai_role__": "developer"}),
        ],
        [
            M.AIMessage("", id="2", tool_calls=[dict(TC)]),
            M.ToolMessage("r", tool_call_id="c1", id="3", artifact=1),
            M.HumanMessage(["x", {"type": "text", "text": "y", "cache_control": {"type": "ephemeral"}}]),
        ],
        {"format": "langchain-openai"},
    ),
    "openai format keeps non-text blocks": lambda M: (
        [],
        [
            M.HumanMessage(["x", {"type": "image_url", "image_url": {"url": "http://x"}}], id="1"),
            M.AIMessage(["a", {"type": "text", "text": "b"}], id="2"),
        ],
        {"format": "langchain-openai"},
    ),
    "left only": lambda M: (["a"], None, {}),
    "empty left only": lambda M: ([], None, {}),
    "right only": lambda M: (None, ["a"], {}),
}


def outcome(namespace, case, monkeypatch):
    """What one backend does with a case: result rows (with reprs) or the error, plus the input ids after."""
    counter = itertools.count(1)
    monkeypatch.setattr(uuid, "uuid4", lambda: uuid.UUID(int=next(counter)))  # both sides call uuid.uuid4()
    try:
        left, right, kwargs = case(namespace)
        inputs = [m for side in (left, right) for m in (side if isinstance(side, (list, tuple)) else [side])]
        result = namespace.add_messages(left, right, **kwargs)
    except Exception as error:  # the error's class name and text must match too
        return ("error", type(error).__name__, str(error))
    rows = [
        (
            type(m).__name__,
            m.type,
            m.content,
            m.id,
            m.name,
            getattr(m, "tool_calls", None),
            getattr(m, "tool_call_id", None),
            repr(m),
        )
        for m in result
    ]
    return ("ok", rows, [getattr(m, "id", "-") for m in inputs])


@pytest.mark.parametrize("name", list(MERGE_CASES))
def test_add_messages_matches_langgraph(name, real, monkeypatch):
    assert outcome(OURS, MERGE_CASES[name], monkeypatch) == outcome(real, MERGE_CASES[name], monkeypatch)


def test_partial_form_matches_langgraph(real):
    for namespace in (OURS, real):
        reducer = namespace.add_messages(format="bogus")
        with pytest.raises(ValueError) as caught:
            reducer([namespace.HumanMessage("a", id="1")], [])
        assert str(caught.value) == "Unrecognized format='bogus'. Expected one of 'langchain-openai', None."


# name -> function(namespace) -> one message; compared by repr, str, message_to_dict and equality.
CONSTRUCTOR_CASES = {
    "human keywords": lambda M: M.HumanMessage(
        content="hi", name="bob", id="1", additional_kwargs={"a": 1}, response_metadata={"b": 2}
    ),
    "list content": lambda M: M.HumanMessage(["x", {"type": "text", "text": "y"}]),
    "tuple content": lambda M: M.HumanMessage(("a", "b")),
    "numeric id": lambda M: M.HumanMessage("x", id=5),
    "extra field": lambda M: M.HumanMessage("x", example=False, foo=[1]),
    "ai plain": lambda M: M.AIMessage("hello", id="2"),
    "ai tool call": lambda M: M.AIMessage(
        "", tool_calls=[{"name": "s", "args": {"q": 1}, "id": "c1", "extras": {"e": 1}}]
    ),
    "ai tool call none id": lambda M: M.AIMessage("", tool_calls=[{"name": "s", "args": {}, "id": None, "type": "x"}]),
    "ai tool call missing id": lambda M: M.AIMessage("", tool_calls=[{"name": "s", "args": {}}]),
    "ai tool call with index": lambda M: M.AIMessage("", tool_calls=[{"name": "s", "args": {}, "id": "1", "index": 0}]),
    "ai invalid tool calls": lambda M: M.AIMessage("x", invalid_tool_calls=[{"name": "s", "args": "{bad", "id": "1"}]),
    "ai usage": lambda M: M.AIMessage("x", usage_metadata={"total_tokens": 3, "input_tokens": 1, "output_tokens": 2}),
    "ai content blocks": lambda M: M.AIMessage(
        content_blocks=[{"type": "text", "text": "t"}, {"type": "tool_call", "name": "s", "args": {}, "id": "9"}]
    ),
    "system": lambda M: M.SystemMessage("sys", id="s"),
    "tool all fields": lambda M: M.ToolMessage(
        "42", tool_call_id="c1", id="t", name="n", status="error", artifact=[1], additional_kwargs={"a": 1}
    ),
    "tool coerced": lambda M: M.ToolMessage(["a", 3, {"type": "text", "text": "b"}], tool_call_id=5),
    "tool missing id": lambda M: M.ToolMessage("42"),
    "model_copy": lambda M: M.AIMessage("a", id="1").model_copy(update={"content": "b", "name": "n"}),
    "mutated after construction": lambda M: mutated(M.HumanMessage("a")),
    "remove": lambda M: M.RemoveMessage(id="1"),
    "remove positional": lambda M: M.RemoveMessage("1"),
    "remove with content": lambda M: M.RemoveMessage(id="1", content="x"),
    "remove empty content": lambda M: M.RemoveMessage(id="1", content=""),
    "remove without id": lambda M: M.RemoveMessage(),
}


def mutated(message):
    message.id, message.content, message.extra_note = "z", ["b"], {"k": 1}
    message.additional_kwargs["a"] = 1
    return message


def built(namespace, case):
    try:
        message = case(namespace)
    except Exception as error:
        # pydantic's ValidationError is a ValueError whose long text we do not copy.
        kind = "ValueError" if type(error).__name__ == "ValidationError" else type(error).__name__
        return ("error", kind, None if kind == "ValueError" and "validation error" in str(error) else str(error))
    return (
        "ok",
        repr(message),
        str(message),
        namespace.message_to_dict(message),
        message.pretty_repr(),
        message == case(namespace),
        message.text,
    )


@pytest.mark.parametrize("name", list(CONSTRUCTOR_CASES))
def test_message_constructors_match_langchain_core(name, real):
    assert built(OURS, CONSTRUCTOR_CASES[name]) == built(real, CONSTRUCTOR_CASES[name])


@pytest.mark.parametrize("content", [5, None])
def test_bad_content_is_a_value_error_like_pydantics(content, real):
    for namespace in (OURS, real):
        with pytest.raises(ValueError, match="validation errors? for HumanMessage"):
            namespace.HumanMessage(content)
