"""An order-dependent reducer under parallel writers (seed article 000, "reducers must not depend on order").

Two parallel sources write `answer` (reducer: keep the first value) and `trail` (string
concatenation). The result follows the node names, not which node finished first.
"""

import operator
import sys
import time
from pathlib import Path
from typing import Annotated, TypedDict

if __package__ in (None, ""):  # `python sample_graphs/order_dependent_reducer.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import END, START, StateGraph
from sample_graphs._show import show

title = "Keep-first and concatenation under parallel writers"
summary = "Parallel writes are folded in by node name, not timing: an order-dependent reducer picks a winner by name."
source = "seed 000 (reducers must not depend on who comes first)"
lesson = (
    "`archive` and `live` run in parallel and both write `answer`, whose reducer keeps the first value, and "
    "`trail`, whose reducer concatenates strings. "
    "`live` finishes first, yet the old archive price wins and `trail` reads 'archive;live;': the writes "
    "of one superstep are folded in a fixed order, by node name, never by finishing time. "
    "So the result is repeatable but arbitrary: rename `archive` to `z_archive` and the answer flips to the "
    "live price, with no change to what the nodes do. "
    "Give keys that parallel nodes share an order-independent reducer (sum, max, set or dict union) and make "
    "the choice explicit in a node after the join: `fixed_graph` collects both quotes by source and `choose` "
    "takes the most recent one, whatever the nodes are called."
)
learn_prompt = (
    "`archive` and `live` run in parallel and both write `answer`, whose reducer keeps the first value, "
    "and `trail`, whose reducer concatenates strings; `live` finishes first. Predict both keys after the "
    "merge."
)
"""Learn mode shows this set-up, without the results, until the learner has guessed every merge."""

QUOTES = {
    "archive": {"price": "$100", "as_of": "2019-03-01"},
    "live": {"price": "$120", "as_of": "2025-06-01"},
}


def keep_first(current: str, new: str) -> str:
    """Order-dependent: whichever write is folded in first wins."""
    return current or new


class RacyState(TypedDict):
    question: str
    answer: Annotated[str, keep_first]
    trail: Annotated[str, operator.add]  # string concatenation: order-dependent too


def source_node(name: str, source: str, delay: float):
    def look_up(state: RacyState) -> dict:
        time.sleep(delay)
        quote = QUOTES[source]
        return {"answer": f"{quote['price']} ({source}, {quote['as_of']})", "trail": f"{name};"}

    return look_up


def build_broken(archive_name: str = "archive", live_name: str = "live"):
    builder = StateGraph(RacyState)
    builder.add_node(archive_name, source_node(archive_name, "archive", delay=0.005))  # the slow one
    builder.add_node(live_name, source_node(live_name, "live", delay=0.0))
    builder.add_edge(START, archive_name)
    builder.add_edge(START, live_name)
    builder.add_edge(archive_name, END)
    builder.add_edge(live_name, END)
    return builder.compile()


def merge_dicts(current: dict, new: dict) -> dict:
    """Order-independent as long as writers use distinct keys (each source writes its own)."""
    return {**current, **new}


class SafeState(TypedDict):
    question: str
    quotes: Annotated[dict[str, dict], merge_dicts]
    answer: str  # one writer: `choose`
    sources: str


def quote_node(source: str):
    def look_up(state: SafeState) -> dict:
        return {"quotes": {source: QUOTES[source]}}

    return look_up


def choose(state: SafeState) -> dict:
    newest = max(state["quotes"], key=lambda source: state["quotes"][source]["as_of"])
    quote = state["quotes"][newest]
    return {"answer": f"{quote['price']} ({newest}, {quote['as_of']})", "sources": ", ".join(sorted(state["quotes"]))}


def build_fixed(archive_name: str = "archive", live_name: str = "live"):
    builder = StateGraph(SafeState)
    builder.add_node(archive_name, quote_node("archive"))
    builder.add_node(live_name, quote_node("live"))
    builder.add_node("choose", choose)
    builder.add_edge(START, archive_name)
    builder.add_edge(START, live_name)
    builder.add_edge([archive_name, live_name], "choose")
    builder.add_edge("choose", END)
    return builder.compile()


graph = build_broken()
example_input = {"question": "What does plan X cost?"}
fixed_graph = build_fixed()
fixed_input = example_input

if __name__ == "__main__":
    show("broken                    ", graph, example_input)
    show("broken, archive renamed   ", build_broken(archive_name="z_archive"), example_input)
    show("fixed                     ", fixed_graph, fixed_input)
    show("fixed, archive renamed    ", build_fixed(archive_name="z_archive"), fixed_input)
