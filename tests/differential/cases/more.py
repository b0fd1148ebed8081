"""Differential cases: More: ordering corner cases, config, breakpoints, pydantic, reducer errors."""

# No `from __future__ import annotations`: state schemas defined inside builders refer to local names.
import operator
from collections import Counter
from dataclasses import dataclass, field
from typing import Annotated, TypedDict

from ._common import Built, case, recursion, sleep_ms, task_note
from .conditional_edges import _branch_graph


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
                **{k: md.get(k) for k in ("langgraph_step", "langgraph_node", "langgraph_triggers", "langgraph_path")},
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
        y: str | None = None
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
        note: str | None = None

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
