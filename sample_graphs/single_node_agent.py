"""The single-node LLM agent of seed article 003, section 04, with a scripted model.

START -> llm -> END. The node returns an update (`{"messages": [reply]}`), and the reducer on
`messages` merges it into the history. No network: the "model" is a deterministic function.
"""

import sys
from pathlib import Path

if __package__ in (None, ""):  # `python sample_graphs/single_node_agent.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import END, START, AIMessage, MessagesState, StateGraph
from sample_graphs._show import show

title = "A single-node LLM agent: a node returns an update"
summary = "START -> llm -> END: the node returns only the reply, and add_messages appends it to the history."
source = "seed 003, section 04"
lesson = (
    "The run has two moments: the input is written into the state, then `llm` runs once and its only edge "
    "leads to END. "
    "Notice that the node does not return the new state: it returns `{'messages': [reply]}`, an update, and "
    "the reducer on `messages` (`add_messages`) merges it into the history after the node has finished. "
    "A common mistake is to return `state['messages'] + [reply]`: with a concatenating reducer such as the "
    "article's `[...prev, ...next]` (`operator.add`) that repeats the whole history, and only `add_messages`' "
    "replace-by-id rule would hide it. "
    "Return just the new message; the scripted model here stands in for a chat model, so every run gives "
    "the same reply."
)


class ScriptedChatModel:
    """A stand-in for a chat model: a pure function of the conversation, so every run is the same."""

    def invoke(self, messages) -> AIMessage:
        turn = sum(1 for m in messages if m.type == "ai") + 1
        return AIMessage("Hello! I am a scripted stand-in for a chat model: same answer every run.", id=f"ai-{turn}")


llm = ScriptedChatModel()


def call_llm(state: MessagesState) -> dict:
    response = llm.invoke(state["messages"])
    return {"messages": [response]}  # an update, not the new state


def build():
    builder = StateGraph(MessagesState)
    builder.add_node("llm", call_llm)
    builder.add_edge(START, "llm")
    builder.add_edge("llm", END)
    return builder.compile()


graph = build()
example_input = {"messages": [{"role": "user", "content": "Hello, introduce yourself", "id": "user-1"}]}

if __name__ == "__main__":
    for chunk in graph.stream(example_input, stream_mode="updates"):
        for node, update in chunk.items():
            print(f"{node} returned:", [f"{m.type}: {m.content}" for m in update["messages"]])
    show("final state", graph, example_input)
