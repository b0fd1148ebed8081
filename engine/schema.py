"""From a state schema to channels, and from a node's return value to writes.

Any class with annotations is a schema: a TypedDict (total=False and NotRequired included), a
dataclass, or a pydantic model (used duck-typed; the engine never imports pydantic). For each field,
in LangGraph's order: a channel named in `Annotated` wins, then a reducer in `Annotated` (a callable
taking exactly two positional arguments) makes a `BinaryOperatorAggregate`, and anything else is a
`LastValue`. A reducer channel starts from the field type's constructor; field defaults are not
channel values (they only appear because a dataclass node input is built as `Schema(**values)`).
"""

from __future__ import annotations

import collections.abc
import dataclasses
import inspect
from typing import Any, Callable, NotRequired, Required, Sequence, get_type_hints

from .channels import BinaryOperatorAggregate, Channel, LastValue
from .errors import invalid_return_error
from .managed import managed_getter
from .message_channel import MessagesChannel
from .message_reducer import add_messages
from .types import Command

ROOT = "__root__"
"""The single channel of a schema without annotations, e.g. `StateGraph(int)`."""


def schema_fields(schema: Any) -> dict[str, Any]:
    """Field name -> annotation (with `Annotated` extras kept), in declaration order, bases first."""
    if schema is None:
        return {}
    try:
        return get_type_hints(schema, include_extras=True)
    except TypeError:  # not a class with annotations
        return {}
    except NameError:  # forward references that cannot be resolved: fall back to the raw names
        hints: dict[str, Any] = {}
        for base in reversed(getattr(schema, "__mro__", ())):
            hints.update(getattr(base, "__annotations__", {}))
        return hints


def channels_for_schema(schema: Any) -> dict[str, Channel]:
    """The channel of each field, managed values (`managed.py`) left out."""
    fields = schema_fields(schema)
    if not fields:
        return {ROOT: LastValue(ROOT)}
    return {
        name: channel_for_field(name, annotation)
        for name, annotation in fields.items()
        if managed_getter(annotation) is None
    }


def managed_for_schema(schema: Any) -> dict[str, Callable[[int, int], Any]]:
    """The managed values a schema declares: key -> `get(step, stop)`."""
    found = {}
    for name, annotation in schema_fields(schema).items():
        getter = managed_getter(annotation)
        if getter is not None:
            found[name] = getter
    return found


def channel_for_field(name: str, annotation: Any) -> Channel:
    while getattr(annotation, "__origin__", None) in (Required, NotRequired):
        annotation = annotation.__args__[0]
    metadata = getattr(annotation, "__metadata__", ())
    for item in metadata:
        if isinstance(item, Channel):
            channel = item.fresh()
            channel.key = name
            return channel
        if isinstance(item, type) and issubclass(item, Channel):
            return item(name)
    if metadata and callable(metadata[-1]):
        reducer = metadata[-1]
        check_reducer_signature(reducer)
        if reducer is add_messages:
            return MessagesChannel(name, initial_value_factory(annotation))
        return BinaryOperatorAggregate(name, reducer, initial_value_factory(annotation))
    return LastValue(name)


def check_reducer_signature(reducer: Callable[..., Any]) -> None:
    """LangGraph's rule: exactly two positional parameters, else its exact ValueError."""
    signature = inspect.signature(reducer)
    positional = sum(p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in signature.parameters.values())
    if positional != 2:
        raise ValueError(f"Invalid reducer signature. Expected (a, b) -> c. Got {signature}")


_ABSTRACT_TO_CONCRETE = {
    collections.abc.Sequence: list,
    collections.abc.MutableSequence: list,
    collections.abc.Set: set,
    collections.abc.MutableSet: set,
    collections.abc.Mapping: dict,
    collections.abc.MutableMapping: dict,
}


def initial_value_factory(annotation: Any) -> Callable[[], Any] | None:
    """The constructor a reducer channel starts from: `list[str]` -> list, `int` -> int, ...

    Returns None where LangGraph's channel starts empty: the constructor is not a class (a union
    such as `list[str] | None`) or calling it fails.
    """
    typ = _strip_extras(annotation)
    typ = _ABSTRACT_TO_CONCRETE.get(typ, typ)
    try:
        typ()
    except Exception:  # LangGraph's rule: a type that cannot be built empty means "starts empty"
        return None
    return typ


