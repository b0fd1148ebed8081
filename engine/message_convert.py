"""Messages from what people write instead of them, standard library only: langchain-core's
`convert_to_messages` (strings, `(role, content)` pairs, dicts with a role or type), `message_to_dict`
and `messages_from_dict`, with the same rules and error texts, and the round trip through OpenAI's format
that `add_messages(format="langchain-openai")` makes.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from .messages import (
    AIMessage,
    BaseMessage,
    FunctionMessage,
    HumanMessage,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
    tool_call,
)

__all__ = ["convert_to_messages", "message_to_dict", "messages_from_dict"]

_TROUBLESHOOTING = (
    "\nFor troubleshooting, visit: https://docs.langchain.com/oss/python/langchain"
    "/errors/MESSAGE_COERCION_FAILURE "
)  # langchain-core appends this, trailing space included


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
    kwargs = _message_kwargs(name, tool_call_id, id, additional_kwargs)
    if tool_calls is not None:
        kwargs["tool_calls"] = [_langchain_tool_call(call) for call in tool_calls]
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


def _message_kwargs(
    name: str | None, tool_call_id: str | None, id: str | None, additional_kwargs: dict[str, Any]
) -> dict[str, Any]:
    """The constructor's keywords, in langchain-core's order; response_metadata is lifted out of the unknown
    keys, and a nested additional_kwargs is merged into them."""
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
    return kwargs


def _langchain_tool_call(call: dict[str, Any]) -> dict[str, Any]:
    """An OpenAI-format call (`{"function": {...}}`) as a LangChain one; a LangChain one as it is."""
    if "function" not in call:
        return call
    args = call["function"]["arguments"]
    args = json.loads(args, strict=False) if isinstance(args, str) else args
    return {"name": call["function"]["name"], "args": args, "id": call["id"], "type": "tool_call"}


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


def openai_round_trip(messages: list[BaseMessage]) -> list[BaseMessage]:
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
