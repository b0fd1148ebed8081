"""Recorded values: any Python value as JSON-able data, and the deltas that keep a trace small.

`encode(value)` takes a deep snapshot, so later in-place mutation cannot rewrite history. JSON types
stay as they are; everything else becomes a tagged dict, `{"$type": ..., ...}`:

- messages: `{"$type": "message", "message": {"type": "ai", "data": {...}}}` (langchain_core's
  messages too, recognised by their shape: the engine never imports langchain);
- dataclasses and pydantic models: `{"$type": "object", "class": "mod.Name", "fields": {...}}`;
- `Send`, `Command`, `Overwrite`, tuples, sets, dicts with non-string keys, non-finite floats, the
  empty-channel marker and exceptions each have their own tag;
- anything else: `{"$type": "repr", "class": "mod.Name", "repr": "..."}`, readable, never dropped and
  never pickled;
- values recorded from JavaScript (LangGraph.js runs) use the same tags, plus `{"$type": "undefined"}`,
  kept apart from `null` and decoded as `JS_UNDEFINED` (shown as `undefined`).

A plain dict that happens to have a `"$type"` (or `"$blob"`, `"$blobs"`) key is wrapped as
`{"$type": "dict", "items": [...]}`, so decoding is unambiguous. `decode()` never imports or executes anything
named in the data: messages come back as `engine` messages, other objects as `Recorded` stand-ins.

Deltas (`delta`, `apply_delta`) describe a new value against the previous one: `{"same": true}`,
`{"extend": [...]}` (a list that grew), `{"splice": k, "items": [...]}` (a list whose items from index k
changed), `{"merge": {...}, "drop": [...]}` (a dict whose keys changed) or `{"set": value}`. They
compare items by identity against the previous value's items, which `DeltaTracker` remembers, so a growing
list costs what was added, not its whole length.

This module is the format's public names; each part lives in a module of its own: `codec_types` (the
tags and constants, `Recorded`), `codec_encode`, `codec_decode` and `codec_delta`.
"""

from __future__ import annotations

from .channels import MISSING
from .codec_decode import decode
from .codec_delta import DeltaTracker, apply_delta
from .codec_encode import encode, encode_error, encode_message, encode_own_message
from .codec_types import (
    BIG_INT,
    BLOB,
    JS_UNDEFINED,
    MAX_DEPTH,
    MAX_REPR,
    MISSING_ENCODED,
    RESERVED,
    SAME,
    TYPE,
    Recorded,
    class_name,
)

__all__ = [
    "BIG_INT",
    "BLOB",
    "JS_UNDEFINED",
    "MAX_DEPTH",
    "MAX_REPR",
    "MISSING",
    "MISSING_ENCODED",
    "RESERVED",
    "SAME",
    "TYPE",
    "DeltaTracker",
    "Recorded",
    "apply_delta",
    "class_name",
    "decode",
    "encode",
    "encode_error",
    "encode_message",
    "encode_own_message",
]
