"""Map-reduce with `Send`: one task per item, each with its own input, collected by a reducer.

A conditional edge returns `[Send("write_joke", {"subject": s}) for s in subjects]`: `write_joke`
runs once per subject in a single superstep, and `pick_best` runs once after all of them.
"""

import operator
import sys
from pathlib import Path
from typing import Annotated, TypedDict

if __package__ in (None, ""):  # `python sample_graphs/map_reduce_send.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import END, START, Send, StateGraph
from sample_graphs._show import show

title = "Map-reduce with Send"
summary = "A router returning a list of Send runs one task per item in one superstep; a reducer collects their results."
source = "LangGraph map-reduce (extends seed 003's fan-out to a number of branches known only at run time)"
lesson = (
    "Static edges fix the fan-out when you draw the graph; `Send` decides it at run time: the router "
    "returns one `Send('write_joke', {'subject': s})` per subject, and all of them run in the same superstep. "
    "Notice that each `write_joke` task receives the dict inside its Send, not the graph's state, so it sees "
    "one subject and nothing else. "
    "All tasks write `jokes`, so it needs a reducer (`operator.add`); as a plain key the second write would "
    "fail with INVALID_CONCURRENT_GRAPH_UPDATE. "
    "The jokes are stored in the order of the Send list, whatever order the tasks finish in, and `pick_best` "
    "runs once, in the next superstep, after every task is done."
)
learn_prompt = (
    "The router returns one `Send('write_joke', {'subject': s})` per subject, and every `write_joke` task"
    " appends to `jokes`, an `operator.add` list. Predict the order of `jokes` after the merge."
)
"""Learn mode shows this set-up, without the results, until the learner has guessed every merge."""


class JokeState(TypedDict):
    subjects: list[str]
    jokes: Annotated[list[str], operator.add]  # every mapped task appends here
    best: str


class OneSubject(TypedDict):
    subject: str


def plan(state: JokeState) -> dict:
    return {"subjects": [s.strip().lower() for s in state["subjects"] if s.strip()]}


def fan_out(state: JokeState) -> list[Send]:
    return [Send("write_joke", {"subject": subject}) for subject in state["subjects"]]


JOKES = {
    "owl": "The owl stayed up all night stepping through supersteps.",
    "cat": "The cat knocked the state off the table.",
    "dog": "The dog fetched every checkpoint.",
}


def write_joke(state: OneSubject) -> dict:
    return {"jokes": [JOKES.get(state["subject"], f"No joke about {state['subject']} yet.")]}


def pick_best(state: JokeState) -> dict:
    return {"best": min(state["jokes"], key=len)}  # the shortest joke wins


def build():
    builder = StateGraph(JokeState)
    builder.add_node("plan", plan)
    builder.add_node("write_joke", write_joke)
    builder.add_node("pick_best", pick_best)
    builder.add_edge(START, "plan")
    builder.add_conditional_edges("plan", fan_out, ["write_joke"])
    builder.add_edge("write_joke", "pick_best")
    builder.add_edge("pick_best", END)
    return builder.compile()


graph = build()
example_input = {"subjects": ["Owl", "cat", " ", "Dog"]}

if __name__ == "__main__":
    for chunk in graph.stream(example_input, stream_mode="updates"):
        print("  ", chunk)
    show("final state", graph, example_input)
