"""The graphs of the differential suite, each written once against a backend namespace `lg`.

Every `build_<name>(lg)` function returns a `Built`: the graph builder (the harness calls
`compile()` itself, so a compile error is told apart from a build error and from a run error), the
input, an optional config, and an optional `probe`: a callable evaluated after the run that returns
what the nodes saw or did (call counts, reducer calls, router input...). The probe is compared like
the output, so "how many times did `d` run" is part of the contract.

`@case(expect=...)` registers a builder and pins facts about its `invoke()` observation, written
from langgraph 1.2.22's sources and checked against it. They make the langgraph side
of each test meaningful (it fails if the reference stops behaving as documented) and tell the engine
what it must reproduce even before the comparison runs. The format of `expect` is the normalised
observation of `harness.observe`: `result`, `error` as `(class name, str(exc))`, `notes` (exception
notes, uuids as `<id>`), `probe`, `stage` (where an error is raised: "build", "compile" or the
default "run"), and `streams`: `{aspect: {field: value}}` pinned for a stream aspect.

Rules for cases: no network, no sleep longer than 20 ms, state schemas defined inside the builder.
Short sleeps (5-15 ms) are used on purpose to make LangGraph's completion order differ from the
application order in parallel steps, so the harness's per-step multiset comparison is exercised.
"""

# No `from __future__ import annotations` here: state schemas defined inside builders refer to
# local names (`lg`, reducers closing over probes), which only eager annotations can see.
import operator
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Annotated, Any, Callable, Literal, NotRequired, Optional, TypedDict

CONCURRENT = (
    "\nFor troubleshooting, visit: https://docs.langchain.com/oss/python/langgraph/errors/"
    "INVALID_CONCURRENT_GRAPH_UPDATE"
)
NODE_RETURN = (
    "\nFor troubleshooting, visit: https://docs.langchain.com/oss/python/langgraph/errors/"
    "INVALID_GRAPH_NODE_RETURN_VALUE"
)
RECURSION = (
    "\nFor troubleshooting, visit: https://docs.langchain.com/oss/python/langgraph/errors/"
    "GRAPH_RECURSION_LIMIT"
)
COERCION = (
    "\nFor troubleshooting, visit: https://docs.langchain.com/oss/python/langchain/errors/"
    "MESSAGE_COERCION_FAILURE "
)


def conflict(key: str) -> str:
    return (
        f"At key '{key}': Can receive only one value per step. "
        "Use an Annotated key to handle multiple values." + CONCURRENT
    )


def recursion(limit: int) -> str:
    return (
        f"Recursion limit of {limit} reached without hitting a stop condition. "
        "You can increase the limit by setting the `recursion_limit` config key." + RECURSION
    )


def task_note(node: str) -> str:
    """The Python 3.11+ exception note LangGraph adds to an error raised inside a task."""
    return f"During task with name '{node}' and id '<id>'"


@dataclass
class Built:
    builder: Any = None
    """The uncompiled graph builder; the harness calls `builder.compile(**compile_kwargs)`."""
    input: Any = None
    config: Optional[dict] = None
    probe: Optional[Callable[[], Any]] = None
    """Called after the run; its value is normalised and compared like the output."""
    compile_kwargs: dict = field(default_factory=dict)
    graph: Any = None
    """An already compiled graph, used instead of `builder` when given."""


@dataclass
class Case:
    name: str
    build: Callable[[Any], Built]
    expect: dict
    aspects: tuple[str, ...]
    doc: str


CASES: dict[str, Case] = {}

#: What is compared for every case; see harness.ASPECTS.
ALL_ASPECTS = (
    "invoke",
    "stream_default",
    "updates",
    "values",
    "updates_values",
    "subgraphs",
    "subgraphs_values",
)
#: Cases whose error comes before anything runs only need one aspect.
BUILD_ONLY = ("invoke",)


def case(expect: Optional[dict] = None, aspects: tuple[str, ...] = ALL_ASPECTS):
    def register(fn: Callable[[Any], Built]) -> Callable[[Any], Built]:
        assert fn.__name__.startswith("build_"), fn.__name__
        name = fn.__name__[len("build_"):]
        assert name not in CASES, name
        CASES[name] = Case(name, fn, dict(expect or {}), aspects, (fn.__doc__ or "").strip())
        return fn

    return register


def sleep_ms(ms: float) -> None:
    assert ms <= 20
    time.sleep(ms / 1000)


def logging_add(calls: list) -> Callable[[Any, Any], Any]:
    """operator.add that records each call `(left, right)`: shows the fold order of a reducer."""

    def add(left, right):
        calls.append((list(left) if isinstance(left, list) else left, right))
        return left + right

    return add


# ---------------------------------------------------------------------------------------------
# Basics: chains, fan-out/fan-in, write conflicts
# ---------------------------------------------------------------------------------------------


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


# ---------------------------------------------------------------------------------------------
# Command
# ---------------------------------------------------------------------------------------------


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


# ---------------------------------------------------------------------------------------------
# Conditional edges
# ---------------------------------------------------------------------------------------------


def _branch_graph(lg, router, path_map=None, nodes=("b", "c")):
    class S(TypedDict):
        log: Annotated[list, operator.add]
        go: Any

    b = lg.StateGraph(S)
    b.add_node("a", lambda s: {"log": ["a"]})
    for n in nodes:
        b.add_node(n, (lambda name: lambda s: {"log": [name]})(n))
    b.add_edge(lg.START, "a")
    if path_map is None:
        b.add_conditional_edges("a", router)
    else:
        b.add_conditional_edges("a", router, path_map)
    return b


@case(expect={"result": {"log": ["in", "a", "c"], "go": "no"}})
def build_cond_dict_path_map(lg):
    """A dict path_map from labels to nodes."""
    b = _branch_graph(lg, lambda s: s["go"], {"yes": "b", "no": "c"})
    return Built(b, {"log": ["in"], "go": "no"})


@case(expect={"result": {"log": ["in", "a", "b"], "go": "b"}})
def build_cond_list_path_map(lg):
    """A list path_map."""
    b = _branch_graph(lg, lambda s: s["go"], ["b", "c"])
    return Built(b, {"log": ["in"], "go": "b"})


@case(expect={"result": {"log": ["in", "a", "c"], "go": "c"}})
def build_cond_literal_annotation(lg):
    """No path_map: the router's Literal return annotation defines the targets."""

    def route(s) -> Literal["b", "c"]:
        return s["go"]

    return Built(_branch_graph(lg, route), {"log": ["in"], "go": "c"})


@case(expect={"error": ("KeyError", "'zz'")})
def build_cond_literal_missing(lg):
    """A result outside the Literal return annotation raises a bare KeyError."""

    def route(s) -> Literal["b"]:
        return s["go"]

    return Built(_branch_graph(lg, route), {"log": ["in"], "go": "zz"})


@case(expect={"result": {"log": ["in", "a", "b", "c"], "go": ["c", "b"]}})
def build_cond_router_list(lg):
    """The router returns a list of node names: both run in the next step."""
    return Built(_branch_graph(lg, lambda s: s["go"]), {"log": ["in"], "go": ["c", "b"]})


@case(expect={"result": {"log": ["in", "a", "b"]}})
def build_cond_router_list_with_end(lg):
    """["b", END]: END entries are dropped, b runs."""
    return Built(_branch_graph(lg, lambda s: ["b", lg.END]), {"log": ["in"]})


@case(expect={"result": {"log": ["in", "a"]}})
def build_cond_router_end(lg):
    """The router returns END: the branch stops."""
    return Built(_branch_graph(lg, lambda s: lg.END), {"log": ["in"]})


@case(
    expect={
        "error": ("ValueError", "Branch did not return a valid destination"),
        "notes": [task_note("a")],
    }
)
def build_cond_router_none(lg):
    """The router returns None."""
    return Built(_branch_graph(lg, lambda s: None), {"log": ["in"]})


@case(expect={"error": ("KeyError", "'nope'")})
def build_cond_path_map_missing_key(lg):
    """The router's result is not a key of the dict path_map."""
    b = _branch_graph(lg, lambda s: "nope", {"yes": "b", "no": "c"})
    return Built(b, {"log": ["in"]})


@case(expect={"result": {"log": ["in", "a"]}})
def build_cond_no_path_map_unknown_node(lg):
    """Without path_map or Literal, an unknown node name is dropped silently."""
    return Built(_branch_graph(lg, lambda s: "zz"), {"log": ["in"]})


@case(expect={"result": {"log": ["in", "c"], "go": "c"}, "probe": [{"log": ["in"], "go": "c"}]})
def build_cond_entry_point(lg):
    """add_conditional_edges(START, router): the router sees the input after the reducers."""
    seen: list = []

    class S(TypedDict):
        log: Annotated[list, operator.add]
        go: str

    def route(s):
        seen.append(dict(s))
        return s["go"]

    b = lg.StateGraph(S)
    b.add_node("b", lambda s: {"log": ["b"]})
    b.add_node("c", lambda s: {"log": ["c"]})
    b.add_conditional_edges(lg.START, route, ["b", "c"])
    return Built(b, {"log": ["in"], "go": "c"}, probe=lambda: seen)


@case(expect={"result": {"n": 3, "log": ["inc", "inc", "inc", "done"]}})
def build_cond_loop_counter(lg):
    """A cycle: inc -> (inc | done) until n == 3."""

    class S(TypedDict):
        n: int
        log: Annotated[list, operator.add]

    b = lg.StateGraph(S)
    b.add_node("inc", lambda s: {"n": s["n"] + 1, "log": ["inc"]})
    b.add_node("done", lambda s: {"log": ["done"]})
    b.add_edge(lg.START, "inc")
    b.add_conditional_edges("inc", lambda s: "done" if s["n"] >= 3 else "inc", ["inc", "done"])
    b.add_edge("done", lg.END)
    return Built(b, {"n": 0})


