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
"""

from __future__ import annotations

import dataclasses
import gc
import math
import operator
import traceback
from typing import Any, Callable

from .channels import MISSING
from .message_convert import message_to_dict, messages_from_dict
from .messages import _UNCOPIED, BaseMessage, _copy_containers
from .types import Command, Overwrite, Send

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


def encode(value: Any, _depth: int = 0, _active: set[int] | None = None) -> Any:
    """A JSON-able deep snapshot of `value` (see the module docstring for the tags). Never raises:
    a value that cannot be walked (a broken `__eq__`, a property that raises) becomes a marked repr."""
    try:
        return _encode(value, _depth, set() if _active is None else _active)
    except RecursionError:  # a structure deeper than the stack even below MAX_DEPTH (huge repr)
        return _as_repr(value, "depth")
    except Exception as exc:  # an object whose fields cannot be read must not lose the run
        return _as_repr(value, f"unencodable: {type(exc).__name__}")


def _encode(value: Any, _depth: int, active: set[int]) -> Any:
    kind = type(value)
    if kind is str or value is None or value is True or value is False:
        return value
    if kind is int:
        return value if -BIG_INT < value < BIG_INT else {TYPE: "int", "hex": hex(value)}
    if kind is float:
        return value if math.isfinite(value) else {TYPE: "float", "value": repr(value)}
    if _depth > MAX_DEPTH:
        return _as_repr(value, "depth")
    key = id(value)
    if key in active:
        return _as_repr(value, "cycle")
    active.add(key)
    try:
        return _encode_container(value, _depth + 1, active)
    finally:
        active.discard(key)


def _encode_container(value: Any, depth: int, active: set[int]) -> Any:
    if type(value) is list:
        return [_encode(item, depth, active) for item in value]
    if type(value) is dict:
        if all(type(k) is str for k in value) and value.keys().isdisjoint(RESERVED):
            return {k: _encode(v, depth, active) for k, v in value.items()}
        return {
            TYPE: "dict",
            "items": [[_encode(k, depth, active), _encode(v, depth, active)] for k, v in value.items()],
        }
    if isinstance(value, BaseMessage) or _is_foreign_message(value):
        return {TYPE: "message", "message": encode_message(value, depth, active)}
    if value is MISSING:
        return MISSING_ENCODED
    if isinstance(value, tuple) and not hasattr(value, "_fields"):
        return {TYPE: "tuple", "items": [_encode(item, depth, active) for item in value]}
    if isinstance(value, (set, frozenset)):
        items = [_encode(item, depth, active) for item in value]
        return {TYPE: "set", "items": sorted(items, key=repr)}
    if isinstance(value, Send):
        return {TYPE: "Send", "node": value.node, "arg": _encode(value.arg, depth, active)}
    if isinstance(value, Overwrite):
        return {TYPE: "Overwrite", "value": _encode(value.value, depth, active)}
    if isinstance(value, Command) or _is_foreign(value, "Command"):
        fields = {
            k: _encode(getattr(value, k), depth, active)
            for k in ("graph", "update", "resume", "goto")
            if getattr(value, k)
        }
        return {TYPE: "Command", "fields": fields}
    if _is_foreign(value, "Send"):
        return {TYPE: "Send", "node": value.node, "arg": _encode(value.arg, depth, active)}
    if _is_foreign(value, "Overwrite"):
        return {TYPE: "Overwrite", "value": _encode(value.value, depth, active)}
    if isinstance(value, BaseException):
        return encode_error(value)
    if isinstance(value, (int, str, float)):  # subclasses: IntEnum, str-based enums, ...
        return {
            TYPE: "repr",
            "class": class_name(value),
            "repr": repr(value)[:MAX_REPR],
            "value": _encode(_builtin(value), depth, active),
        }
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        fields = {f.name: _encode(getattr(value, f.name), depth, active) for f in dataclasses.fields(value)}
        return {TYPE: "object", "class": class_name(value), "fields": fields}
    if hasattr(type(value), "model_fields") and hasattr(value, "model_dump"):
        fields = {name: _encode(getattr(value, name, None), depth, active) for name in type(value).model_fields}
        return {TYPE: "object", "class": class_name(value), "fields": fields}
    if isinstance(value, tuple):  # namedtuple
        return {
            TYPE: "object",
            "class": class_name(value),
            "fields": {k: _encode(v, depth, active) for k, v in value._asdict().items()},
        }
    if isinstance(value, dict):  # dict subclasses
        return {
            TYPE: "dict",
            "class": class_name(value),
            "items": [[_encode(k, depth, active), _encode(v, depth, active)] for k, v in value.items()],
        }
    if isinstance(value, list):
        return [_encode(item, depth, active) for item in value]
    return _as_repr(value)


def encode_own_message(message: BaseMessage, _depth: int = 0) -> Any:
    """`encode(message, _depth)` of one of the engine's messages (a shallow depth: no cut), without
    walking `encode`'s list of kinds first (a chat's trace encodes every message it records)."""
    try:
        return {TYPE: "message", "message": encode_message(message, _depth + 1, {id(message)})}
    except Exception:  # as `encode` records it
        return encode(message, _depth)


def _is_foreign(value: Any, name: str) -> bool:
    """langgraph's own `Send`, `Command` or `Overwrite` (a recorded langgraph run), by class name:
    recorded with the engine's tags, so the debugger reads both alike. The engine never imports langgraph."""
    cls = type(value)
    return cls.__name__ == name and cls.__module__.startswith("langgraph.")


