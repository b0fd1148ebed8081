"""Finding a function's syntax tree, with `ast` (nothing is executed): the plain function behind a
partial, a wrapper, a method or a callable object; its source file parsed once per content; the `def` or
lambda that compiled to it; its own `return`s and local assignments. `source.py` reads what they say.
"""

from __future__ import annotations

import ast
import functools
import hashlib
import inspect
import linecache
from typing import Any


def unwrap(fn: Any) -> tuple[Any, int] | None:
    """The plain function behind `fn`, and how many leading parameters are not the state (`self`, or
    arguments a `functools.partial` already bound)."""
    bound = 0
    for _ in range(10):
        if isinstance(fn, functools.partial):
            bound += len(fn.args)
            fn = fn.func
        elif hasattr(fn, "__wrapped__"):
            fn = fn.__wrapped__
        else:
            break
    if inspect.ismethod(fn):
        return fn.__func__, 1 + bound
    if inspect.isfunction(fn):
        return fn, bound
    call = getattr(type(fn), "__call__", None)
    if inspect.isfunction(call):
        return call, 1 + bound
    return None


_TREES: dict[str, tuple[str, ast.Module | None]] = {}


def _parse(filename: str) -> ast.Module | None:
    text = "".join(linecache.getlines(filename))
    if not text:
        return None
    digest = hashlib.blake2b(text.encode(), digest_size=8).hexdigest()
    cached = _TREES.get(filename)
    if cached is not None and cached[0] == digest:
        return cached[1]
    try:
        tree: ast.Module | None = ast.parse(text, filename)
    except (SyntaxError, ValueError):
        tree = None
    _TREES[filename] = (digest, tree)
    return tree


def function_ast(fn: Any) -> tuple[ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda, str | None] | None:
    unwrapped = unwrap(fn)
    if unwrapped is None:
        return None
    function, skip = unwrapped
    code = function.__code__
    module = _parse(code.co_filename)
    if module is None:
        return None
    line = code.co_firstlineno
    if code.co_name == "<lambda>":
        lambdas = [n for n in ast.walk(module) if isinstance(n, ast.Lambda) and n.lineno == line]
        if len(lambdas) > 1:
            start = _body_start(code)
            lambdas = [n for n in lambdas if (n.body.lineno, n.body.col_offset) == start]
        if len(lambdas) != 1:
            return None
        tree: Any = lambdas[0]
    else:
        defs = [
            n
            for n in ast.walk(module)
            if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
            and n.name == code.co_name
            and min([n.lineno, *(d.lineno for d in n.decorator_list)]) == line
        ]
        if len(defs) != 1:
            return None
        tree = defs[0]
    params = [*tree.args.posonlyargs, *tree.args.args][skip:]
    return tree, (params[0].arg if params else None)


def _body_start(code: Any) -> tuple[int, int] | None:
    """Where a lambda's body starts: the earliest source position of its instructions."""
    positions = [(p[0], p[2]) for p in code.co_positions() if p[0] is not None and p[2] is not None and p[3]]
    return min(positions) if positions else None


def returns_of(tree: Any) -> list[tuple[ast.expr | None, int]]:
    """Every returned expression of the function itself (not of nested functions), with its line.
    A function that can run off its end also "returns" None."""
    if isinstance(tree, ast.Lambda):
        return [(tree.body, tree.body.lineno)]
    found: list[tuple[ast.expr | None, int]] = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda, ast.ClassDef)):
                continue
            if isinstance(child, ast.Return):
                found.append((child.value, child.lineno))
            visit(child)

    visit(tree)
    if not tree.body or not isinstance(tree.body[-1], (ast.Return, ast.Raise)):
        found.append((None, tree.lineno))
    return found


def local_assignments(tree: Any) -> dict[str, list[ast.AST]]:
    """`name = value` (and `name["key"] = ...`, as a marker) in the function's own body."""
    assigned: dict[str, list[ast.AST]] = {}
    if isinstance(tree, ast.Lambda):
        return assigned
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign):
            for target in node.targets:
                if isinstance(target, ast.Name):
                    assigned.setdefault(target.id, []).append(node.value)
                elif isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                    assigned.setdefault(target.value.id, []).append(target)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.value is not None:
            assigned.setdefault(node.target.id, []).append(node.value)
    return assigned
