"""Differential cases: Build and compile errors (exact texts, and the stage at which they are raised)."""

# No `from __future__ import annotations`: state schemas defined inside builders refer to local names.
import operator
from typing import Annotated, TypedDict

from ._common import BUILD_ONLY, Built, case


def _plain(lg):
    class S(TypedDict):
        x: int

    b = lg.StateGraph(S)
    b.add_node("a", lambda s: {"x": 1})
    return b


@case(
    expect={
        "error": (
            "ValueError",
            "Graph must have an entrypoint: add at least one edge from START to another node",
        ),
        "stage": "compile",
    },
    aspects=BUILD_ONLY,
)
def build_err_no_entry_point(lg):
    """No edge from START."""
    return Built(_plain(lg), {"x": 0})


@case(
    expect={"error": ("ValueError", "Found edge ending at unknown node `zz`"), "stage": "compile"},
    aspects=BUILD_ONLY,
)
def build_err_edge_to_unknown_node(lg):
    """add_edge("a", "zz") is only validated at compile()."""
    b = _plain(lg)
    b.add_edge(lg.START, "a")
    b.add_edge("a", "zz")
    return Built(b, {"x": 0})


@case(
    expect={"error": ("ValueError", "Found edge starting at unknown node 'zz'"), "stage": "compile"},
    aspects=BUILD_ONLY,
)
def build_err_edge_from_unknown_node(lg):
    """add_edge("zz", "a") is only validated at compile()."""
    b = _plain(lg)
    b.add_edge(lg.START, "a")
    b.add_edge("zz", "a")
    return Built(b, {"x": 0})


@case(
    expect={"error": ("ValueError", "Need to add_node `zz` first"), "stage": "build"},
    aspects=BUILD_ONLY,
)
def build_err_waiting_edge_unknown_node(lg):
    """add_edge(["a", "zz"], ...) fails immediately."""
    b = _plain(lg)
    b.add_node("b", lambda s: {"x": 2})
    b.add_edge(lg.START, "a")
    b.add_edge(["a", "zz"], "b")
    return Built(b, {"x": 0})


@case(
    expect={"error": ("ValueError", "Node `__start__` is reserved."), "stage": "build"},
    aspects=BUILD_ONLY,
)
def build_err_reserved_start_name(lg):
    b = _plain(lg)
    b.add_node(lg.START, lambda s: {"x": 1})
    return Built(b, {"x": 0})


@case(
    expect={"error": ("ValueError", "Node `__end__` is reserved."), "stage": "build"},
    aspects=BUILD_ONLY,
)
def build_err_reserved_end_name(lg):
    b = _plain(lg)
    b.add_node(lg.END, lambda s: {"x": 1})
    return Built(b, {"x": 0})


@case(
    expect={"error": ("ValueError", "Node `a` already present."), "stage": "build"},
    aspects=BUILD_ONLY,
)
def build_err_duplicate_node(lg):
    b = _plain(lg)
    b.add_node("a", lambda s: {"x": 2})
    return Built(b, {"x": 0})


@case(
    expect={
        "error": ("ValueError", "At 'a' node, 'route' branch found unknown target 'zz'"),
        "stage": "compile",
    },
    aspects=BUILD_ONLY,
)
def build_err_cond_unknown_target(lg):
    """A path_map naming a node that does not exist."""

    def route(s):
        return "yes"

    b = _plain(lg)
    b.add_edge(lg.START, "a")
    b.add_conditional_edges("a", route, {"yes": "zz"})
    return Built(b, {"x": 0})


@case(
    expect={
        "error": ("ValueError", "At 'a' node, 'condition' branch found unknown target 'zz'"),
        "stage": "compile",
    },
    aspects=BUILD_ONLY,
)
def build_err_cond_unknown_target_lambda(lg):
    """The same with a lambda router, which is named `condition`."""
    b = _plain(lg)
    b.add_edge(lg.START, "a")
    b.add_conditional_edges("a", lambda s: "zz", ["zz"])
    return Built(b, {"x": 0})


@case(
    expect={
        "error": ("ValueError", "'|' is a reserved character and is not allowed in the node names."),
        "stage": "build",
    },
    aspects=BUILD_ONLY,
)
def build_err_pipe_in_name(lg):
    b = _plain(lg)
    b.add_node("a|b", lambda s: {"x": 1})
    return Built(b, {"x": 0})


@case(
    expect={
        "error": ("ValueError", "':' is a reserved character and is not allowed in the node names."),
        "stage": "build",
    },
    aspects=BUILD_ONLY,
)
def build_err_colon_in_name(lg):
    b = _plain(lg)
    b.add_node("a:b", lambda s: {"x": 1})
    return Built(b, {"x": 0})


@case(
    expect={"error": ("ValueError", "END cannot be a start node"), "stage": "build"},
    aspects=BUILD_ONLY,
)
def build_err_end_as_start(lg):
    b = _plain(lg)
    b.add_edge(lg.END, "a")
    return Built(b, {"x": 0})


@case(
    expect={"error": ("ValueError", "START cannot be an end node"), "stage": "build"},
    aspects=BUILD_ONLY,
)
def build_err_start_as_end(lg):
    b = _plain(lg)
    b.add_edge("a", lg.START)
    return Built(b, {"x": 0})


@case(
    expect={
        "error": ("ValueError", "Branch with name `route` already exists for node `a`"),
        "stage": "build",
    },
    aspects=BUILD_ONLY,
)
def build_err_duplicate_router(lg):
    def route(s):
        return lg.END

    b = _plain(lg)
    b.add_edge(lg.START, "a")
    b.add_conditional_edges("a", route)
    b.add_conditional_edges("a", route)
    return Built(b, {"x": 0})


@case(
    expect={"error": ("ValueError", "Interrupt node `zz` not found"), "stage": "compile"},
    aspects=BUILD_ONLY,
)
def build_err_interrupt_unknown_node(lg):
    b = _plain(lg)
    b.add_edge(lg.START, "a")
    return Built(b, {"x": 0}, compile_kwargs={"interrupt_before": ["zz"]})


@case(
    expect={"error": ("ValueError", "Channel 'x' already exists with a different type"), "stage": "build"},
    aspects=BUILD_ONLY,
)
def build_err_node_schema_gives_a_plain_key_a_reducer(lg):
    """A node whose input schema declares a reducer for the state's plain key is refused by add_node: the
    state's channel comes first and is kept (it does not take the node's reducer)."""

    class WithReducer(TypedDict):
        x: Annotated[int, operator.add]

    def a(state: WithReducer) -> dict:
        return {"x": 1}

    b = _plain_state_graph(lg)
    b.add_node("a", a)
    b.add_edge(lg.START, "a")
    return Built(b, {"x": 0})


@case(expect={"result": {"x": 13}})
def build_node_schema_with_a_plain_key_keeps_the_states_reducer(lg):
    """A node's input schema may declare the state's reducer key as plain: the state's reducer stays."""

    class Adding(TypedDict):
        x: Annotated[int, operator.add]

    class Plain(TypedDict):
        x: int

    def a(state: Plain) -> dict:
        return {"x": 1}

    b = lg.StateGraph(Adding)
    b.add_node("a", a)
    b.add_node("c", lambda s: {"x": 2})
    b.add_edge(lg.START, "a")
    b.add_edge(lg.START, "c")
    return Built(b, {"x": 10})


def _plain_state_graph(lg):
    class S(TypedDict):
        x: int

    return lg.StateGraph(S)
