"""Where a node or a router says it can go, read from its annotations and code (nothing is run):
a router's `Literal` return type or path map, a node's `-> Command[Literal[...]]`, and whether a node may
route by returning a `Command` or `Send` at all (then reachability cannot be judged). For drawing and
validation only.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable, Hashable, Literal, Union, get_args, get_origin, get_type_hints


def is_compiled_graph(action: Any) -> bool:
    return hasattr(action, "builder") and hasattr(action, "invoke") and hasattr(action, "get_graph")


def path_map_of(path: Callable[..., Any], path_map: Any) -> dict[Hashable, str] | None:
    if isinstance(path_map, dict):
        return dict(path_map)
    if isinstance(path_map, list):
        return {name: name for name in path_map}
    try:
        returns = get_type_hints(getattr(path, "__call__", path) if not inspect.isfunction(path) else path).get(
            "return"
        )
    except Exception:  # unresolvable annotations only mean "no declared targets", as in LangGraph
        return None
    if returns is not None and get_origin(returns) is Literal:
        return {name: name for name in get_args(returns)}
    return None


def _return_annotation(action: Any) -> Any:
    try:
        return get_type_hints(action).get("return")
    except Exception:  # annotations are a hint for drawing and validation; a bad one must not break compile
        return None


def command_destinations(action: Any) -> tuple[str, ...]:
    """`-> Command[Literal["b", "c"]]` declares where a node may go (drawing and validation only)."""
    returns = _return_annotation(action)
    if get_origin(returns) is Union:  # LangGraph looks inside typing.Union (not `X | Y`) for a Command
        returns = next((arg for arg in get_args(returns) if _is_command_type(arg)), returns)
    if returns is None or not _is_command_type(returns):
        return ()
    (target,) = get_args(returns) or (None,)
    if get_origin(target) is Literal:
        return tuple(get_args(target))
    return ()


def _is_command_type(annotation: Any) -> bool:
    return getattr(get_origin(annotation), "__name__", None) == "Command"


def returns_command_or_send(action: Any) -> bool:
    """Whether a node may route by returning a `Command` or `Send`: its annotation says so, or its
    code refers to either name (then it may go anywhere, so reachability cannot be judged)."""
    returns = _return_annotation(action)
    if returns is not None and ("Command" in repr(returns) or "Send" in repr(returns)):
        return True
    if is_compiled_graph(action):  # Command(graph=PARENT) from inside
        return any(returns_command_or_send(spec.action) for spec in action.builder.nodes.values())
    code = getattr(getattr(action, "__call__", action), "__code__", None) or getattr(action, "__code__", None)
    return code is None or _code_mentions(code, {"Command", "Send"})


def _code_mentions(code: Any, names: set[str]) -> bool:
    if names & set(code.co_names):
        return True
    return any(_code_mentions(const, names) for const in code.co_consts if hasattr(const, "co_names"))
