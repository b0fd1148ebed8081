"""The `add_messages` reducer and `MessagesState`, standard library only: LangGraph's
`langgraph.graph.message`, with the same calling convention and error texts. `add_messages(left, right)`:

1. Either side may be one message or a list. Strings, `(role, content)` tuples and
   dicts become message objects (`convert_to_messages`).
2. Every message without an id, on either side, gets one *in place* (a uuid4 string
   unless `set_id_factory` installed something else).
3. Starting from a copy of `left`, each message of `right` replaces the message with
   the same id where it stands, or is appended when the id is new.
4. `RemoveMessage(id=x)` marks `x` for deletion (an unknown id is an error); a later
   message with id `x` in the same update un-marks it. Deletions are applied last.
5. `RemoveMessage(id=REMOVE_ALL_MESSAGES)` drops everything before it: the result is
   only what follows the last such marker in `right`.
"""

from __future__ import annotations

import functools
import uuid
from collections.abc import Callable
from typing import Annotated, Any, TypedDict

from .message_convert import convert_to_messages, openai_round_trip
from .messages import AnyMessage, BaseMessage, RemoveMessage

__all__ = ["REMOVE_ALL_MESSAGES", "add_messages", "MessagesState", "set_id_factory"]

REMOVE_ALL_MESSAGES = "__remove_all__"


def _new_uuid() -> str:
    return str(uuid.uuid4())


_id_factory: Callable[[], str] = _new_uuid


def set_id_factory(factory: Callable[[], str] | None) -> Callable[[], str]:
    """Use `factory()` for the ids add_messages assigns (None restores uuid4). Returns the previous one."""
    global _id_factory
    previous, _id_factory = _id_factory, factory or _new_uuid
    return previous


def coerce_messages(messages: Any) -> list[BaseMessage]:
    # A tuple is not a list, so `(msg,)` becomes `[(msg,)]` and then fails as a (role, content) pair,
    # exactly as in LangGraph.
    items = messages if isinstance(messages, list) else [messages]
    # The usual case, a list of messages already (the state's own, every step): checked at C speed
    # over its few distinct types, and copied as `convert_to_messages` would have built it.
    if all(issubclass(kind, BaseMessage) for kind in set(map(type, items))):
        return list(items)
    return convert_to_messages(items)


def _both_sides_or_partial(merge: Callable[..., list[BaseMessage]]) -> Callable[..., Any]:
    """LangGraph's calling convention: both sides merge, neither returns the reducer configured by keywords
    (`Annotated[list, add_messages(format="langchain-openai")]`), and one side alone is an error."""

    @functools.wraps(merge)  # the partial's `.func` keeps the name `add_messages` for the debugger
    def wrapper(left: Any = None, right: Any = None, **kwargs: Any) -> Any:
        if left is not None and right is not None:
            return merge(left, right, **kwargs)
        if left is not None or right is not None:
            # LangGraph tests `left` for truthiness here, so `add_messages([], None)` blames 'right'.
            raise ValueError(
                "Must specify non-null arguments for both 'left' and 'right'. "
                f"Only received: '{'left' if left else 'right'}'."
            )
        return functools.partial(merge, **kwargs)

    return wrapper


@_both_sides_or_partial
def add_messages(left: Any, right: Any, *, format: str | None = None) -> list[BaseMessage]:
    """Merge `right` into `left` by id (see the module docstring); returns a new list."""
    merged, right = coerce_messages(left), coerce_messages(right)  # `merged`: a new list, the result built in place
    ids = {message.id for message in merged}  # a set: `None in ids` and each new id are looked up at once
    if None in ids:  # the state's messages have their ids (only the input's may lack them)
        for message in merged:
            if message.id is None:
                message.id = _id_factory()
        ids = {message.id for message in merged}
    remove_all_at = give_ids(right)
    if remove_all_at is not None:
        return right[remove_all_at + 1 :]  # LangGraph returns here: no removals, no format check
    if format is None and all_new(right, ids.__contains__):
        merged += right  # the usual step: a node adds new messages (no dict of the whole list built)
        return merged
    return merge_by_id(merged, right, format)


def give_ids(right: list[BaseMessage]) -> int | None:
    """Gives each message of `right` without an id one, in order; returns the index of the last
    `RemoveMessage(id=REMOVE_ALL_MESSAGES)`, if any."""
    remove_all_at = None
    for index, message in enumerate(right):
        if message.id is None:
            message.id = _id_factory()
        if isinstance(message, RemoveMessage) and message.id == REMOVE_ALL_MESSAGES:
            remove_all_at = index
    return remove_all_at


def merge_by_id(merged: list[BaseMessage], right: list[BaseMessage], format: str | None) -> list[BaseMessage]:
    """Steps 3 and 4 of the module docstring, in place on `merged` (a new list, `left`'s items), then
    the `format` conversion."""
    position_by_id = dict(zip([message.id for message in merged], range(len(merged))))  # {m.id: last index}
    ids_to_remove = set()
    for message in right:
        if (position := position_by_id.get(message.id)) is not None:
            if isinstance(message, RemoveMessage):
                ids_to_remove.add(message.id)
            else:
                ids_to_remove.discard(message.id)
                merged[position] = message
        elif isinstance(message, RemoveMessage):
            raise ValueError(f"Attempting to delete a message with an ID that doesn't exist ('{message.id}')")
        else:
            position_by_id[message.id] = len(merged)
            merged.append(message)
    if ids_to_remove:
        merged = [m for m in merged if m.id not in ids_to_remove]

    if format == "langchain-openai":
        return openai_round_trip(merged)
    if format:
        raise ValueError(f"Unrecognized {format=}. Expected one of 'langchain-openai', None.")
    return merged


def all_new(right: list[BaseMessage], in_left: Callable[[Any], bool]) -> bool:
    """True when every message of `right` is an ordinary one whose id is neither in `left` (`in_left`)
    nor earlier in `right`: `add_messages` then only appends them, in order."""
    seen = set()
    for message in right:
        if isinstance(message, RemoveMessage) or in_left(message.id) or message.id in seen:
            return False
        seen.add(message.id)
    return True


class MessagesState(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]