_MESSAGE_TYPES = frozenset({"human", "ai", "system", "tool", "remove", "function"})


def _is_foreign_message(value: Any) -> bool:
    """A chat message of another library (langchain_core's, in a real LangGraph app), known by its
    shape: a `...Message` class with a `content`, a `model_dump()` and a `type` the engine's message
    classes share, so it is recorded (and shown) as a message. Chunks and custom types are not."""
    kind = getattr(value, "type", None)
    return (
        type(kind) is str
        and kind in _MESSAGE_TYPES
        and type(value).__name__.endswith("Message")
        and hasattr(value, "content")
        and callable(getattr(value, "model_dump", None))
    )


_EMPTY_FIELD_VALUES = (None, False, "success")


def encode_message(message: BaseMessage, depth: int = 0, _active: set[int] | None = None) -> dict[str, Any]:
    """`message_to_dict`'s shape, keeping only fields that differ from their defaults (content and a
    tool message's tool_call_id always stay): a trace of a long chat is mostly its messages."""
    if isinstance(message, BaseMessage):  # the engine's own: its fields as `model_dump` orders them, uncopied
        known = _FIELD_NAMES.get(type(message))
        if known is None:
            known = _FIELD_NAMES[type(message)] = _field_names(type(message))
        names, by_name = known
        kept = _kept_declared(message, names, depth, _active) if by_name else None
        if kept is not None:
            return {"type": message.type, "data": kept}
        values = vars(message)
        if tuple(values)[: len(names)] == names:  # fields first, then extras: `dump_items`' order, not copied
            return {"type": message.type, "data": _kept_fields(values.items(), depth, _active)}
        kind, items = message.type, message.dump_items()
    else:
        data = message_to_dict(message)
        kind, items = data["type"], data["data"].items()
    kept = {}
    for key, value in items:
        if type(value) is str:  # most fields of most messages: kept as they are, without `encode`'s guards
            if key in _ALWAYS_KEPT or (value != "success" and key != "type"):
                kept[key] = value
        elif key in _ALWAYS_KEPT or (
            key != "type" and value not in _EMPTY_FIELD_VALUES and value != {} and value != []
        ):
            kept[key] = encode(value, depth, _active)
    return {"type": kind, "data": kept}


_ALWAYS_KEPT = frozenset(("content", "tool_call_id"))
_FIELD_NAMES: dict[type, tuple[tuple[str, ...], bool]] = {}
"""Per message class, its declared fields in order (`BaseMessage._fields`), and whether they can be
read by name (`_declared_fields`): no attribute of the class itself has a field's name."""
_ABSENT = object()


class _Probe:
    """An object whose attributes CPython keeps in the object itself (no `__dict__` made yet)."""


def _referents_count_attributes() -> bool:
    """True when `gc.get_referents` of an object without a made `__dict__` gives its attribute values
    and its class, and of one whose `__dict__` was made, fewer (CPython 3.11 does both)."""
    plain, extra = _Probe(), _Probe()
    plain.a = extra.a = plain.b = extra.b = None
    extra.c = None
    counted = len(gc.get_referents(plain)) == 3 and len(gc.get_referents(extra)) == 4
    vars(plain)
    return counted and len(gc.get_referents(plain)) != 3


_BY_REFERENTS = _referents_count_attributes()


def _field_names(cls: type) -> tuple[tuple[str, ...], bool]:
    names = tuple(cls._fields)  # type: ignore[attr-defined]
    by_name = (
        _BY_REFERENTS
        and len(names) > 1  # (a made `__dict__`: the dict and the class, two referents)
        and not any(hasattr(cls, name) for name in names)
        and not hasattr(cls, "__getattr__")
        and cls.__getattribute__ is object.__getattribute__  # type: ignore[comparison-overlap]
    )
    return names, by_name


