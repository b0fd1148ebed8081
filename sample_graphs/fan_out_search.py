"""Fan-out and fan-in (seed article 003, section 07): start -> search_web + search_db -> merge.

Two edges out of `start` run both searches in one superstep; their results meet in an
`operator.add` list, and `merge` runs in the next superstep.
"""

import operator
import sys
import time
from pathlib import Path
from typing import Annotated, TypedDict

if __package__ in (None, ""):  # `python sample_graphs/fan_out_search.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import END, START, StateGraph
from sample_graphs._show import show

title = "Fan-out, fan-in: two searches in parallel, one merge"
summary = "Two edges out of one node run both searches in one superstep; an operator.add key collects both results."
source = "seed 003, section 07"
lesson = (
    "`start` has two outgoing edges, so `search_web` and `search_db` run in the same superstep, on the same "
    "snapshot of the state. "
    "Both write `results`, which works only because it is `Annotated[list[str], operator.add]`; as a plain "
    "key it would fail with INVALID_CONCURRENT_GRAPH_UPDATE. "
    "Notice the order of `results`: the db result comes first although `search_db` is the slower node, "
    "because the writes of one superstep are folded in by node name, not by finishing time. "
    "`merge` runs once here only because both branches are one step long; when branches differ in length, "
    "plain edges run the join twice (see uneven_join)."
)
learn_prompt = (
    "`start` has two outgoing edges, so `search_web` and `search_db` run in the same superstep, on the "
    "same snapshot, and both write `results`, an `operator.add` list. Predict the order the barrier folds"
    " their writes in."
)
"""Learn mode shows this set-up, without the results, until the learner has guessed every merge."""

WEB = {"langgraph": "web: the LangGraph docs"}
DATABASE = {"langgraph": "db: 3 design notes"}


class SearchState(TypedDict):
    query: str
    results: Annotated[list[str], operator.add]  # both searches append here
    answer: str


def start(state: SearchState) -> dict:
    return {"query": state["query"].strip().lower()}


def search_web(state: SearchState) -> dict:
    return {"results": [WEB.get(state["query"], "web: nothing found")]}


def search_db(state: SearchState) -> dict:
    time.sleep(0.005)  # the slower of the two; the order of `results` does not depend on it
    return {"results": [DATABASE.get(state["query"], "db: nothing found")]}


def merge(state: SearchState) -> dict:
    return {"answer": f"{len(state['results'])} sources: " + " | ".join(state["results"])}


def build():
    builder = StateGraph(SearchState)
    builder.add_node("start", start)
    builder.add_node("search_web", search_web)
    builder.add_node("search_db", search_db)
    builder.add_node("merge", merge)
    builder.add_edge(START, "start")
    builder.add_edge("start", "search_web")  # fan-out: both start together
    builder.add_edge("start", "search_db")
    builder.add_edge("search_web", "merge")  # fan-in
    builder.add_edge("search_db", "merge")
    builder.add_edge("merge", END)
    return builder.compile()


graph = build()
example_input = {"query": "  LangGraph "}

if __name__ == "__main__":
    for chunk in graph.stream(example_input, stream_mode="updates"):
        print("  ", chunk)
    show("final state", graph, example_input)
