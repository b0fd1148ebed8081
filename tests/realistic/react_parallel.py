"""A ReAct agent whose scripted model asks for two tools at once: each call runs as its own task (Send),
in parallel, their ToolMessages joined by add_messages; the model's last turn hands over with
Command(goto="respond")."""

from typing import Literal

from langchain_core.messages import AIMessage, ToolMessage
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.types import Command, Send

CALLS = [
    {"name": "weather", "args": {"city": "Oslo"}, "id": "c-1"},
    {"name": "calendar", "args": {"day": "2026-03-02"}, "id": "c-2"},
]
RESULTS = {"weather": "rain, 4 C", "calendar": "no meetings"}


def agent(state: MessagesState) -> Command[Literal["respond"]] | dict:
    if not any(isinstance(m, ToolMessage) for m in state["messages"]):
        return {"messages": [AIMessage("", id="ai-1", tool_calls=CALLS)]}
    return Command(goto="respond", update={"messages": [AIMessage("Rain and a free day.", id="ai-2")]})


def dispatch(state: MessagesState) -> list[Send] | str:
    last = state["messages"][-1]
    return [Send("tool", call) for call in last.tool_calls] if last.tool_calls else END


def tool(call: dict) -> dict:
    return {"messages": [ToolMessage(RESULTS[call["name"]], tool_call_id=call["id"], id=f"t-{call['id']}")]}


def respond(state: MessagesState) -> dict:
    return {"messages": [AIMessage("Take an umbrella.", id="ai-3")]}


builder = StateGraph(MessagesState)
builder.add_node("agent", agent)
builder.add_node("tool", tool)
builder.add_node("respond", respond)
builder.add_edge(START, "agent")
builder.add_conditional_edges("agent", dispatch, ["tool", END])
builder.add_edge("tool", "agent")
builder.add_edge("respond", END)
graph = builder.compile()
example_input = {"messages": [{"role": "user", "content": "Should I go out Monday?", "id": "h-1"}]}

if __name__ == "__main__":
    from own_run import print_own_run

    print_own_run(graph, example_input)
