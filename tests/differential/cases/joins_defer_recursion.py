"""Differential cases: Joins, defer, recursion limit."""

# No `from __future__ import annotations`: state schemas defined inside builders refer to local names.
import operator
from collections import Counter
from typing import Annotated, TypedDict

from ._common import Built, case, recursion


def _uneven(lg, join: str, runs: Counter):
    """a -> b -> b2 -> d and a -> c -> d, joined as `join` says."""

    class S(TypedDict):
        log: Annotated[list, operator.add]

    def node(name):
        def fn(s):
            runs[name] += 1
            return {"log": [name]}

        return fn

    b = lg.StateGraph(S)
    for n in ("a", "b", "b2", "c"):
        b.add_node(n, node(n))
    b.add_node("d", node("d"), defer=(join == "defer"))
    b.add_edge(lg.START, "a")
    b.add_edge("a", "b")
    b.add_edge("b", "b2")
    b.add_edge("a", "c")
    if join == "waiting":
        b.add_edge(["b2", "c"], "d")
    else:
        b.add_edge("b2", "d")
        b.add_edge("c", "d")
    b.add_edge("d", lg.END)
    return b


@case(
    expect={
        "result": {"log": ["a", "b", "c", "b2", "d"]},
        "probe": {"a": 1, "b": 1, "b2": 1, "c": 1, "d": 1},
    }
)
def build_waiting_edge_uneven(lg):
    """add_edge(["b2", "c"], "d") with unequal branches: d runs once."""
    runs = Counter()
    return Built(_uneven(lg, "waiting", runs), {"log": []}, probe=lambda: dict(runs))


@case(
    expect={
        "result": {"log": ["a", "b", "c", "b2", "d", "d"]},
        "probe": {"a": 1, "b": 1, "b2": 1, "c": 1, "d": 2},
    }
)
def build_plain_edges_uneven(lg):
    """Two plain edges b2 -> d and c -> d with unequal branches: d runs twice."""
    runs = Counter()
    return Built(_uneven(lg, "plain", runs), {"log": []}, probe=lambda: dict(runs))


@case(
    expect={
        "result": {"log": ["a", "b", "c", "b2", "d"]},
        "probe": {"a": 1, "b": 1, "b2": 1, "c": 1, "d": 1},
    }
)
def build_defer_uneven(lg):
    """Plain edges into a defer=True node: d runs once, in the last step."""
    runs = Counter()
    return Built(_uneven(lg, "defer", runs), {"log": []}, probe=lambda: dict(runs))


@case(expect={"result": {"log": ["a", "b", "c", "d"]}})
def build_waiting_edge_three_sources(lg):
    """add_edge(["a", "b", "c"], "d") from a parallel fan-out."""

    class S(TypedDict):
        log: Annotated[list, operator.add]

    b = lg.StateGraph(S)
    for n in ("a", "b", "c", "d"):
        b.add_node(n, (lambda name: lambda s: {"log": [name]})(n))
    for n in ("a", "b", "c"):
        b.add_edge(lg.START, n)
    b.add_edge(["a", "b", "c"], "d")
    return Built(b, {"log": []})


@case(expect={"error": ("GraphRecursionError", recursion(5)), "probe": 5})
def build_recursion_endless_limit5(lg):
    """An endless loop with recursion_limit=5 runs its node 5 times, then raises."""
    runs: list = []

    class S(TypedDict):
        n: int

    def loop(s):
        runs.append(1)
        return {"n": s["n"] + 1}

    b = lg.StateGraph(S)
    b.add_node("loop", loop)
    b.add_edge(lg.START, "loop")
    b.add_edge("loop", "loop")
    return Built(b, {"n": 0}, config={"recursion_limit": 5}, probe=lambda: len(runs))


def _chain3(lg):
    class S(TypedDict):
        log: Annotated[list, operator.add]

    b = lg.StateGraph(S)
    for n in ("a", "b", "c"):
        b.add_node(n, (lambda name: lambda s: {"log": [name]})(n))
    b.add_edge(lg.START, "a")
    b.add_edge("a", "b")
    b.add_edge("b", "c")
    return b


@case(expect={"error": ("GraphRecursionError", recursion(3))})
def build_recursion_chain3_limit3(lg):
    """A chain of 3 nodes needs recursion_limit >= 4."""
    return Built(_chain3(lg), {"log": []}, config={"recursion_limit": 3})


@case(expect={"result": {"log": ["a", "b", "c"]}})
def build_recursion_chain3_limit4(lg):
    """A chain of 3 nodes with recursion_limit=4 finishes."""
    return Built(_chain3(lg), {"log": []}, config={"recursion_limit": 4})


@case(expect={"error": ("ValueError", "recursion_limit must be at least 1")})
def build_recursion_limit_zero(lg):
    """recursion_limit=0 is rejected."""
    return Built(_chain3(lg), {"log": []}, config={"recursion_limit": 0})
