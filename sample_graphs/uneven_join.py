"""A join after branches of unequal length: two plain edges run it twice, a waiting edge once.

START -> fetch -> clean -> join (two steps) and START -> quick -> join (one step). With
`add_edge("clean", "join")` and `add_edge("quick", "join")`, `join` runs after *each* of them.
With `add_edge(["clean", "quick"], "join")` it waits for both and runs once.
"""

import operator
import sys
from pathlib import Path
from typing import Annotated, TypedDict

if __package__ in (None, ""):  # `python sample_graphs/uneven_join.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import END, START, StateGraph
from sample_graphs._show import show

title = "A join after uneven branches runs twice"
summary = "Two plain edges into a join run it once per finished branch; add_edge([a, b], join) waits for both."
source = "fan-in (seed 003, section 07), when the branches differ in length"
lesson = (
    "The long branch (fetch, clean) takes two supersteps and the short one (quick) takes one. "
    "A plain edge means 'run the target in the next superstep after the source ran', not 'after all my "
    "predecessors': so `join` runs in step 2 after `quick`, having seen only part of the work, and again "
    "in step 3 after `clean`. "
    "The log shows two join entries, and anything `join` does (call a model, send an email) happens twice. "
    "Use one waiting edge, `add_edge(['clean', 'quick'], 'join')`: `join` then runs once, after both "
    "branches have finished, as in `fixed_graph`."
)
learn_prompt = (
    "The long branch (fetch, clean) takes two supersteps and the short one (quick) one; both lead to "
    "`join` by plain edges, and every node appends to `log`. Predict `log` after each step."
)
"""Learn mode shows this set-up, without the results, until the learner has guessed every merge."""


class JoinState(TypedDict):
    log: Annotated[list[str], operator.add]


def step(name: str):
    return lambda state: {"log": [name]}


def join(state: JoinState) -> dict:
    return {"log": [f"join (saw {len(state['log'])} entries)"]}


def build(waiting_edge: bool):
    builder = StateGraph(JoinState)
    builder.add_node("fetch", step("fetch"))
    builder.add_node("clean", step("clean"))
    builder.add_node("quick", step("quick"))
    builder.add_node("join", join)
    builder.add_edge(START, "fetch")
    builder.add_edge("fetch", "clean")
    builder.add_edge(START, "quick")
    if waiting_edge:
        builder.add_edge(["clean", "quick"], "join")  # runs when both have finished
    else:
        builder.add_edge("clean", "join")  # runs after clean ...
        builder.add_edge("quick", "join")  # ... and, separately, after quick
    builder.add_edge("join", END)
    return builder.compile()


graph = build(waiting_edge=False)
example_input = {"log": []}
fixed_graph = build(waiting_edge=True)
fixed_input = example_input

if __name__ == "__main__":
    show("two plain edges", graph, example_input)
    show("waiting edge   ", fixed_graph, fixed_input)
