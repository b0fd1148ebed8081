"""A recorded message keeps `model_dump()`'s fields in its order, minus the empty ones (content and a
tool message's tool_call_id always stay): the encoder's shortcuts (string fields as they are, the dump
order read off the instance) must give what the plain definition gives, on odd messages too."""

from __future__ import annotations

import gc
from typing import Any

import pytest

from engine import codec_encode
from engine.codec import encode, encode_message
from engine.codec_encode import _EMPTY_FIELD_VALUES
from engine.messages import AIMessage, BaseMessage, HumanMessage, RemoveMessage, SystemMessage, ToolMessage


def plainly(message: BaseMessage) -> dict[str, Any]:
    """The definition: model_dump's items, each kept unless empty, each encoded."""
    kept = {
        key: encode(value)
        for key, value in message.model_dump().items()
        if key in ("content", "tool_call_id")
        or (key != "type" and value not in _EMPTY_FIELD_VALUES and value != {} and value != [])
    }
    return {"type": message.type, "data": kept}


def _field_deleted_and_set_again() -> BaseMessage:
    message = AIMessage(content="x")
    del message.__dict__["name"]
    message.name = "late"  # now after the extras' place: the dump still lists it with the fields
    return message


def _extra_then_id() -> BaseMessage:
    message = AIMessage(content="x")
    message.zzz = {"a": 1}
    message.id = "later"
    return message


def _extra_set_later() -> BaseMessage:
    message = AIMessage(content="x")
    message.late = {"a": (1,)}  # set by name: its `__dict__` may never have been made
    return message


def _field_deleted() -> BaseMessage:
    message = AIMessage(content="x", name="n")
    del message.name
    return message


def _field_deleted_and_set_again_by_name() -> BaseMessage:
    message = AIMessage(content="x")
    del message.name
    message.name = "late"
    return message


ODD = [
    lambda: AIMessage(content="success", name="success", id="x"),
    lambda: ToolMessage(content="", tool_call_id="success", status="success"),
    lambda: ToolMessage(content=[("a",)], tool_call_id="t", status="error", artifact=(1, 2)),
    lambda: AIMessage(
        content=[{"type": "text", "text": "hi"}], tool_calls=[{"name": "f", "args": {"a": (1, 2)}, "id": "1"}]
    ),
    lambda: HumanMessage(content="", extra_field=0, other=False, third=(1,), fourth="success"),
    lambda: SystemMessage(content="s", additional_kwargs={"k": [1, (2,)]}),
    lambda: RemoveMessage(id="r"),
    _field_deleted_and_set_again,
    _extra_then_id,
    _extra_set_later,
    _field_deleted,
    _field_deleted_and_set_again_by_name,
]


@pytest.mark.parametrize("make", ODD)
def test_a_message_is_encoded_as_its_dump_without_empty_fields(make: Any) -> None:
    message = make()
    assert encode_message(message) == plainly(message)
    assert list(encode_message(message)["data"]) == list(plainly(message)["data"])  # in the dump's order
    assert [key for key, _ in message.dump_items()] == list(message.model_dump())


@pytest.mark.skipif(not codec_encode._BY_REFERENTS, reason="this Python's gc.get_referents does not count attributes")
def test_encoding_a_message_leaves_its_attributes_where_python_keeps_them() -> None:
    """`vars()` would make CPython build the message's `__dict__`, which makes every later read of its
    attributes slower (`add_messages` reads every message's id every step). A message whose dict was
    never made has one referent per attribute, plus its class."""
    message = AIMessage(content="x", id="1")
    encode(message)
    encode_message(message)
    assert len(gc.get_referents(message)) == len(message._fields) + 1
    vars(message)
    assert len(gc.get_referents(message)) != len(message._fields) + 1  # the check itself tells them apart
