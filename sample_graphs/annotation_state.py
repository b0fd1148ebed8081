"""The article's declared state, in Python (seed article 000, "字段的样子，就是 Annotation").

    messages  Annotated[list[str], operator.add]  the article's `prev.concat(next)`, starting from []
    retries   Annotated[int, operator.add]        `prev + next`, starting from 0
    answer    str                                 `Annotation()` with no argument: the latest write

Append and add fields welcome parallel writers; the overwrite field `answer` takes one write per step,
and two parallel writers make the run fail with INVALID_CONCURRENT_GRAPH_UPDATE.
"""

import operator
import sys
from pathlib import Path
from typing import Annotated, TypedDict

if __package__ in (None, ""):  # `python sample_graphs/annotation_state.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import END, START, StateGraph
from sample_graphs._show import show

title = "Declared merges: parallel appends, one answer writer"
summary = "Append and add keys merge parallel writes; a plain key takes one write per step, so give it one writer."
source = "seed 000 (Annotation fields; the overwrite field's concurrency rule)"
lesson = (
    "The state declares how each key merges: `messages` appends, `retries` adds and starts from 0, and "
    "`answer` has no reducer, so it keeps the latest write. "
    "In `graph` the parallel nodes `node_a` and `node_b` both send a message and an answer in one superstep: "
    "the messages would merge, but `answer` accepts one write per step, so the run fails with "
    "InvalidUpdateError (INVALID_CONCURRENT_GRAPH_UPDATE) at key 'answer' and that step changes nothing. "
    "Notice `retries` is 0 in the fixed run although no node writes it: the reduction starts from the type's "
    "zero, the article's `default: () => 0`. "
    "Give an overwrite key one writer per step: in `fixed_graph` node_a and node_b send only their messages, "
    "which the reducer folds into one list, and `respond` alone writes `answer` after the join."
)


class State(TypedDict):
    messages: Annotated[list[str], operator.add]  # append: declared once, valid for the whole graph
    retries: Annotated[int, operator.add]  # add: nodes send 1, the reducer adds
    answer: str  # no reducer = overwrite: the latest write


def build_two_answer_writers():
    builder = StateGraph(State)
    builder.add_node("node_a", lambda state: {"messages": ["from A"], "answer": "A's answer"})
    builder.add_node("node_b", lambda state: {"messages": ["from B"], "answer": "B's answer"})
    builder.add_edge(START, "node_a")  # parallel: both write `answer` in the same superstep
    builder.add_edge(START, "node_b")
    builder.add_edge("node_a", END)
    builder.add_edge("node_b", END)
    return builder.compile()


def respond(state: State) -> dict:
    return {"answer": f"{len(state['messages'])} messages: " + ", ".join(state["messages"])}


def build_one_answer_writer():
    builder = StateGraph(State)
    builder.add_node("node_a", lambda state: {"messages": ["from A"]})  # only the delta
    builder.add_node("node_b", lambda state: {"messages": ["from B"]})
    builder.add_node("respond", respond)  # the one writer of `answer`
    builder.add_edge(START, "node_a")
    builder.add_edge(START, "node_b")
    builder.add_edge(["node_a", "node_b"], "respond")
    builder.add_edge("respond", END)
    return builder.compile()


graph = build_two_answer_writers()
example_input = {"messages": ["hi"]}
fixed_graph = build_one_answer_writer()
fixed_input = example_input

if __name__ == "__main__":
    show("broken (two answer writers)", graph, example_input)
    show("fixed  (one answer writer) ", fixed_graph, fixed_input)
