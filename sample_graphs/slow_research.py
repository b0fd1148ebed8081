"""A research pipeline whose nodes take their time: the sample to watch live (`stepscope run
slow_research --follow`, or the Live run page), pause before a node, step, edit a key and continue.

Each node sleeps `$STEPSCOPE_SAMPLE_DELAY` seconds (0.8 by default; the two searches of the second
superstep run in parallel, the docs search twice as long as the web search), then appends to `notes`
through `operator.add`. `draft` is a plain key the writer overwrites: edit it at a pause before
`review` and the reviewer sees your text.
"""

import operator
import os
import sys
import time
from pathlib import Path
from typing import Annotated, TypedDict

if __package__ in (None, ""):  # `python sample_graphs/slow_research.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import END, START, StateGraph
from sample_graphs._show import show

title = "A slow research pipeline to watch live"
summary = "Nodes that take seconds: watch them run, pause before one, edit the state and continue."
source = "live runs (issue 13)"
lesson = (
    "Each node of this pipeline sleeps a little, as a model call would, so a live run shows which node "
    "is working now. `search_web` and `search_docs` run in the same superstep: both are marked running, "
    "and the web search finishes first. Every node appends to `notes` (reducer `operator.add`), so an edit "
    "made at a pause is appended too, as the chosen node's write; `draft` is a plain key, so an edit "
    "replaces it. Pause before `review`, set `draft` to your own text and continue: the reviewer reads "
    "your draft, and the recording shows your edit as its own step."
)


def delay(factor: float = 1.0) -> None:
    time.sleep(float(os.environ.get("STEPSCOPE_SAMPLE_DELAY", "0.8")) * factor)


class ResearchState(TypedDict):
    topic: str
    notes: Annotated[list[str], operator.add]
    draft: str
    verdict: str


def plan(state: ResearchState) -> dict:
    delay()
    return {"notes": [f"plan: look up {state['topic']}"]}


def search_web(state: ResearchState) -> dict:
    delay()
    return {"notes": [f"web: 3 pages about {state['topic']}"]}


def search_docs(state: ResearchState) -> dict:
    delay(2)
    return {"notes": [f"docs: 1 manual about {state['topic']}"]}


def write(state: ResearchState) -> dict:
    delay()
    return {
        "draft": f"{state['topic']}: " + "; ".join(n.split(": ", 1)[1] for n in state["notes"][1:]),
        "notes": ["write: drafted"],
    }


def review(state: ResearchState) -> dict:
    delay()
    return {"verdict": f"approved ({len(state['draft'])} characters)", "notes": [f"review: read {state['draft']!r}"]}


def build():
    builder = StateGraph(ResearchState)
    for node in (plan, search_web, search_docs, write, review):
        builder.add_node(node.__name__, node)
    builder.add_edge(START, "plan")
    builder.add_edge("plan", "search_web")
    builder.add_edge("plan", "search_docs")
    builder.add_edge(["search_web", "search_docs"], "write")
    builder.add_edge("write", "review")
    builder.add_edge("review", END)
    return builder.compile()


graph = build()
example_input = {"topic": "reducers", "notes": []}

if __name__ == "__main__":
    show("slow research", graph, example_input)
