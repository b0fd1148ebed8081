"""200 nodes: 10 parallel chains of 20, joined at the end (for zoom, pan and step speed)."""

import operator
from typing import Annotated, TypedDict

from engine import END, START, StateGraph


class State(TypedDict):
    log: Annotated[list, operator.add]


builder = StateGraph(State)
ends = []
for chain in range(10):
    names = [f"c{chain}_n{i}" for i in range(20)]
    for name in names:
        builder.add_node(name, lambda s, name=name: {"log": [name]})
    builder.add_edge(START, names[0])
    for a, b in zip(names, names[1:]):
        builder.add_edge(a, b)
    ends.append(names[-1])
builder.add_node("join", lambda s: {"log": ["join"]})
builder.add_edge(ends, "join")
builder.add_edge("join", END)
graph = builder.compile()
example_input = {"log": []}
title = "Two hundred nodes"
