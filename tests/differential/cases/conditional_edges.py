"""Differential cases: Conditional edges."""

# No `from __future__ import annotations`: state schemas defined inside builders refer to local names.
import operator
from typing import Annotated, Any, Literal, TypedDict

from ._common import Built, case, task_note


def _branch_graph(lg, router, path_map=None, nodes=("b", "c")):
    class S(TypedDict):
        log: Annotated[list, operator.add]
        go: Any

    b = lg.StateGraph(S)
    b.add_node("a", lambda s: {"log": ["a"]})
    for n in nodes:
        b.add_node(n, (lambda name: lambda s: {"log": [name]})(n))
    b.add_edge(lg.START, "a")
    if path_map is None:
        b.add_conditional_edges("a", router)
    else:
        b.add_conditional_edges("a", router, path_map)
    return b


@case(expect={"result": {"log": ["in", "a", "c"], "go": "no"}})
def build_cond_dict_path_map(lg):
    """A dict path_map from labels to nodes."""
    b = _branch_graph(lg, lambda s: s["go"], {"yes": "b", "no": "c"})
    return Built(b, {"log": ["in"], "go": "no"})


@case(expect={"result": {"log": ["in", "a", "b"], "go": "b"}})
def build_cond_list_path_map(lg):
    """A list path_map."""
    b = _branch_graph(lg, lambda s: s["go"], ["b", "c"])
    return Built(b, {"log": ["in"], "go": "b"})


@case(expect={"result": {"log": ["in", "a", "c"], "go": "c"}})
def build_cond_literal_annotation(lg):
    """No path_map: the router's Literal return annotation defines the targets."""

    def route(s) -> Literal["b", "c"]:
        return s["go"]

    return Built(_branch_graph(lg, route), {"log": ["in"], "go": "c"})


@case(expect={"error": ("KeyError", "'zz'")})
def build_cond_literal_missing(lg):
    """A result outside the Literal return annotation raises a bare KeyError."""

    def route(s) -> Literal["b"]:
        return s["go"]

    return Built(_branch_graph(lg, route), {"log": ["in"], "go": "zz"})


@case(expect={"result": {"log": ["in", "a", "b", "c"], "go": ["c", "b"]}})
def build_cond_router_list(lg):
    """The router returns a list of node names: both run in the next step."""
    return Built(_branch_graph(lg, lambda s: s["go"]), {"log": ["in"], "go": ["c", "b"]})


@case(expect={"result": {"log": ["in", "a", "b"]}})
def build_cond_router_list_with_end(lg):
    """["b", END]: END entries are dropped, b runs."""
    return Built(_branch_graph(lg, lambda s: ["b", lg.END]), {"log": ["in"]})


@case(expect={"result": {"log": ["in", "a"]}})
def build_cond_router_end(lg):
    """The router returns END: the branch stops."""
    return Built(_branch_graph(lg, lambda s: lg.END), {"log": ["in"]})


@case(
    expect={
        "error": ("ValueError", "Branch did not return a valid destination"),
        "notes": [task_note("a")],
    }
)
def build_cond_router_none(lg):
    """The router returns None."""
    return Built(_branch_graph(lg, lambda s: None), {"log": ["in"]})


@case(expect={"error": ("KeyError", "'nope'")})
def build_cond_path_map_missing_key(lg):
    """The router's result is not a key of the dict path_map."""
    b = _branch_graph(lg, lambda s: "nope", {"yes": "b", "no": "c"})
    return Built(b, {"log": ["in"]})


@case(expect={"result": {"log": ["in", "a"]}})
def build_cond_no_path_map_unknown_node(lg):
    """Without path_map or Literal, an unknown node name is dropped silently."""
    return Built(_branch_graph(lg, lambda s: "zz"), {"log": ["in"]})


@case(expect={"result": {"log": ["in", "c"], "go": "c"}, "probe": [{"log": ["in"], "go": "c"}]})
def build_cond_entry_point(lg):
    """add_conditional_edges(START, router): the router sees the input after the reducers."""
    seen: list = []

    class S(TypedDict):
        log: Annotated[list, operator.add]
        go: str

    def route(s):
        seen.append(dict(s))
        return s["go"]

    b = lg.StateGraph(S)
    b.add_node("b", lambda s: {"log": ["b"]})
    b.add_node("c", lambda s: {"log": ["c"]})
    b.add_conditional_edges(lg.START, route, ["b", "c"])
    return Built(b, {"log": ["in"], "go": "c"}, probe=lambda: seen)


@case(expect={"result": {"n": 3, "log": ["inc", "inc", "inc", "done"]}})
def build_cond_loop_counter(lg):
    """A cycle: inc -> (inc | done) until n == 3."""

    class S(TypedDict):
        n: int
        log: Annotated[list, operator.add]

    b = lg.StateGraph(S)
    b.add_node("inc", lambda s: {"n": s["n"] + 1, "log": ["inc"]})
    b.add_node("done", lambda s: {"log": ["done"]})
    b.add_edge(lg.START, "inc")
    b.add_conditional_edges("inc", lambda s: "done" if s["n"] >= 3 else "inc", ["inc", "done"])
    b.add_edge("done", lg.END)
    return Built(b, {"n": 0})


@case(expect={"result": {"log": ["in", "a", "b", "c"]}})
def build_cond_two_routers(lg):
    """Two routers with different names on one node: both run."""

    class S(TypedDict):
        log: Annotated[list, operator.add]

    def to_b(s):
        return "b"

    def to_c(s):
        return "c"

    b = lg.StateGraph(S)
    b.add_node("a", lambda s: {"log": ["a"]})
    b.add_node("b", lambda s: {"log": ["b"]})
    b.add_node("c", lambda s: {"log": ["c"]})
    b.add_edge(lg.START, "a")
    b.add_conditional_edges("a", to_b, ["b"])
    b.add_conditional_edges("a", to_c, ["c"])
    return Built(b, {"log": ["in"]})


@case(
    expect={
        "result": {"log": ["in", "a", "sib", "c"], "x": 5, "y": 9},
        "probe": [{"log": ["in", "a"], "x": 5, "notakey": 1}],
    }
)
def build_router_sees_own_writes(lg):
    """The router sees the step-start state with only its node's writes reduced in, plus the raw extra
    keys of the node's return value; a parallel sibling's writes are not visible."""
    seen: list = []

    class S(TypedDict):
        log: Annotated[list, operator.add]
        x: int
        y: int

    def route(s):
        seen.append(dict(s))
        return "c"

    b = lg.StateGraph(S)
    b.add_node("a", lambda s: {"log": ["a"], "x": 5, "notakey": 1})
    b.add_node("sib", lambda s: {"log": ["sib"], "y": 9})
    b.add_node("c", lambda s: {"log": ["c"]})
    b.add_edge(lg.START, "a")
    b.add_edge(lg.START, "sib")
    b.add_conditional_edges("a", route, ["c"])
    return Built(b, {"log": ["in"]}, probe=lambda: seen)