@case(expect={"result": {"log": ["in", "a", "b", "c"]}})
def build_cond_two_routers(lg):
    """Two routers with different names on one node: both run."""

    class S(TypedDict):
        log: Annotated[list, operator.add]

    def to_b(s):
        return "b"

    def to_c(s):
        return "c"

    b = lg.StateGraph(S)
    b.add_node("a", lambda s: {"log": ["a"]})
    b.add_node("b", lambda s: {"log": ["b"]})
    b.add_node("c", lambda s: {"log": ["c"]})
    b.add_edge(lg.START, "a")
    b.add_conditional_edges("a", to_b, ["b"])
    b.add_conditional_edges("a", to_c, ["c"])
    return Built(b, {"log": ["in"]})


@case(
    expect={
        "result": {"log": ["in", "a", "sib", "c"], "x": 5, "y": 9},
        "probe": [{"log": ["in", "a"], "x": 5, "notakey": 1}],
    }
)
def build_router_sees_own_writes(lg):
    """The router sees the step-start state with only its node's writes reduced in, plus the raw extra
    keys of the node's return value; a parallel sibling's writes are not visible."""
    seen: list = []

    class S(TypedDict):
        log: Annotated[list, operator.add]
        x: int
        y: int

    def route(s):
        seen.append(dict(s))
        return "c"

    b = lg.StateGraph(S)
    b.add_node("a", lambda s: {"log": ["a"], "x": 5, "notakey": 1})
    b.add_node("sib", lambda s: {"log": ["sib"], "y": 9})
    b.add_node("c", lambda s: {"log": ["c"]})
    b.add_edge(lg.START, "a")
    b.add_edge(lg.START, "sib")
    b.add_conditional_edges("a", route, ["c"])
    return Built(b, {"log": ["in"]}, probe=lambda: seen)


# ---------------------------------------------------------------------------------------------
# Joins, defer, recursion limit
# ---------------------------------------------------------------------------------------------


def _uneven(lg, join: str, runs: Counter):
    """a -> b -> b2 -> d and a -> c -> d, joined as `join` says."""

    class S(TypedDict):
        log: Annotated[list, operator.add]

    def node(name):
        def fn(s):
            runs[name] += 1
            return {"log": [name]}

        return fn

    b = lg.StateGraph(S)
    for n in ("a", "b", "b2", "c"):
        b.add_node(n, node(n))
    b.add_node("d", node("d"), defer=(join == "defer"))
    b.add_edge(lg.START, "a")
    b.add_edge("a", "b")
    b.add_edge("b", "b2")
    b.add_edge("a", "c")
    if join == "waiting":
        b.add_edge(["b2", "c"], "d")
    else:
        b.add_edge("b2", "d")
        b.add_edge("c", "d")
    b.add_edge("d", lg.END)
    return b


@case(
    expect={
        "result": {"log": ["a", "b", "c", "b2", "d"]},
        "probe": {"a": 1, "b": 1, "b2": 1, "c": 1, "d": 1},
    }
)
def build_waiting_edge_uneven(lg):
    """add_edge(["b2", "c"], "d") with unequal branches: d runs once."""
    runs = Counter()
    return Built(_uneven(lg, "waiting", runs), {"log": []}, probe=lambda: dict(runs))


@case(
    expect={
        "result": {"log": ["a", "b", "c", "b2", "d", "d"]},
        "probe": {"a": 1, "b": 1, "b2": 1, "c": 1, "d": 2},
    }
)
def build_plain_edges_uneven(lg):
    """Two plain edges b2 -> d and c -> d with unequal branches: d runs twice."""
    runs = Counter()
    return Built(_uneven(lg, "plain", runs), {"log": []}, probe=lambda: dict(runs))


@case(
    expect={
        "result": {"log": ["a", "b", "c", "b2", "d"]},
        "probe": {"a": 1, "b": 1, "b2": 1, "c": 1, "d": 1},
    }
)
def build_defer_uneven(lg):
    """Plain edges into a defer=True node: d runs once, in the last step."""
    runs = Counter()
    return Built(_uneven(lg, "defer", runs), {"log": []}, probe=lambda: dict(runs))


@case(expect={"result": {"log": ["a", "b", "c", "d"]}})
def build_waiting_edge_three_sources(lg):
    """add_edge(["a", "b", "c"], "d") from a parallel fan-out."""

    class S(TypedDict):
        log: Annotated[list, operator.add]

    b = lg.StateGraph(S)
    for n in ("a", "b", "c", "d"):
        b.add_node(n, (lambda name: lambda s: {"log": [name]})(n))
    for n in ("a", "b", "c"):
        b.add_edge(lg.START, n)
    b.add_edge(["a", "b", "c"], "d")
    return Built(b, {"log": []})


@case(expect={"error": ("GraphRecursionError", recursion(5)), "probe": 5})
def build_recursion_endless_limit5(lg):
    """An endless loop with recursion_limit=5 runs its node 5 times, then raises."""
    runs: list = []

    class S(TypedDict):
        n: int

    def loop(s):
        runs.append(1)
        return {"n": s["n"] + 1}

    b = lg.StateGraph(S)
    b.add_node("loop", loop)
    b.add_edge(lg.START, "loop")
    b.add_edge("loop", "loop")
    return Built(b, {"n": 0}, config={"recursion_limit": 5}, probe=lambda: len(runs))


def _chain3(lg):
    class S(TypedDict):
        log: Annotated[list, operator.add]

    b = lg.StateGraph(S)
    for n in ("a", "b", "c"):
        b.add_node(n, (lambda name: lambda s: {"log": [name]})(n))
    b.add_edge(lg.START, "a")
    b.add_edge("a", "b")
    b.add_edge("b", "c")
    return b


@case(expect={"error": ("GraphRecursionError", recursion(3))})
def build_recursion_chain3_limit3(lg):
    """A chain of 3 nodes needs recursion_limit >= 4."""
    return Built(_chain3(lg), {"log": []}, config={"recursion_limit": 3})


@case(expect={"result": {"log": ["a", "b", "c"]}})
def build_recursion_chain3_limit4(lg):
    """A chain of 3 nodes with recursion_limit=4 finishes."""
    return Built(_chain3(lg), {"log": []}, config={"recursion_limit": 4})


@case(expect={"error": ("ValueError", "recursion_limit must be at least 1")})
def build_recursion_limit_zero(lg):
    """recursion_limit=0 is rejected."""
    return Built(_chain3(lg), {"log": []}, config={"recursion_limit": 0})


# ---------------------------------------------------------------------------------------------
# Inputs and node return values
# ---------------------------------------------------------------------------------------------


def _simple(lg, node_fn):
    class S(TypedDict):
        a: int
        log: Annotated[list, operator.add]

    b = lg.StateGraph(S)
    b.add_node("n", node_fn)
    b.add_edge(lg.START, "n")
    return b


@case(expect={"error": ("EmptyInputError", "Received no input for __start__")})
def build_empty_input_none(lg):
    """invoke(None) on a fresh graph."""
    return Built(_simple(lg, lambda s: {"a": 1}), None)


@case(
    expect={
        "result": {"a": 1, "log": []},
        "probe": 1,
        "streams": {"updates": {"chunks": [{"n": None}]}},
    }
)
def build_node_returns_none(lg):
    """A node returning None writes nothing; its updates chunk is {node: None}."""
    runs: list = []

    def n(s):
        runs.append(1)
        return None

    return Built(_simple(lg, n), {"a": 1}, probe=lambda: len(runs))


@case(
    expect={
        "error": ("InvalidUpdateError", "Expected dict, got 5" + NODE_RETURN),
        "notes": [task_note("n")],
    }
)
def build_node_returns_int(lg):
    """A node returning 5."""
    return Built(_simple(lg, lambda s: 5), {"a": 1})


@case(expect={"error": ("InvalidUpdateError", "Expected dict, got [('a', 2)]" + NODE_RETURN)})
def build_node_returns_list_of_tuples(lg):
    """A node returning a list of tuples (only Command.update accepts that)."""
    return Built(_simple(lg, lambda s: [("a", 2)]), {"a": 1})


@case(expect={"result": {"a": 2, "log": ["n"]}})
def build_unknown_keys_dropped(lg):
    """Keys that are not channels are dropped from a node's return value."""
    return Built(_simple(lg, lambda s: {"a": 2, "zzz": 5, "log": ["n"]}), {"a": 1})


@case(expect={"result": {"a": 1, "log": ["n"]}, "probe": [{"a": 1, "log": []}]})
def build_input_unknown_keys(lg):
    """Unknown input keys are dropped."""
    seen: list = []

    def n(s):
        seen.append(dict(s))
        return {"log": ["n"]}

    return Built(_simple(lg, n), {"a": 1, "bogus": 2}, probe=lambda: seen)


@case(
    expect={
        "error": ("InvalidUpdateError", "Expected dict, got 5" + NODE_RETURN),
        "notes": [task_note("__start__")],
    }
)
def build_non_dict_input(lg):
    """invoke(5): the misleading node-return error."""
    return Built(_simple(lg, lambda s: {"a": 1}), 5)


@case(expect={"result": None, "probe": [{"log": []}]})
def build_invoke_empty_dict_returns_none(lg):
    """invoke({}) where no node writes anything returns None; the node sees the reducer initial value."""
    seen: list = []

    def n(s):
        seen.append(dict(s))

    return Built(_simple(lg, n), {}, probe=lambda: seen)


@case(expect={"result": {"log": ["n"]}})
def build_invoke_empty_dict_with_write(lg):
    """invoke({}) where the node writes: the output only holds the written channels."""
    return Built(_simple(lg, lambda s: {"log": ["n"]}), {})


