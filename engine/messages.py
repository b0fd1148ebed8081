"""Chat messages and the `add_messages` reducer, standard library only.

Re-implements what LangGraph users touch in `langchain_core.messages` and
`langgraph.graph.message`, with the same constructors, reprs, equality and error
texts, so graphs written for them run unchanged. `add_messages(left, right)`:

1. Either side may be one message or a list. Strings, `(role, content)` tuples and
   dicts become message objects (`convert_to_messages`).
2. Every message without an id, on either side, gets one *in place* (a uuid4 string
   unless `set_id_factory` installed something else).
3. Starting from a copy of `left`, each message of `right` replaces the message with
   the same id where it stands, or is appended when the id is new.
4. `RemoveMessage(id=x)` marks `x` for deletion (an unknown id is an error); a later
   message with id `x` in the same update un-marks it. Deletions are applied last.
5. `RemoveMessage(id=REMOVE_ALL_MESSAGES)` drops everything before it: the result is
   only what follows the last such marker in `right`.
"""

from __future__ import annotations

import copy
import functools
import json
import sys
import uuid
from collections.abc import Callable, Sequence
from typing import Annotated, Any, TypedDict, Union

__all__ = [
    "BaseMessage",
    "HumanMessage",
    "AIMessage",
    "SystemMessage",
    "ToolMessage",
    "RemoveMessage",
    "AnyMessage",
    "REMOVE_ALL_MESSAGES",
    "add_messages",
    "convert_to_messages",
    "message_to_dict",
    "messages_from_dict",
    "MessagesState",
    "set_id_factory",
]

REMOVE_ALL_MESSAGES = "__remove_all__"

_REQUIRED = object()  # field default: the caller must pass a value
_TROUBLESHOOTING = (
    "\nFor troubleshooting, visit: https://docs.langchain.com/oss/python/langchain"
    "/errors/MESSAGE_COERCION_FAILURE "
)  # langchain-core appends this, trailing space included


def _new_uuid() -> str:
    return str(uuid.uuid4())


_id_factory: Callable[[], str] = _new_uuid


def set_id_factory(factory: Callable[[], str] | None) -> Callable[[], str]:
    """Use `factory()` for the ids add_messages assigns (None restores uuid4). Returns the previous one."""
    global _id_factory
    previous, _id_factory = _id_factory, factory or _new_uuid
    return previous


def _invalid(owner: str, field: str, problem: str) -> ValueError:
    # Shaped like the first lines of pydantic's ValidationError (itself a ValueError).
    return ValueError(f"1 validation error for {owner}\n{field}\n  {problem}")


def _differs(value: Any, default: Any) -> bool:
    try:  # artifacts may be arrays whose `!=` is not a bool; show them rather than fail
        return bool(value != default)
    except Exception:
        return True


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
        for field, default in self._fields.items():
            if field in values:
                value = _validate_field(owner, field, values.pop(field), default)
            elif default is _REQUIRED:
                raise _invalid(owner, field, "Field required")
            else:
                value = default() if default in (dict, list) else default
            setattr(self, field, value)
        for key, value in values.items():  # unknown keywords are kept, like extra="allow"
            setattr(self, key, value)

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


def message_to_dict(message: BaseMessage) -> dict[str, Any]:
    """`{"type": ..., "data": {every field and extra}}`, the shape langchain-core's message_to_dict gives.

    Containers are copied; it is JSON-able whenever the content, metadata and artifact are."""
    return {"type": message.type, "data": message.model_dump()}


def messages_from_dict(dumped: list[dict[str, Any]]) -> list[BaseMessage]:
    """The inverse of `message_to_dict` (langchain-core's `messages_from_dict`)."""
    classes = {
        "human": HumanMessage,
        "ai": AIMessage,
        "system": SystemMessage,
        "tool": ToolMessage,
        "remove": RemoveMessage,
        "function": FunctionMessage,
    }
    out = []
    for item in dumped:
        cls = classes.get(item["type"])
        if cls is None:
            raise ValueError(f"Got unexpected message type: {item['type']}")
        data = {k: v for k, v in item["data"].items() if k != "type"}
        if cls is RemoveMessage:
            data = {"id": data["id"]}
        out.append(cls(**data))
    return out