def _kept_declared(
    message: BaseMessage, names: tuple[str, ...], depth: int, _active: set[int] | None
) -> dict[str, Any] | None:
    """`_kept_fields` of the message's attributes read by name, when it has exactly its declared
    fields (the usual message: no extras); else None. `vars` would make CPython build the message's
    `__dict__`, after which every read of its attributes is slower: `add_messages` reads each
    message's id every step, so a 500-step chat recorded that way ran 5 ms (a quarter of its
    recording) slower. An object without a made `__dict__` has as many `gc.get_referents` as
    attributes, plus its class; a message whose `__dict__` was made has fewer (then `vars` is free)."""
    if len(gc.get_referents(message)) != len(names) + 1:
        return None
    kept = _kept_fields([(name, getattr(message, name, _ABSENT)) for name in names], depth, _active)
    return None if kept is _ABSENT else kept


def _kept_fields(items: Any, depth: int, _active: set[int] | None) -> Any:
    """`encode_message`'s fields of one of the engine's messages, from its `(name, value)` pairs in
    `dump_items`' order: the same, without building the list of copied items first (a chat's trace
    encodes every message it records, and its fields are mostly strings, None and empty lists and
    dicts). `_ABSENT` when a value is `_ABSENT` (a declared field the message does not have)."""
    kept = {}
    for key, value in items:
        kind = type(value)
        if kind is str:
            if key in _ALWAYS_KEPT or (value != "success" and key != "type"):
                kept[key] = value
        elif value is None or ((kind is dict or kind is list) and not value):  # a default: left out
            if key in _ALWAYS_KEPT:
                kept[key] = encode(value, depth, _active)
        elif value is _ABSENT:
            return _ABSENT
        else:
            if kind not in _UNCOPIED:
                value = _copy_containers(value)  # as `dump_items` gives it (a tuple in it becomes a list)
            if key in _ALWAYS_KEPT or (
                key != "type" and value not in _EMPTY_FIELD_VALUES and value != {} and value != []
            ):
                kept[key] = encode(value, depth, _active)
    return kept


def _builtin(value: Any) -> Any:
    for base in (bool, int, float, str):
        if isinstance(value, base):
            return base(value)
    return None


def _as_repr(value: Any, reason: str | None = None) -> dict[str, Any]:
    """`{"$type": "repr", ...}`; `reason` marks a value cut short: "cycle" (it contains itself),
    "depth" (nested deeper than MAX_DEPTH) or "unencodable: Error" (walking it raised)."""
    try:
        text = repr(value)
    except RecursionError:
        text = f"<{class_name(value)} nested too deep to show>"
    except Exception as exc:  # a broken __repr__ must not lose the record
        text = f"<unrepresentable: {type(exc).__name__}>"
    if len(text) > MAX_REPR:
        text = text[: MAX_REPR - 1] + "…"
    encoded = {TYPE: "repr", "class": class_name(value), "repr": text}
    if reason is not None:
        encoded["cut"] = reason
    return encoded


def encode_error(error: BaseException) -> dict[str, Any]:
    """An exception with its class, message, notes and traceback, as text."""
    try:
        message = str(error)
    except Exception as exc:  # a broken __str__ must not hide that the run failed
        message = f"<message unavailable: {type(exc).__name__}>"
    return {
        TYPE: "error",
        "class": type(error).__name__,
        "module": type(error).__module__,
        "message": message,
        "notes": [str(n) for n in getattr(error, "__notes__", ())],
        "traceback": "".join(traceback.format_exception(error)),
    }


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


def decode(data: Any) -> Any:
    """Python values from `encode`'s output, without importing or running anything it names."""
    if type(data) is list:
        return [decode(item) for item in data]
    if type(data) is not dict:
        return data
    tag = data.get(TYPE)
    if tag is None:
        return {k: decode(v) for k, v in data.items()}
    if tag == "message":
        return messages_from_dict([decode(data["message"])])[0]
    if tag == "dict":
        return {_hashable(decode(k)): decode(v) for k, v in data["items"]}
    if tag == "tuple":
        return tuple(decode(item) for item in data["items"])
    if tag == "set":
        return {_hashable(decode(item)) for item in data["items"]}
    if tag == "missing":
        return MISSING
    if tag == "float":
        return float(data["value"])
    if tag == "int":
        return int(data["hex"], 16)
    if tag == "Send":
        return Send(data["node"], decode(data["arg"]))
    if tag == "Overwrite":
        return Overwrite(decode(data["value"]))
    if tag == "Command":
        return Command(**{k: decode(v) for k, v in data["fields"].items()})
    if tag == "object":
        return Recorded(data["class"], {k: decode(v) for k, v in data["fields"].items()})
    if tag == "repr":
        return decode(data["value"]) if "value" in data else Recorded(data["class"], text=data["repr"])
    if tag == "error":
        return Recorded(data["class"], text=f"{data['class']}: {data['message']}")
    if tag == "undefined":
        return JS_UNDEFINED
    raise ValueError(f"unknown recorded value type {tag!r}")