@case(expect={"result": {"a": 1, "log": []}})
def build_input_only_no_writes(lg):
    """The input is written, the node writes nothing: invoke returns the input after the reducers."""
    return Built(_simple(lg, lambda s: {}), {"a": 1})


# ---------------------------------------------------------------------------------------------
# Reducers and channels
# ---------------------------------------------------------------------------------------------


@case(
    expect={
        "result": {"items": ["a", "b", "c"]},
        "probe": {"seen": [[], ["items"], ["items"]], "calls": [(["a"], ["b"]), (["a", "b"], ["c"])]},
    }
)
def build_optional_reducer_channel(lg):
    """`list[str] | None` has no constructor: the channel starts empty, the key is absent from node
    input, and the first write is stored without calling the reducer."""
    calls: list = []
    seen: list = []

    class S(TypedDict):
        items: Annotated[list[str] | None, logging_add(calls)]

    def node(name):
        def fn(s):
            seen.append(sorted(s))
            return {"items": [name]}

        return fn

    b = lg.StateGraph(S)
    for n in ("a", "b", "c"):
        b.add_node(n, node(n))
    b.add_edge(lg.START, "a")
    b.add_edge("a", "b")
    b.add_edge("b", "c")
    return Built(b, {}, probe=lambda: {"seen": seen, "calls": calls})


@case(
    expect={
        "result": {"lst": [1], "num": 1, "s": "x", "d": {"k": 1}, "plain": 1},
        "probe": [{"lst": [], "num": 0, "s": "", "d": {}, "plain": 1}],
    }
)
def build_reducer_initial_values(lg):
    """Reducer keys start from the type's constructor value ([], 0, '', {}) and appear in node input."""
    seen: list = []

    class S(TypedDict):
        lst: Annotated[list, operator.add]
        num: Annotated[int, operator.add]
        s: Annotated[str, operator.add]
        d: Annotated[dict, operator.or_]
        plain: int

    def n(s):
        seen.append(dict(s))
        return {"lst": [1], "num": 1, "s": "x", "d": {"k": 1}}

    b = lg.StateGraph(S)
    b.add_node("n", n)
    b.add_edge(lg.START, "n")
    return Built(b, {"plain": 1}, probe=lambda: seen)


@case(expect={"result": {"d": {"a": 1, "b": 2, "c": 3}, "n": 6}})
def build_reducer_custom_functions(lg):
    """Custom reducer functions (dict merge, max) folded over parallel writes."""

    def merge(left: dict, right: dict) -> dict:
        return {**left, **right}

    def keep_max(left: int, right: int) -> int:
        return max(left, right)

    class S(TypedDict):
        d: Annotated[dict, merge]
        n: Annotated[int, keep_max]

    b = lg.StateGraph(S)
    b.add_node("x", lambda s: {"d": {"b": 2}, "n": 6})
    b.add_node("y", lambda s: {"d": {"c": 3}, "n": 4})
    b.add_edge(lg.START, "x")
    b.add_edge(lg.START, "y")
    return Built(b, {"d": {"a": 1}, "n": 5})


@case(
    expect={
        "result": {"log": ["ow"]},
        "probe": [([], ["in"]), (["in"], ["a"])],
    }
)
def build_overwrite(lg):
    """Overwrite bypasses the reducer: a (before) is folded then thrown away, c (after) is ignored."""
    calls: list = []

    class S(TypedDict):
        log: Annotated[list, logging_add(calls)]

    b = lg.StateGraph(S)
    b.add_node("a", lambda s: {"log": ["a"]})
    b.add_node("b", lambda s: {"log": lg.Overwrite(["ow"])})
    b.add_node("c", lambda s: {"log": ["c"]})
    for n in ("a", "b", "c"):
        b.add_edge(lg.START, n)
    return Built(b, {"log": ["in"]}, probe=lambda: calls)


@case(expect={"result": {"log": ["ow", "after"]}})
def build_overwrite_dict_form(lg):
    """The dict form {"__overwrite__": value}, then a normal write in the next step."""

    class S(TypedDict):
        log: Annotated[list, operator.add]

    b = lg.StateGraph(S)
    b.add_node("a", lambda s: {"log": {"__overwrite__": ["ow"]}})
    b.add_node("b", lambda s: {"log": ["after"]})
    b.add_edge(lg.START, "a")
    b.add_edge("a", "b")
    return Built(b, {"log": ["in"]})


@case(
    expect={
        "error": (
            "InvalidUpdateError",
            "Can receive only one Overwrite value per super-step." + CONCURRENT,
        )
    }
)
def build_overwrite_two_error(lg):
    """Two Overwrites of one key in one step."""

    class S(TypedDict):
        log: Annotated[list, operator.add]

    b = lg.StateGraph(S)
    b.add_node("p", lambda s: {"log": lg.Overwrite(["p"])})
    b.add_node("q", lambda s: {"log": lg.Overwrite(["q"])})
    b.add_edge(lg.START, "p")
    b.add_edge(lg.START, "q")
    return Built(b, {"log": ["in"]})


@case(
    expect={"result": {"log": ["in", "a", "MUTATED", "b"]}, "probe": [["in", "a", "MUTATED"]]}
)
def build_inplace_mutation(lg):
    """Node input values are the live channel objects: an in-place append persists."""
    seen: list = []

    class S(TypedDict):
        log: Annotated[list, operator.add]

    def a(s):
        return {"log": ["a"]}

    def mutate(s):
        s["log"].append("MUTATED")
        return None

    def b_(s):
        seen.append(list(s["log"]))
        return {"log": ["b"]}

    b = lg.StateGraph(S)
    b.add_node("a", a)
    b.add_node("mutate", mutate)
    b.add_node("b", b_)
    b.add_edge(lg.START, "a")
    b.add_edge("a", "mutate")
    b.add_edge("mutate", "b")
    return Built(b, {"log": ["in"]}, probe=lambda: seen)


@case(
    expect={
        "error": (
            "ValueError",
            "Invalid reducer signature. Expected (a, b) -> c. Got (a)",
        ),
        "stage": "build",
    },
    aspects=BUILD_ONLY,
)
def build_bad_reducer_signature(lg):
    """A reducer with one parameter is rejected when the StateGraph is constructed."""

    def one(a):
        return a

    class S(TypedDict):
        log: Annotated[list, one]

    b = lg.StateGraph(S)
    return Built(b, {})


# ---------------------------------------------------------------------------------------------
# Messages
# ---------------------------------------------------------------------------------------------


@case(
    expect={
        "result": {
            "messages": [
                ("HumanMessage", "human", "hello", None, None, None, "<uuid-1>"),
                ("AIMessage", "ai", "hi there", None, [], None, "<uuid-2>"),
                ("SystemMessage", "system", "be brief", None, None, None, "<uuid-3>"),
                ("HumanMessage", "human", "from dict", None, None, None, "<uuid-4>"),
                ("AIMessage", "ai", "pong", None, [], None, "<uuid-5>"),
            ]
        }
    }
)
def build_messages_coercion(lg):
    """MessagesState with a str input, then a node returning a tuple, a dict and a message."""
    b = lg.StateGraph(lg.MessagesState)
    b.add_node(
        "chat",
        lambda s: {
            "messages": [
                ("ai", "hi there"),
                ("system", "be brief"),
                {"role": "user", "content": "from dict"},
                lg.AIMessage("pong"),
            ]
        },
    )
    b.add_edge(lg.START, "chat")
    return Built(b, {"messages": "hello"})


def _messages_graph(lg, right):
    class S(TypedDict):
        messages: Annotated[list, lg.add_messages]

    b = lg.StateGraph(S)
    b.add_node("edit", lambda s: {"messages": right()})
    b.add_edge(lg.START, "edit")
    return b


def _seed_history(lg):
    return [lg.HumanMessage("hi", id="1"), lg.AIMessage("hello", id="2")]


@case(
    expect={
        "result": {
            "messages": [
                ("HumanMessage", "human", "hi", None, None, None, "1"),
                ("AIMessage", "ai", "hello", None, [], None, "2"),
                ("AIMessage", "ai", "again", None, [], None, "3"),
            ]
        }
    }
)
def build_seed001_messages_append(lg):
    """Seed 001 6.3: a message with a new id is appended."""
    b = _messages_graph(lg, lambda: [lg.AIMessage("again", id="3")])
    return Built(b, {"messages": _seed_history(lg)})


@case(
    expect={
        "result": {
            "messages": [
                ("HumanMessage", "human", "hi", None, None, None, "1"),
                ("AIMessage", "ai", "改写了", None, [], None, "2"),
            ]
        }
    }
)
def build_seed001_messages_replace(lg):
    """Seed 001 6.3: a message with an existing id replaces it in place."""
    b = _messages_graph(lg, lambda: [lg.AIMessage("改写了", id="2")])
    return Built(b, {"messages": _seed_history(lg)})


@case(expect={"result": {"messages": [("AIMessage", "ai", "hello", None, [], None, "2")]}})
def build_seed001_messages_remove(lg):
    """Seed 001 6.3: RemoveMessage(id="1") deletes that message."""
    b = _messages_graph(lg, lambda: [lg.RemoveMessage(id="1")])
    return Built(b, {"messages": _seed_history(lg)})


@case(
    expect={
        "result": {
            "messages": [
                ("HumanMessage", "human", "x", None, None, None, "1"),
                ("SystemMessage", "system", "new", None, None, None, "<uuid-1>"),
            ]
        }
    }
)
def build_messages_replace_then_remove(lg):
    """Within one right side: replace id 1, remove id 2, remove then re-add id 1, append a new one."""
    b = _messages_graph(
        lg,
        lambda: [
            lg.HumanMessage("changed", id="1"),
            lg.RemoveMessage(id="2"),
            lg.RemoveMessage(id="1"),
            lg.HumanMessage("x", id="1"),
            lg.SystemMessage("new"),
        ],
    )
    return Built(b, {"messages": _seed_history(lg)})


