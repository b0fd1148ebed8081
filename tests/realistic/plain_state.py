"""One plain-JSON shape of a run's state, read two ways: `plain(value)` from the live values the app's own
process holds (langchain-core messages, langgraph's Interrupt, sets, dates), and `plain_recorded(value)`
from what `stepscope run` recorded (engine.codec's tags, Python's and LangGraph.js's). A field the recorder
added, dropped or changed makes the two differ.

An interrupt is its value only: langgraph derives its id from the task's checkpoint, new in every process.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

_DEFAULTS = (None, False, "success", {}, [])
_ALWAYS = ("content", "tool_call_id")


def plain(value: Any) -> Any:
    """The live value's plain shape (the app's own process)."""
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, list):
        return [plain(v) for v in value]
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return {"tuple": [plain(v) for v in value]}
    if isinstance(value, (set, frozenset)):
        return {"set": _sorted(plain(v) for v in value)}
    if isinstance(value, dict):
        if all(type(k) is str for k in value):
            return {k: plain(v) for k, v in value.items()}
        return {"dict": [[plain(k), plain(v)] for k, v in value.items()]}
    if type(value).__name__ == "Interrupt":
        return {"interrupt": plain(value.value)}
    if hasattr(value, "model_dump") and type(value).__name__.endswith("Message"):
        return _message(value.type, value.model_dump())
    if dataclasses.is_dataclass(value):
        fields = {f.name: plain(getattr(value, f.name)) for f in dataclasses.fields(value)}
        return {"object": type(value).__qualname__, "fields": fields}
    return {"repr": repr(value)}


def plain_recorded(value: Any) -> Any:
    """The recorded (encoded) value's plain shape (`stepscope run`'s trace)."""
    if isinstance(value, list):
        return [plain_recorded(v) for v in value]
    if not isinstance(value, dict):
        return value
    tag = value.get("$type")
    if tag is None:
        return {k: _interrupts(v) if k == "__interrupt__" else plain_recorded(v) for k, v in value.items()}
    if tag == "message":
        return _message(value["message"]["type"], value["message"]["data"], plain_recorded)
    if tag == "set":
        items = (plain_recorded(v) for v in value["items"])
        return {"set": _sorted(items) if value.get("class") != "Set" else list(items)}
    if tag == "tuple":
        return {"tuple": plain_recorded(value["items"])}
    if tag == "dict":
        return {"dict": plain_recorded(value["items"])}
    if tag == "object":
        short = value["class"].rsplit(".", 1)[-1]
        return {"object": short, "fields": plain_recorded(value["fields"])}
    if tag == "repr":
        return {"repr": value["repr"]}
    return value


def _interrupts(recorded: list[Any]) -> list[dict[str, Any]]:
    """`__interrupt__`'s items, langgraph's Interrupt objects or LangGraph.js's plain {id, value}."""
    return [{"interrupt": plain_recorded(item.get("fields", item)["value"])} for item in recorded]


def _message(kind: str, fields: dict[str, Any], inner: Any = None) -> dict[str, Any]:
    """A message as its type and the fields that differ from a new message's defaults."""
    kept = {k: v for k, v in fields.items() if k != "type" and (k in _ALWAYS or v not in _DEFAULTS)}
    return {"type": kind, **({k: inner(v) for k, v in kept.items()} if inner else plain(kept))}


def _sorted(items: Any) -> list[Any]:
    return sorted(items, key=lambda v: json.dumps(v, sort_keys=True))
