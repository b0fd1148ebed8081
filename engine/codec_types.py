"""The recorded values' tags and constants (the format `engine.codec` describes), and `Recorded`, the
stand-in `decode` gives for an object it must not rebuild.
"""

from __future__ import annotations

from typing import Any

TYPE = "$type"
BLOB = "$blob"
"""Trace files point at a large value stored once (`engine.tracefile`) with `{"$blob": key}`."""
RESERVED = frozenset({TYPE, BLOB, "$blobs"})
"""A plain dict with one of these keys is recorded wrapped (`{"$type": "dict", ...}`), so a file's own
markers are never mistaken for a node's data."""
MISSING_ENCODED: dict[str, Any] = {TYPE: "missing"}
"""How an empty channel is recorded; shared (never mutate it)."""
SAME: dict[str, Any] = {"same": True}
"""The delta of an unchanged value; shared (never mutate it)."""
MAX_DEPTH = 60
"""Deeper structures (or cycles) are recorded as their repr below this depth."""
MAX_REPR = 2000
BIG_INT = 1 << 13_000
"""Ints this large or larger (about 3,900 digits; `json` refuses more than 4,300) are recorded in hex."""


def class_name(value: Any) -> str:
    cls = type(value)
    return f"{cls.__module__}.{cls.__qualname__}" if cls.__module__ != "builtins" else cls.__qualname__


class Recorded:
    """A stand-in for a recorded object the debugger cannot (and must not) rebuild."""

    __slots__ = ("cls", "fields", "text")

    def __init__(self, cls: str, fields: dict[str, Any] | None = None, text: str | None = None) -> None:
        self.cls = cls
        self.fields = fields
        self.text = text

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Recorded) and (self.cls, self.fields, self.text) == (
            other.cls,
            other.fields,
            other.text,
        )

    def __repr__(self) -> str:
        if self.text is not None:
            return self.text
        short = self.cls.rsplit(".", 1)[-1]
        return f"{short}({', '.join(f'{k}={v!r}' for k, v in (self.fields or {}).items())})"


JS_UNDEFINED = Recorded("undefined", text="undefined")
"""JavaScript's `undefined`, as a LangGraph.js run recorded it (`null` decodes to None)."""
