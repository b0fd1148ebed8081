"""The three common reducer forms of seed article 003, section 05, in one state.

    messages   Annotated[list[str], operator.add]  form 1, append (`[...prev, ...next]`, no default)
    step       Annotated[str, replace]             form 2, overwrite (`(_, next) => next`)
    callCount  Annotated[int, operator.add]        form 3, count (`prev + next`, default 0)

Two nodes in sequence each send one message, their own name and 1; the reducers turn those
fragments into the new state. The keys keep the article's names (`callCount`) so that the
JavaScript twin, sample_graphs/js/reducer_forms.mjs, has the same state.
"""

import operator
import sys
from pathlib import Path
from typing import Annotated, TypedDict

if __package__ in (None, ""):  # `python sample_graphs/reducer_forms.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import END, START, StateGraph
from sample_graphs._show import show

title = "Three reducer forms: append, overwrite, count"
summary = "A node returns a fragment; each key's reducer turns old value plus fragment into the new value."
source = "seed 003, section 05"
lesson = (
    "Each node returns a fragment of the state, not a new state: `plan` and `act` both send one message, "
    "their own name as `step` and 1 as `callCount`. "
    "The reducer of each key decides what the fragment does: `messages` appends it, `step` replaces the old "
    "value with it and `callCount` adds it, so after the two nodes the state holds every message, "
    "step='act' and callCount=2. "
    "Notice the reducers never change the old value: each barrier makes a new snapshot and the previous one "
    "stays as it was, which is what checkpoints build on. "
    "Sending the running total instead of 1 to an adding key is the classic mistake here (see retries_counter)."
)


def replace(current: str, new: str) -> str:
    """Overwrite: the article's `(_, next) => next`."""
    return new


class State(TypedDict):
    messages: Annotated[list[str], operator.add]  # form 1: append
    step: Annotated[str, replace]  # form 2: overwrite
    callCount: Annotated[int, operator.add]  # form 3: count, from 0 (the article's key name)


def node(name: str):
    def run(state: State) -> dict:
        return {"messages": [f"{name} done"], "step": name, "callCount": 1}  # a fragment, not the state

    return run


def build():
    builder = StateGraph(State)
    builder.add_node("plan", node("plan"))
    builder.add_node("act", node("act"))
    builder.add_edge(START, "plan")
    builder.add_edge("plan", "act")
    builder.add_edge("act", END)
    return builder.compile()


graph = build()
example_input = {"messages": ["hi"]}

if __name__ == "__main__":
    for snapshot in graph.stream(example_input, stream_mode="values"):
        print("snapshot:", snapshot)
    show("final state", graph, example_input)
