"""The read-modify-write race of two parallel appends (seed article 000).

Two nodes of one superstep read the same snapshot of `messages`, each appends its own message and
writes the whole list back. Whoever is folded in last wins; the other message is lost, silently.
"""

import operator
import sys
from pathlib import Path
from typing import Annotated, TypedDict

if __package__ in (None, ""):  # `python sample_graphs/parallel_append_race.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import END, START, StateGraph
from sample_graphs._show import show

title = "Two parallel appends: one message silently lost"
summary = "Parallel nodes that write back the whole list lose each other's messages; return deltas instead."
source = "seed 000 (parallel append race)"
lesson = (
    "`node_a` and `node_b` run in the same superstep, so both read the same snapshot, messages=['hi']. "
    "Each builds a whole new list (snapshot plus its own message) and writes it back into a key whose "
    "reducer keeps the last write, so node_b's ['hi', 'from B'] replaces node_a's ['hi', 'from A']: "
    "A's message is gone and nothing complains. "
    "This is the classic read-modify-write race: the merge rule is hidden inside each node, and each node "
    "only knows the old value. "
    "Declare the merge on the key instead (`Annotated[list[str], operator.add]`) and let each node return "
    "only its delta (`{'messages': ['from A']}`): the reducer folds both in and `fixed_graph` ends with "
    "['hi', 'from A', 'from B']. "
    "With no reducer at all LangGraph refuses the two writes outright (see refund_concurrent_update)."
)
learn_prompt = (
    "`node_a` and `node_b` run in the same superstep on the snapshot messages=['hi']. Each writes back "
    "the list it read plus its own message, into a key whose reducer is `keep_last`. Predict `messages` "
    "after each of the two reducer calls."
)
"""Learn mode shows this set-up, without the results, until the learner has guessed every merge."""


def keep_last(current: list[str], new: list[str]) -> list[str]:
    """Overwrite: the article's `(_prev, next) => next`, which accepts parallel writes."""
    return new


class RacyState(TypedDict):
    messages: Annotated[list[str], keep_last]


def build_race():
    def node_a(state: RacyState) -> dict:
        return {"messages": state["messages"] + ["from A"]}  # read all, add one, write all

    def node_b(state: RacyState) -> dict:
        return {"messages": state["messages"] + ["from B"]}

    builder = StateGraph(RacyState)
    builder.add_node("node_a", node_a)
    builder.add_node("node_b", node_b)
    builder.add_edge(START, "node_a")  # two edges from START: node_a and node_b run in parallel
    builder.add_edge(START, "node_b")
    builder.add_edge("node_a", END)
    builder.add_edge("node_b", END)
    return builder.compile()


class SafeState(TypedDict):
    messages: Annotated[list[str], operator.add]


def build_fixed():
    builder = StateGraph(SafeState)
    builder.add_node("node_a", lambda state: {"messages": ["from A"]})  # only the delta
    builder.add_node("node_b", lambda state: {"messages": ["from B"]})
    builder.add_edge(START, "node_a")
    builder.add_edge(START, "node_b")
    builder.add_edge("node_a", END)
    builder.add_edge("node_b", END)
    return builder.compile()


graph = build_race()
example_input = {"messages": ["hi"]}
fixed_graph = build_fixed()
fixed_input = example_input

if __name__ == "__main__":
    show("broken (whole list, last write wins)", graph, example_input)
    show("fixed  (deltas into operator.add)   ", fixed_graph, fixed_input)
