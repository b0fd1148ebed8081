"""Differential cases: Basics: chains, fan-out/fan-in, write conflicts."""

# No `from __future__ import annotations`: state schemas defined inside builders refer to local names.
import operator
from collections import Counter
from typing import Annotated, TypedDict

from ._common import Built, case, conflict, logging_add, sleep_ms


@case(expect={"result": {"x": 3, "log": ["in", "a", "b", "c"]}})
def build_linear_chain(lg):
    """START -> a -> b -> c -> END with a plain int key and an operator.add list."""

    class S(TypedDict):
        x: int
        log: Annotated[list, operator.add]

    b = lg.StateGraph(S)
    b.add_node("a", lambda s: {"x": s["x"] + 1, "log": ["a"]})
    b.add_node("b", lambda s: {"x": s["x"] + 1, "log": ["b"]})
    b.add_node("c", lambda s: {"x": s["x"] + 1, "log": ["c"]})
    b.add_edge(lg.START, "a")
    b.add_edge("a", "b")
    b.add_edge("b", "c")
    b.add_edge("c", lg.END)
    return Built(b, {"x": 0, "log": ["in"]})


@case(expect={"result": {"log": ["in", "a", "b", "c"]}, "probe": {"a": 1, "b": 1, "c": 1}})
def build_fan_out_fan_in(lg):
    """START -> a, b; a, b -> c. `a` is slower, so LangGraph finishes b first; the fold is still a, b."""
    runs = Counter()

    class S(TypedDict):
        log: Annotated[list, operator.add]

    def a(s):
        runs["a"] += 1
        sleep_ms(15)
        return {"log": ["a"]}

    def b_(s):
        runs["b"] += 1
        return {"log": ["b"]}

    def c(s):
        runs["c"] += 1
        return {"log": ["c"]}

    b = lg.StateGraph(S)
    b.add_node("a", a)
    b.add_node("b", b_)
    b.add_node("c", c)
    b.add_edge(lg.START, "a")
    b.add_edge(lg.START, "b")
    b.add_edge("a", "c")
    b.add_edge("b", "c")
    b.add_edge("c", lg.END)
    return Built(b, {"log": ["in"]}, probe=lambda: dict(runs))


@case(expect={"error": ("InvalidUpdateError", conflict("a")), "notes": []})
def build_parallel_plain_key_conflict(lg):
    """Two parallel nodes write the plain key `a` in the same step."""

    class S(TypedDict):
        a: int

    b = lg.StateGraph(S)
    b.add_node("x", lambda s: {"a": 1})
    b.add_node("y", lambda s: {"a": 1})  # the same value still conflicts
    b.add_edge(lg.START, "x")
    b.add_edge(lg.START, "y")
    return Built(b, {"a": 0})


@case(expect={"error": ("InvalidUpdateError", conflict("a"))})
def build_same_task_plain_key_twice(lg):
    """One task writes the plain key `a` twice through a list of Commands."""

    class S(TypedDict):
        a: int

    b = lg.StateGraph(S)
    b.add_node("n", lambda s: [lg.Command(update={"a": 1}), lg.Command(update={"a": 2})])
    b.add_edge(lg.START, "n")
    return Built(b, {"a": 0})


@case(
    expect={
        "result": {"log": ["in", 1, 2, 3]},
        "streams": {"updates": {"chunks": [{"n": [{"log": [1]}, {"log": [2]}, {"log": [3]}]}]}},
    }
)
def build_same_task_reducer_key_twice(lg):
    """One task writes a reducer key three times (Commands plus a dict): the updates chunk is a list."""

    class S(TypedDict):
        log: Annotated[list, operator.add]

    b = lg.StateGraph(S)
    b.add_node(
        "n",
        lambda s: [lg.Command(update={"log": [1]}), lg.Command(update={"log": [2]}), {"log": [3]}],
    )
    b.add_edge(lg.START, "n")
    return Built(b, {"log": ["in"]})