def _strip_extras(annotation: Any) -> Any:
    """Strips Annotated, Required and NotRequired and generic arguments, like LangGraph's binop."""
    if hasattr(annotation, "__origin__"):
        if annotation.__origin__ in (Required, NotRequired):
            return _strip_extras(annotation.__args__[0])
        return _strip_extras(annotation.__origin__)
    return annotation


def has_annotated_fields(value: Any) -> bool:
    return bool(schema_fields(type(value))) and not isinstance(value, (dict, list, tuple, str))


def update_as_pairs(update: Any) -> list[tuple[str, Any]]:
    """A `Command.update` as (key, value) pairs: a dict, a list of pairs, or an annotated object."""
    if update is None:
        return []
    if isinstance(update, dict):
        return list(update.items())
    if isinstance(update, (list, tuple)) and all(isinstance(t, tuple) and len(t) == 2 for t in update):
        return list(update)
    if has_annotated_fields(update):
        return object_as_pairs(update, list(schema_fields(type(update))))
    return [("__root__", update)]


def object_as_pairs(value: Any, keys: Sequence[str]) -> list[tuple[str, Any]]:
    """Fields of a dataclass/pydantic instance returned by a node, LangGraph's None rules included."""
    model_fields = getattr(type(value), "model_fields", None)
    keep = getattr(value, "model_fields_set", None) if model_fields is not None else None
    defaults = {k: f.default for k, f in model_fields.items()} if model_fields else {}
    missing = object()
    pairs = []
    for key in keys:
        field_value = getattr(value, key, missing)
        if field_value is missing:
            continue
        if field_value is not None or defaults.get(key, missing) is not None or (keep is not None and key in keep):
            pairs.append((key, field_value))
    return pairs


def state_update_pairs(
    returned: Any, known_keys: frozenset[str] | set[str], all_keys: Sequence[str]
) -> list[tuple[str, Any]]:
    """The state writes a node's return value stands for (LangGraph's `_get_updates`).

    Keys that are not channels are dropped silently; `None` writes nothing; a list holding Commands is
    processed element by element; anything that is not a dict, a Command or an annotated object is
    LangGraph's "Expected dict, got ..." error.
    """
    if type(returned) is dict:  # the common case first (a loop: a comprehension is a call of its own)
        pairs = []
        for k, v in returned.items():
            if k in known_keys:
                pairs.append((k, v))
        return pairs
    if returned is None:
        return []
    if isinstance(returned, dict):
        return [(k, v) for k, v in returned.items() if k in known_keys]
    if isinstance(returned, Command):
        if returned.graph == Command.PARENT:
            return []
        return [(k, v) for k, v in update_as_pairs(returned.update) if k in known_keys]
    if isinstance(returned, (list, tuple)) and returned and any(isinstance(i, Command) for i in returned):
        pairs: list[tuple[str, Any]] = []
        for item in returned:
            pairs.extend(state_update_pairs(item, known_keys, all_keys))
        return pairs
    if has_annotated_fields(returned):
        return object_as_pairs(returned, all_keys)
    raise invalid_return_error(returned)


def input_mapper(schema: Any) -> Callable[..., Any] | None:
    """How a node's input dict becomes what it receives: None (the dict itself) for TypedDicts,
    the class for dataclasses and pydantic models, built as `Schema(**values)`."""
    if schema is None or _is_typeddict(schema) or not isinstance(schema, type):
        return None
    if dataclasses.is_dataclass(schema) or hasattr(schema, "model_fields"):
        return schema
    return None


def _is_typeddict(schema: Any) -> bool:
    return isinstance(schema, type) and issubclass(schema, dict)


def first_parameter_schema(fn: Callable[..., Any]) -> Any:
    """The input schema a node declares through its first parameter's annotation, if it is a class."""
    try:
        params = list(inspect.signature(fn).parameters.values())
        hints = get_type_hints(fn)
    except (TypeError, ValueError, NameError):
        return None
    if not params:
        return None
    hint = hints.get(params[0].name)
    if isinstance(hint, type) and schema_fields(hint):
        return hint
    return None


def takes_config(fn: Callable[..., Any]) -> bool:
    """Whether a node or router asks for the run's config (a parameter named `config`)."""
    try:
        return "config" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