@case(
    expect={
        "result": {
            "messages": [
                ("HumanMessage", "human", "fresh", None, None, None, "<uuid-1>"),
                ("AIMessage", "ai", "start", None, [], None, "<uuid-2>"),
            ]
        }
    }
)
def build_messages_remove_all(lg):
    """RemoveMessage(id=REMOVE_ALL_MESSAGES): only what follows the marker survives."""
    b = _messages_graph(
        lg,
        lambda: [
            lg.HumanMessage("dropped"),
            lg.RemoveMessage(id=lg.REMOVE_ALL_MESSAGES),
            lg.HumanMessage("fresh"),
            ("ai", "start"),
        ],
    )
    return Built(b, {"messages": _seed_history(lg)})


@case(
    expect={
        "error": (
            "ValueError",
            "Attempting to delete a message with an ID that doesn't exist ('nope')",
        ),
        "notes": [],  # raised by the reducer at the barrier, not inside a task
    }
)
def build_messages_remove_missing(lg):
    """Removing an id that does not exist raises."""
    b = _messages_graph(lg, lambda: [lg.RemoveMessage(id="nope")])
    return Built(b, {"messages": _seed_history(lg)})


@case(
    expect={
        "error": (
            "ValueError",
            "Message dict must contain 'role' and 'content' keys, got {'role': 'x'}" + COERCION,
        )
    }
)
def build_messages_bad_dict(lg):
    """A dict without content cannot be coerced to a message."""
    b = _messages_graph(lg, lambda: [{"role": "x"}])
    return Built(b, {"messages": []})


@case(
    expect={
        "error": (
            "ValueError",
            "Unexpected message type: 'wizard'. Use one of 'human', 'user', 'ai', 'assistant', "
            "'function', 'tool', 'system', or 'developer'." + COERCION,
        )
    }
)
def build_messages_bad_role(lg):
    """A tuple with an unknown role."""
    b = _messages_graph(lg, lambda: [("wizard", "hi")])
    return Built(b, {"messages": []})


@case(
    expect={
        "result": {
            "messages": [
                ("HumanMessage", "human", "q", None, None, None, "<uuid-1>"),
                ("AIMessage", "ai", "a", None, [], None, "<uuid-2>"),
            ]
        },
        "probe": [("HumanMessage", "human", "q", None, None, None, "<uuid-1>")],
    }
)
def build_messages_input_ids_mutated(lg):
    """add_messages gives the caller's own message objects ids, in place."""
    given = [lg.HumanMessage("q")]
    b = lg.StateGraph(lg.MessagesState)
    b.add_node("n", lambda s: {"messages": [lg.AIMessage("a")]})
    b.add_edge(lg.START, "n")
    return Built(b, {"messages": given}, probe=lambda: given)


@case(
    expect={
        "result": {
            "messages": [
                ("HumanMessage", "human", "q", None, None, None, "<uuid-1>"),
                ("AIMessage", "ai", "from a", None, [], None, "<uuid-2>"),
                ("AIMessage", "ai", "from b", None, [], None, "<uuid-3>"),
            ]
        }
    }
)
def build_messages_parallel_ids(lg):
    """Two parallel nodes append id-less messages: ids are given in application order."""
    b = lg.StateGraph(lg.MessagesState)

    def a(s):
        sleep_ms(10)
        return {"messages": [lg.AIMessage("from a")]}

    b.add_node("a", a)
    b.add_node("b", lambda s: {"messages": [lg.AIMessage("from b")]})
    b.add_edge(lg.START, "a")
    b.add_edge(lg.START, "b")
    return Built(b, {"messages": [("user", "q")]})


# ---------------------------------------------------------------------------------------------
# Schemas
# ---------------------------------------------------------------------------------------------


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
        note: Optional[str] = None

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


# ---------------------------------------------------------------------------------------------
# Build and compile errors (exact texts, and the stage at which they are raised)
# ---------------------------------------------------------------------------------------------


def _plain(lg):
    class S(TypedDict):
        x: int

    b = lg.StateGraph(S)
    b.add_node("a", lambda s: {"x": 1})
    return b


@case(
    expect={
        "error": (
            "ValueError",
            "Graph must have an entrypoint: add at least one edge from START to another node",
        ),
        "stage": "compile",
    },
    aspects=BUILD_ONLY,
)
def build_err_no_entry_point(lg):
    """No edge from START."""
    return Built(_plain(lg), {"x": 0})


@case(
    expect={"error": ("ValueError", "Found edge ending at unknown node `zz`"), "stage": "compile"},
    aspects=BUILD_ONLY,
)
def build_err_edge_to_unknown_node(lg):
    """add_edge("a", "zz") is only validated at compile()."""
    b = _plain(lg)
    b.add_edge(lg.START, "a")
    b.add_edge("a", "zz")
    return Built(b, {"x": 0})


@case(
    expect={"error": ("ValueError", "Found edge starting at unknown node 'zz'"), "stage": "compile"},
    aspects=BUILD_ONLY,
)
def build_err_edge_from_unknown_node(lg):
    """add_edge("zz", "a") is only validated at compile()."""
    b = _plain(lg)
    b.add_edge(lg.START, "a")
    b.add_edge("zz", "a")
    return Built(b, {"x": 0})


@case(
    expect={"error": ("ValueError", "Need to add_node `zz` first"), "stage": "build"},
    aspects=BUILD_ONLY,
)
def build_err_waiting_edge_unknown_node(lg):
    """add_edge(["a", "zz"], ...) fails immediately."""
    b = _plain(lg)
    b.add_node("b", lambda s: {"x": 2})
    b.add_edge(lg.START, "a")
    b.add_edge(["a", "zz"], "b")
    return Built(b, {"x": 0})


@case(
    expect={"error": ("ValueError", "Node `__start__` is reserved."), "stage": "build"},
    aspects=BUILD_ONLY,
)
def build_err_reserved_start_name(lg):
    b = _plain(lg)
    b.add_node(lg.START, lambda s: {"x": 1})
    return Built(b, {"x": 0})


@case(
    expect={"error": ("ValueError", "Node `__end__` is reserved."), "stage": "build"},
    aspects=BUILD_ONLY,
)
def build_err_reserved_end_name(lg):
    b = _plain(lg)
    b.add_node(lg.END, lambda s: {"x": 1})
    return Built(b, {"x": 0})


@case(
    expect={"error": ("ValueError", "Node `a` already present."), "stage": "build"},
    aspects=BUILD_ONLY,
)
def build_err_duplicate_node(lg):
    b = _plain(lg)
    b.add_node("a", lambda s: {"x": 2})
    return Built(b, {"x": 0})


@case(
    expect={
        "error": ("ValueError", "At 'a' node, 'route' branch found unknown target 'zz'"),
        "stage": "compile",
    },
    aspects=BUILD_ONLY,
)
def build_err_cond_unknown_target(lg):
    """A path_map naming a node that does not exist."""

    def route(s):
        return "yes"

    b = _plain(lg)
    b.add_edge(lg.START, "a")
    b.add_conditional_edges("a", route, {"yes": "zz"})
    return Built(b, {"x": 0})


@case(
    expect={
        "error": ("ValueError", "At 'a' node, 'condition' branch found unknown target 'zz'"),
        "stage": "compile",
    },
    aspects=BUILD_ONLY,
)
def build_err_cond_unknown_target_lambda(lg):
    """The same with a lambda router, which is named `condition`."""
    b = _plain(lg)
    b.add_edge(lg.START, "a")
    b.add_conditional_edges("a", lambda s: "zz", ["zz"])
    return Built(b, {"x": 0})


@case(
    expect={
        "error": ("ValueError", "'|' is a reserved character and is not allowed in the node names."),
        "stage": "build",
    },
    aspects=BUILD_ONLY,
)
def build_err_pipe_in_name(lg):
    b = _plain(lg)
    b.add_node("a|b", lambda s: {"x": 1})
    return Built(b, {"x": 0})


@case(
    expect={
        "error": ("ValueError", "':' is a reserved character and is not allowed in the node names."),
        "stage": "build",
    },
    aspects=BUILD_ONLY,
)
def build_err_colon_in_name(lg):
    b = _plain(lg)
    b.add_node("a:b", lambda s: {"x": 1})
    return Built(b, {"x": 0})


@case(
    expect={"error": ("ValueError", "END cannot be a start node"), "stage": "build"},
    aspects=BUILD_ONLY,
)
def build_err_end_as_start(lg):
    b = _plain(lg)
    b.add_edge(lg.END, "a")
    return Built(b, {"x": 0})


@case(
    expect={"error": ("ValueError", "START cannot be an end node"), "stage": "build"},
    aspects=BUILD_ONLY,
)
def build_err_start_as_end(lg):
    b = _plain(lg)
    b.add_edge("a", lg.START)
    return Built(b, {"x": 0})


@case(
    expect={
        "error": ("ValueError", "Branch with name `route` already exists for node `a`"),
        "stage": "build",
    },
    aspects=BUILD_ONLY,
)
def build_err_duplicate_router(lg):
    def route(s):
        return lg.END

    b = _plain(lg)
    b.add_edge(lg.START, "a")
    b.add_conditional_edges("a", route)
    b.add_conditional_edges("a", route)
    return Built(b, {"x": 0})


