"""A draft/review loop with a known mistake: the writer ignores the reviewer's notes and the reviewer
scores the same draft 6 each round, so `route` (score >= 8) never ends it: the run hits its recursion
limit, and diagnose names the loop (stuck_loop)."""

import operator
from typing import Annotated, TypedDict

from langgraph.graph import END, START, StateGraph


class Essay(TypedDict):
    topic: str
    draft: str
    score: int
    notes: Annotated[list[str], operator.add]


def write(state: Essay) -> dict:
    return {"draft": f"An essay on {state['topic']}."}


def review(state: Essay) -> dict:
    return {"score": 6, "notes": ["add an example"]}


def route(state: Essay) -> str:
    return END if state["score"] >= 8 else "write"


builder = StateGraph(Essay)
builder.add_node("write", write)
builder.add_node("review", review)
builder.add_edge(START, "write")
builder.add_edge("write", "review")
builder.add_conditional_edges("review", route, ["write", END])
graph = builder.compile()
example_input = {"topic": "tides", "score": 0}

if __name__ == "__main__":
    from own_run import print_own_run

    print_own_run(graph, example_input)
