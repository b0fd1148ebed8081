"""Differential cases: Command."""

# No `from __future__ import annotations`: state schemas defined inside builders refer to local names.
import operator
from typing import Annotated, Literal, TypedDict

from ._common import Built, case


def _command_graph(lg, goto, static_edge=None):
    class S(TypedDict):
        log: Annotated[list, operator.add]
        x: int

    b = lg.StateGraph(S)
    b.add_node("a", lambda s: lg.Command(goto=goto, update={"log": ["a"], "x": 1}))
    b.add_node("b", lambda s: {"log": ["b"]})
    b.add_node("c", lambda s: {"log": ["c"]})
    b.add_edge(lg.START, "a")
    if static_edge:
        b.add_edge("a", static_edge)
    return b


@case(expect={"result": {"log": ["in", "a", "b"], "x": 1}})
def build_command_goto_single(lg):
    """Command(goto="b", update=...)."""
    return Built(_command_graph(lg, "b"), {"log": ["in"]})


@case(expect={"result": {"log": ["in", "a", "b", "c"], "x": 1}})
def build_command_goto_list(lg):
    """Command(goto=["c", "b"]): both run in the next step, folded in name order."""
    return Built(_command_graph(lg, ["c", "b"]), {"log": ["in"]})


@case(expect={"result": {"log": ["in", "a"], "x": 1}})
def build_command_goto_end(lg):
    """Command(goto=END): the update applies and the branch ends."""
    return Built(_command_graph(lg, lg.END), {"log": ["in"]})


@case(expect={"result": {"log": ["in", "a", "c"], "x": 1}})
def build_command_goto_end_with_static_edge(lg):
    """goto=END is ignored: the static edge a -> c still fires."""
    return Built(_command_graph(lg, lg.END, static_edge="c"), {"log": ["in"]})


@case(expect={"result": {"log": ["in", "a", "b", "c"], "x": 1}})
def build_command_goto_plus_static_edge(lg):
    """Command(goto="b") plus a static edge a -> c: both fire."""
    return Built(_command_graph(lg, "b", static_edge="c"), {"log": ["in"]})


@case(expect={"result": {"log": ["in", "a"], "x": 1}})
def build_command_goto_unknown_node(lg):
    """goto to a node that does not exist is dropped with a warning, not an error."""
    return Built(_command_graph(lg, "zz"), {"log": ["in"]})


@case(expect={"result": {"log": ["in", "a", "b:sent"], "x": 1}})
def build_command_goto_send(lg):
    """Command(goto=Send(...)): a push task with the Send's arg as input."""

    class S(TypedDict):
        log: Annotated[list, operator.add]
        x: int

    b = lg.StateGraph(S)
    b.add_node(
        "a",
        lambda s: lg.Command(goto=[lg.Send("b", {"tag": "sent"})], update={"log": ["a"], "x": 1}),
    )
    b.add_node("b", lambda s: {"log": [f"b:{s['tag']}"]})
    b.add_edge(lg.START, "a")
    return Built(b, {"log": ["in"]})


@case(expect={"result": {"log": ["in", "a"], "x": 7}})
def build_command_update_tuples(lg):
    """Command(update=[(key, value), ...]) with a list of tuples."""

    class S(TypedDict):
        log: Annotated[list, operator.add]
        x: int

    b = lg.StateGraph(S)
    b.add_node("a", lambda s: lg.Command(update=[("log", ["a"]), ("x", 7), ("zz", 1)]))
    b.add_edge(lg.START, "a")
    return Built(b, {"log": ["in"]})


@case(expect={"result": {"log": ["u", "u", "a", "b"]}})
def build_command_as_graph_input(lg):
    """A Command as graph input without a checkpointer (langgraph 1.2.22: the update is applied twice
    and the START edge fires as well as goto)."""

    class S(TypedDict):
        log: Annotated[list, operator.add]

    b = lg.StateGraph(S)
    b.add_node("a", lambda s: {"log": ["a"]})
    b.add_node("b", lambda s: {"log": ["b"]})
    b.add_edge(lg.START, "a")
    return Built(b, lg.Command(goto="b", update={"log": ["u"]}))


@case(expect={"result": {"log": ["in", "a", "b", "c"]}, "probe": ["a", "b", "c"]})
def build_command_annotated_destinations(lg):
    """Nodes routing only by Command, with `Command[Literal[...]]` return annotations."""
    runs: list = []

    class S(TypedDict):
        log: Annotated[list, operator.add]

    def a(s) -> lg.Command[Literal["b"]]:
        runs.append("a")
        return lg.Command(goto="b", update={"log": ["a"]})

    def b_(s) -> lg.Command[Literal["c", "__end__"]]:
        runs.append("b")
        return lg.Command(goto="c", update={"log": ["b"]})

    def c(s):
        runs.append("c")
        return {"log": ["c"]}

    b = lg.StateGraph(S)
    b.add_node("a", a)
    b.add_node("b", b_)
    b.add_node("c", c)
    b.add_edge(lg.START, "a")
    return Built(b, {"log": ["in"]}, probe=lambda: runs)
