"""The ReAct loop of seed article 003, section 06: llm -> tools -> llm ... -> END.

A scripted model asks for tools by returning tool calls; a conditional edge sends the run to the
`tools` node while the last message has tool calls, and the `tools -> llm` edge brings it back.
The tools are real functions; no network, the same result every run.
"""

import sys
from pathlib import Path

if __package__ in (None, ""):  # `python sample_graphs/react_agent.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import END, START, AIMessage, MessagesState, StateGraph, ToolMessage
from sample_graphs._show import brief, describe, outcome

title = "The ReAct loop: llm, tools, and a conditional edge back"
summary = "An LLM node, a tools node and a conditional edge make a loop that ends when the model stops calling tools."
source = "seed 003, section 06"
lesson = (
    "The agent is a loop: `llm` runs, the router `route_after_llm` looks at the last message, and while "
    "the model asks for a tool the run goes to `tools`, whose edge leads back to `llm`. "
    "Notice each round is two supersteps and each tool result comes back as a ToolMessage carrying the "
    "`tool_call_id` of the call it answers, which is how the model matches results to requests. "
    "The loop stops only because the router returns END once the model answers without tool calls; a "
    "model that keeps calling tools runs until the recursion limit (see endless_loop), and forgetting the "
    "`tools -> llm` edge ends the run right after the first tool, with no answer. "
    "Here the model is scripted (12 x 7, then + 5) but the arithmetic is done by the tool functions, so the "
    "answer 89 comes from real tool output."
)


def multiply(a: int, b: int) -> int:
    return a * b


def add(a: int, b: int) -> int:
    return a + b


TOOLS = {"multiply": multiply, "add": add}


class ScriptedToolModel:
    """Stands in for a chat model with tools bound: decides from the conversation alone."""

    def invoke(self, messages) -> AIMessage:
        results = [int(m.content) for m in messages if m.type == "tool"]
        turn = sum(1 for m in messages if m.type == "ai") + 1
        if not results:
            return self.call(turn, "multiply", {"a": 12, "b": 7})
        if len(results) == 1:
            return self.call(turn, "add", {"a": results[0], "b": 5})
        return AIMessage(f"12 x 7 + 5 = {results[-1]}", id=f"ai-{turn}")

    @staticmethod
    def call(turn: int, name: str, args: dict) -> AIMessage:
        return AIMessage("", tool_calls=[{"name": name, "args": args, "id": f"call-{turn}"}], id=f"ai-{turn}")


llm = ScriptedToolModel()


def call_llm(state: MessagesState) -> dict:
    return {"messages": [llm.invoke(state["messages"])]}


def call_tools(state: MessagesState) -> dict:
    results = []
    for call in state["messages"][-1].tool_calls:
        output = TOOLS[call["name"]](**call["args"])
        results.append(ToolMessage(str(output), tool_call_id=call["id"], name=call["name"], id=f"result-{call['id']}"))
    return {"messages": results}


def route_after_llm(state: MessagesState) -> str:
    last = state["messages"][-1]
    if getattr(last, "tool_calls", None):
        return "tools"  # the model wants a tool
    return END  # the model answered


def build():
    builder = StateGraph(MessagesState)
    builder.add_node("llm", call_llm)
    builder.add_node("tools", call_tools)
    builder.add_edge(START, "llm")
    builder.add_conditional_edges("llm", route_after_llm, {"tools": "tools", END: END})
    builder.add_edge("tools", "llm")  # after the tools, back to the model
    return builder.compile()


graph = build()
example_input = {"messages": [{"role": "user", "content": "What is 12 times 7, plus 5?", "id": "user-1"}]}

if __name__ == "__main__":
    for chunk in graph.stream(example_input, stream_mode="updates"):
        for node, update in chunk.items():
            print(f"{node:>5}:", brief(update["messages"]))
    final = outcome(graph, example_input)
    if isinstance(final, BaseException):
        print("error:", describe(final))
    else:
        print(f"final answer: {final['messages'][-1].content!r} ({len(final['messages'])} messages)")
