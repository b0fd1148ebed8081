"""Chat messages, standard library only: the message classes of `langchain_core.messages`.

Re-implements what LangGraph users touch in `langchain_core.messages`, with the same constructors, reprs,
equality and error texts, so graphs written for them run unchanged. Turning strings, `(role, content)`
pairs and dicts into messages is `engine.message_convert`; the `add_messages` reducer and `MessagesState`
(LangGraph's `langgraph.graph.message`) are `engine.message_reducer`.
"""

from __future__ import annotations

import copy
import sys
import uuid
from typing import Any, Union

__all__ = [
    "BaseMessage",
    "HumanMessage",
    "AIMessage",
    "SystemMessage",
    "ToolMessage",
    "RemoveMessage",
    "AnyMessage",
]

_REQUIRED = object()  # field default: the caller must pass a value

ID_CHANGES = [0]
"""How many times a message that had an id was given another or lost it (`BaseMessage.__setattr__`
counts): an index of the ids in a list of messages (`engine.message_channel`) holds only while this
count is the one it was built at. (An id changed through `vars(message)` is not counted.)"""


def _invalid(owner: str, field: str, problem: str) -> ValueError:
    # Shaped like the first lines of pydantic's ValidationError (itself a ValueError).
    return ValueError(f"1 validation error for {owner}\n{field}\n  {problem}")


def _differs(value: Any, default: Any) -> bool:
    try:  # artifacts may be arrays whose `!=` is not a bool; show them rather than fail
        return bool(value != default)
    except Exception:
        return True


_set_attribute = object.__setattr__
"""Sets an attribute of a message without counting it (its id already counted, see `ID_CHANGES`)."""


class _Text(str):
    """`message.text` is a string that may still be called as the pre-1.0 method `text()`."""

    def __call__(self) -> str:
        return str(self)


