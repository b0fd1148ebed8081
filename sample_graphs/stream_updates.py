"""Streaming a run (seed article 003, section 08, "stream() 的输出格式"): one chunk per finished node.

`graph.stream(input)` yields `{node name: the update that node returned}` each time a node finishes,
here for a small agent that calls one tool: llm, tools, llm. The JavaScript twin is
sample_graphs/js/stream_updates.mjs.
"""

import sys
from pathlib import Path

if __package__ in (None, ""):  # `python sample_graphs/stream_updates.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import END, START, AIMessage, MessagesState, StateGraph, ToolMessage
from sample_graphs._show import brief, show

title = "Streaming: one chunk per finished node, holding its update"
summary = "stream() yields {node: its update} as each node finishes: the updates, not the state."
source = "seed 003, section 08"
lesson = (
    "`graph.stream(input)` yields one chunk each time a node finishes, and the chunk is `{node name: the "
    "update it returned}`: here {'llm': {'messages': [the tool call]}}, then {'tools': {'messages': [the tool "
    "result]}}, then {'llm': {'messages': [the answer]}}. "
    "Notice that a chunk holds what the node returned, not the state after it: the history never appears "
    "whole in this stream, and a front end that shows a typewriter effect appends each update itself. "
    "Ask for `stream_mode='values'` to get the whole state after every superstep instead. "
    "The model is scripted (one weather lookup, then an answer), so every run streams the same three chunks."
)

FORECASTS = {"paris": "18°C and sunny"}


class ScriptedWeatherModel:
    """Stands in for a chat model with a weather tool bound: one lookup, then the answer."""

    def invoke(self, messages) -> AIMessage:
        turn = sum(1 for m in messages if m.type == "ai") + 1
        results = [m.content for m in messages if m.type == "tool"]
        if not results:
            call = {"name": "get_weather", "args": {"city": "Paris"}, "id": f"call-{turn}"}
            return AIMessage("", tool_calls=[call], id=f"ai-{turn}")
        return AIMessage(f"In Paris it is {results[-1]}.", id=f"ai-{turn}")


llm = ScriptedWeatherModel()


def call_llm(state: MessagesState) -> dict:
    return {"messages": [llm.invoke(state["messages"])]}


def call_tools(state: MessagesState) -> dict:
    results = []
    for call in state["messages"][-1].tool_calls:
        forecast = FORECASTS.get(call["args"]["city"].lower(), "unknown")
        results.append(ToolMessage(forecast, tool_call_id=call["id"], name=call["name"], id=f"result-{call['id']}"))
    return {"messages": results}


def route_after_llm(state: MessagesState) -> str:
    return "tools" if getattr(state["messages"][-1], "tool_calls", None) else END


def build():
    builder = StateGraph(MessagesState)
    builder.add_node("llm", call_llm)
    builder.add_node("tools", call_tools)
    builder.add_edge(START, "llm")
    builder.add_conditional_edges("llm", route_after_llm, {"tools": "tools", END: END})
    builder.add_edge("tools", "llm")
    return builder.compile()


graph = build()
example_input = {"messages": [{"role": "user", "content": "What is the weather in Paris?", "id": "user-1"}]}


if __name__ == "__main__":
    for chunk in graph.stream(example_input):
        print("chunk:", brief(chunk))
    show("final state", graph, example_input)