@case(
    expect={"error": ("ValueError", "Interrupt node `zz` not found"), "stage": "compile"},
    aspects=BUILD_ONLY,
)
def build_err_interrupt_unknown_node(lg):
    b = _plain(lg)
    b.add_edge(lg.START, "a")
    return Built(b, {"x": 0}, compile_kwargs={"interrupt_before": ["zz"]})


# ---------------------------------------------------------------------------------------------
# Subgraphs
# ---------------------------------------------------------------------------------------------


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
            "subgraphs": {
                "chunks": [((), {"subg": {"log": ["from-sub"]}}), ((), {"after": {"log": ["after"]}})]
            }
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


# ---------------------------------------------------------------------------------------------
# Exceptions raised by nodes
# ---------------------------------------------------------------------------------------------


@case(expect={"error": ("ValueError", "boom"), "notes": [task_note("bad")]})
def build_node_raises(lg):
    """A node raising ValueError after a successful first node."""

    class S(TypedDict):
        log: Annotated[list, operator.add]

    def bad(s):
        raise ValueError("boom")

    b = lg.StateGraph(S)
    b.add_node("ok", lambda s: {"log": ["ok"]})
    b.add_node("bad", bad)
    b.add_edge(lg.START, "ok")
    b.add_edge("ok", "bad")
    return Built(b, {"log": []})


class CustomError(Exception):
    def __init__(self, code):
        super().__init__(f"custom failure {code}")
        self.code = code


@case(expect={"error": ("CustomError", "custom failure 42")})
def build_node_raises_custom(lg):
    """A user-defined exception class passes through unchanged."""

    class S(TypedDict):
        x: int

    def bad(s):
        raise CustomError(42)

    b = lg.StateGraph(S)
    b.add_node("bad", bad)
    b.add_edge(lg.START, "bad")
    return Built(b, {"x": 1})


@case(expect={"error": ("KeyError", "'missing'")})
def build_node_reads_missing_key(lg):
    """A node reading a key that was never written gets a KeyError (the key is absent)."""

    class S(TypedDict):
        x: int
        missing: int

    b = lg.StateGraph(S)
    b.add_node("n", lambda s: {"x": s["missing"]})
    b.add_edge(lg.START, "n")
    return Built(b, {"x": 1})


@case(expect={"error": ("ValueError", "boom in router"), "notes": [task_note("a")]})
def build_router_raises(lg):
    """An exception raised by a router."""

    class S(TypedDict):
        x: int

    def route(s):
        raise ValueError("boom in router")

    b = lg.StateGraph(S)
    b.add_node("a", lambda s: {"x": 2})
    b.add_node("b", lambda s: {"x": 3})
    b.add_edge(lg.START, "a")
    b.add_conditional_edges("a", route, ["b"])
    return Built(b, {"x": 1})


# ---------------------------------------------------------------------------------------------
# The seed articles, translated to Python
# ---------------------------------------------------------------------------------------------


@case(expect={"error": ("InvalidUpdateError", conflict("messages"))})
def build_seed000_race_whole_list_plain_key(lg):
    """Seed 000: two parallel nodes read [] and write back the whole list into a plain key."""

    class S(TypedDict):
        messages: list

    def node_a(s):
        return {"messages": [*s["messages"], "msgA"]}

    def node_b(s):
        return {"messages": [*s["messages"], "msgB"]}

    b = lg.StateGraph(S)
    b.add_node("node_a", node_a)
    b.add_node("node_b", node_b)
    b.add_edge(lg.START, "node_a")
    b.add_edge(lg.START, "node_b")
    return Built(b, {"messages": []})


@case(expect={"result": {"messages": ["msgA", "msgB"]}})
def build_seed000_race_deltas_reducer_key(lg):
    """Seed 000, the fix: nodes only send deltas into an operator.add key."""

    class S(TypedDict):
        messages: Annotated[list, operator.add]

    def node_a(s):
        sleep_ms(8)
        return {"messages": ["msgA"]}

    def node_b(s):
        return {"messages": ["msgB"]}

    b = lg.StateGraph(S)
    b.add_node("node_a", node_a)
    b.add_node("node_b", node_b)
    b.add_edge(lg.START, "node_a")
    b.add_edge(lg.START, "node_b")
    return Built(b, {"messages": []})


@case(
    expect={
        "result": {"messages": ["try-1", "try-2", "try-3"], "retries": 3, "answer": "final after 3"},
    }
)
def build_seed000_retries_and_answer(lg):
    """Seed 000: `retries` accumulates (nodes send 1), `answer` is overwritten by a single writer per
    step, `messages` appends; a loop retries until three attempts."""

    class S(TypedDict):
        messages: Annotated[list, operator.add]
        retries: Annotated[int, operator.add]
        answer: str

    def attempt(s):
        n = s["retries"] + 1
        return {"messages": [f"try-{n}"], "retries": 1, "answer": f"draft {n}"}

    def finish(s):
        return {"answer": f"final after {s['retries']}"}

    b = lg.StateGraph(S)
    b.add_node("attempt", attempt)
    b.add_node("finish", finish)
    b.add_edge(lg.START, "attempt")
    b.add_conditional_edges(
        "attempt", lambda s: "finish" if s["retries"] >= 3 else "attempt", ["attempt", "finish"]
    )
    b.add_edge("finish", lg.END)
    return Built(b, {"messages": []})


@case(expect={"error": ("InvalidUpdateError", conflict("v"))})
def build_seed001_refund_parallel_lookups(lg):
    """Seed 001 6.1: the refund assistant looks up the order (x) and the user history (y) in parallel;
    both write the plain key v."""

    class P(TypedDict):
        v: int

    def x(s):
        return {"v": 1}

    def y(s):
        return {"v": 2}

    builder = lg.StateGraph(P)
    builder.add_node("x", x)
    builder.add_node("y", y)
    builder.add_edge(lg.START, "x")
    builder.add_edge(lg.START, "y")
    return Built(builder, {"v": 0})


@case(expect={"result": {"steps": ["a", "b"], "amount": 9.5, "n": 4}})
def build_seed001_reducer_table(lg):
    """Seed 001 6.2: `steps` with operator.add gets ["a", "b"] from parallel A and B; the plain key
    `n` written 2 then 4 in consecutive steps ends at 4 (last writer wins); `amount` has no reducer."""

    class TicketState(TypedDict):
        steps: Annotated[list[str], operator.add]
        amount: float
        n: int

    b = lg.StateGraph(TicketState)
    b.add_node("A", lambda s: {"steps": ["a"]})
    b.add_node("B", lambda s: {"steps": ["b"], "n": 2})
    b.add_node("C", lambda s: {"n": 4, "amount": 9.5})
    b.add_edge(lg.START, "A")
    b.add_edge(lg.START, "B")
    b.add_edge("B", "C")
    return Built(b, {"amount": 1.0})


def _fake_llm(lg, script: list):
    """A scripted chat model: returns the next AIMessage of `script` on each call."""
    calls: list = []

    def invoke(messages):
        calls.append(len(messages))
        return script[len(calls) - 1]

    return invoke, calls


def add(a: int, b: int) -> int:
    """A real tool."""
    return a + b


def multiply(a: int, b: int) -> int:
    return a * b


TOOLS = {"add": add, "multiply": multiply}


@case(
    expect={
        "result": {
            "messages": [
                ("HumanMessage", "human", "你好，介绍一下自己", None, None, None, "<uuid-1>"),
                ("AIMessage", "ai", "I am a scripted model.", None, [], None, "<uuid-2>"),
            ]
        },
        "probe": [1],
    }
)
def build_seed003_single_node_agent(lg):
    """Seed 003 section 04: a single-node LLM agent, messages appended by a reducer."""
    llm, calls = _fake_llm(lg, [lg.AIMessage("I am a scripted model.")])

    class AgentState(TypedDict):
        messages: Annotated[list, lg.add_messages]

    def call_llm(state):
        return {"messages": [llm(state["messages"])]}

    b = lg.StateGraph(AgentState)
    b.add_node("llm", call_llm)
    b.add_edge(lg.START, "llm")
    b.add_edge("llm", lg.END)
    return Built(b, {"messages": [lg.HumanMessage("你好，介绍一下自己")]}, probe=lambda: calls)


@case(
    expect={
        "result": {
            "messages": [
                ("HumanMessage", "human", "What is (2 + 3) * 4?", None, None, None, "<uuid-1>"),
                (
                    "AIMessage", "ai", "", None,
                    [{"name": "add", "args": {"a": 2, "b": 3}, "id": "call_1", "type": "tool_call"}],
                    None, "<uuid-2>",
                ),
                ("ToolMessage", "tool", "5", "add", None, "call_1", "<uuid-3>"),
                (
                    "AIMessage", "ai", "", None,
                    [{"name": "multiply", "args": {"a": 5, "b": 4}, "id": "call_2", "type": "tool_call"}],
                    None, "<uuid-4>",
                ),
                ("ToolMessage", "tool", "20", "multiply", None, "call_2", "<uuid-5>"),
                ("AIMessage", "ai", "The answer is 20.", None, [], None, "<uuid-6>"),
            ]
        },
        "probe": [1, 3, 5],
    }
)
def build_seed003_react_loop(lg):
    """Seed 003 section 06: the ReAct loop llm -> tools -> llm with a scripted model and real tools."""
    llm, calls = _fake_llm(
        lg,
        [
            lg.AIMessage("", tool_calls=[{"name": "add", "args": {"a": 2, "b": 3}, "id": "call_1"}]),
            lg.AIMessage(
                "", tool_calls=[{"name": "multiply", "args": {"a": 5, "b": 4}, "id": "call_2"}]
            ),
            lg.AIMessage("The answer is 20."),
        ],
    )

    def call_llm(state: lg.MessagesState):
        return {"messages": [llm(state["messages"])]}

    def call_tools(state: lg.MessagesState):
        last = state["messages"][-1]
        out = []
        for call in last.tool_calls:
            result = TOOLS[call["name"]](**call["args"])
            out.append(lg.ToolMessage(str(result), tool_call_id=call["id"], name=call["name"]))
        return {"messages": out}

    def route_after_llm(state: lg.MessagesState) -> str:
        last = state["messages"][-1]
        if getattr(last, "tool_calls", None):
            return "tools"
        return lg.END

    b = lg.StateGraph(lg.MessagesState)
    b.add_node("llm", call_llm)
    b.add_node("tools", call_tools)
    b.add_edge(lg.START, "llm")
    b.add_conditional_edges("llm", route_after_llm, {"tools": "tools", lg.END: lg.END})
    b.add_edge("tools", "llm")
    return Built(b, {"messages": [lg.HumanMessage("What is (2 + 3) * 4?")]}, probe=lambda: calls)


