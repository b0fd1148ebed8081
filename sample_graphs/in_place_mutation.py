"""A node that appends to the list it received instead of returning a delta.

The list in `state` is the state's own list, not a copy. Appending to it and returning it makes the
`operator.add` reducer add the whole (already grown) list to itself; appending and returning
nothing changes the state behind the engine's back, so no step records the change.
"""

import copy
import operator
import sys
from pathlib import Path
from typing import Annotated, TypedDict

if __package__ in (None, ""):  # `python sample_graphs/in_place_mutation.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import END, START, StateGraph
from sample_graphs._show import show

title = "Appending to the state's list in place"
summary = "A node that appends to state['notes'] and returns it doubles the list; return only the new item."
source = "seed 000 (nodes send deltas) and seed 003 section 05 (state is never edited in place)"
lesson = (
    "`add_note` calls `state['notes'].append('checked')` and returns `{'notes': state['notes']}`. "
    "That list is the state's own list, not a copy, so the append has already changed it, and the "
    "`operator.add` reducer then adds the returned list to it: ['intro', 'checked', 'intro', 'checked'], "
    "and `publish` counts 4 notes. "
    "Appending and returning nothing (`silent_graph`) ends with the right list by accident: the step records "
    "no write, so the `updates` stream shows `{'add_note': None}`, the debugger has no write or reducer call "
    "to explain the change, and a checkpointer still saves ['intro'] while invoke returns ['intro', 'checked']. "
    "Treat `state` as read-only and return only the delta, `{'notes': ['checked']}`, as `fixed_graph` does."
)


class NotesState(TypedDict):
    notes: Annotated[list[str], operator.add]
    summary: str


def append_and_return(state: NotesState) -> dict:
    state["notes"].append("checked")  # mutates the state's own list ...
    return {"notes": state["notes"]}  # ... and sends all of it to operator.add


def append_only(state: NotesState) -> dict:
    state["notes"].append("checked")  # mutates the state's own list ...
    return {}  # ... and reports no update


def return_delta(state: NotesState) -> dict:
    return {"notes": ["checked"]}  # only the new item


def publish(state: NotesState) -> dict:
    return {"summary": f"{len(state['notes'])} notes"}


def build(add_note):
    builder = StateGraph(NotesState)
    builder.add_node("add_note", add_note)
    builder.add_node("publish", publish)
    builder.add_edge(START, "add_note")
    builder.add_edge("add_note", "publish")
    builder.add_edge("publish", END)
    return builder.compile()


graph = build(append_and_return)
example_input = {"notes": ["intro"]}
silent_graph = build(append_only)
fixed_graph = build(return_delta)
fixed_input = example_input

if __name__ == "__main__":
    show("append + return the list", graph, example_input)
    show("append, return nothing  ", silent_graph, example_input)
    print("   what each step reported:", list(silent_graph.stream(copy.deepcopy(example_input))))
    show("return the delta        ", fixed_graph, fixed_input)
