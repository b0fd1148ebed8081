"""`decode(data)`: Python values from `encode`'s output, without importing or running anything it names:
messages come back as `engine` messages, other objects as `Recorded` stand-ins.
"""

from __future__ import annotations

from typing import Any

from .channels import MISSING
from .codec_types import JS_UNDEFINED, TYPE, Recorded
from .message_convert import messages_from_dict
from .types import Command, Overwrite, Send


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