@case(
    expect={
        "result": {
            "query": "langgraph",
            "results": ["db:langgraph", "web:langgraph"],
            "merged": "db:langgraph | web:langgraph",
        },
        "probe": {"merge": 1},
    }
)
def build_seed003_fan_out_search(lg):
    """Seed 003 section 07: start -> search_web, search_db (parallel) -> merge -> END."""
    runs = Counter()

    class S(TypedDict):
        query: str
        results: Annotated[list, operator.add]
        merged: str

    def start_node(s):
        return {}

    def search_web(s):
        sleep_ms(10)
        return {"results": [f"web:{s['query']}"]}

    def search_db(s):
        return {"results": [f"db:{s['query']}"]}

    def merge_results(s):
        runs["merge"] += 1
        return {"merged": " | ".join(sorted(s["results"]))}

    b = lg.StateGraph(S)
    b.add_node("start", start_node)
    b.add_node("search_web", search_web)
    b.add_node("search_db", search_db)
    b.add_node("merge", merge_results)
    b.add_edge(lg.START, "start")
    b.add_edge("start", "search_web")
    b.add_edge("start", "search_db")
    b.add_edge("search_web", "merge")
    b.add_edge("search_db", "merge")
    b.add_edge("merge", lg.END)
    return Built(b, {"query": "langgraph"}, probe=lambda: dict(runs))


# ---------------------------------------------------------------------------------------------
# add_messages called directly: add_messages(left, right)
# ---------------------------------------------------------------------------------------------


@dataclass
class FunctionCase:
    name: str
    args: Callable[[Any], tuple[Any, Any]]
    """Returns `(left, right)` built from the backend namespace."""
    expect: dict


FUNCTION_CASES: dict[str, FunctionCase] = {}


def fcase(expect: dict):
    def register(fn):
        name = fn.__name__[len("args_"):]
        FUNCTION_CASES[name] = FunctionCase(name, fn, expect)
        return fn

    return register


def _h(*fields):
    return ("HumanMessage", "human", *fields)


def _ai(content, id, tool_calls=()):
    return ("AIMessage", "ai", content, None, list(tool_calls), None, id)


@fcase({"result": [_h("hi", None, None, None, "1"), _ai("hello", "2"), _ai("again", "3")]})
def args_append_new_id(lg):
    return _seed_history(lg), [lg.AIMessage("again", id="3")]


@fcase({"result": [_h("hi", None, None, None, "1"), _ai("改写了", "2")]})
def args_replace_existing_id(lg):
    return _seed_history(lg), lg.AIMessage("改写了", id="2")


@fcase({"result": [_ai("hello", "2")]})
def args_remove_by_id(lg):
    return _seed_history(lg), [lg.RemoveMessage(id="1")]


@fcase({"result": [_h("a", None, None, None, "<uuid-1>"), _h("b", None, None, None, "<uuid-2>")]})
def args_single_messages_both_sides(lg):
    return lg.HumanMessage("a"), lg.HumanMessage("b")


@fcase({"result": [_h("a", None, None, None, "<uuid-1>"), _h("b", None, None, None, "<uuid-2>")]})
def args_strings_both_sides(lg):
    return "a", "b"


@fcase({"result": [_h("hi", None, None, None, "1"), _ai("hello", "2"), _ai("y", "5")]})
def args_duplicate_ids_in_right_collapse(lg):
    return _seed_history(lg), [lg.AIMessage("x", id="5"), lg.AIMessage("y", id="5")]


@fcase({"result": [_h("back", None, None, None, "1"), _ai("hello", "2")]})
def args_remove_then_readd(lg):
    return _seed_history(lg), [lg.RemoveMessage(id="1"), lg.HumanMessage("back", id="1")]


@fcase({"result": [_ai("kept", "<uuid-1>")]})
def args_remove_all(lg):
    return _seed_history(lg), [
        lg.AIMessage("gone"),
        lg.RemoveMessage(id=lg.REMOVE_ALL_MESSAGES),
        lg.AIMessage("kept"),
    ]


@fcase(
    {"error": ("ValueError", "Attempting to delete a message with an ID that doesn't exist ('nope')")}
)
def args_remove_missing(lg):
    return _seed_history(lg), [lg.RemoveMessage(id="nope")]


@fcase(
    {
        "result": [
            _h("u", None, None, None, "<uuid-1>"),
            _ai("a", "<uuid-2>"),
            ("SystemMessage", "system", "s", None, None, None, "<uuid-3>"),
            ("SystemMessage", "system", "d", None, None, None, "<uuid-4>"),
            ("ToolMessage", "tool", "5", None, None, "c1", "<uuid-5>"),
            _h("named", "bob", None, None, "<uuid-6>"),
        ]
    }
)
def args_coercion_tuples_and_dicts(lg):
    return [], [
        ("user", "u"),
        ("assistant", "a"),
        ("system", "s"),
        ("developer", "d"),
        {"role": "tool", "content": "5", "tool_call_id": "c1"},
        {"role": "human", "content": "named", "name": "bob"},
    ]


@fcase(
    {
        "error": (
            "ValueError",
            "Unexpected message type: 'wizard'. Use one of 'human', 'user', 'ai', 'assistant', "
            "'function', 'tool', 'system', or 'developer'." + COERCION,
        )
    }
)
def args_bad_role(lg):
    return [], [("wizard", "hi")]


@fcase(
    {
        "error": (
            "ValueError",
            "Message dict must contain 'role' and 'content' keys, got {'role': 'x'}" + COERCION,
        )
    }
)
def args_bad_dict(lg):
    return [], [{"role": "x"}]


@fcase({"error": ("NotImplementedError", "Unsupported message type: <class 'int'>" + COERCION)})
def args_unsupported_type(lg):
    return [], [5]


# ---------------------------------------------------------------------------------------------
# More: ordering corner cases, config, breakpoints, pydantic, reducer errors
# ---------------------------------------------------------------------------------------------


def _sleepy(name: str, ms: float):
    """A node that sleeps `ms` and appends its name to `log`."""

    def node(s):
        sleep_ms(ms)
        return {"log": [name]}

    return node


@case(expect={"result": {"log": ["a1", "a10", "a2", "b"]}})
def build_name_sort_is_string_order(lg):
    """Parallel nodes a2, a10, a1, b: the fold order is string order ("a10" < "a2")."""

    class S(TypedDict):
        log: Annotated[list, operator.add]

    b = lg.StateGraph(S)
    for i, n in enumerate(("a2", "a10", "a1", "b")):
        b.add_node(n, _sleepy(n, 3 * (4 - i)))
        b.add_edge(lg.START, n)
    return Built(b, {"log": []})


@case(expect={"result": {"log": [f"n{i}" for i in range(10)] + ["join"]}, "probe": 1})
def build_wide_fan_out(lg):
    """Ten parallel nodes with uneven sleeps, then one join node."""
    runs: list = []

    class S(TypedDict):
        log: Annotated[list, operator.add]

    def join(s):
        runs.append(1)
        return {"log": ["join"]}

    b = lg.StateGraph(S)
    for i in range(10):
        b.add_node(f"n{i}", _sleepy(f"n{i}", (7 * i) % 11))
        b.add_edge(lg.START, f"n{i}")
    b.add_node("join", join)
    b.add_edge([f"n{i}" for i in range(10)], "join")
    return Built(b, {"log": []}, probe=lambda: len(runs))


@case(expect={"result": {"log": ["in", "a", "b", "c:x"]}})
def build_cond_router_names_and_sends(lg):
    """A router returning a node name and a Send together."""

    class S(TypedDict):
        log: Annotated[list, operator.add]

    b = lg.StateGraph(S)
    b.add_node("a", lambda s: {"log": ["a"]})
    b.add_node("b", lambda s: {"log": ["b"]})
    b.add_node("c", lambda s: {"log": [f"c:{s['tag']}"]})
    b.add_edge(lg.START, "a")
    b.add_conditional_edges("a", lambda s: [lg.Send("c", {"tag": "x"}), "b"])
    return Built(b, {"log": ["in"]})


@case(expect={"result": {"log": ["in", "a", "b"]}, "probe": 1})
def build_cond_router_duplicate_names(lg):
    """A router returning ["b", "b"] and a Command goto "b" as well: b still runs once."""
    runs: list = []

    class S(TypedDict):
        log: Annotated[list, operator.add]

    def b_(s):
        runs.append(1)
        return {"log": ["b"]}

    b = lg.StateGraph(S)
    b.add_node("a", lambda s: lg.Command(goto="b", update={"log": ["a"]}))
    b.add_node("b", b_)
    b.add_edge(lg.START, "a")
    b.add_edge("a", "b")
    b.add_conditional_edges("a", lambda s: ["b", "b"])
    return Built(b, {"log": ["in"]}, probe=lambda: len(runs))


