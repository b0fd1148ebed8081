"""Differential cases: Reducers and channels."""

# No `from __future__ import annotations`: state schemas defined inside builders refer to local names.
import operator
from typing import Annotated, TypedDict

from ._common import BUILD_ONLY, CONCURRENT, Built, case, logging_add


@case(
    expect={
        "result": {"items": ["a", "b", "c"]},
        "probe": {"seen": [[], ["items"], ["items"]], "calls": [(["a"], ["b"]), (["a", "b"], ["c"])]},
    }
)
def build_optional_reducer_channel(lg):
    """`list[str] | None` has no constructor: the channel starts empty, the key is absent from node
    input, and the first write is stored without calling the reducer."""
    calls: list = []
    seen: list = []

    class S(TypedDict):
        items: Annotated[list[str] | None, logging_add(calls)]

    def node(name):
        def fn(s):
            seen.append(sorted(s))
            return {"items": [name]}

        return fn

    b = lg.StateGraph(S)
    for n in ("a", "b", "c"):
        b.add_node(n, node(n))
    b.add_edge(lg.START, "a")
    b.add_edge("a", "b")
    b.add_edge("b", "c")
    return Built(b, {}, probe=lambda: {"seen": seen, "calls": calls})


@case(
    expect={
        "result": {"lst": [1], "num": 1, "s": "x", "d": {"k": 1}, "plain": 1},
        "probe": [{"lst": [], "num": 0, "s": "", "d": {}, "plain": 1}],
    }
)
def build_reducer_initial_values(lg):
    """Reducer keys start from the type's constructor value ([], 0, '', {}) and appear in node input."""
    seen: list = []

    class S(TypedDict):
        lst: Annotated[list, operator.add]
        num: Annotated[int, operator.add]
        s: Annotated[str, operator.add]
        d: Annotated[dict, operator.or_]
        plain: int

    def n(s):
        seen.append(dict(s))
        return {"lst": [1], "num": 1, "s": "x", "d": {"k": 1}}

    b = lg.StateGraph(S)
    b.add_node("n", n)
    b.add_edge(lg.START, "n")
    return Built(b, {"plain": 1}, probe=lambda: seen)


@case(expect={"result": {"d": {"a": 1, "b": 2, "c": 3}, "n": 6}})
def build_reducer_custom_functions(lg):
    """Custom reducer functions (dict merge, max) folded over parallel writes."""

    def merge(left: dict, right: dict) -> dict:
        return {**left, **right}

    def keep_max(left: int, right: int) -> int:
        return max(left, right)

    class S(TypedDict):
        d: Annotated[dict, merge]
        n: Annotated[int, keep_max]

    b = lg.StateGraph(S)
    b.add_node("x", lambda s: {"d": {"b": 2}, "n": 6})
    b.add_node("y", lambda s: {"d": {"c": 3}, "n": 4})
    b.add_edge(lg.START, "x")
    b.add_edge(lg.START, "y")
    return Built(b, {"d": {"a": 1}, "n": 5})


@case(
    expect={
        "result": {"log": ["ow"]},
        "probe": [([], ["in"]), (["in"], ["a"])],
    }
)
def build_overwrite(lg):
    """Overwrite bypasses the reducer: a (before) is folded then thrown away, c (after) is ignored."""
    calls: list = []

    class S(TypedDict):
        log: Annotated[list, logging_add(calls)]

    b = lg.StateGraph(S)
    b.add_node("a", lambda s: {"log": ["a"]})
    b.add_node("b", lambda s: {"log": lg.Overwrite(["ow"])})
    b.add_node("c", lambda s: {"log": ["c"]})
    for n in ("a", "b", "c"):
        b.add_edge(lg.START, n)
    return Built(b, {"log": ["in"]}, probe=lambda: calls)


@case(expect={"result": {"log": ["ow", "after"]}})
def build_overwrite_dict_form(lg):
    """The dict form {"__overwrite__": value}, then a normal write in the next step."""

    class S(TypedDict):
        log: Annotated[list, operator.add]

    b = lg.StateGraph(S)
    b.add_node("a", lambda s: {"log": {"__overwrite__": ["ow"]}})
    b.add_node("b", lambda s: {"log": ["after"]})
    b.add_edge(lg.START, "a")
    b.add_edge("a", "b")
    return Built(b, {"log": ["in"]})


@case(
    expect={
        "error": (
            "InvalidUpdateError",
            "Can receive only one Overwrite value per super-step." + CONCURRENT,
        )
    }
)
def build_overwrite_two_error(lg):
    """Two Overwrites of one key in one step."""

    class S(TypedDict):
        log: Annotated[list, operator.add]

    b = lg.StateGraph(S)
    b.add_node("p", lambda s: {"log": lg.Overwrite(["p"])})
    b.add_node("q", lambda s: {"log": lg.Overwrite(["q"])})
    b.add_edge(lg.START, "p")
    b.add_edge(lg.START, "q")
    return Built(b, {"log": ["in"]})


@case(expect={"result": {"log": ["in", "a", "MUTATED", "b"]}, "probe": [["in", "a", "MUTATED"]]})
def build_inplace_mutation(lg):
    """Node input values are the live channel objects: an in-place append persists."""
    seen: list = []

    class S(TypedDict):
        log: Annotated[list, operator.add]

    def a(s):
        return {"log": ["a"]}

    def mutate(s):
        s["log"].append("MUTATED")
        return None

    def b_(s):
        seen.append(list(s["log"]))
        return {"log": ["b"]}

    b = lg.StateGraph(S)
    b.add_node("a", a)
    b.add_node("mutate", mutate)
    b.add_node("b", b_)
    b.add_edge(lg.START, "a")
    b.add_edge("a", "mutate")
    b.add_edge("mutate", "b")
    return Built(b, {"log": ["in"]}, probe=lambda: seen)


@case(
    expect={
        "error": (
            "ValueError",
            "Invalid reducer signature. Expected (a, b) -> c. Got (a)",
        ),
        "stage": "build",
    },
    aspects=BUILD_ONLY,
)
def build_bad_reducer_signature(lg):
    """A reducer with one parameter is rejected when the StateGraph is constructed."""

    def one(a):
        return a

    class S(TypedDict):
        log: Annotated[list, one]

    b = lg.StateGraph(S)
    return Built(b, {})
