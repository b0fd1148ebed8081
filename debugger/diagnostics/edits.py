"""Where a node's code changes the state it received, read with `ast`: `state["notes"].append(x)`,
`state["config"]["k"] = v`, `notes = state["notes"]; notes.extend(...)`, `state["notes"] += [x]`.

Only values *inside* the state count: assigning `state["k"] = v` rebinds a key of the node's own input
dict (a fresh dict each time) and changes nothing shared, and a copy (`list(state["notes"])`) is not
the state's value. `+=` is reported with its key; whether it mutates depends on the value's type,
which the caller knows (`static.py` keeps it for lists, dicts and sets).
"""

from __future__ import annotations

import ast
from typing import Any


def _const_str(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def direct_read(node: ast.AST, param: str | None) -> str | None:
    """The key of `state["k"]`, `state.get("k", ...)` or `state.k`, where `param` names the state: the
    state's own value, not a copy; None for anything else."""
    if isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == param:
        return _const_str(node.slice)
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and isinstance(node.func.value, ast.Name)
        and node.func.value.id == param
        and node.args
    ):
        return _const_str(node.args[0])
    if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == param:
        return node.attr
    return None


MUTATORS = frozenset(
    {
        "append",
        "extend",
        "insert",
        "pop",
        "remove",
        "clear",
        "update",
        "setdefault",
        "sort",
        "reverse",
        "add",
        "discard",
        "popitem",
        "__setitem__",
        "__delitem__",
    }
)


def state_edits(tree: Any, param: str | None) -> list[tuple[str, int, str]]:
    if param is None:
        return []

    def strict_read(node: ast.AST) -> str | None:
        """`state["k"]`, `state.get("k", ...)` or `state.k`: the state's own value, not a copy."""
        return direct_read(node, param)

    aliases: dict[str, str | None] = {}
    body = [tree.body] if isinstance(tree, ast.Lambda) else tree.body
    nodes = [n for statement in body for n in _own_nodes(statement)]
    for node in nodes:
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    key = strict_read(node.value)
                    aliases[target.id] = key if aliases.get(target.id, key) == key else None

    def value_key(node: ast.AST) -> str | None:
        key = strict_read(node)
        if key is None and isinstance(node, ast.Name):
            key = aliases.get(node.id)
        return key

    found = []
    for node in nodes:
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in MUTATORS:
            key = value_key(node.func.value)
            if key is not None:
                found.append((key, node.lineno, f".{node.func.attr}()"))
        targets: list[ast.AST] = []
        if isinstance(node, ast.Assign):
            targets = list(node.targets)
        elif isinstance(node, ast.Delete):
            targets = list(node.targets)
        elif isinstance(node, ast.AugAssign):
            key = value_key(node.target)
            if key is not None:
                found.append((key, node.lineno, "+="))
            targets = [node.target]
        for target in targets:
            if isinstance(target, (ast.Subscript, ast.Attribute)) and not isinstance(node, ast.AugAssign):
                key = value_key(target.value)
                if key is not None:
                    found.append((key, node.lineno, "item assignment"))
    return found


def _own_nodes(node: ast.AST):
    """`node` and everything inside it, except nested functions and classes."""
    yield node
    for child in ast.iter_child_nodes(node):
        if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
            continue
        yield from _own_nodes(child)
