"""Encoded values (`engine.codec`) as one line of text: what the analysis, the presenters, the CLI and
the app all show of a value. Below both the analysis (`debugger.diagnostics`) and the presentation
(`debugger.model.present`), so neither imports the other for it. No Streamlit, no I/O."""

from __future__ import annotations

import re
from typing import Any

from debugger.diagnostics.generated_ids import distinguishing
from engine.codec import MISSING_ENCODED, TYPE, decode
from engine.trace import PUSH

MISSING = MISSING_ENCODED
MESSAGE_REDUCERS = frozenset({"add_messages", "messagesStateReducer"})
"""The reducers that fold message lists by id: langgraph's `add_messages`, LangGraph.js's `messagesStateReducer`."""


def short(value: Any, limit: int = 80) -> str:
    """A one-line preview of an encoded value, cut at `limit` characters with an ellipsis. Only what
    the preview shows is rendered, so a long list costs `limit` characters, not its length."""
    return cut(_text(value, limit), limit)


def cut(text: str, limit: int) -> str:
    """`text` cut at `limit` characters with an ellipsis: words, not a value (`short` quotes a string)."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _text(value: Any, limit: int | None = None) -> str:
    if value == MISSING:
        return "(empty)"
    if isinstance(value, dict) and value.get(TYPE) == "message":
        return _message_text(value)
    if (
        isinstance(value, list)
        and value
        and all(isinstance(v, dict) and v.get(TYPE) == "message" for v in _head(value, limit))
    ):
        return _joined("[", "]", (_message_text(v) for v in value), limit)
    if isinstance(value, dict) and value.get(TYPE) in ("repr", "error"):
        return value.get("repr") or f"{value['class']}: {value.get('message', '')}"
    try:
        return _preview(value, limit)
    except Exception:  # a malformed record must still be shown
        return repr(value)


def _head(items: list[Any], limit: int | None) -> list[Any]:
    """The items a preview of `limit` characters can show (all of them without a limit)."""
    return items if limit is None else items[: limit // 2 + 1]


def _preview(value: Any, limit: int | None) -> str:
    """`repr(decode(value))`, or its first `limit`+ characters when there is more."""
    if limit is not None and type(value) is list:
        return _joined("[", "]", (_text(v, limit) for v in value), limit)
    if limit is not None and type(value) is dict and TYPE not in value:  # a state: its messages read as messages
        return _joined("{", "}", (f"{k!r}: {_text(v, limit)}" for k, v in value.items()), limit)
    return repr(decode(value))


def _joined(opening: str, closing: str, parts: Any, limit: int | None) -> str:
    """`opening + ", ".join(parts) + closing`, stopping (without `closing`) once past `limit`."""
    text = [opening]
    used = len(opening)
    for index, part in enumerate(parts):
        if index:
            text.append(", ")
            used += 2
        text.append(part)
        used += len(part)
        if limit is not None and used > limit:
            return "".join(text)
    text.append(closing)
    return "".join(text)


def _message_text(encoded: dict[str, Any]) -> str:
    message = encoded["message"]
    data = message.get("data", {})
    content = data.get("content")
    content_text = content if isinstance(content, str) else repr(content)
    extra = ""
    if data.get("tool_calls"):
        extra = " → " + ", ".join(f"{c.get('name')}({c.get('args')})" for c in data["tool_calls"])
    ident = f" #{distinguishing(str(data['id']))}" if data.get("id") else ""
    if message.get("type") == "remove":
        return f"remove{ident}"
    return f"{message.get('type')}: {content_text!r}{extra}{ident}"


_UNSAFE_IN_LINE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
"""Control characters that must not reach a terminal or a page raw, newlines and tabs included."""


def escaped(match: re.Match[str]) -> str:
    """A control character as a visible escape (`\\x1b`, `\\u202e`)."""
    code = ord(match.group())
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def one_line(text: object) -> str:
    """A piece of data to print inside a line: every control character shown as an escape, newline
    and tab included."""
    return _UNSAFE_IN_LINE.sub(escaped, str(text))


def task_name(task: Any) -> str:
    """A task's name, each Send of one node told apart by its index (`write_joke[1]`); `RunFacts.label` adds
    the Send's argument. Here, not there, so the command line names Sends without loading the analysis."""
    if task.path and task.path[0] == PUSH:
        return f"{task.name}[{task.path[1] if len(task.path) > 1 else '?'}]"
    return task.name
