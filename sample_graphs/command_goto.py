"""`Command(goto=..., update=...)`: a node that updates the state and picks the next node at once.

`goto` adds to the node's static edges; it does not replace them. A leftover `add_edge("triage",
"general")` therefore still runs `general` next to the node that `goto` chose.
"""

import operator
import sys
from pathlib import Path
from typing import Annotated, Literal, TypedDict

if __package__ in (None, ""):  # `python sample_graphs/command_goto.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import END, START, Command, StateGraph
from sample_graphs._show import show

title = "Command(goto=...) next to a leftover static edge"
summary = (
    "A node returning Command(goto, update) routes and writes at once; goto adds to static edges, never replaces them."
)
source = "LangGraph routing with Command (a node-side alternative to seed 003's conditional edges)"
lesson = (
    "`triage` returns `Command(goto='billing', update={...})`: one return value both writes the state and "
    "names the next node, with no separate router function. "
    "`goto` is added to the node's static edges rather than replacing them, so the leftover "
    "`add_edge('triage', 'general')` still fires: `billing` and `general` both run in the next superstep "
    "and the log ends ['triage: billing', 'billing', 'general']. "
    "Nothing fails, which is why this is easy to miss; in the debugger you see two tasks where you expected one. "
    "When a node routes with Command, give it no outgoing edges and declare its targets in the return "
    "annotation, `-> Command[Literal['billing', 'general']]`, so the drawing still shows them (`fixed_graph`)."
)


class TicketState(TypedDict):
    question: str
    route: str
    log: Annotated[list[str], operator.add]


def triage(state: TicketState) -> Command[Literal["billing", "general"]]:
    route = "billing" if "refund" in state["question"].lower() else "general"
    return Command(goto=route, update={"route": route, "log": [f"triage: {route}"]})


def build(leftover_edge: bool):
    builder = StateGraph(TicketState)
    builder.add_node("triage", triage)
    builder.add_node("billing", lambda state: {"log": ["billing"]})
    builder.add_node("general", lambda state: {"log": ["general"]})
    builder.add_edge(START, "triage")
    if leftover_edge:
        builder.add_edge("triage", "general")  # left over from before triage used Command
    builder.add_edge("billing", END)
    builder.add_edge("general", END)
    return builder.compile()


graph = build(leftover_edge=True)
example_input = {"question": "I want a refund for order 42", "log": []}
fixed_graph = build(leftover_edge=False)
fixed_input = example_input

if __name__ == "__main__":
    show("with the leftover edge", graph, example_input)
    show("Command only          ", fixed_graph, fixed_input)
