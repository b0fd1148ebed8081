"""A user's project as the plugin's tests see it: two graphs (an engine graph and a langgraph app) and the
tests the user wrote for them, which know nothing of StepScope."""

from __future__ import annotations

import operator
from typing import Annotated, TypedDict

from langgraph.graph import END, START, StateGraph


class SearchState(TypedDict):
    query: str
    answer: str
    hits: Annotated[list[str], operator.add]


def web(state: SearchState) -> dict:
    return {"hits": ["web"], "answer": "from web"}


def docs(state: SearchState) -> dict:
    return {"hits": ["docs"]}


def build(fixed: bool) -> object:
    """The search graph: with `fixed=False` both branches write the plain key `answer` in one superstep."""
    graph = StateGraph(SearchState)
    graph.add_node("web", web)
    graph.add_node("docs", docs if fixed else (lambda state: {"hits": ["docs"], "answer": "from docs"}))
    graph.add_edge(START, "web")
    graph.add_edge(START, "docs")
    graph.add_edge("web", END)
    graph.add_edge("docs", END)
    return graph.compile()
