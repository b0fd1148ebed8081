"""What a node's or a router's source code says it returns, read with `ast` (nothing is executed).

`node_returns(fn)` reads every `return` of a node function (or lambda) and reports the state keys it
can write (`{"v": 1}`, `Command(update={...})`, a local dict built up before returning), whether it
hands back the state it received (`return state`, `{**state, ...}`, `dict(state)`), where it writes a
key as "old value plus new items" (`{"log": state["log"] + [x]}`), and the `Command(goto=...)`
targets. `router_returns(fn)` says what a conditional edge's function returns: which node names,
whether it can return several at once (a list), and which nodes it `Send`s to.

The reading is deliberately modest: anything it does not understand makes the result incomplete,
never wrong. Callers use `keys` (a key some return writes: a real possibility), `always` (keys every
path writes) and `complete` to decide how sure a finding is.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any, Callable

from .edits import direct_read, state_edits
from .function_tree import function_ast, local_assignments, returns_of, unwrap

END_NAME = "__end__"


@dataclass
class Returns:
    """What the `return` statements of one function give back."""

    analysed: bool = False
    """False when the source could not be found or parsed: nothing below is known."""
    keys: set[str] = field(default_factory=set)
    """State keys that at least one return writes."""
    always: set[str] = field(default_factory=set)
    """State keys that every return writes (empty when some path returns nothing or is not understood)."""
    complete: bool = True
    """Every return was understood."""
    whole_state: int | None = None
    """The line of a return that hands back the state it received."""
    rmw: list[tuple[str, int]] = field(default_factory=list)
    """(key, line) of writes shaped `key: state[key] + ...`."""
    gotos: set[str] = field(default_factory=set)
    goto_unknown: bool = False
    goto_multi: bool = False
    names: set[str] = field(default_factory=set)
    """String constants returned (a router's targets); `END` counts as `__end__`."""
    names_unknown: bool = False
    """Some return gives a value that is not a literal name (a variable, a call)."""
    multi: bool = False
    """Some return gives a list, tuple or comprehension: several targets at once."""
    sends: set[str] = field(default_factory=set)
    send_unknown: bool = False
    """A `Send(...)` whose node is not a literal."""
    mutations: list[tuple[str, int, str]] = field(default_factory=list)
    """(key, line, how) where the code changes a value of the state it received: `state["k"].append(x)`,
    `state["k"]["x"] = 1`, an alias of `state["k"]` changed the same way; how is the method or `+=`."""
    line: int = 0
    """The first line of the function (for messages)."""

    @property
    def returns_sends(self) -> bool:
        return bool(self.sends) or self.send_unknown


def node_returns(fn: Any) -> Returns:
    found = function_ast(fn)
    if found is None:
        return Returns()
    tree, param = found
    reader = _Reader(param, local_assignments(tree))
    result = Returns(analysed=True, line=getattr(tree, "lineno", 0))
    per_return: list[set[str] | None] = []
    for expr, line in returns_of(tree):
        per_return.append(reader.update(expr, line, result))
    result.mutations = state_edits(tree, param)
    if per_return and all(keys is not None for keys in per_return):
        result.always = set.intersection(*per_return)  # type: ignore[arg-type]
    result.complete = result.complete and all(keys is not None for keys in per_return)
    return result


def router_returns(fn: Any) -> Returns:
    found = function_ast(fn)
    if found is None:
        return Returns()
    tree, param = found
    result = Returns(analysed=True, line=getattr(tree, "lineno", 0))
    for expr, _line in returns_of(tree):
        if expr is not None:
            _targets(expr, result, top=True)
    return result


def keys_read(fn: Any) -> tuple[str, ...] | None:
    """The state keys `fn` reads (`state["k"]`, `state.get("k")`, `state.k`), in the order it reads them;
    None where its source cannot be read."""
    found = function_ast(fn)
    if found is None:
        return None
    tree, param = found
    nodes = sorted(ast.walk(tree), key=lambda n: (getattr(n, "lineno", 0), getattr(n, "col_offset", 0)))
    return tuple(dict.fromkeys(key for key in (direct_read(n, param) for n in nodes) if key is not None))


# ---- reading return values ------------------------------------------------------------------------


def _const_str(node: ast.AST | None) -> str | None:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    return None


def _call_name(node: ast.AST) -> str | None:
    if isinstance(node, ast.Call):
        func = node.func
        if isinstance(func, ast.Name):
            return func.id
        if isinstance(func, ast.Attribute):
            return func.attr
    return None


class _Reader:
    def __init__(self, param: str | None, assigned: dict[str, list[ast.AST]]) -> None:
        self.param = param
        self.assigned = assigned

    def is_state(self, node: ast.AST) -> bool:
        """`state`, `state.copy()`, `dict(state)`, `{**state}`."""
        if self.param is None:
            return False
        if isinstance(node, ast.Name):
            return node.id == self.param
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "copy":
            return self.is_state(node.func.value)
        if _call_name(node) == "dict" and len(node.args) == 1 and not node.keywords:  # type: ignore[attr-defined]
            return self.is_state(node.args[0])  # type: ignore[attr-defined]
        return False

    def state_read(self, node: ast.AST) -> str | None:
        """The key of `state["k"]`, `state.get("k", ...)`, `state.k` or `list(state["k"])`."""
        if _call_name(node) == "list" and len(getattr(node, "args", ())) == 1:
            return self.state_read(node.args[0])  # type: ignore[attr-defined]
        return direct_read(node, self.param)

    def grows_state(self, node: ast.AST, key: str, depth: int = 0) -> bool:
        """`state[key]` itself, `state[key] + more`, `[*state[key], more]`, or a local variable holding one."""
        if depth == 0 and self.state_read(node) == key:
            return True
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return self.state_read(node.left) == key or self.grows_state(node.left, key, depth)
        if isinstance(node, ast.List) and node.elts and isinstance(node.elts[0], ast.Starred):
            return self.state_read(node.elts[0].value) == key
        if isinstance(node, ast.Name) and depth < 2:
            values = [v for v in self.assigned.get(node.id, []) if isinstance(v, ast.expr)]
            return bool(values) and all(self.grows_state(v, key, depth + 1) for v in values)
        return False

    def update(self, expr: ast.expr | None, line: int, out: Returns, depth: int = 0) -> set[str] | None:
        """Records what `expr` (a returned value) writes into `out`; the keys it surely writes, or None."""
        if expr is None or (isinstance(expr, ast.Constant) and expr.value is None):
            return set()
        if depth > 3:
            out.complete = False
            return None
        if self.is_state(expr):
            out.whole_state = out.whole_state or line
            return None
        if isinstance(expr, ast.IfExp):
            left = self.update(expr.body, line, out, depth + 1)
            right = self.update(expr.orelse, line, out, depth + 1)
            return None if left is None or right is None else left & right
        if isinstance(expr, ast.Dict):
            return self._dict(expr, line, out)
        if isinstance(expr, ast.BinOp) and isinstance(expr.op, ast.BitOr):
            if self.is_state(expr.left):
                out.whole_state = out.whole_state or line
                return None
        name = _call_name(expr)
        if name == "dict" and isinstance(expr, ast.Call):
            if expr.args and self.is_state(expr.args[0]):
                out.whole_state = out.whole_state or line
                return None
            if not expr.args:
                keys = {k.arg for k in expr.keywords if k.arg}
                out.keys |= keys
                return keys
        if name == "Command" and isinstance(expr, ast.Call):
            return self._command(expr, line, out, depth)
        if isinstance(expr, ast.Name) and expr.id in self.assigned:
            return self._local(expr.id, line, out, depth)
        out.complete = False
        return None

    def _dict(self, expr: ast.Dict, line: int, out: Returns) -> set[str] | None:
        keys: set[str] = set()
        sure = True
        for key_node, value in zip(expr.keys, expr.values):
            if key_node is None:  # {**something}
                if self.is_state(value):
                    out.whole_state = out.whole_state or line
                out.complete = False
                sure = False
                continue
            key = _const_str(key_node)
            if key is None:
                out.complete = False
                sure = False
                continue
            keys.add(key)
            if self.grows_state(value, key):
                out.rmw.append((key, getattr(value, "lineno", line)))
        out.keys |= keys
        return keys if sure else None

    def _local(self, name: str, line: int, out: Returns, depth: int) -> set[str] | None:
        values = self.assigned[name]
        keys: set[str] = set()
        sure: set[str] | None = None
        understood = True
        for value in values:
            if isinstance(value, ast.Subscript):  # name["key"] = ...
                key = _const_str(value.slice)
                if key is None:
                    understood = False
                else:
                    keys.add(key)
                continue
            found = self.update(value, line, out, depth + 1)  # type: ignore[arg-type]
            if found is None:
                understood = False
            else:
                keys |= found
                sure = found if sure is None else sure & found
        out.keys |= keys
        if not understood:
            out.complete = False
            return None
        return sure if sure is not None else keys

    def _command(self, expr: ast.Call, line: int, out: Returns, depth: int) -> set[str] | None:
        keys: set[str] | None = set()
        for keyword in expr.keywords:
            if keyword.arg == "update":
                keys = self.update(keyword.value, line, out, depth + 1)
            elif keyword.arg == "goto":
                goto = Returns()
                _targets(keyword.value, goto, top=True)
                out.gotos |= goto.names - {END_NAME}
                out.sends |= goto.sends
                out.send_unknown |= goto.send_unknown
                out.goto_unknown |= goto.names_unknown
                out.goto_multi |= goto.multi
            elif keyword.arg is None:
                out.complete = False
        return keys


def _targets(expr: ast.AST, out: Returns, top: bool = False) -> None:
    """A router's (or goto's) returned value: names, lists of names, Sends."""
    if isinstance(expr, ast.Constant):
        if isinstance(expr.value, str):
            out.names.add(expr.value)
        elif expr.value is not None:
            out.names_unknown = True
        return
    if isinstance(expr, ast.Name) and expr.id == "END" or isinstance(expr, ast.Attribute) and expr.attr == "END":
        out.names.add(END_NAME)
        return
    if isinstance(expr, ast.IfExp):
        _targets(expr.body, out, top)
        _targets(expr.orelse, out, top)
        return
    if isinstance(expr, ast.BoolOp):
        for value in expr.values:
            _targets(value, out, top)
        return
    if isinstance(expr, (ast.List, ast.Tuple, ast.Set)):
        out.multi = out.multi or len(expr.elts) > 1 or any(isinstance(e, ast.Starred) for e in expr.elts)
        for element in expr.elts:
            _targets(element.value if isinstance(element, ast.Starred) else element, out)
        return
    if isinstance(expr, (ast.ListComp, ast.GeneratorExp, ast.SetComp)):
        out.multi = True
        _targets(expr.elt, out)
        return
    if _call_name(expr) == "Send" and isinstance(expr, ast.Call):
        node = _const_str(expr.args[0]) if expr.args else None
        for keyword in expr.keywords:
            if keyword.arg == "node":
                node = _const_str(keyword.value)
        if node is None:
            out.send_unknown = True
        else:
            out.sends.add(node)
        return
    out.names_unknown = True


def describe_function(fn: Callable[..., Any]) -> str:
    """`name (file.py, line 12)` for messages, or the repr when there is no source."""
    unwrapped = unwrap(fn)
    if unwrapped is None:
        return repr(fn)
    code = unwrapped[0].__code__
    name = "a lambda" if code.co_name == "<lambda>" else code.co_name
    return f"{name} ({code.co_filename.rsplit('/', 1)[-1]}, line {code.co_firstlineno})"


def returns_only_parent_commands(fn: Any) -> bool:
    """Every return of `fn` is `Command(graph=Command.PARENT, ...)`: the node always hands control to
    the parent graph, so a subgraph ending there never returns its final state."""
    found = function_ast(fn)
    if found is None:
        return False
    returns = returns_of(found[0])
    return bool(returns) and all(
        isinstance(value, ast.Call)
        and _call_name(value) == "Command"
        and any(
            k.arg == "graph" and isinstance(k.value, ast.Attribute) and k.value.attr == "PARENT" for k in value.keywords
        )
        for value, _ in returns
    )


def empty_write_intent(fn: Any, key: str) -> str | None:
    """What `fn`'s code means by writing `[]` to `key`: `"clear"` when some return writes the literal
    (`{"key": []}`: an attempt to clear it); `"nothing to add"` when `[]` is only one side of a choice
    whose other side adds items (`[] if state["hits"] else [...]`, also through a local name); None when
    the code does not say (the `[]` is computed) or the source cannot be read."""
    found = function_ast(fn)
    if found is None:
        return None
    tree = found[0]
    assigned = local_assignments(tree)
    choices = False
    for value, _ in returns_of(tree):
        if not isinstance(value, ast.Dict):
            continue
        for k, v in zip(value.keys, value.values):
            if _const_str(k) != key:
                continue
            if _is_empty_list(v):
                return "clear"
            named = assigned.get(v.id, []) if isinstance(v, ast.Name) else []  # `hits = [] if ... else [...]`
            choices = choices or any(_empty_or_adding(c) for c in [v, *named])
    return "nothing to add" if choices else None


def _is_empty_list(node: ast.AST | None) -> bool:
    return isinstance(node, ast.List) and not node.elts


def _empty_or_adding(node: ast.AST | None) -> bool:
    """`[] if c else [x]` (either way round): a choice between adding and not, not a clear."""
    if not isinstance(node, ast.IfExp):
        return False
    sides = (node.body, node.orelse)
    return any(_is_empty_list(side) for side in sides) and not all(_is_empty_list(side) for side in sides)
