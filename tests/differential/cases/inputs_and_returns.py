"""Differential cases: Inputs and node return values."""

# No `from __future__ import annotations`: state schemas defined inside builders refer to local names.
import operator
from typing import Annotated, TypedDict

from ._common import NODE_RETURN, Built, case, task_note


def _simple(lg, node_fn):
    class S(TypedDict):
        a: int
        log: Annotated[list, operator.add]

    b = lg.StateGraph(S)
    b.add_node("n", node_fn)
    b.add_edge(lg.START, "n")
    return b


@case(expect={"error": ("EmptyInputError", "Received no input for __start__")})
def build_empty_input_none(lg):
    """invoke(None) on a fresh graph."""
    return Built(_simple(lg, lambda s: {"a": 1}), None)


@case(
    expect={
        "result": {"a": 1, "log": []},
        "probe": 1,
        "streams": {"updates": {"chunks": [{"n": None}]}},
    }
)
def build_node_returns_none(lg):
    """A node returning None writes nothing; its updates chunk is {node: None}."""
    runs: list = []

    def n(s):
        runs.append(1)
        return None

    return Built(_simple(lg, n), {"a": 1}, probe=lambda: len(runs))


@case(
    expect={
        "error": ("InvalidUpdateError", "Expected dict, got 5" + NODE_RETURN),
        "notes": [task_note("n")],
    }
)
def build_node_returns_int(lg):
    """A node returning 5."""
    return Built(_simple(lg, lambda s: 5), {"a": 1})


@case(expect={"error": ("InvalidUpdateError", "Expected dict, got [('a', 2)]" + NODE_RETURN)})
def build_node_returns_list_of_tuples(lg):
    """A node returning a list of tuples (only Command.update accepts that)."""
    return Built(_simple(lg, lambda s: [("a", 2)]), {"a": 1})


@case(expect={"result": {"a": 2, "log": ["n"]}})
def build_unknown_keys_dropped(lg):
    """Keys that are not channels are dropped from a node's return value."""
    return Built(_simple(lg, lambda s: {"a": 2, "zzz": 5, "log": ["n"]}), {"a": 1})


@case(expect={"result": {"a": 1, "log": ["n"]}, "probe": [{"a": 1, "log": []}]})
def build_input_unknown_keys(lg):
    """Unknown input keys are dropped."""
    seen: list = []

    def n(s):
        seen.append(dict(s))
        return {"log": ["n"]}

    return Built(_simple(lg, n), {"a": 1, "bogus": 2}, probe=lambda: seen)


@case(
    expect={
        "error": ("InvalidUpdateError", "Expected dict, got 5" + NODE_RETURN),
        "notes": [task_note("__start__")],
    }
)
def build_non_dict_input(lg):
    """invoke(5): the misleading node-return error."""
    return Built(_simple(lg, lambda s: {"a": 1}), 5)


@case(expect={"result": None, "probe": [{"log": []}]})
def build_invoke_empty_dict_returns_none(lg):
    """invoke({}) where no node writes anything returns None; the node sees the reducer initial value."""
    seen: list = []

    def n(s):
        seen.append(dict(s))

    return Built(_simple(lg, n), {}, probe=lambda: seen)


@case(expect={"result": {"log": ["n"]}})
def build_invoke_empty_dict_with_write(lg):
    """invoke({}) where the node writes: the output only holds the written channels."""
    return Built(_simple(lg, lambda s: {"log": ["n"]}), {})


@case(expect={"result": {"a": 1, "log": []}})
def build_input_only_no_writes(lg):
    """The input is written, the node writes nothing: invoke returns the input after the reducers."""
    return Built(_simple(lg, lambda s: {}), {"a": 1})