@case(expect={"result": {"total": 10, "items": [1, 2, 3, 4]}})
def build_send_from_start(lg):
    """Map from START: a conditional entry point returning Sends."""

    class S(TypedDict):
        items: list[int]
        total: Annotated[int, operator.add]

    b = lg.StateGraph(S)
    b.add_node("square", lambda s: {"total": s["v"]})
    b.add_conditional_edges(lg.START, lambda s: [lg.Send("square", {"v": v}) for v in s["items"]])
    return Built(b, {"items": [1, 2, 3, 4]})


@case(expect={"result": {"log": ["3", "2", "1", "0"]}})
def build_send_recursive(lg):
    """A node that Sends to itself with a smaller argument until 0."""

    class S(TypedDict):
        log: Annotated[list, operator.add]

    def count(arg):
        n = arg["n"]
        if n == 0:
            return {"log": ["0"]}
        return lg.Command(goto=lg.Send("count", {"n": n - 1}), update={"log": [str(n)]})

    b = lg.StateGraph(S)
    b.add_node("count", count)
    b.add_conditional_edges(lg.START, lambda s: lg.Send("count", {"n": 3}))
    return Built(b, {"log": []})


@case(
    expect={
        "result": {"who": "u1"},
        "probe": [
            {
                "langgraph_step": 1,
                "langgraph_node": "a",
                "langgraph_triggers": ("branch:to:a",),
                "langgraph_path": ("__pregel_pull", "a"),
                "ns": "a",
                "user": "u1",
            },
            {
                "langgraph_step": 2,
                "langgraph_node": "b",
                "langgraph_triggers": ("__pregel_push",),
                "langgraph_path": ("__pregel_push", 0, False),
                "ns": "b",
                "user": "u1",
            },
        ],
    }
)
def build_node_reads_config(lg):
    """A node taking `config`: configurable values and the task metadata LangGraph provides."""
    seen: list = []

    class S(TypedDict):
        who: str

    def record(config):
        md = config["metadata"]
        seen.append(
            {
                **{
                    k: md.get(k)
                    for k in ("langgraph_step", "langgraph_node", "langgraph_triggers", "langgraph_path")
                },
                "ns": md.get("langgraph_checkpoint_ns", "").split(":")[0],
                "user": config["configurable"].get("user"),
            }
        )

    def a(state, config):
        record(config)
        return lg.Send("b", {})

    def b_(state, config):
        record(config)
        return {"who": config["configurable"]["user"]}

    b = lg.StateGraph(S)
    b.add_node("a", a)
    b.add_node("b", b_)
    b.add_edge(lg.START, "a")
    return Built(b, {}, config={"configurable": {"user": "u1"}}, probe=lambda: seen)


@case(expect={"result": {"n": 1}, "probe": ["a"]})
def build_interrupt_before_without_checkpointer(lg):
    """compile(interrupt_before=["b"]) without a checkpointer: the run quietly stops before b."""
    runs: list = []

    class S(TypedDict):
        n: int

    def node(name, v):
        def fn(s):
            runs.append(name)
            return {"n": v}

        return fn

    b = lg.StateGraph(S)
    b.add_node("a", node("a", 1))
    b.add_node("b", node("b", 2))
    b.add_edge(lg.START, "a")
    b.add_edge("a", "b")
    return Built(b, {"n": 0}, compile_kwargs={"interrupt_before": ["b"]}, probe=lambda: runs)


@case(expect={"result": {"n": 1}, "probe": ["a"]})
def build_interrupt_after_without_checkpointer(lg):
    """compile(interrupt_after=["a"]) without a checkpointer."""
    runs: list = []

    class S(TypedDict):
        n: int

    def node(name, v):
        def fn(s):
            runs.append(name)
            return {"n": v}

        return fn

    b = lg.StateGraph(S)
    b.add_node("a", node("a", 1))
    b.add_node("b", node("b", 2))
    b.add_edge(lg.START, "a")
    b.add_edge("a", "b")
    return Built(b, {"n": 0}, compile_kwargs={"interrupt_after": ["a"]}, probe=lambda: runs)


@case(expect={"error": ("TypeError", 'can only concatenate list (not "str") to list'), "notes": []})
def build_reducer_raises(lg):
    """operator.add of a list and a str fails in the reducer, at the barrier."""

    class S(TypedDict):
        log: Annotated[list, operator.add]

    b = lg.StateGraph(S)
    b.add_node("a", lambda s: {"log": "oops"})
    b.add_edge(lg.START, "a")
    return Built(b, {"log": []})


@case(expect={"error": ("ValueError", "boom"), "notes": [task_note("bad")]}, aspects=("invoke",))
def build_node_raises_in_parallel_step(lg):
    """One of two parallel nodes raises (only invoke is compared: whether the sibling's updates chunk
    is emitted before the error depends on timing)."""

    class S(TypedDict):
        log: Annotated[list, operator.add]

    def bad(s):
        raise ValueError("boom")

    b = lg.StateGraph(S)
    b.add_node("ok", lambda s: {"log": ["ok"]})
    b.add_node("bad", bad)
    b.add_edge(lg.START, "ok")
    b.add_edge(lg.START, "bad")
    return Built(b, {"log": []})


@case(expect={"error": ("GraphRecursionError", recursion(10007)), "probe": 10007}, aspects=("invoke",))
def build_recursion_default_limit(lg):
    """With no config the recursion limit is 10007, not 25 (an endless loop runs 10007 times)."""
    runs: list = []

    class S(TypedDict):
        n: int

    def loop(s):
        runs.append(1)
        return {"n": s["n"] + 1}

    b = lg.StateGraph(S)
    b.add_node("loop", loop)
    b.add_edge(lg.START, "loop")
    b.add_edge("loop", "loop")
    return Built(b, {"n": 0}, probe=lambda: len(runs))


@case(expect={"result": {"log": ["p", "p", "s1", "sib"]}})
def build_subgraph_in_parallel_step(lg):
    """A subgraph node running in the same step as a plain sibling (its inner chunks interleave with
    the sibling's in LangGraph's completion order)."""

    class S(TypedDict):
        log: Annotated[list, operator.add]

    def s1(s):
        sleep_ms(5)
        return {"log": ["s1"]}

    sub = lg.StateGraph(S)
    sub.add_node("s1", s1)
    sub.add_edge(lg.START, "s1")

    def sib(s):
        sleep_ms(5)
        return {"log": ["sib"]}

    par = lg.StateGraph(S)
    par.add_node("p", lambda s: {"log": ["p"]})
    par.add_node("child", sub.compile())
    par.add_node("sib", sib)
    par.add_edge(lg.START, "p")
    par.add_edge("p", "child")
    par.add_edge("p", "sib")
    return Built(par, {"log": []})


@case(expect={"result": {"n": 2, "log": ["s:0", "s:1"]}})
def build_subgraph_called_twice(lg):
    """The same subgraph node runs twice in a loop: two namespaces with the same name."""

    class Parent(TypedDict):
        n: int
        log: Annotated[list, operator.add]

    class Child(TypedDict):
        n: int
        out: str

    sub = lg.StateGraph(Child)
    sub.add_node("s", lambda s: {"out": f"s:{s['n']}"})
    sub.add_edge(lg.START, "s")
    subapp = sub.compile()

    def call(s):
        return {"log": [subapp.invoke({"n": s["n"]})["out"]], "n": s["n"] + 1}

    par = lg.StateGraph(Parent)
    par.add_node("call", call)
    par.add_edge(lg.START, "call")
    par.add_conditional_edges("call", lambda s: "call" if s["n"] < 2 else lg.END, ["call", lg.END])
    return Built(par, {"n": 0})


@case(expect={"result": {"log": ["in", "c:5"], "v": 5}, "probe": [{"v": 5}]})
def build_add_node_input_schema_kwarg(lg):
    """add_node(..., input_schema=...) instead of a type hint."""
    seen: list = []

    class S(TypedDict):
        log: Annotated[list, operator.add]
        v: int

    class OnlyV(TypedDict):
        v: int

    def c(s):
        seen.append(dict(s))
        return {"log": [f"c:{s['v']}"]}

    b = lg.StateGraph(S)
    b.add_node("c", c, input_schema=OnlyV)
    b.add_edge(lg.START, "c")
    return Built(b, {"log": ["in"], "v": 5}, probe=lambda: seen)


@case(
    expect={
        "result": {"x": 5, "log": ["m"]},
        "probe": [("PM", 1, None, []), ("PM", 2, None, [])],
    }
)
def build_pydantic_state(lg):
    """A pydantic BaseModel state: nodes get model instances; a node may return an instance (only
    fields that are set or have non-None values become writes); invoke returns a plain dict."""
    from pydantic import BaseModel, Field

    seen: list = []

    class PM(BaseModel):
        x: int = 0
        y: Optional[str] = None
        log: Annotated[list, operator.add] = Field(default_factory=list)

    def n(s: PM):
        seen.append((type(s).__name__, s.x, s.y, list(s.log)))
        return {"x": s.x + 1}

    def m(s: PM):
        seen.append((type(s).__name__, s.x, s.y, list(s.log)))
        return PM(x=5, log=["m"])

    b = lg.StateGraph(PM)
    b.add_node("n", n)
    b.add_node("m", m)
    b.add_edge(lg.START, "n")
    b.add_edge("n", "m")
    return Built(b, {"x": 1}, probe=lambda: seen)


@case(
    expect={
        "error": (
            "ValidationError",
            "1 validation error for PM\nx\n  Input should be a valid integer, unable to parse string "
            "as an integer [type=int_parsing, input_value='abc', input_type=str]\n    For further "
            "information visit https://errors.pydantic.dev/2.14/v/int_parsing",
        ),
        "notes": ["Before task with name 'n' and path '('__pregel_pull', 'n')'"],
    }
)
def build_pydantic_validation_error(lg):
    """Pydantic validation runs when the node input is built (step 1), not at invoke()."""
    from pydantic import BaseModel

    class PM(BaseModel):
        x: int = 0

    b = lg.StateGraph(PM)
    b.add_node("n", lambda s: {"x": s.x + 1})
    b.add_edge(lg.START, "n")
    return Built(b, {"x": "abc"})


