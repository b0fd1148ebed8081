"""Returning `[]` to "clear" an `operator.add` list clears nothing.

The reducer computes `old + []`, which is `old`. To replace the value, bypass the reducer with
`Overwrite([])` (or give the key a reducer that understands a "clear" marker).
"""

import operator
import sys
from pathlib import Path
from typing import Annotated, TypedDict

if __package__ in (None, ""):  # `python sample_graphs/clear_with_empty_list.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import END, START, Overwrite, StateGraph
from sample_graphs._show import show

title = "Clearing an operator.add list with []"
summary = "Returning [] into an operator.add key appends nothing; Overwrite([]) is how to reset it."
source = "seed 000 (every write goes through the reducer)"
lesson = (
    "`reset` returns `{'items': []}` to start a fresh batch, but every write to `items` goes through its "
    "reducer, and `operator.add(old, [])` is just `old`. "
    "So the old items survive, `refill` appends to them, and the final list is ['stale 1', 'stale 2', "
    "'fresh'] with no error anywhere. "
    "A reducer key has no 'set' operation of its own: an empty delta means 'nothing to add', not 'make it "
    "empty'. "
    "Return `{'items': Overwrite([])}` to replace the value once, bypassing the reducer (at most one "
    "Overwrite per key per step), as `fixed_graph` does, or write a reducer that understands a clear "
    "marker; for messages use `RemoveMessage(id=REMOVE_ALL_MESSAGES)`."
)
learn_prompt = (
    "`reset` returns `{'items': []}` to start a fresh batch, and `items` is an `operator.add` list; "
    "`refill` then adds 'fresh'. Predict `items` after each write."
)
"""Learn mode shows this set-up, without the results, until the learner has guessed every merge."""


class BatchState(TypedDict):
    items: Annotated[list[str], operator.add]


def build(clear):
    builder = StateGraph(BatchState)
    builder.add_node("reset", lambda state: {"items": clear()})
    builder.add_node("refill", lambda state: {"items": ["fresh"]})
    builder.add_edge(START, "reset")
    builder.add_edge("reset", "refill")
    builder.add_edge("refill", END)
    return builder.compile()


graph = build(lambda: [])  # "clear" = add nothing
example_input = {"items": ["stale 1", "stale 2"]}
fixed_graph = build(lambda: Overwrite([]))  # replace, bypassing operator.add
fixed_input = example_input

if __name__ == "__main__":
    show("return []           ", graph, example_input)
    show("return Overwrite([])", fixed_graph, fixed_input)
