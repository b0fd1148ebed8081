"""A graph whose node reads `question` and that has no `example_input`: run with an empty input, it
cannot work, and the app must say what input it expects."""

from typing import TypedDict

from engine import END, START, StateGraph


class State(TypedDict):
    question: str
    answer: str


def answer(state: State) -> dict:
    return {"answer": state["question"].upper()}


builder = StateGraph(State)
builder.add_node("answer", answer)
builder.add_edge(START, "answer")
builder.add_edge("answer", END)
graph = builder.compile()
