"""The subgraph duplication trap (seed article 001, section 6.4).

A compiled subgraph mounted as a node receives the parent's state and returns its *whole* final
state, which then goes through the parent's reducer again.
"""

import operator
import sys
from pathlib import Path
from typing import Annotated, TypedDict

if __package__ in (None, ""):  # `python sample_graphs/subgraph_trap.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import START, StateGraph

title = "A subgraph re-appends its parent's list"
summary = "A compiled subgraph mounted as a node returns its whole state, so a shared reducer key is re-appended."
source = "seed 001, section 6.4"
lesson = (
    "The parent writes 'parent' into `log`, an `operator.add` list, then runs a compiled subgraph as a node. "
    "The subgraph receives the parent's state (log=['parent']), appends 'sub-1' and returns its whole final "
    "state ['parent', 'sub-1']. The parent's reducer appends that to ['parent'], so 'parent' appears twice. "
    "Fix: give the subgraph its own schema and call it from a plain function node that returns only the new "
    "items (see `fixed_graph`): the result is ['parent', 'child->ABC']."
)
learn_prompt = (
    "The parent writes 'parent' into `log`, an `operator.add` list, then runs a compiled subgraph as a "
    "node; the subgraph receives the parent's state and appends 'sub-1'. Before each reducer call is "
    "revealed, predict what `log` holds."
)
"""Learn mode shows this set-up, without the results, until the learner has guessed every merge."""


class LogState(TypedDict):
    log: Annotated[list[str], operator.add]


def build_trap():
    sub = StateGraph(LogState)
    sub.add_node("s1", lambda state: {"log": ["sub-1"]})
    sub.add_edge(START, "s1")

    parent = StateGraph(LogState)
    parent.add_node("p1", lambda state: {"log": ["parent"]})
    parent.add_node("child", sub.compile())
    parent.add_edge(START, "p1")
    parent.add_edge("p1", "child")
    return parent.compile()


class ChildState(TypedDict):
    task: str
    result: str


class WrappedParentState(TypedDict):
    log: Annotated[list[str], operator.add]
    task: str


def build_fixed():
    sub = StateGraph(ChildState)
    sub.add_node("work", lambda state: {"result": state["task"].upper()})
    sub.add_edge(START, "work")
    subapp = sub.compile()

    def call_child(state: WrappedParentState) -> dict:
        out = subapp.invoke({"task": state["task"]})
        return {"log": [f"child->{out['result']}"]}

    parent = StateGraph(WrappedParentState)
    parent.add_node("p1", lambda state: {"log": ["parent"]})
    parent.add_node("call_child", call_child)
    parent.add_edge(START, "p1")
    parent.add_edge("p1", "call_child")
    return parent.compile()


graph = build_trap()
example_input = {"log": []}
fixed_graph = build_fixed()
fixed_input = {"log": [], "task": "abc"}

if __name__ == "__main__":
    print("trap: ", graph.invoke(example_input))
    for chunk in graph.stream(example_input, subgraphs=True):
        print("   ", chunk)
    print("fixed:", fixed_graph.invoke(fixed_input))
