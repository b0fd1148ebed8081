"""A langgraph app whose one node asks with `interrupt()`, as the tests of threads and checkpointers write it
out: `APPROVAL` compiled with an `InMemorySaver`, `APPROVAL_NO_SAVER` without one (`--checkpointer` gives it one)."""

APPROVAL = """
from typing import TypedDict
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.types import interrupt

class State(TypedDict):
    request: str
    decision: str

def ask(state: State):
    return {"decision": interrupt({"question": "approve " + state["request"] + "?"})}

builder = StateGraph(State)
builder.add_node("ask", ask)
builder.add_edge(START, "ask")
graph = builder.compile(checkpointer=InMemorySaver())
example_input = {"request": "refund #42"}
"""

APPROVAL_NO_SAVER = APPROVAL.replace("checkpointer=InMemorySaver()", "")
