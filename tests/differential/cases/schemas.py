"""Differential cases: Schemas."""

# No `from __future__ import annotations`: state schemas defined inside builders refer to local names.
import operator
from dataclasses import dataclass, field
from typing import Annotated, NotRequired, TypedDict

from ._common import Built, case


@case(
    expect={
        "result": {"x": 10, "log": ["a", "b"], "note": None},
        "probe": [("DS", 1, None, []), ("DS", 2, None, ["a"])],
    }
)
def build_dataclass_state(lg):
    """A dataclass state: nodes receive instances (with defaults filled in); a node may return an
    instance."""
    seen: list = []

    @dataclass
    class DS:
        x: int = 0
        log: Annotated[list, operator.add] = field(default_factory=list)
        note: str | None = None

    def a(s: DS):
        seen.append((type(s).__name__, s.x, s.note, list(s.log)))
        return {"x": s.x + 1, "log": ["a"]}

    def b_(s: DS):
        seen.append((type(s).__name__, s.x, s.note, list(s.log)))
        return DS(x=10, log=["b"])

    b = lg.StateGraph(DS)
    b.add_node("a", a)
    b.add_node("b", b_)
    b.add_edge(lg.START, "a")
    b.add_edge("a", "b")
    return Built(b, {"x": 1}, probe=lambda: seen)


@case(expect={"result": {"log": ["n:None"], "b": 2}, "probe": [["log"]]})
def build_typeddict_total_false(lg):
    """total=False: absent keys are simply absent from node input."""
    seen: list = []

    class S(TypedDict, total=False):
        a: int
        b: int
        log: Annotated[list, operator.add]

    def n(s):
        seen.append(sorted(s))
        return {"log": [f"n:{s.get('a')}"], "b": 2}

    b = lg.StateGraph(S)
    b.add_node("n", n)
    b.add_edge(lg.START, "n")
    return Built(b, {}, probe=lambda: seen)


@case(expect={"result": {"req": "r", "log": ["n:None"], "opt": 1}, "probe": [["log", "req"]]})
def build_typeddict_notrequired(lg):
    """NotRequired keys behave like any other channel."""
    seen: list = []

    class S(TypedDict):
        req: str
        opt: NotRequired[int]
        log: NotRequired[Annotated[list, operator.add]]

    def n(s):
        seen.append(sorted(s))
        return {"log": [f"n:{s.get('opt')}"], "opt": 1}

    b = lg.StateGraph(S)
    b.add_node("n", n)
    b.add_edge(lg.START, "n")
    return Built(b, {"req": "r"}, probe=lambda: seen)


@case(expect={"result": {"answer": "Q?!"}, "probe": [{"question": "q?"}]})
def build_input_output_schema(lg):
    """input_schema filters the input, output_schema filters invoke's output (not the values stream)."""
    seen: list = []

    class In(TypedDict):
        question: str

    class Out(TypedDict):
        answer: str

    class Overall(TypedDict):
        question: str
        answer: str
        scratch: str

    def think(s):
        seen.append(dict(s))
        return {"scratch": s["question"].upper()}

    def answer(s):
        return {"answer": s["scratch"] + "!"}

    b = lg.StateGraph(Overall, input_schema=In, output_schema=Out)
    b.add_node("think", think)
    b.add_node("answer", answer)
    b.add_edge(lg.START, "think")
    b.add_edge("think", "answer")
    return Built(b, {"question": "q?", "answer": "ignored", "scratch": "ignored"}, probe=lambda: seen)


@case(expect={"result": {"out": "S3"}, "probe": [{"secret": "s3"}]})
def build_private_node_input_schema(lg):
    """A node with a private input schema (from its type hint) reads a key the state does not declare."""
    seen: list = []

    class Overall(TypedDict):
        out: str

    class Private(TypedDict):
        secret: str

    def a(s: Overall) -> Private:
        return {"secret": "s3"}

    def b_(s: Private):
        seen.append(dict(s))
        return {"out": s["secret"].upper()}

    b = lg.StateGraph(Overall)
    b.add_node("a", a)
    b.add_node("b", b_)
    b.add_edge(lg.START, "a")
    b.add_edge("a", "b")
    return Built(b, {"out": ""}, probe=lambda: seen)


@case(expect={"result": {"log": ["in", "step_one", "step_two"]}})
def build_add_sequence(lg):
    """add_sequence with plain functions (names from __name__)."""

    class S(TypedDict):
        log: Annotated[list, operator.add]

    def step_one(s):
        return {"log": ["step_one"]}

    def step_two(s):
        return {"log": ["step_two"]}

    b = lg.StateGraph(S)
    b.add_sequence([step_one, step_two])
    b.add_edge(lg.START, "step_one")
    return Built(b, {"log": ["in"]})


@case(expect={"result": {"log": ["in", "first", "second"]}})
def build_set_entry_and_finish_point(lg):
    """set_entry_point / set_finish_point and add_node(func) naming the node after the function."""

    class S(TypedDict):
        log: Annotated[list, operator.add]

    def first(s):
        return {"log": ["first"]}

    def second(s):
        return {"log": ["second"]}

    b = lg.StateGraph(S)
    b.add_node(first)
    b.add_node(second)
    b.set_entry_point("first")
    b.add_edge("first", "second")
    b.set_finish_point("second")
    return Built(b, {"log": ["in"]})


@case(expect={"result": {"summary": "summary: text", "text": "text"}})
def build_node_named_like_a_key(lg):
    """A node may share its name with a state key."""

    class S(TypedDict):
        text: str
        summary: str

    b = lg.StateGraph(S)
    b.add_node("summary", lambda s: {"summary": "summary: " + s["text"]})
    b.add_edge(lg.START, "summary")
    return Built(b, {"text": "text"})
