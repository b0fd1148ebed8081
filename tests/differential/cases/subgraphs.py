"""Differential cases: Subgraphs."""

# No `from __future__ import annotations`: state schemas defined inside builders refer to local names.
import operator
from typing import Annotated, TypedDict

from ._common import Built, case, sleep_ms, task_note


@case(
    expect={
        "result": {"log": ["parent", "parent", "sub-1"]},
        "streams": {
            "subgraphs": {
                "chunks": [
                    ((), {"p1": {"log": ["parent"]}}),
                    (("child:<id>",), {"s1": {"log": ["sub-1"]}}),
                    ((), {"child": {"log": ["parent", "sub-1"]}}),
                ]
            },
            "subgraphs_values": {
                "chunks": [
                    ((), "values", {"log": []}),
                    ((), "updates", {"p1": {"log": ["parent"]}}),
                    ((), "values", {"log": ["parent"]}),
                    (("child:<id>",), "values", {"log": ["parent"]}),
                    (("child:<id>",), "updates", {"s1": {"log": ["sub-1"]}}),
                    (("child:<id>",), "values", {"log": ["parent", "sub-1"]}),
                    ((), "updates", {"child": {"log": ["parent", "sub-1"]}}),
                    ((), "values", {"log": ["parent", "parent", "sub-1"]}),
                ]
            },
        },
    }
)
def build_subgraph_shared_log(lg):
    """Seed 001 6.4: a compiled subgraph added as a node, sharing `log: Annotated[list, add]`; it
    returns its whole state, so 'parent' is added twice."""

    class S(TypedDict):
        log: Annotated[list[str], operator.add]

    sub = lg.StateGraph(S)
    sub.add_node("s1", lambda s: {"log": ["sub-1"]})
    sub.add_edge(lg.START, "s1")
    subapp = sub.compile()

    par = lg.StateGraph(S)
    par.add_node("p1", lambda s: {"log": ["parent"]})
    par.add_node("child", subapp)
    par.add_edge(lg.START, "p1")
    par.add_edge("p1", "child")
    return Built(par, {"log": []})


@case(expect={"result": {"log": ["parent", "child->ABC"], "task": "abc"}})
def build_subgraph_wrapped_fix(lg):
    """Seed 001 6.4, the fix: the subgraph has its own schema and a plain function node calls it and
    returns only the new items."""

    class Parent(TypedDict):
        task: str
        log: Annotated[list[str], operator.add]

    class Child(TypedDict):
        task: str
        result: str

    sub = lg.StateGraph(Child)
    sub.add_node("upper", lambda s: {"result": s["task"].upper()})
    sub.add_edge(lg.START, "upper")
    subapp = sub.compile()

    def call_child(state):
        out = subapp.invoke({"task": state["task"]})
        return {"log": [f"child->{out['result']}"]}

    par = lg.StateGraph(Parent)
    par.add_node("p1", lambda s: {"log": ["parent"]})
    par.add_node("child", call_child)
    par.add_edge(lg.START, "p1")
    par.add_edge("p1", "child")
    return Built(par, {"task": "abc", "log": []})


@case(expect={"result": {"log": ["in", "in", "s1", "s2", "s3"], "shared": 2}})
def build_subgraph_parallel_inner(lg):
    """A subgraph with a parallel inner step and a key the parent does not know (dropped)."""

    class Parent(TypedDict):
        log: Annotated[list, operator.add]
        shared: int

    class Child(TypedDict):
        log: Annotated[list, operator.add]
        shared: int
        inner_only: str

    def s1(s):
        sleep_ms(10)
        return {"log": ["s1"], "inner_only": "x"}

    sub = lg.StateGraph(Child)
    sub.add_node("s1", s1)
    sub.add_node("s2", lambda s: {"log": ["s2"], "shared": 2})
    sub.add_node("s3", lambda s: {"log": ["s3"]})
    sub.add_edge(lg.START, "s1")
    sub.add_edge(lg.START, "s2")
    sub.add_edge(["s1", "s2"], "s3")

    par = lg.StateGraph(Parent)
    par.add_node("child", sub.compile())
    par.add_edge(lg.START, "child")
    return Built(par, {"log": ["in"], "shared": 1})


@case(expect={"result": {"log": ["outer", "outer", "mid", "outer", "mid", "leaf"]}})
def build_subgraph_nested(lg):
    """A subgraph inside a subgraph: namespaces have two levels."""

    class S(TypedDict):
        log: Annotated[list, operator.add]

    leaf = lg.StateGraph(S)
    leaf.add_node("leaf", lambda s: {"log": ["leaf"]})
    leaf.add_edge(lg.START, "leaf")

    mid = lg.StateGraph(S)
    mid.add_node("m", lambda s: {"log": ["mid"]})
    mid.add_node("inner", leaf.compile())
    mid.add_edge(lg.START, "m")
    mid.add_edge("m", "inner")

    top = lg.StateGraph(S)
    top.add_node("o", lambda s: {"log": ["outer"]})
    top.add_node("middle", mid.compile())
    top.add_edge(lg.START, "o")
    top.add_edge("o", "middle")
    return Built(top, {"log": []})


@case(
    expect={
        "result": {"log": ["in", "from-sub", "after"]},
        "probe": ["s1"],
        "streams": {
            "subgraphs": {"chunks": [((), {"subg": {"log": ["from-sub"]}}), ((), {"after": {"log": ["after"]}})]}
        },
    }
)
def build_subgraph_command_parent(lg):
    """Command(graph=Command.PARENT) from inside a subgraph: the parent applies update and goto as if
    the subgraph's node had returned them; the subgraph stops."""
    runs: list = []

    class S(TypedDict):
        log: Annotated[list, operator.add]

    def s1(s):
        runs.append("s1")
        return lg.Command(graph=lg.Command.PARENT, goto="after", update={"log": ["from-sub"]})

    def s2(s):
        runs.append("s2")
        return {"log": ["s2"]}

    sub = lg.StateGraph(S)
    sub.add_node("s1", s1)
    sub.add_node("s2", s2)
    sub.add_edge(lg.START, "s1")
    sub.add_edge("s1", "s2")

    par = lg.StateGraph(S)
    par.add_node("subg", sub.compile())
    par.add_node("after", lambda s: {"log": ["after"]})
    par.add_edge(lg.START, "subg")
    return Built(par, {"log": ["in"]}, probe=lambda: runs)


@case(
    expect={
        "error": ("ValueError", "boom in s1"),
        "notes": [task_note("s1"), task_note("child")],
    }
)
def build_subgraph_node_raises(lg):
    """An exception inside a subgraph node propagates through the parent (notes compared too)."""

    class S(TypedDict):
        log: Annotated[list, operator.add]

    def s1(s):
        raise ValueError("boom in s1")

    sub = lg.StateGraph(S)
    sub.add_node("s1", s1)
    sub.add_edge(lg.START, "s1")

    par = lg.StateGraph(S)
    par.add_node("p", lambda s: {"log": ["p"]})
    par.add_node("child", sub.compile())
    par.add_edge(lg.START, "p")
    par.add_edge("p", "child")
    return Built(par, {"log": []})
