"""`encode(value)`: any Python value as JSON-able data, a deep snapshot (the tags are `engine.codec`'s
module docstring); messages, the engine's own and langchain-core's, kept small (only the fields that differ
from their defaults); exceptions as class, message, notes and traceback.
"""

from __future__ import annotations

import dataclasses
import gc
import math
import traceback
from typing import Any

from .channels import MISSING
from .codec_types import BIG_INT, MAX_DEPTH, MAX_REPR, MISSING_ENCODED, RESERVED, TYPE, class_name
from .message_convert import message_to_dict
from .messages import _UNCOPIED, BaseMessage, _copy_containers
from .types import Command, Overwrite, Send


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
    return _encode_object(value, depth, active)


def _encode_object(value: Any, depth: int, active: set[int]) -> Any:
    """`_encode_container` of what is not a plain container: the graph's own values (Send, Command,
    Overwrite, the engine's or langgraph's), exceptions, subclasses of builtins, dataclasses, pydantic
    models, namedtuples, and anything else as its repr."""
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
