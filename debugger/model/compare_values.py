"""What counts as equal when two runs are compared (`debugger.model.compare`): values as recorded, with
generated ids set aside (a langchain message's `id`, any UUID inside a string) and a write to a message
key read as the messages `add_messages` makes of it. Such values get the verdict `SAME_BUT_IDS`, so the
page and the command can say what they set aside."""

from __future__ import annotations

import re
from typing import Any

from debugger.diagnostics.generated_ids import GENERATED_ID, with_messages_mapped
from debugger.diagnostics.replay import canonical
from debugger.diagnostics.value_text import MESSAGE_REDUCERS
from debugger.i18n import N_
from engine import add_messages
from engine.codec import TYPE, decode, encode

SAME = "same"
SAME_BUT_IDS = "same but ids"
"""Equal once generated ids are set aside (and a write to a message key is read as its messages)."""
DIFFERS = "differs"
ONLY_A = "only in A"
ONLY_B = "only in B"
ABSENT: dict[str, Any] = {TYPE: "absent"}
"""The side of a row where the run has no such value (shared; never mutate it)."""

_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
IDS_NOTE = N_(
    "Generated ids (langchain message ids, uuids) are set aside, and a write to a message key is read as the "
    "messages add_messages makes of it: values that differ only so are shown as equal (≈)."
)
"""What the command and the page say when some values were equal only so (translated where it is said)."""


def as_messages(value: Any) -> Any:
    """A write to a message key (`add_messages`) as the messages the reducer makes of it: a dict with
    `role`, a `(role, content)` pair or a string is the message it stands for (the reducer itself, on an
    empty list: the ids it gives are set aside anyway), so a run recorded live (the raw write) and a thread
    read back from its checkpoints (the coerced one) compare alike. A value it cannot read is returned as
    it is."""
    try:
        decoded = decode(value)
        items = decoded if isinstance(decoded, list) else [decoded]
        return encode(add_messages([], items))
    except Exception:  # not messages after all: compared as recorded
        return value


def without_generated_ids(value: Any) -> Any:
    """The encoded value with every generated id replaced by `GENERATED_ID`: a message's `id` field and any
    UUID inside a string (`run-<uuid>`, `lc_run--<uuid>`, a bare uuid4)."""
    return with_messages_mapped(value, _without_message_id, lambda text: _UUID.sub(GENERATED_ID, text))


def _without_message_id(value: dict[str, Any]) -> dict[str, Any]:
    message = value["message"]
    data = dict(message.get("data") or {})
    data["id"] = GENERATED_ID  # with or without one: add_messages gives a message without an id one
    return {**value, "message": {**message, "data": without_generated_ids(data)}}


def verdict(a: Any, b: Any, *, messages: bool = False) -> str:
    """`SAME`, `SAME_BUT_IDS`, `DIFFERS`, `ONLY_A` or `ONLY_B` for two encoded values; `messages`: they
    are writes to a message key, compared as the messages they stand for (`as_messages`)."""
    if a is ABSENT or b is ABSENT:
        return SAME if a is b else (ONLY_B if a is ABSENT else ONLY_A)
    if a == b or canonical(a) == canonical(b):
        return SAME
    if messages:
        a, b = as_messages(a), as_messages(b)
    if canonical(without_generated_ids(a)) == canonical(without_generated_ids(b)):
        return SAME_BUT_IDS
    return DIFFERS


def call_verdict(_name: str, a: Any, b: Any) -> str:
    """Two reducer calls by what they did: results and errors as values, writes as messages when either
    reducer is a message reducer; the worst of the three. The reducers' names are shown, not judged: the
    same merge is `keep_last` in Python and `(_prev, next) => next` in LangGraph.js, and a changed reducer
    that merges differently changes the result."""
    if a is ABSENT or b is ABSENT:
        return verdict(a, b)
    messages = a["reducer"] in MESSAGE_REDUCERS or b["reducer"] in MESSAGE_REDUCERS
    verdicts = [verdict(a[k], b[k]) for k in ("after", "error")]
    verdicts.append(verdict(a["write"], b["write"], messages=messages))
    return DIFFERS if DIFFERS in verdicts else (SAME_BUT_IDS if SAME_BUT_IDS in verdicts else SAME)