def _hashable(value: Any) -> Any:
    if isinstance(value, list):
        return tuple(_hashable(v) for v in value)
    if isinstance(value, dict):
        return tuple((k, _hashable(v)) for k, v in value.items())
    return value


class DeltaTracker:
    """The last recorded value of one channel: its items (for identity checks) and their encoding."""

    __slots__ = ("raw", "items", "encoded")

    def __init__(self) -> None:
        self.raw: Any = MISSING
        self.items: list[Any] | dict[Any, Any] | None = None
        """A shallow copy of a list's items or a dict's entries, as they were when recorded."""
        self.encoded: Any = MISSING_ENCODED
        """The encoding of a dict value (what a `merge` delta builds on). A list's is not kept: its
        deltas are built from its items alone, and rebuilding it would copy the whole list per step."""

    def delta(self, new: Any, encode: Callable[[Any], Any] = encode) -> dict[str, Any]:
        """How `new` differs from the snapshot; then the snapshot becomes `new`. `encode` may be a
        memoising encoder, so a value recorded twice in a step shares one encoding."""
        old_items = self.items
        if type(new) is list and type(old_items) is list:
            common = _common_prefix(old_items, new)
            # `items` is this tracker's own copy: brought up to date in place, not copied per step
            if common == len(old_items) == len(new):
                result: dict[str, Any] = SAME
            elif common == len(old_items):
                added = new[common:]
                result = {"extend": [encode(item) for item in added]}
                old_items.extend(added)
            else:
                changed = new[common:]
                result = {"splice": common, "items": [encode(item) for item in changed]}
                del old_items[common:]
                old_items.extend(changed)
            self.encoded = MISSING_ENCODED
            self.raw = new
            return result
        if (
            type(new) is dict
            and type(old_items) is dict
            and all(type(k) is str for k in new)
            and new.keys().isdisjoint(RESERVED)
        ):
            merged = {k: encode(v) for k, v in new.items() if k not in old_items or old_items[k] is not v}
            dropped = [k for k in old_items if k not in new]
            if not merged and not dropped:
                result = SAME
            else:
                self.encoded = {**{k: v for k, v in self.encoded.items() if k not in dropped}, **merged}
                result = {"merge": merged, "drop": dropped} if dropped else {"merge": merged}
            self.raw, self.items = new, dict(new)
            return result
        if new is self.raw and (new is MISSING or type(new) in (int, str, float, bool, type(None), tuple)):
            return SAME
        kind = type(new)
        if kind is str or kind is bool or new is None or (kind is int and -BIG_INT < new < BIG_INT):
            self.encoded = self.raw = new  # recorded as it is (the usual value of a plain key or a counter)
            self.items = None
            return {"set": new}
        self.encoded = encode(new)
        self.raw = new
        self.items = (
            list(new)
            if type(new) is list
            else dict(new)
            if type(new) is dict and type(self.encoded) is dict and self.encoded.keys().isdisjoint(RESERVED)
            else None
        )
        return {"set": self.encoded}

    def extend(self, new: list[Any], added: list[Any], encode: Callable[[Any], Any] = encode) -> dict[str, Any]:
        """`delta(new)` when the producer knows `new` is the recorded list's items then `added` (an
        `add_messages` that only appended): the same delta, without comparing the long list again."""
        items = self.items
        if not added:
            result: dict[str, Any] = SAME
        else:
            result = {"extend": [encode(item) for item in added]}
            items.extend(added)  # type: ignore[union-attr]
        self.encoded = MISSING_ENCODED
        self.raw = new
        return result


def _common_prefix(old: list[Any], new: list[Any]) -> int:
    """How many leading items `old` and `new` share by identity. The usual answer (all of `old`) is
    checked at C speed; only a list that changed in the middle is scanned item by item."""
    limit = min(len(old), len(new))
    if limit and old[limit - 1] is new[limit - 1] and all(map(operator.is_, old, new)):  # map stops at `limit`
        return limit
    for index in range(limit):
        if old[index] is not new[index]:
            return index
    return limit


def apply_delta(encoded: Any, change: dict[str, Any]) -> Any:
    """The encoded value after `change` (the inverse of `DeltaTracker.delta`)."""
    if "same" in change:
        return encoded
    if "extend" in change:
        return [*encoded, *change["extend"]]
    if "splice" in change:
        return [*encoded[: change["splice"]], *change["items"]]
    if "merge" in change:
        dropped = set(change.get("drop", ()))
        return {**{k: v for k, v in encoded.items() if k not in dropped}, **change["merge"]}
    if "set" in change:
        return change["set"]
    raise ValueError(f"not a delta: {sorted(change)}")