class BaseMessage:
    """A chat message: a mutable record whose repr and equality follow langchain-core's pydantic models."""

    # Field name -> default, in langchain's declaration order (repr and model_dump follow it).
    # The builtins `dict` and `list` as a default mean "a fresh empty one"; pydantic's repr always shows those.
    _fields: dict[str, Any] = {
        "content": _REQUIRED,
        "additional_kwargs": dict,
        "response_metadata": dict,
        "type": _REQUIRED,
        "name": None,
        "id": None,
    }
    _repr_hidden: frozenset[str] = frozenset()
    __hash__ = None  # mutable, and unhashable like pydantic models

    def __init__(self, content: Any = None, content_blocks: list | None = None, **kwargs: Any) -> None:
        values = self._before_validation(
            {"content": content_blocks if content_blocks is not None else content, **kwargs}
        )
        owner = type(self).__name__
        if getattr(self, "id", None) is not None:  # `__init__` called again on a message: see `__setattr__`
            ID_CHANGES[0] += 1
        for field, default in self._fields.items():
            if field in values:
                value = _validate_field(owner, field, values.pop(field), default)
            elif default is _REQUIRED:
                raise _invalid(owner, field, "Field required")
            else:
                value = default() if default in (dict, list) else default
            _set_attribute(self, field, value)
        for key, value in values.items():  # unknown keywords are kept, like extra="allow"
            _set_attribute(self, key, value)

    def __setattr__(self, name: str, value: Any) -> None:
        # Counts a changed id (see ID_CHANGES); giving an id to a message without one is not counted:
        # no index holds a message without an id. (`object.__setattr__` keeps the attributes where
        # CPython keeps them until `__dict__` is asked for: reading them stays fast.)
        if name == "id" and getattr(self, "id", None) is not None:
            ID_CHANGES[0] += 1
        object.__setattr__(self, name, value)

    def __delattr__(self, name: str) -> None:
        if name == "id":
            ID_CHANGES[0] += 1
        object.__delattr__(self, name)

    @classmethod
    def _before_validation(cls, values: dict[str, Any]) -> dict[str, Any]:
        return values

    def _repr_items(self) -> list[tuple[str, Any]]:
        # pydantic shows a field unless it equals its default; factory defaults and extras always show.
        shown = [
            (field, vars(self)[field])
            for field, default in self._fields.items()
            if field in vars(self)
            and field not in self._repr_hidden
            and (default is _REQUIRED or default in (dict, list) or _differs(vars(self)[field], default))
        ]
        return shown + [(k, v) for k, v in vars(self).items() if k not in self._fields]

    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(f'{k}={v!r}' for k, v in self._repr_items())})"

    def __str__(self) -> str:
        return " ".join(f"{k}={v!r}" for k, v in self._repr_items())

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, BaseMessage):
            return NotImplemented
        return type(self) is type(other) and vars(self) == vars(other)

    def model_dump(self) -> dict[str, Any]:
        """All fields then extras, with dicts and lists copied (as pydantic's model_dump does)."""
        return {k: _copy_containers(getattr(self, k)) for k in self._dump_order()}

    def dump_items(self) -> list[tuple[str, Any]]:
        """`model_dump().items()` for a reader that copies what it keeps (the trace's encoder): a scalar
        or an empty dict or list is given as it is, not copied (a trace encodes every message it records)."""
        values = vars(self)
        fields = tuple(self._fields)
        if tuple(values)[: len(fields)] != fields:  # not the usual order: fields first, then extras
            values = {k: getattr(self, k) for k in self._dump_order()}
        return [
            (k, v if type(v) in _UNCOPIED or (type(v) in _CONTAINERS and not v) else _copy_containers(v))
            for k, v in values.items()
        ]

    def _dump_order(self) -> list[str]:
        """The fields in declaration order, then the extras."""
        values = vars(self)
        return [k for k in self._fields if k in values] + [k for k in values if k not in self._fields]

    def model_copy(self, *, update: dict[str, Any] | None = None, deep: bool = False) -> BaseMessage:
        clone = object.__new__(type(self))
        clone.__dict__.update(copy.deepcopy(vars(self)) if deep else vars(self))
        clone.__dict__.update(update or {})  # like pydantic: no validation on copy
        return clone

    @property
    def text(self) -> _Text:
        if isinstance(self.content, str):
            return _Text(self.content)
        return _Text(
            "".join(
                b if isinstance(b, str) else b["text"]
                for b in self.content
                if isinstance(b, str) or (b.get("type") == "text" and isinstance(b.get("text"), str))
            )
        )

    def pretty_repr(self, html: bool = False) -> str:
        padded = f" {self.type.title()} Message "
        side = "=" * ((80 - len(padded)) // 2)
        odd_extra = "=" if len(padded) % 2 else ""
        title = side + ("\033[1m" + padded + "\033[0m" if html else padded) + side + odd_extra
        if self.name is not None:
            title += f"\nName: {self.name}"
        return f"{title}\n\n{self.content}"

    def pretty_print(self) -> None:
        print(self.pretty_repr(html=hasattr(sys, "ps2")))  # bold only in an interactive session


_UNCOPIED = frozenset((str, int, float, bool, type(None)))
"""Types `dump_items` hands out as they are: `_copy_containers` would return them unchanged."""
_CONTAINERS = frozenset((dict, list))


def _copy_containers(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _copy_containers(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_copy_containers(v) for v in value]
    return value


def _validate_field(owner: str, field: str, value: Any, default: Any) -> Any:
    """The type checks pydantic runs on the fields; containers are copied as pydantic copies them."""
    if field == "content":
        if isinstance(value, (list, tuple)) and all(isinstance(x, (str, dict)) for x in value):
            return list(value)
        if not isinstance(value, str):
            raise _invalid(owner, field, f"Input should be a valid string or list of str/dict, got {value!r}")
    elif field == "type":
        if not isinstance(value, str) or default not in (_REQUIRED, value):
            raise _invalid(owner, field, f"Input should be {default!r} [input_value={value!r}]")
    elif field == "id" and isinstance(value, (int, float)) and not isinstance(value, bool):
        return str(value)  # pydantic's coerce_numbers_to_str on `id`
    elif field in ("id", "name", "tool_call_id") and not (value is None and default is not _REQUIRED):
        if not isinstance(value, str):
            raise _invalid(owner, field, f"Input should be a valid string [input_value={value!r}]")
    elif default in (dict, list):
        if not isinstance(value, (list, tuple) if default is list else dict):
            raise _invalid(owner, field, f"Input should be a valid {default.__name__} [input_value={value!r}]")
        value = default(value)
        if field == "tool_calls":
            for call in value:
                if not isinstance(call.get("args"), dict):
                    raise _invalid(owner, "tool_calls.args", "Input should be a valid dictionary")
            return [{**call, "args": dict(call["args"])} for call in value]
        return value
    elif field == "status" and value not in ("success", "error"):
        raise _invalid(owner, field, f"Input should be 'success' or 'error' [input_value={value!r}]")
    elif field == "usage_metadata" and value is not None:
        counts = ("input_tokens", "output_tokens", "total_tokens")  # pydantic's TypedDict order; not checked
        return {**{k: value[k] for k in counts if k in value}, **value}
    return value


class HumanMessage(BaseMessage):
    _fields = {**BaseMessage._fields, "type": "human"}


class SystemMessage(BaseMessage):
    _fields = {**BaseMessage._fields, "type": "system"}


class FunctionMessage(BaseMessage):
    """Legacy OpenAI function result; only here so the `function` role converts as in langchain."""

    _fields = {**BaseMessage._fields, "type": "function", "name": _REQUIRED}


# Keyword-only signatures copied from langchain-core, so bad tool-call dicts raise its exact TypeErrors
# ("tool_call() missing 1 required keyword-only argument: 'id'").
def tool_call(*, name: str, args: dict[str, Any], id: str | None) -> dict[str, Any]:
    return {"name": name, "args": args, "id": id, "type": "tool_call"}


def invalid_tool_call(
    *, name: str | None = None, args: str | None = None, id: str | None = None, error: str | None = None
) -> dict[str, Any]:
    return {"type": "invalid_tool_call", "id": id, "name": name, "args": args, "error": error}


class AIMessage(BaseMessage):
    _fields = {
        **BaseMessage._fields,
        "type": "ai",
        "tool_calls": list,
        "invalid_tool_calls": list,
        "usage_metadata": None,
    }

    def __init__(self, content: Any = None, content_blocks: list | None = None, **kwargs: Any) -> None:
        if content_blocks is not None and "tool_calls" not in kwargs:
            if calls := [b for b in content_blocks if b.get("type") == "tool_call"]:
                kwargs["tool_calls"] = calls
        super().__init__(content, content_blocks, **kwargs)

    @classmethod
    def _before_validation(cls, values: dict[str, Any]) -> dict[str, Any]:
        # Normalise each call to name/args/id/type; a dict without "type" is accepted, "extras" dropped.
        if calls := values.get("tool_calls"):
            values["tool_calls"] = [
                tool_call(**{k: v for k, v in c.items() if k not in ("type", "extras")}) for c in calls
            ]
        if calls := values.get("invalid_tool_calls"):
            values["invalid_tool_calls"] = [
                invalid_tool_call(**{k: v for k, v in c.items() if k != "type"}) for c in calls
            ]
        return values

    def pretty_repr(self, html: bool = False) -> str:
        lines = []
        for heading, calls in (("Tool Calls:", self.tool_calls), ("Invalid Tool Calls:", self.invalid_tool_calls)):
            if calls:
                lines.append(heading)
            for call in calls:
                lines += [f"  {call.get('name', 'Tool')} ({call.get('id')})", f" Call ID: {call.get('id')}"]
                lines += [f"  Error: {call.get('error')}"] if call.get("error") else []
                args = call.get("args")
                lines += ["  Args:"] + (
                    [f"    {args}"]
                    if isinstance(args, str)
                    else [f"    {k}: {v}" for k, v in args.items()]
                    if isinstance(args, dict)
                    else []
                )
        return (super().pretty_repr(html=html).strip() + "\n" + "\n".join(lines)).strip()


class ToolMessage(BaseMessage):
    _fields = {**BaseMessage._fields, "type": "tool", "tool_call_id": _REQUIRED, "artifact": None, "status": "success"}
    _repr_hidden = frozenset({"additional_kwargs", "response_metadata"})

    @classmethod
    def _before_validation(cls, values: dict[str, Any]) -> dict[str, Any]:
        # Tool results are stringified rather than rejected (so `return 42` from a tool works).
        content = values["content"]
        if isinstance(content, tuple):
            content = list(content)
        if not isinstance(content, (str, list)):
            values["content"] = str(content)
        elif isinstance(content, list):
            values["content"] = [x if isinstance(x, (str, dict)) else str(x) for x in content]
        tool_call_id = values["tool_call_id"]  # a KeyError when missing, exactly as in langchain-core
        if isinstance(tool_call_id, (uuid.UUID, int, float)):
            values["tool_call_id"] = str(tool_call_id)
        return values


class RemoveMessage(BaseMessage):
    """Not a chat message: an instruction to add_messages to delete the message with this id."""

    _fields = {**BaseMessage._fields, "type": "remove"}

    def __init__(self, id: str, **kwargs: Any) -> None:
        if kwargs.pop("content", None):
            raise ValueError("RemoveMessage does not support 'content' field.")
        super().__init__("", id=id, **kwargs)


AnyMessage = Union[AIMessage, HumanMessage, SystemMessage, FunctionMessage, ToolMessage]
