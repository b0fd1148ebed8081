"""Differential cases: Exceptions raised by nodes."""

# No `from __future__ import annotations`: state schemas defined inside builders refer to local names.
import operator
from typing import Annotated, TypedDict

from ._common import Built, case, task_note


@case(expect={"error": ("ValueError", "boom"), "notes": [task_note("bad")]})
def build_node_raises(lg):
    """A node raising ValueError after a successful first node."""

    class S(TypedDict):
        log: Annotated[list, operator.add]

    def bad(s):
        raise ValueError("boom")

    b = lg.StateGraph(S)
    b.add_node("ok", lambda s: {"log": ["ok"]})
    b.add_node("bad", bad)
    b.add_edge(lg.START, "ok")
    b.add_edge("ok", "bad")
    return Built(b, {"log": []})


class CustomError(Exception):
    def __init__(self, code):
        super().__init__(f"custom failure {code}")
        self.code = code


@case(expect={"error": ("CustomError", "custom failure 42")})
def build_node_raises_custom(lg):
    """A user-defined exception class passes through unchanged."""

    class S(TypedDict):
        x: int

    def bad(s):
        raise CustomError(42)

    b = lg.StateGraph(S)
    b.add_node("bad", bad)
    b.add_edge(lg.START, "bad")
    return Built(b, {"x": 1})


@case(expect={"error": ("KeyError", "'missing'")})
def build_node_reads_missing_key(lg):
    """A node reading a key that was never written gets a KeyError (the key is absent)."""

    class S(TypedDict):
        x: int
        missing: int

    b = lg.StateGraph(S)
    b.add_node("n", lambda s: {"x": s["missing"]})
    b.add_edge(lg.START, "n")
    return Built(b, {"x": 1})


@case(expect={"error": ("ValueError", "boom in router"), "notes": [task_note("a")]})
def build_router_raises(lg):
    """An exception raised by a router."""

    class S(TypedDict):
        x: int

    def route(s):
        raise ValueError("boom in router")

    b = lg.StateGraph(S)
    b.add_node("a", lambda s: {"x": 2})
    b.add_node("b", lambda s: {"x": 3})
    b.add_edge(lg.START, "a")
    b.add_conditional_edges("a", route, ["b"])
    return Built(b, {"x": 1})
