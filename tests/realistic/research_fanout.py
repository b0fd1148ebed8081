"""A research fan-out: the planner sends one `research` task per subtopic (Send); each returns a finding
with nested sources and a date, gathered by operator.add; `summarize` counts them."""

import datetime
import operator
from typing import Annotated, TypedDict

from langgraph.graph import END, START, StateGraph
from langgraph.types import Send


class Research(TypedDict):
    question: str
    subtopics: list[str]
    findings: Annotated[list[dict], operator.add]
    summary: dict


def plan(state: Research) -> dict:
    return {"subtopics": ["battery life", "price", "repairability"]}


def fan_out(state: Research) -> list[Send]:
    return [Send("research", {"topic": topic}) for topic in state["subtopics"]]


def research(task: dict) -> dict:
    source = {"url": f"https://example.org/{task['topic'].replace(' ', '-')}", "seen": datetime.date(2026, 2, 3)}
    return {"findings": [{"topic": task["topic"], "score": len(task["topic"]) / 10, "sources": [source]}]}


def summarize(state: Research) -> dict:
    best = max(state["findings"], key=lambda f: f["score"])
    return {"summary": {"count": len(state["findings"]), "best": best["topic"], "topics": tuple(state["subtopics"])}}


builder = StateGraph(Research)
builder.add_node("plan", plan)
builder.add_node("research", research)
builder.add_node("summarize", summarize)
builder.add_edge(START, "plan")
builder.add_conditional_edges("plan", fan_out, ["research"])
builder.add_edge("research", "summarize")
builder.add_edge("summarize", END)
graph = builder.compile()
example_input = {"question": "Which laptop should I buy?", "findings": []}

if __name__ == "__main__":
    from own_run import print_own_run

    print_own_run(graph, example_input)
