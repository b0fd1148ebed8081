"""The refund assistant's two parallel lookups (seed article 001, section 6.1).

Both lookups write the plain key `v` in the same superstep. A key without a reducer holds one value
and accepts one write per step, so LangGraph stops the run with INVALID_CONCURRENT_GRAPH_UPDATE.
"""

import operator
import sys
from pathlib import Path
from typing import Annotated, TypedDict

if __package__ in (None, ""):  # `python sample_graphs/refund_concurrent_update.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import START, StateGraph
from sample_graphs._show import show

title = "Refund assistant: two parallel writes to one plain key"
summary = "Two parallel nodes writing a key without a reducer fail with INVALID_CONCURRENT_GRAPH_UPDATE."
source = "seed 001, section 6.1"
lesson = (
    "The refund assistant looks up the order and the customer's history in parallel (two edges from START), "
    "and both lookups write `v` in the same superstep. "
    "`v: int` has no reducer, so it holds one value and accepts one write per step; with two writes the "
    "framework does not guess which one you meant and raises InvalidUpdateError: \"At key 'v': Can receive "
    'only one value per step. Use an Annotated key to handle multiple values." '
    "The error is raised at the barrier, after both nodes have run, and the step produces no new state. "
    "Do what the message says: declare how the writes merge, here `v: Annotated[list[int], operator.add]` "
    "with each node returning a one-item list, and `fixed_graph` ends with v=[1, 2]. "
    "If the two values mean different things, give each lookup its own key instead."
)


class RefundState(TypedDict):
    v: int  # no reducer: one value, one write per step


def build_broken():
    builder = StateGraph(RefundState)
    builder.add_node("lookup_order", lambda state: {"v": 1})
    builder.add_node("lookup_user_history", lambda state: {"v": 2})
    builder.add_edge(START, "lookup_order")
    builder.add_edge(START, "lookup_user_history")  # two edges from START = parallel
    return builder.compile()


class FixedRefundState(TypedDict):
    v: Annotated[list[int], operator.add]  # the reducer says how parallel writes merge


def build_fixed():
    builder = StateGraph(FixedRefundState)
    builder.add_node("lookup_order", lambda state: {"v": [1]})
    builder.add_node("lookup_user_history", lambda state: {"v": [2]})
    builder.add_edge(START, "lookup_order")
    builder.add_edge(START, "lookup_user_history")
    return builder.compile()


graph = build_broken()
example_input = {"v": 0}
fixed_graph = build_fixed()
fixed_input = {"v": []}

if __name__ == "__main__":
    show("broken", graph, example_input)
    show("fixed ", fixed_graph, fixed_input)
