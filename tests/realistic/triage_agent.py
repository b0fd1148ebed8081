"""A support-ticket triage agent: a scripted model asks for tools (tool_calls), a tool node answers,
the model files the ticket with a category, tags (a set) and a due date; the tier comes from the context."""

import datetime
from dataclasses import dataclass
from typing import Annotated

from langchain_core.messages import AIMessage, ToolMessage
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.runtime import Runtime


@dataclass
class Customer:
    tier: str = "basic"


class Ticket(MessagesState):
    category: str
    tags: Annotated[set, lambda old, new: old | new]
    due: datetime.date


SCRIPT = [
    AIMessage("", id="ai-1", tool_calls=[{"name": "lookup_order", "args": {"order": 17}, "id": "call-1"}]),
    AIMessage("Order 17 arrived broken: refund.", id="ai-2"),
]
TOOLS = {"lookup_order": lambda args: {"order": args["order"], "status": "delivered", "damaged": True}}


def model(state: Ticket) -> dict:
    turn = sum(isinstance(m, AIMessage) for m in state["messages"])
    return {"messages": [SCRIPT[turn]]}


def tools(state: Ticket) -> dict:
    calls = state["messages"][-1].tool_calls
    answers = [ToolMessage(str(TOOLS[c["name"]](c["args"])), tool_call_id=c["id"], id=f"t-{c['id']}") for c in calls]
    return {"messages": answers, "tags": {"order-lookup"}}


def file_ticket(state: Ticket, runtime: Runtime[Customer]) -> dict:
    days = 1 if runtime.context.tier == "gold" else 3
    return {"category": "refund", "tags": {"damaged", runtime.context.tier}, "due": datetime.date(2026, 3, 1 + days)}


def route(state: Ticket) -> str:
    return "tools" if state["messages"][-1].tool_calls else "file_ticket"


builder = StateGraph(Ticket, context_schema=Customer)
builder.add_node("model", model)
builder.add_node("tools", tools)
builder.add_node("file_ticket", file_ticket)
builder.add_edge(START, "model")
builder.add_conditional_edges("model", route, ["tools", "file_ticket"])
builder.add_edge("tools", "model")
builder.add_edge("file_ticket", END)
graph = builder.compile()
example_input = {"messages": [{"role": "user", "content": "My order 17 is broken", "id": "h-1"}], "tags": set()}

if __name__ == "__main__":
    from own_run import print_own_run

    print_own_run(graph, example_input)