@case(
    expect={
        "result": {
            "messages": [
                ("HumanMessage", "human", "q", None, None, None, "<uuid-1>"),
                ("AIMessage", "ai", "parent", None, [], None, "<uuid-2>"),
                ("AIMessage", "ai", "child", None, [], None, "<uuid-3>"),
            ]
        }
    }
)
def build_subgraph_shared_messages(lg):
    """A subgraph sharing MessagesState: it returns the whole list too, but add_messages replaces by id,
    so nothing is duplicated (unlike operator.add)."""
    sub = lg.StateGraph(lg.MessagesState)
    sub.add_node("s", lambda s: {"messages": [lg.AIMessage("child")]})
    sub.add_edge(lg.START, "s")

    par = lg.StateGraph(lg.MessagesState)
    par.add_node("p", lambda s: {"messages": [lg.AIMessage("parent")]})
    par.add_node("child", sub.compile())
    par.add_edge(lg.START, "p")
    par.add_edge("p", "child")
    return Built(par, {"messages": [lg.HumanMessage("q")]})


@case(expect={"result": {"x": 3, "log": ["a", "b"], "note": None}})
def build_dataclass_input_instance(lg):
    """A dataclass state given a dataclass instance as input."""

    @dataclass
    class DS:
        x: int = 0
        log: Annotated[list, operator.add] = field(default_factory=list)
        note: Optional[str] = None

    b = lg.StateGraph(DS)
    b.add_node("a", lambda s: {"x": s.x + 1, "log": ["a"]})
    b.add_node("b", lambda s: {"x": s.x + 1, "log": ["b"]})
    b.add_edge(lg.START, "a")
    b.add_edge("a", "b")
    return Built(b, DS(x=1))


class _Counter:
    def __init__(self, tag):
        self.tag = tag

    def __call__(self, state):
        return {"log": [f"call:{self.tag}"]}

    def method(self, state):
        return {"log": [f"method:{self.tag}"]}


def _tagged(state, tag):
    return {"log": [f"partial:{tag}"]}


@case(expect={"result": {"log": ["call:x", "method:x", "partial:y"]}})
def build_callable_kinds_as_nodes(lg):
    """A callable object, a bound method and a functools.partial as nodes."""
    import functools

    class S(TypedDict):
        log: Annotated[list, operator.add]

    obj = _Counter("x")
    b = lg.StateGraph(S)
    b.add_node("obj", obj)
    b.add_node("meth", obj.method)
    b.add_node("part", functools.partial(_tagged, tag="y"))
    b.add_edge(lg.START, "obj")
    b.add_edge("obj", "meth")
    b.add_edge("meth", "part")
    return Built(b, {"log": []})


@case(expect={"result": {"a": 1, "log": []}})
def build_node_writes_only_unknown_keys(lg):
    """A node whose return value only has unknown keys: no state write, but it still ran."""

    class S(TypedDict):
        a: int
        log: Annotated[list, operator.add]

    b = lg.StateGraph(S)
    b.add_node("n", lambda s: {"zzz": 1})
    b.add_node("m", lambda s: {})
    b.add_edge(lg.START, "n")
    b.add_edge("n", "m")
    return Built(b, {"a": 1})


@case(expect={"result": {"log": ["in", "a", "b"], "x": 2}})
def build_command_with_conditional_edge(lg):
    """A node returning Command(goto=...) that also has a conditional edge: both fire; the router
    sees the Command's update."""

    class S(TypedDict):
        log: Annotated[list, operator.add]
        x: int

    b = lg.StateGraph(S)
    b.add_node("a", lambda s: lg.Command(goto="b", update={"log": ["a"], "x": 2}))
    b.add_node("b", lambda s: {"log": ["b"]})
    b.add_node("c", lambda s: {"log": ["c"]})
    b.add_edge(lg.START, "a")
    b.add_conditional_edges("a", lambda s: "c" if s["x"] == 1 else lg.END, ["c", lg.END])
    return Built(b, {"log": ["in"], "x": 0})


@case(expect={"result": {"task": "abc", "result": "ABC!"}})
def build_subgraph_with_own_schemas(lg):
    """A compiled subgraph with input/output schemas of its own, added as a node."""

    class Parent(TypedDict):
        task: str
        result: str

    class SubIn(TypedDict):
        task: str

    class SubOut(TypedDict):
        result: str

    class SubState(TypedDict):
        task: str
        scratch: str
        result: str

    sub = lg.StateGraph(SubState, input_schema=SubIn, output_schema=SubOut)
    sub.add_node("up", lambda s: {"scratch": s["task"].upper()})
    sub.add_node("bang", lambda s: {"result": s["scratch"] + "!"})
    sub.add_edge(lg.START, "up")
    sub.add_edge("up", "bang")

    par = lg.StateGraph(Parent)
    par.add_node("child", sub.compile())
    par.add_edge(lg.START, "child")
    return Built(par, {"task": "abc"})


@case(
    expect={
        "error": ("ValueError", "Branch did not return a valid destination"),
        "notes": [task_note("a")],
    }
)
def build_cond_router_start(lg):
    """A router returning START is rejected like None."""
    return Built(_branch_graph(lg, lambda s: lg.START), {"log": ["in"]})


@case(expect={"result": {"log": ["in", "a"], "go": "done"}})
def build_cond_path_map_label_to_end(lg):
    """A dict path_map mapping a label to END."""
    b = _branch_graph(lg, lambda s: s["go"], {"more": "b", "done": lg.END})
    return Built(b, {"log": ["in"], "go": "done"})


@case(expect={"result": {"log": ["in", "a", "c"]}, "probe": [{"log": ["x"]}]})
def build_cond_send_with_path_map(lg):
    """A router with a list path_map returning a Send to a node in the map."""
    seen: list = []

    class S(TypedDict):
        log: Annotated[list, operator.add]

    def c(s):
        seen.append(dict(s))
        return {"log": ["c"]}

    b = lg.StateGraph(S)
    b.add_node("a", lambda s: {"log": ["a"]})
    b.add_node("b", lambda s: {"log": ["b"]})
    b.add_node("c", c)
    b.add_edge(lg.START, "a")
    b.add_conditional_edges("a", lambda s: [lg.Send("c", {"log": ["x"]})], ["b", "c"])
    return Built(b, {"log": ["in"]}, probe=lambda: seen)


@case(
    expect={
        "result": {"log": ["a", "b", "c", "b2", "d", "d"]},
        "probe": {"a": 1, "b": 1, "b2": 1, "c": 1, "d": 2},
    }
)
def build_waiting_edge_plus_static_edge(lg):
    """add_edge(["b2", "c"], "d") plus add_edge("c", "d"): the triggers are OR-ed, d runs twice."""
    runs = Counter()

    class S(TypedDict):
        log: Annotated[list, operator.add]

    def node(name):
        def fn(s):
            runs[name] += 1
            return {"log": [name]}

        return fn

    b = lg.StateGraph(S)
    for n in ("a", "b", "b2", "c", "d"):
        b.add_node(n, node(n))
    b.add_edge(lg.START, "a")
    b.add_edge("a", "b")
    b.add_edge("b", "b2")
    b.add_edge("a", "c")
    b.add_edge(["b2", "c"], "d")
    b.add_edge("c", "d")
    return Built(b, {"log": []}, probe=lambda: dict(runs))


@case(
    expect={
        "result": {"log": ["a", "b", "long1", "long2", "d1", "d2"]},
        "probe": ["a", "b", "long1", "long2", "d1", "d2"],
    }
)
def build_two_deferred_nodes(lg):
    """Two defer=True nodes reached in different steps both wait for the end and run together."""
    runs: list = []

    class S(TypedDict):
        log: Annotated[list, operator.add]

    def node(name):
        def fn(s):
            runs.append(name)
            return {"log": [name]}

        return fn

    b = lg.StateGraph(S)
    for n in ("a", "b", "long1", "long2"):
        b.add_node(n, node(n))
    b.add_node("d1", node("d1"), defer=True)
    b.add_node("d2", node("d2"), defer=True)
    b.add_edge(lg.START, "a")
    b.add_edge(lg.START, "b")
    b.add_edge("a", "d1")
    b.add_edge("b", "long1")
    b.add_edge("long1", "long2")
    b.add_edge("long2", "d2")
    return Built(b, {"log": []}, probe=lambda: sorted(runs[:2]) + runs[2:4] + sorted(runs[4:]))


@case(expect={"result": {"log": ["a", "b", "b2", "c", "d"]}, "probe": {"d": 1}})
def build_defer_with_waiting_edge(lg):
    """A deferred node behind a waiting edge."""
    runs = Counter()

    class S(TypedDict):
        log: Annotated[list, operator.add]

    def d(s):
        runs["d"] += 1
        return {"log": ["d"]}

    b = lg.StateGraph(S)
    b.add_node("a", lambda s: {"log": ["a"]})
    b.add_node("b", lambda s: {"log": ["b"]})
    b.add_node("b2", lambda s: {"log": ["b2"]})
    b.add_node("c", lambda s: {"log": ["c"]})
    b.add_node("d", d, defer=True)
    b.add_edge(lg.START, "a")
    b.add_edge(lg.START, "b")
    b.add_edge("b", "b2")
    b.add_edge("b2", "c")
    b.add_edge(["a", "c"], "d")
    return Built(b, {"log": []}, probe=lambda: dict(runs))
