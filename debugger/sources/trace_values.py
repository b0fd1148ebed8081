"""Gate 2 of `trace_check`, for recorded values: the tags `engine.codec.encode` writes, the deltas
`engine.codec.delta` writes and the write references of reducer calls, each checked without recursion so
a deep value cannot exhaust the stack. A problem is a `BadValue` naming the path below its field.
"""

from __future__ import annotations

from typing import Any

from engine.codec import TYPE

_MESSAGE_TYPES = ("human", "ai", "system", "tool", "remove", "function")
_TAGS: dict[str, dict[str, type | tuple[type, ...]]] = {
    # tag: required keys and their JSON types (values under them are checked as values again)
    "message": {"message": dict},
    "dict": {"items": list},
    "tuple": {"items": list},
    "set": {"items": list},
    "missing": {},
    "float": {"value": str},
    "int": {"hex": str},
    "Send": {"node": str, "arg": object},
    "Overwrite": {"value": object},
    "Command": {"fields": dict},
    "object": {"class": str, "fields": dict},
    "repr": {"class": str, "repr": str},
    "error": {"class": str, "message": str},
    "same_as_writes": {},
    "undefined": {},  # JavaScript's undefined, recorded from a LangGraph.js run
}


class BadValue(ValueError):
    """A problem inside a field: `inner` is the path below the field (`.message`, `[3].items`)."""

    def __init__(self, inner: str, problem: str) -> None:
        super().__init__(f"{inner.lstrip('.') or 'value'}: {problem}")
        self.inner = inner
        self.problem = problem


def check_value(value: Any) -> Any:
    """A recorded value (`engine.codec.encode`'s output) whose tags the debugger can read."""
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        item, where = stack.pop()
        if type(item) is list:
            stack.extend((v, f"{where}[{i}]") for i, v in enumerate(item))
        elif type(item) is dict:
            tag = item.get(TYPE)
            if tag is None:
                if "$view" in item and not (len(item) == 1 and is_str_list(item["$view"])):
                    raise BadValue(where, "$view should be a list of state keys")
                stack.extend((v, f"{where}.{k}") for k, v in item.items())
                continue
            _check_tagged(item, tag, where)
            stack.extend((v, f"{where}.{k}") for k, v in item.items() if k not in (TYPE, "class", "repr"))
        elif type(item) is float and item != item:
            raise BadValue(where, "NaN is written as a tagged float")
    return value


def _check_tagged(item: dict[str, Any], tag: Any, where: str) -> None:
    required = _TAGS.get(tag) if isinstance(tag, str) else None
    if required is None:
        raise BadValue(where, f"unknown recorded value type {tag!r}")
    for key, kind in required.items():
        if key not in item:
            raise BadValue(where, f"a {tag} value needs {key!r}")
        if not isinstance(item[key], kind) or type(item[key]) is bool and kind is not object:
            raise BadValue(f"{where}.{key}", f"should be {getattr(kind, '__name__', kind)}")
    if tag in ("dict",) and not all(type(p) is list and len(p) == 2 for p in item["items"]):
        raise BadValue(f"{where}.items", "should be [key, value] pairs")
    if tag == "message":
        message = item["message"]
        if message.get("type") not in _MESSAGE_TYPES or not isinstance(message.get("data"), dict):
            raise BadValue(f"{where}.message", f"should be {{type: one of {', '.join(_MESSAGE_TYPES)}, data: {{...}}}}")
    if tag == "float":
        try:
            float(item["value"])
        except ValueError:
            raise BadValue(f"{where}.value", f"{item['value']!r} is not a float") from None
    if tag == "int":
        try:
            int(item["hex"], 16)
        except ValueError:
            raise BadValue(f"{where}.hex", f"{item['hex']!r} is not a hexadecimal int") from None
    if tag == "Command" and not set(item["fields"]) <= {"graph", "update", "resume", "goto"}:
        raise BadValue(f"{where}.fields", "a Command has only graph, update, resume and goto")


def is_str_list(value: Any) -> bool:
    return type(value) is list and all(type(v) is str for v in value)


def check_delta(change: Any) -> Any:
    """One of `engine.codec`'s deltas (`same`, `extend`, `splice`, `merge`/`drop`, `set`)."""
    if type(change) is not dict:
        raise ValueError("a delta should be an object")
    keys = set(change)
    if keys == {"same"} and change["same"] is True:
        return change
    if keys == {"extend"}:
        added = change["extend"]
        if type(added) is list or is_write_ref(added):
            return check_value(change)
        raise ValueError("extend: should be a list of values")
    if keys == {"splice", "items"}:
        if type(change["splice"]) is not int or change["splice"] < 0 or type(change["items"]) is not list:
            raise ValueError("a splice needs an index >= 0 and a list of items")
        return check_value(change)
    if keys in ({"merge"}, {"merge", "drop"}):
        if type(change["merge"]) is not dict or not is_str_list(change.get("drop", [])):
            raise ValueError("a merge needs an object of changed keys (and a list of dropped keys)")
        return check_value(change)
    if keys == {"set"}:
        return check_value(change)
    raise ValueError(
        f"not a delta: it has {sorted(keys)}; expected one of same, extend, splice+items, merge(+drop), set"
    )


def is_write_ref(value: Any) -> bool:
    return type(value) is dict and set(value) == {"$write"} and type(value["$write"]) is int and value["$write"] >= 0


def check_pair(pair: Any) -> Any:
    if type(pair) is not list or len(pair) != 2 or type(pair[0]) is not str:
        raise ValueError("should be a [name, value] pair")
    check_value(pair[1])
    return pair


def check_write(write: Any) -> Any:
    return write if is_write_ref(write) else check_value(write)
