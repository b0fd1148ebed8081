"""langgraph apps that pause the way LangGraph's docs show (issue 41, item 2): each builds a fresh graph on
an InMemorySaver, and `TURNS[name]` is the conversation a user has with it: the first input, then each
answer (a `Command(resume=...)`, or None to go on from a breakpoint). A callable answer is given the
pending interrupts (langgraph's own `Interrupt`s) and returns the resume, for answers given by id."""

from __future__ import annotations

import operator
from typing import Annotated, Any, Callable, TypedDict

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import interrupt


class Refund(TypedDict, total=False):
    order: str
    amount: str
    approved: str


def two_questions() -> Any:
    """One node asks twice: the amount, then the approval; each resume re-runs the node up to the next."""

    def ask(state: Refund) -> dict[str, Any]:
        amount = interrupt({"ask": f"amount for {state['order']}?"})
        approved = interrupt({"ask": f"refund {amount}?"})
        return {"amount": amount, "approved": approved}

    builder = StateGraph(Refund)
    builder.add_node("ask", ask)
    builder.add_edge(START, "ask")
    builder.add_edge("ask", END)
    return builder.compile(checkpointer=InMemorySaver())


def in_subgraph() -> Any:
    """The question is asked inside a compiled subgraph: the whole run pauses there."""

    def ask(state: Refund) -> dict[str, Any]:
        return {"approved": interrupt({"ask": f"refund {state['order']}?"})}

    inner = StateGraph(Refund)
    inner.add_node("ask", ask)
    inner.add_edge(START, "ask")
    outer = StateGraph(Refund)
    outer.add_node("prepare", lambda state: {"amount": "12.50"})
    outer.add_node("review", inner.compile())
    outer.add_edge(START, "prepare")
    outer.add_edge("prepare", "review")
    outer.add_edge("review", END)
    return outer.compile(checkpointer=InMemorySaver())


class Reviews(TypedDict, total=False):
    draft: str
    verdicts: Annotated[list[str], operator.add]


def parallel_reviews() -> Any:
    """Three reviewers run in one superstep and each asks: the answers go back by interrupt id. langgraph's
    GraphInterrupt gathers them from a set of futures (any order); get_state lists them in task order."""

    def reviewer(name: str) -> Callable[[Reviews], dict[str, Any]]:
        def review(state: Reviews) -> dict[str, Any]:
            return {"verdicts": [f"{name}: {interrupt({'reviewer': name, 'draft': state['draft']})}"]}

        return review

    builder = StateGraph(Reviews)
    for name in ("legal", "style", "tone"):
        builder.add_node(name, reviewer(name))
        builder.add_edge(START, name)
        builder.add_edge(name, END)
    return builder.compile(checkpointer=InMemorySaver())


def breakpoints() -> Any:
    """Static breakpoints: compile(interrupt_after=["draft"], interrupt_before=["send"]), a node apart (at
    one and the same point langgraph stops once)."""
    builder = StateGraph(Reviews)
    builder.add_node("draft", lambda state: {"draft": state["draft"] + " (drafted)"})
    builder.add_node("check", lambda state: {"verdicts": ["checked"]})
    builder.add_node("send", lambda state: {"verdicts": ["sent"]})
    builder.add_edge(START, "draft")
    builder.add_edge("draft", "check")
    builder.add_edge("check", "send")
    builder.add_edge("send", END)
    return builder.compile(checkpointer=InMemorySaver(), interrupt_before=["send"], interrupt_after=["draft"])


def _by_id(values: dict[str, str]) -> Callable[[list[Any]], dict[str, Any]]:
    """Answers the pending interrupts whose reviewer is named in `values`, by their ids."""
    return lambda pending: {i.id: values[i.value["reviewer"]] for i in pending if i.value["reviewer"] in values}


APPS: dict[str, Callable[[], Any]] = {
    "two_questions": two_questions,
    "in_subgraph": in_subgraph,
    "parallel_reviews": parallel_reviews,
    "parallel_reviews_at_once": parallel_reviews,
    "breakpoints": breakpoints,
}
TURNS: dict[str, list[Any]] = {
    "two_questions": [{"order": "17"}, "12.50", "yes"],
    "in_subgraph": [{"order": "17"}, "yes"],
    "parallel_reviews": [{"draft": "v1"}, _by_id({"legal": "ok"}), _by_id({"style": "fix commas", "tone": "warm"})],
    "parallel_reviews_at_once": [{"draft": "v1"}, _by_id({"legal": "ok", "style": "fix commas", "tone": "warm"})],
    "breakpoints": [{"draft": "v1"}, None, None],
}
RESUMES = frozenset({"two_questions", "in_subgraph", "parallel_reviews", "parallel_reviews_at_once"})
"""The apps whose answers are `Command(resume=...)`; the others go on with None."""