def _create_message_from_message_type(
    message_type: str,
    content: Any,
    name: str | None = None,
    tool_call_id: str | None = None,
    tool_calls: list | None = None,
    id: str | None = None,
    **additional_kwargs: Any,
) -> BaseMessage:
    """langchain-core's dict/tuple -> message rules: unknown keys end up in additional_kwargs."""
    kwargs: dict[str, Any] = {}
    if name is not None:
        kwargs["name"] = name
    if tool_call_id is not None:
        kwargs["tool_call_id"] = tool_call_id
    if additional_kwargs:
        if response_metadata := additional_kwargs.pop("response_metadata", None):
            kwargs["response_metadata"] = response_metadata
        kwargs["additional_kwargs"] = additional_kwargs
        additional_kwargs.update(additional_kwargs.pop("additional_kwargs", {}))
    if id is not None:
        kwargs["id"] = id
    if tool_calls is not None:  # OpenAI-format calls ({"function": {...}}) become LangChain ones
        kwargs["tool_calls"] = []
        for call in tool_calls:
            if "function" in call:
                args = call["function"]["arguments"]
                args = json.loads(args, strict=False) if isinstance(args, str) else args
                call = {"name": call["function"]["name"], "args": args, "id": call["id"], "type": "tool_call"}
            kwargs["tool_calls"].append(call)
    extra = kwargs.get("additional_kwargs", {})
    if message_type in ("human", "user", "ai", "assistant") and (example := extra.pop("example", False)):
        kwargs["example"] = example
    if message_type in ("human", "user"):
        return HumanMessage(content=content, **kwargs)
    if message_type in ("ai", "assistant"):
        return AIMessage(content=content, **kwargs)
    if message_type in ("system", "developer"):
        if message_type == "developer":
            kwargs["additional_kwargs"] = {**extra, "__openai_role__": "developer"}
        return SystemMessage(content=content, **kwargs)
    if message_type == "function":
        return FunctionMessage(content=content, **kwargs)
    if message_type == "tool":
        artifact = extra.pop("artifact", None)
        if (status := extra.pop("status", None)) is not None:
            kwargs["status"] = status
        return ToolMessage(content=content, artifact=artifact, **kwargs)
    if message_type == "remove":
        return RemoveMessage(**kwargs)
    raise ValueError(
        f"Unexpected message type: '{message_type}'. Use one of 'human', 'user', 'ai', "
        f"'assistant', 'function', 'tool', 'system', or 'developer'." + _TROUBLESHOOTING
    )


def _convert_to_message(message: Any) -> BaseMessage:
    if isinstance(message, BaseMessage):
        return message
    if isinstance(message, str):
        return _create_message_from_message_type("human", message)
    if isinstance(message, Sequence):
        try:
            role, content = message
        except ValueError as e:
            raise NotImplementedError("Message as a sequence must be (role string, template)") from e
        return _create_message_from_message_type(role, content)
    if isinstance(message, dict):
        fields = message.copy()
        try:
            role = fields.pop("role") if "role" in fields else fields.pop("type")
            content = fields.pop("content") or ""  # None content becomes ""
        except KeyError as e:
            raise ValueError(
                f"Message dict must contain 'role' and 'content' keys, got {message}" + _TROUBLESHOOTING
            ) from e
        return _create_message_from_message_type(role, content, **fields)
    raise NotImplementedError(f"Unsupported message type: {type(message)}" + _TROUBLESHOOTING)


def convert_to_messages(messages: Any) -> list[BaseMessage]:
    """Each item: a message (kept as is), a str (human), a (role, content) pair, or a dict with role/type
    and content."""
    return [_convert_to_message(m) for m in messages]


def _openai_round_trip(messages: list[BaseMessage]) -> list[BaseMessage]:
    """Approximates langchain's convert_to_messages(convert_to_openai_messages(...)): keeps role, name, content,
    tool calls, tool_call_id, drops the rest (ids too). Of the content-block rewrites only the text ones are done."""
    result = []
    for m in messages:
        if isinstance(m, RemoveMessage):
            raise ValueError(f"Unknown BaseMessage type {type(m)}.")
        content = m.content or ""
        if isinstance(content, list) and all(isinstance(b, str) or b.get("type") == "text" for b in content):
            content = "\n".join(b if isinstance(b, str) else b["text"] for b in content)
        elif isinstance(content, list):
            content = [
                {"type": "text", "text": b}
                if isinstance(b, str)
                else {"type": "text", "text": b["text"]}
                if b.get("type") == "text"
                else b
                for b in content
            ]
        kwargs: dict[str, Any] = {"name": m.name} if m.name else {}
        if isinstance(m, AIMessage) and m.tool_calls:
            kwargs["tool_calls"] = [tool_call(name=c["name"], args=c["args"], id=c["id"]) for c in m.tool_calls]
        if isinstance(m, ToolMessage):
            kwargs["tool_call_id"] = m.tool_call_id
        extra = {"refusal": m.additional_kwargs["refusal"]} if m.additional_kwargs.get("refusal") else {}
        if isinstance(m, SystemMessage) and m.additional_kwargs.get("__openai_role__") == "developer":
            extra["__openai_role__"] = "developer"
        result.append(type(m)(content=content, additional_kwargs=extra, **kwargs))
    return result


