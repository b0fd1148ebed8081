"""A real langgraph app whose nodes each write a chat-model reply and a log line (issue 24, item 2):
forking `log` as `plan` must keep plan's reply in `messages`, and the replies' ids, made up by langchain
on every run, must not make the re-run look different. The fake model is made per call, so its replies
are the same on every run (only their ids are new)."""

import operator
from typing import Annotated, TypedDict

from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import AnyMessage
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages


class State(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]
    log: Annotated[list[str], operator.add]


def reply(text: str, state: State) -> AnyMessage:
    return FakeListChatModel(responses=[text]).invoke(state["messages"])


def plan(state: State) -> dict:
    return {"messages": [reply("a plan: look it up", state)], "log": ["planned"]}


def act(state: State) -> dict:
    return {"messages": [reply(f"done after {len(state['log'])} log lines", state)], "log": ["acted"]}


builder = StateGraph(State)
builder.add_node("plan", plan)
builder.add_node("act", act)
builder.add_edge(START, "plan")
builder.add_edge("plan", "act")
builder.add_edge("act", END)
graph = builder.compile()
example_input = {"messages": [{"role": "user", "content": "find it"}], "log": []}
