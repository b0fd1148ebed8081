"""`add_messages`: append, replace by id, delete with RemoveMessage (seed article 001, section 6.3).

`MessagesState` is `{"messages": Annotated[list[AnyMessage], add_messages]}`. `add_messages` is not a
plain concatenation: it upserts by message id.
"""

import sys
from pathlib import Path

if __package__ in (None, ""):  # `python sample_graphs/add_messages_basics.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import START, AIMessage, HumanMessage, MessagesState, RemoveMessage, StateGraph, add_messages
from sample_graphs._show import show

title = "add_messages: append, replace by id, RemoveMessage"
summary = "add_messages upserts by message id: new id appends, known id replaces in place, RemoveMessage deletes."
source = "seed 001, section 6.3"
lesson = (
    "`add_messages` treats the message id as a primary key. "
    "A message with a new id is appended at the end; a message whose id is already in the list replaces "
    "that message where it stands; a `RemoveMessage(id=...)` deletes it. "
    "Watch the three nodes of this graph do one each: 'again' (id 3) is appended, 'hello' (id 2) is "
    "rewritten in place, and 'hi' (id 1) is removed. "
    "Do not delete or edit by changing `state['messages']` inside a node: the step then records no write, so "
    "the stream shows no update, the debugger has nothing to explain the change, and a checkpointer still "
    "saves the message you meant to delete. "
    "Return a `RemoveMessage`, or a message with the same id, and let the reducer do it."
)
learn_prompt = (
    "Three nodes each write one message to `messages`, whose reducer is `add_messages`: one with a new "
    "id, one with an id already in the list, one `RemoveMessage`. Predict the list after each write."
)
"""Learn mode shows this set-up, without the results, until the learner has guessed every merge."""

ORIGINAL = [HumanMessage("hi", id="1"), AIMessage("hello", id="2")]


def show_messages(messages, id_prefix: str = "") -> str:
    """The article's notation: `[human/hi/1, ai/hello/2]`."""
    return "[" + ", ".join(f"{m.type}/{m.content}/{id_prefix}{m.id}" for m in messages) + "]"


def article_lines() -> list[str]:
    """The article's measured output: each update applied to the original two messages."""
    lines = [f"原始: {show_messages(ORIGINAL, 'id=')}"]
    for label, update in [
        ('AIMessage(id="3")', AIMessage("again", id="3")),
        ('AIMessage(id="2")', AIMessage("改写了", id="2")),
        ('RemoveMessage(id="1")', RemoveMessage(id="1")),
    ]:
        lines.append(f"+ {label} -> {show_messages(add_messages(ORIGINAL, [update]))}")
    return lines


def build():
    builder = StateGraph(MessagesState)
    builder.add_node("append", lambda state: {"messages": [AIMessage("again", id="3")]})  # new id
    builder.add_node("rewrite", lambda state: {"messages": [AIMessage("改写了", id="2")]})  # known id
    builder.add_node("remove", lambda state: {"messages": [RemoveMessage(id="1")]})
    builder.add_edge(START, "append")
    builder.add_edge("append", "rewrite")
    builder.add_edge("rewrite", "remove")
    return builder.compile()


graph = build()
example_input = {
    "messages": [
        {"type": "human", "content": "hi", "id": "1"},
        {"type": "ai", "content": "hello", "id": "2"},
    ]
}

if __name__ == "__main__":
    for line in article_lines():
        print(line)
    print()
    for update in graph.stream(example_input, stream_mode="values"):
        print("after a step:", show_messages(update["messages"]))
    show("final state", graph, example_input)
