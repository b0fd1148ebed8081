"""Message ids that a library made up at run time, told from ids the user chose.

langchain gives every chat-model reply an id of its own (`lc_run--<uuid>-0`, formerly `run-<uuid>-0`) and
langgraph's `add_messages` gives an id-less message a `uuid4`. Such an id is new on every run, so a re-run
of the same graph never reproduces it: two states that differ only in them are the same state (time
travel's "did the re-run reproduce the original?"), and the part worth showing is the random tail, not
the prefix every id of one run shares (uuid7 ids open with the time, so one run's ids share their first
eight characters). An id the user set (`"msg-1"`) is compared and shown as it is.

Values here are encoded (`engine.codec`): a message is `{"$type": "message", "message": {"type", "data"}}`.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from engine.codec import TYPE

_GENERATED = re.compile(
    r"^(?P<prefix>lc_run--|run-)?"
    r"(?P<uuid>[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})"
    r"(?P<suffix>-\d+)?$",
    re.IGNORECASE,
)
GENERATED_ID = "<generated id>"
"""What a generated id is replaced by when two states are compared."""


def is_generated(message_id: Any) -> bool:
    """Whether `message_id` has the shape of an id langchain or langgraph made up (a uuid, maybe with
    langchain's `lc_run--`/`run-` prefix and `-N` suffix)."""
    return isinstance(message_id, str) and _GENERATED.match(message_id) is not None


def distinguishing(message_id: str) -> str:
    """The part of an id that tells it from the others of its run: a generated id's last eight hex digits
    (with a `-N` suffix other than `-0`) after an ellipsis, a chosen id up to 16 characters."""
    found = _GENERATED.match(message_id)
    if found is None:
        return message_id if len(message_id) <= 16 else message_id[:15] + "…"
    suffix = found.group("suffix") or ""
    return "…" + found.group("uuid")[-8:] + ("" if suffix in ("", "-0") else suffix)


def with_messages_mapped(
    value: Any, message: Callable[[dict[str, Any]], Any], text: Callable[[str], str] | None = None
) -> Any:
    """`value` (encoded) rebuilt with each message in it (`{"$type": "message", ...}`) replaced by
    `message(it)` and, given `text`, each string outside messages by `text(it)`; the rest as it is."""
    if isinstance(value, str):
        return text(value) if text is not None else value
    if isinstance(value, list):
        return [with_messages_mapped(item, message, text) for item in value]
    if not isinstance(value, dict):
        return value
    if value.get(TYPE) == "message" and isinstance(value.get("message"), dict):
        return message(value)
    return {key: with_messages_mapped(item, message, text) for key, item in value.items()}


def without_generated_ids(value: Any) -> Any:
    """`value` (encoded) with every generated message id replaced by `GENERATED_ID`."""
    return with_messages_mapped(value, _generated_id_set_aside)


def _generated_id_set_aside(value: dict[str, Any]) -> dict[str, Any]:
    message = value["message"]
    data = message.get("data")
    if isinstance(data, dict) and is_generated(data.get("id")):
        return {**value, "message": {**message, "data": {**data, "id": GENERATED_ID}}}
    return value


def same_up_to_generated_ids(a: Any, b: Any) -> bool:
    """Whether two encoded values are equal once the message ids made up at run time are set aside."""
    return a == b or without_generated_ids(a) == without_generated_ids(b)
