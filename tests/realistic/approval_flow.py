"""An expense approval flow on a checkpointer thread: the manager is asked (interrupt), then finance is
asked twice in one node (amount, then cost centre); each answer is a `Command(resume=...)` on the thread."""

from typing import TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import interrupt


class Expense(TypedDict):
    item: str
    amount: float
    manager: str
    finance: dict


def manager(state: Expense) -> dict:
    return {"manager": interrupt({"ask": f"Approve {state['item']} for {state['amount']}?"})}


def finance(state: Expense) -> dict:
    amount = interrupt({"ask": "Confirm the amount", "proposed": state["amount"]})
    centre = interrupt({"ask": "Which cost centre?"})
    return {"finance": {"amount": amount, "centre": centre}}


builder = StateGraph(Expense)
builder.add_node("ask_manager", manager)
builder.add_node("ask_finance", finance)
builder.add_edge(START, "ask_manager")
builder.add_edge("ask_manager", "ask_finance")
builder.add_edge("ask_finance", END)
graph = builder.compile(checkpointer=InMemorySaver())
example_input = {"item": "monitor", "amount": 249.5}

if __name__ == "__main__":
    from own_run import print_own_run

    print_own_run(graph, example_input)
