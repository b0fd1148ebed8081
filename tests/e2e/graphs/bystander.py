"""Three nodes in one superstep: `a` and `b` both write the plain key `v` (the culprits), `c` writes
its own key (a bystander whose write is discarded with the failed step)."""

from typing import TypedDict

from engine import END, START, StateGraph


class State(TypedDict, total=False):
    v: int
    note: str


builder = StateGraph(State)
builder.add_node("a", lambda s: {"v": 1})
builder.add_node("b", lambda s: {"v": 2})
builder.add_node("c", lambda s: {"note": "done"})
for name in ("a", "b", "c"):
    builder.add_edge(START, name)
    builder.add_edge(name, END)
graph = builder.compile()
example_input = {"note": ""}
title = "Two culprits and a bystander"