@case(
    expect={
        "result": {"log": ["start", "alpha", "mid", "zeta", "w1", "w0"]},
        "probe": [
            ([], []),  # the input
            ([], ["start"]),  # the router's fresh read of fan's own writes, inside fan's task
            ([], ["start"]),  # fan's writes applied at the barrier
            (["start"], ["alpha"]),
            (["start", "alpha"], ["mid"]),
            (["start", "alpha", "mid"], ["zeta"]),
            (["start", "alpha", "mid", "zeta"], ["w1"]),
            (["start", "alpha", "mid", "zeta", "w1"], ["w0"]),
        ],
    }
)
def build_reducer_fold_order(lg):
    """Pull tasks zeta, alpha, mid plus Sends w(i=1), w(i=0) in one step: the fold is name-sorted
    pulls, then pushes in send order, whatever the completion order (zeta is the fastest). The
    logging reducer also shows the input fold and the extra call made by the router's fresh read."""
    calls: list = []

    class S(TypedDict):
        log: Annotated[list, logging_add(calls)]

    def slow(name, ms):
        def node(s):
            sleep_ms(ms)
            return {"log": [name]}

        return node

    def fan(s):
        return {"log": ["start"]}

    def w(arg):
        sleep_ms(2 + 4 * arg["i"])
        return {"log": [f"w{arg['i']}"]}

    b = lg.StateGraph(S)
    b.add_node("fan", fan)
    b.add_node("zeta", slow("zeta", 0))
    b.add_node("alpha", slow("alpha", 12))
    b.add_node("mid", slow("mid", 6))
    b.add_node("w", w)
    b.add_edge(lg.START, "fan")
    for n in ("zeta", "alpha", "mid"):
        b.add_edge("fan", n)
    b.add_conditional_edges("fan", lambda s: [lg.Send("w", {"i": 1}), lg.Send("w", {"i": 0})])
    return Built(b, {"log": []}, probe=lambda: calls)


@case(
    expect={
        "result": {
            "topic": "animals",
            "subjects": ["cats", "dogs", "owls"],
            "jokes": ["joke about cats", "joke about dogs", "joke about owls"],
            "best": "joke about owls",
        }
    }
)
def build_send_map_reduce(lg):
    """The classic map-reduce: a router returns one Send per subject; results fold in Send order."""

    class S(TypedDict):
        topic: str
        subjects: list[str]
        jokes: Annotated[list[str], operator.add]
        best: str

    class JokeIn(TypedDict):
        subject: str

    def generate(s):
        return {"subjects": ["cats", "dogs", "owls"]}

    def fan_out(s):
        return [lg.Send("joke", {"subject": x}) for x in s["subjects"]]

    def joke(s: JokeIn):
        sleep_ms({"cats": 12, "dogs": 6, "owls": 0}[s["subject"]])
        return {"jokes": [f"joke about {s['subject']}"]}

    def best(s):
        return {"best": max(s["jokes"])}

    b = lg.StateGraph(S)
    b.add_node("generate", generate)
    b.add_node("joke", joke)
    b.add_node("best", best)
    b.add_edge(lg.START, "generate")
    b.add_conditional_edges("generate", fan_out, ["joke"])
    b.add_edge("joke", "best")
    b.add_edge("best", lg.END)
    return Built(b, {"topic": "animals"})


@case(expect={"result": {"log": ["in", "a", "c", "c:sent"]}, "probe": ["c", "c"]})
def build_send_and_static_edge_same_step(lg):
    """A static edge into c plus a Send to c in the same step: c runs twice (pull, then push)."""
    runs: list = []

    class S(TypedDict):
        log: Annotated[list, operator.add]

    def c(s):
        runs.append("c")
        return {"log": ["c:sent"] if "sent" in s else ["c"]}

    b = lg.StateGraph(S)
    b.add_node("a", lambda s: {"log": ["a"]})
    b.add_node("c", c)
    b.add_edge(lg.START, "a")
    b.add_edge("a", "c")
    b.add_conditional_edges("a", lambda s: lg.Send("c", {"sent": True}))
    return Built(b, {"log": ["in"]}, probe=lambda: runs)


@case(expect={"result": {"log": ["in", "a"]}})
def build_send_to_unknown_node(lg):
    """A Send to a node that does not exist is dropped (only a log warning)."""

    class S(TypedDict):
        log: Annotated[list, operator.add]

    b = lg.StateGraph(S)
    b.add_node("a", lambda s: {"log": ["a"]})
    b.add_edge(lg.START, "a")
    b.add_conditional_edges("a", lambda s: [lg.Send("nope", {"log": ["x"]})])
    return Built(b, {"log": ["in"]})


@case(expect={"error": ("InvalidUpdateError", "Cannot send a packet to the END node")})
def build_send_to_end(lg):
    """A router returning Send(END, ...) raises."""

    class S(TypedDict):
        log: Annotated[list, operator.add]

    b = lg.StateGraph(S)
    b.add_node("a", lambda s: {"log": ["a"]})
    b.add_edge(lg.START, "a")
    b.add_conditional_edges("a", lambda s: lg.Send(lg.END, {"log": ["x"]}))
    return Built(b, {"log": ["in"]})


@case(expect={"result": {"log": ["b:x"]}})
def build_node_returns_send(lg):
    """A node may return a bare Send: one push task whose input is exactly the Send's arg."""

    class S(TypedDict):
        log: Annotated[list, operator.add]

    b = lg.StateGraph(S)
    b.add_node("a", lambda s: lg.Send("b", {"log": ["x"]}))
    b.add_node("b", lambda s: {"log": [f"b:{s['log'][0]}"]})
    b.add_edge(lg.START, "a")
    return Built(b, {"log": []})
