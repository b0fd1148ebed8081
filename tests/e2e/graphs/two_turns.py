"""A real langgraph chat app for the thread tests of issue 24, item 8: each turn, `plan` replies with a
chat model (langchain makes the reply's id up) and `approve` asks with `interrupt()` once the
conversation has a second question. `conversation(path)` drives two turns on a SqliteSaver file at
`path`, as the app would in production: a first question, then a second that stops at the interrupt."""

import operator
import sqlite3
from typing import Annotated, TypedDict

from langchain_core.language_models.fake_chat_models import FakeListChatModel
from langchain_core.messages import AnyMessage
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.types import interrupt


class State(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]
    log: Annotated[list[str], operator.add]


def plan(state: State) -> dict:
    reply = FakeListChatModel(responses=[f"plan {len(state['messages'])}"]).invoke(state["messages"])
    return {"messages": [reply], "log": ["planned"]}


def approve(state: State) -> dict:
    if len(state["messages"]) < 3:
        return {"log": ["auto"]}
    return {"log": [f"answer {interrupt({'question': 'Send it?'})}"]}


builder = StateGraph(State)
builder.add_node("plan", plan)
builder.add_node("approve", approve)
builder.add_edge(START, "plan")
builder.add_edge("plan", "approve")
builder.add_edge("approve", END)
graph = builder.compile()
example_input = {"messages": [{"role": "user", "content": "find it"}], "log": []}


def conversation(path: str, thread_id: str = "chat-1") -> None:
    """Two turns of one thread on a SqliteSaver file: the second stops at `approve`'s interrupt."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    conn = sqlite3.connect(path, check_same_thread=False)
    try:
        app = builder.compile(checkpointer=SqliteSaver(conn))
        config = {"configurable": {"thread_id": thread_id}}
        app.invoke(example_input, config)
        app.invoke({"messages": [{"role": "user", "content": "and send it"}]}, config)
    finally:
        conn.close()