def _coerce(messages: Any) -> list[BaseMessage]:
    # A tuple is not a list, so `(msg,)` becomes `[(msg,)]` and then fails as a (role, content) pair,
    # exactly as in LangGraph.
    items = messages if isinstance(messages, list) else [messages]
    # The usual case, a list of messages already (the state's own, every step): checked at C speed
    # over its few distinct types, and copied as `convert_to_messages` would have built it.
    if all(issubclass(kind, BaseMessage) for kind in set(map(type, items))):
        return list(items)
    return convert_to_messages(items)


def _both_sides_or_partial(merge: Callable[..., list[BaseMessage]]) -> Callable[..., Any]:
    """LangGraph's calling convention: both sides merge, neither returns the reducer configured by keywords
    (`Annotated[list, add_messages(format="langchain-openai")]`), and one side alone is an error."""

    @functools.wraps(merge)  # the partial's `.func` keeps the name `add_messages` for the debugger
    def wrapper(left: Any = None, right: Any = None, **kwargs: Any) -> Any:
        if left is not None and right is not None:
            return merge(left, right, **kwargs)
        if left is not None or right is not None:
            # LangGraph tests `left` for truthiness here, so `add_messages([], None)` blames 'right'.
            raise ValueError(
                "Must specify non-null arguments for both 'left' and 'right'. "
                f"Only received: '{'left' if left else 'right'}'."
            )
        return functools.partial(merge, **kwargs)

    return wrapper


@_both_sides_or_partial
def add_messages(left: Any, right: Any, *, format: str | None = None) -> list[BaseMessage]:
    """Merge `right` into `left` by id (see the module docstring); returns a new list."""
    merged, right = _coerce(left), _coerce(right)  # `merged`: a new list, the result built in place
    ids = {message.id for message in merged}  # a set: `None in ids` and each new id are looked up at once
    if None in ids:  # the state's messages have their ids (only the input's may lack them)
        for message in merged:
            if message.id is None:
                message.id = _id_factory()
        ids = {message.id for message in merged}
    remove_all_at = None
    for index, message in enumerate(right):
        if message.id is None:
            message.id = _id_factory()
        if isinstance(message, RemoveMessage) and message.id == REMOVE_ALL_MESSAGES:
            remove_all_at = index
    if remove_all_at is not None:
        return right[remove_all_at + 1 :]  # LangGraph returns here: no removals, no format check

    if format is None and _all_new(right, ids):
        merged += right  # the usual step: a node adds new messages (no dict of the whole list built)
        return merged
    position_by_id = dict(zip([message.id for message in merged], range(len(merged))))  # {m.id: last index}
    ids_to_remove = set()
    for message in right:
        if (position := position_by_id.get(message.id)) is not None:
            if isinstance(message, RemoveMessage):
                ids_to_remove.add(message.id)
            else:
                ids_to_remove.discard(message.id)
                merged[position] = message
        elif isinstance(message, RemoveMessage):
            raise ValueError(f"Attempting to delete a message with an ID that doesn't exist ('{message.id}')")
        else:
            position_by_id[message.id] = len(merged)
            merged.append(message)
    if ids_to_remove:
        merged = [m for m in merged if m.id not in ids_to_remove]

    if format == "langchain-openai":
        return _openai_round_trip(merged)
    if format:
        raise ValueError(f"Unrecognized {format=}. Expected one of 'langchain-openai', None.")
    return merged


def _all_new(right: list[BaseMessage], ids: set[Any]) -> bool:
    """True when every message of `right` is an ordinary one whose id is in neither `ids` nor earlier
    in `right`: `add_messages` then only appends them, in order."""
    seen = set()
    for message in right:
        if isinstance(message, RemoveMessage) or message.id in ids or message.id in seen:
            return False
        seen.add(message.id)
    return True


class MessagesState(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]
