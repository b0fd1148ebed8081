"""Checkpointed runs on LangGraph and on our engine, compared: history, `next`, steps, resumes.

Each scenario is written once against a backend namespace `lg` (see `backends.py`) and records what
it sees with `obs(label, value)`, or `attempt(label, fn)` for calls that may raise (an error is
recorded as `("error", class name, text)`). The whole record is normalised and must be equal on both
backends. Normalisation (on top of `harness.Normaliser`): checkpoint and task ids (uuids) are
numbered by first appearance, so "this parent is that checkpoint" is still compared; interrupt ids
(32 hex digits: LangGraph's xxh3, our blake2b) are numbered the same way; timestamps become `<ts>`.

Streams of steps that run several tasks in parallel are recorded with `unordered=True`: LangGraph
yields a step's chunks in completion order, we yield them in application order, so those streams
are compared as multisets.

Backends: `langgraph` (a second LangGraph run must match the first: the harness itself is sound),
`engine`, and `engine-sqlite` (the engine with every `InMemorySaver()` replaced by
`SqliteSaver(":memory:")`, so both savers are held to LangGraph's behaviour).

`EXPECT` pins facts about LangGraph's record (the langgraph side fails if LangGraph changes), written
from langgraph's checkpoint behaviour (langgraph/pregel/, langgraph/checkpoint/).
"""

from __future__ import annotations

import operator
import re
import time
from types import SimpleNamespace
from typing import Annotated, Any, Callable, TypedDict

import pytest

pytest.importorskip("langgraph")

from .backends import BACKEND_NAMES, get_backend  # noqa: E402
from .harness import UUID_RE, Normaliser, _with_timeout, sort_key  # noqa: E402

IID_RE = re.compile(r"^[0-9a-f]{32}$")
TS_RE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?\+00:00$")
MULTIPLE = (
    "When there are multiple pending interrupts, you must specify the interrupt id when resuming. "
    "Docs: https://docs.langchain.com/oss/python/langgraph/interrupts#handling-multiple-interrupts."
)


class CheckpointNormaliser(Normaliser):
    def __init__(self, mask: bool = False):
        super().__init__(mask)
        self.iids: dict[str, str] = {}

    def __call__(self, x: Any) -> Any:
        if isinstance(x, str):
            if IID_RE.match(x):
                if self.mask:
                    return "<iid>"
                return self.iids.setdefault(x, f"<iid-{len(self.iids) + 1}>")
            if TS_RE.match(x):
                return "<ts>"
            if UUID_RE.search(x) and not UUID_RE.fullmatch(x):  # a namespace `node:<task id>|...`
                return UUID_RE.sub(lambda m: self.uuid(m.group(0)), x)
        return super().__call__(x)


class Unordered(list):
    """Chunks whose order is not compared."""


class Recorder:
    def __init__(self, lg):
        self.lg = lg
        self.items: list[tuple[str, Any]] = []

    def __call__(self, label: str, value: Any) -> Any:
        self.items.append((label, value))
        return value

    def attempt(self, label: str, fn: Callable[[], Any]) -> Any:
        try:
            return self(label, fn())
        except Exception as e:  # noqa: BLE001 - the error is the observation
            self(label, ("error", type(e).__name__, str(e)))
            return None

    def stream(self, label: str, graph, *args, unordered: bool = False, **kwargs) -> None:
        chunks = list(graph.stream(*args, **kwargs))
        self(label, Unordered(chunks) if unordered else chunks)


def error_text(error: Any) -> Any:
    """LangGraph's saver keeps a task's error as its repr string; ours keeps the exception."""
    return repr(error) if isinstance(error, BaseException) else error


def no_ids(x: Any) -> Any:
    """Interrupts without their ids (without a checkpointer LangGraph's differ from run to run; ours do not)."""
    if isinstance(x, (list, tuple)):
        return type(x)(no_ids(v) for v in x)
    if isinstance(x, dict):
        return {k: no_ids(v) for k, v in x.items()}
    if type(x).__name__ == "Interrupt":
        return ("Interrupt", x.value)
    return x


def public(config: Any) -> Any:
    """A config without LangGraph's internal `__pregel_*` keys (one leaks into empty subgraph snapshots)."""
    if not isinstance(config, dict) or "configurable" not in config:
        return config
    return {
        **config,
        "configurable": {k: v for k, v in config["configurable"].items() if not k.startswith("__pregel_")},
    }


def snap(s) -> dict:
    """A StateSnapshot as plain data."""
    return {
        "values": s.values,
        "next": s.next,
        "config": public(s.config),
        "metadata": s.metadata,
        "created_at": s.created_at,
        "parent_config": s.parent_config,
        "tasks": [
            {
                "id": t.id,
                "name": t.name,
                "path": t.path,
                "error": error_text(t.error),
                "interrupts": t.interrupts,
                "state": snap(t.state) if hasattr(t.state, "_fields") else t.state,
                "result": t.result,
            }
            for t in s.tasks
        ],
        "interrupts": s.interrupts,
    }


def steps(graph, cfg) -> list:
    """The history as (step, source, next): what the debugger's timeline shows."""
    return [(s.metadata["step"], s.metadata["source"], s.next) for s in graph.get_state_history(cfg)]


def thread(name: str = "t", **configurable) -> dict:
    return {"configurable": {"thread_id": name, **configurable}}


class Log(TypedDict):
    log: Annotated[list, operator.add]


class LogX(TypedDict):
    log: Annotated[list, operator.add]
    x: int


def chain(lg, names: str, schema=Log, runs: list | None = None):
    b = lg.StateGraph(schema)

    def node(name):
        def fn(state):
            if runs is not None:
                runs.append(name)
            return {"log": [name]}

        return fn

    for n in names:
        b.add_node(n, node(n))
    b.add_edge(lg.START, names[0])
    for a, c in zip(names, names[1:]):
        b.add_edge(a, c)
    return b


def asker(lg, name: str, questions: int, runs: list):
    def fn(state):
        runs.append(name)
        answers = [lg.interrupt(f"{name}-q{i}") for i in range(questions)]
        return {"log": [f"{name}:{'/'.join(map(str, answers))}"]}

    return fn


# ---------------------------------------------------------------------------------------------
# Scenarios
# ---------------------------------------------------------------------------------------------

SCENARIOS: dict[str, Callable] = {}


def scenario(fn):
    assert fn.__name__.startswith("sc_")
    SCENARIOS[fn.__name__[3:]] = fn
    return fn


@scenario
def sc_history_of_a_chain(lg, obs):
    """Checkpoint per superstep: input -1, __start__ 0, then one per node; newest first; metadata
    merges scalar configurable/metadata keys; the live state and a checkpoint_id state."""
    g = chain(lg, "abc").compile(checkpointer=lg.InMemorySaver())
    cfg = {"configurable": {"thread_id": "1", "user": "u1", "n": 3, "obj": {"x": 1}}, "metadata": {"m": "v"}}
    obs("invoke", g.invoke({"log": ["in"]}, cfg))
    history = [snap(s) for s in g.get_state_history(cfg)]
    obs("history", history)
    obs("steps", steps(g, cfg))
    obs("latest", snap(g.get_state(cfg)))
    step1 = g.get_state_history(cfg)
    obs("by id", snap(g.get_state(list(step1)[2].config)))
    obs("second run", g.invoke({"log": ["again"]}, cfg))
    obs("steps after", steps(g, cfg))


@scenario
def sc_history_filter_before_limit(lg, obs):
    """get_state_history's filter, before and limit."""
    g = chain(lg, "ab").compile(checkpointer=lg.InMemorySaver())
    cfg = thread()
    g.invoke({"log": []}, cfg)
    g.invoke({"log": ["more"]}, cfg)
    obs("inputs", [s.metadata["step"] for s in g.get_state_history(cfg, filter={"source": "input"})])
    obs("limit", [s.metadata["step"] for s in g.get_state_history(cfg, limit=2)])
    history = list(g.get_state_history(cfg))
    obs("before", [s.metadata["step"] for s in g.get_state_history(cfg, before=history[2].config)])
    obs("before+limit", [s.metadata["step"] for s in g.get_state_history(cfg, before=history[1].config, limit=1)])


@scenario
def sc_parallel_history_results(lg, obs):
    """A fan-out step: history lists both tasks with their results; `next` in insertion order."""
    b = lg.StateGraph(Log)
    b.add_node("zeta", lambda s: {"log": ["z"]})
    b.add_node("alpha", lambda s: {"log": ["a"]})
    b.add_node("join", lambda s: {"log": ["j"]})
    b.add_edge(lg.START, "zeta")
    b.add_edge(lg.START, "alpha")
    b.add_edge(["zeta", "alpha"], "join")
    g = b.compile(checkpointer=lg.InMemorySaver())
    cfg = thread()
    obs("invoke", g.invoke({"log": []}, cfg))
    obs("history", [snap(s) for s in g.get_state_history(cfg)])


@scenario
def sc_interrupt_once_with_sibling(lg, obs):
    """interrupt() in one of two parallel nodes: the sibling finishes once, its writes are pending;
    the output holds `__interrupt__`; resume re-runs only the asker."""
    runs: list = []
    b = lg.StateGraph(Log)
    b.add_node("asker", asker(lg, "asker", 1, runs))

    def sib(state):
        runs.append("sib")
        return {"log": ["sib"]}

    b.add_node("sib", sib)
    b.add_node("after", lambda s: {"log": ["after"]})
    b.add_edge(lg.START, "asker")
    b.add_edge(lg.START, "sib")
    b.add_edge("asker", "after")
    g = b.compile(checkpointer=lg.InMemorySaver())
    cfg = thread()
    obs("invoke", g.invoke({"log": ["in"]}, cfg))
    obs("state", snap(g.get_state(cfg)))
    obs("steps", steps(g, cfg))
    obs("resume", g.invoke(lg.Command(resume="R"), cfg))
    obs("runs", runs)
    obs("state after", snap(g.get_state(cfg)))
    obs("steps after", steps(g, cfg))


@scenario
def sc_two_interrupts_in_one_node(lg, obs):
    """A node asking twice runs three times over two resumes; answers are matched by position."""
    runs: list = []
    b = lg.StateGraph(Log)
    b.add_node("ask", asker(lg, "ask", 2, runs))
    b.add_edge(lg.START, "ask")
    g = b.compile(checkpointer=lg.InMemorySaver())
    cfg = thread()
    obs("first", g.invoke({"log": []}, cfg))
    obs("state 1", snap(g.get_state(cfg)))
    obs("second", g.invoke(lg.Command(resume="A"), cfg))
    obs("state 2", snap(g.get_state(cfg)))
    obs("third", g.invoke(lg.Command(resume="B"), cfg))
    obs("runs", runs)
    obs("history", [snap(s) for s in g.get_state_history(cfg)])


@scenario
def sc_interrupt_streams(lg, obs):
    """`__interrupt__` in the updates and values streams, and the resume's first values chunk."""
    runs: list = []
    b = chain(lg, "a", runs=runs)
    b.add_node("ask", asker(lg, "ask", 2, runs))
    b.add_edge("a", "ask")
    g = b.compile(checkpointer=lg.InMemorySaver())
    cfg = thread()
    obs.stream("updates", g, {"log": []}, cfg, stream_mode="updates")
    obs.stream("values", g, lg.Command(resume=1), cfg, stream_mode="values")
    obs.stream("both", g, lg.Command(resume=2), cfg, stream_mode=["updates", "values"])
    obs("runs", runs)


@scenario
def sc_live_state_applies_finished_tasks_in_order(lg, obs):
    """The live state applies finished siblings' writes in application order, not insertion order."""
    runs: list = []
    b = lg.StateGraph(Log)
    for name in ("zeta", "alpha", "mid"):
        b.add_node(name, (lambda n: lambda s: {"log": [n]})(name))
        b.add_edge(lg.START, name)
    b.add_node("ask", asker(lg, "ask", 1, runs))
    b.add_edge(lg.START, "ask")
    g = b.compile(checkpointer=lg.InMemorySaver())
    cfg = thread()
    obs("first", g.invoke({"log": []}, cfg))
    obs("live", snap(g.get_state(cfg)))
    obs("record", snap(g.get_state(g.get_state(cfg).config)))
    obs("resume", g.invoke(lg.Command(resume="R"), cfg))


@scenario
def sc_interrupt_streams_with_sibling(lg, obs):
    """A parallel step stopped by interrupt(): the sibling's values chunk after the interrupt; the
    resumed run shows the sibling's restored update as cached."""
    runs: list = []
    b = lg.StateGraph(Log)
    b.add_node("ask", asker(lg, "ask", 1, runs))
    b.add_node("sib", lambda s: {"log": ["sib"]})
    b.add_edge(lg.START, "ask")
    b.add_edge(lg.START, "sib")
    g = b.compile(checkpointer=lg.InMemorySaver())
    cfg = thread()
    obs.stream("first", g, {"log": []}, cfg, stream_mode=["updates", "values"], unordered=True)
    obs.stream("resume", g, lg.Command(resume="ok"), cfg, stream_mode=["updates", "values"], unordered=True)
    obs("state", snap(g.get_state(cfg)))


@scenario
def sc_multiple_pending_interrupts(lg, obs):
    """Two parallel askers: a bare resume value is refused; a map by interrupt id answers one."""
    runs: list = []
    b = lg.StateGraph(Log)
    b.add_node("p", asker(lg, "p", 1, runs))
    b.add_node("q", asker(lg, "q", 1, runs))
    b.add_edge(lg.START, "p")
    b.add_edge(lg.START, "q")
    g = b.compile(checkpointer=lg.InMemorySaver())
    cfg = thread()
    first = g.invoke({"log": []}, cfg)
    obs("first", sorted(first["__interrupt__"], key=lambda i: i.value))
    obs("values", {k: v for k, v in first.items() if k != "__interrupt__"})
    obs.attempt("bare resume", lambda: g.invoke(lg.Command(resume="x"), cfg))
    ids = {i.value: i.id for i in g.get_state(cfg).interrupts}
    obs("pending", sorted(ids))
    obs("answer p", g.invoke(lg.Command(resume={ids["p-q0"]: "P"}), cfg))
    obs("state", snap(g.get_state(cfg)))
    obs("answer q", g.invoke(lg.Command(resume="Q"), cfg))
    obs("runs", sorted(runs))


@scenario
def sc_resume_map_answers_both(lg, obs):
    """One resume map answering every pending interrupt at once."""
    runs: list = []
    b = lg.StateGraph(Log)
    b.add_node("p", asker(lg, "p", 1, runs))
    b.add_node("q", asker(lg, "q", 1, runs))
    b.add_edge(lg.START, "p")
    b.add_edge(lg.START, "q")
    g = b.compile(checkpointer=lg.InMemorySaver())
    cfg = thread()
    g.invoke({"log": []}, cfg)
    answers = {i.id: i.value.upper() for i in g.get_state(cfg).interrupts}
    obs("both", g.invoke(lg.Command(resume=answers), cfg))
    obs("steps", steps(g, cfg))


@scenario
def sc_resume_with_update(lg, obs):
    """Command(resume=..., update=...): the update is applied before the re-run."""
    runs: list = []
    b = lg.StateGraph(LogX)

    def ask(state):
        runs.append(("ask", state.get("x")))
        return {"log": [f"{lg.interrupt('q')}-{state.get('x')}"]}

    b.add_node("ask", ask)
    b.add_edge(lg.START, "ask")
    g = b.compile(checkpointer=lg.InMemorySaver())
    cfg = thread()
    g.invoke({"log": [], "x": 1}, cfg)
    obs("resume", g.invoke(lg.Command(resume="r", update={"x": 7, "log": ["upd"]}), cfg))
    obs("runs", runs)
    obs("steps", steps(g, cfg))


@scenario
def sc_invoke_none_on_paused_thread(lg, obs):
    """invoke(None) on a thread paused by interrupt(): the node re-runs and interrupts again."""
    runs: list = []
    b = lg.StateGraph(Log)
    b.add_node("ask", asker(lg, "ask", 1, runs))
    b.add_edge(lg.START, "ask")
    g = b.compile(checkpointer=lg.InMemorySaver())
    cfg = thread()
    obs("first", g.invoke({"log": ["in"]}, cfg))
    obs("none", g.invoke(None, cfg))
    obs("runs", runs)
    obs("steps", steps(g, cfg))


@scenario
def sc_new_input_discards_pending(lg, obs):
    """New input on a paused thread discards the pending tasks; the new run starts on the old state."""
    runs: list = []
    b = lg.StateGraph(Log)
    b.add_node("ask", asker(lg, "ask", 1, runs))
    b.add_node("other", lambda s: {"log": ["other"]})
    b.add_edge(lg.START, "ask")
    b.add_edge("ask", "other")
    g = b.compile(checkpointer=lg.InMemorySaver())
    cfg = thread()
    g.invoke({"log": ["one"]}, cfg)
    obs("new input", g.invoke({"log": ["two"]}, cfg))
    obs("steps", steps(g, cfg))
    obs("state", snap(g.get_state(cfg)))
    obs("runs", runs)


@scenario
def sc_interrupt_without_checkpointer(lg, obs):
    """interrupt() without a checkpointer still stops the run; Command(resume=...) is refused."""
    runs: list = []
    b = chain(lg, "a", runs=runs)
    b.add_node("ask", asker(lg, "ask", 1, runs))
    b.add_edge("a", "ask")
    g = b.compile()
    obs("invoke", no_ids(g.invoke({"log": []})))
    obs("stream", no_ids(list(g.stream({"log": []}, stream_mode=["updates", "values"]))))
    obs.attempt("resume", lambda: g.invoke(lg.Command(resume=1)))
    obs.attempt("resume with thread", lambda: g.invoke(lg.Command(resume=1), thread()))
    outer = chain(lg, "p", runs=runs)
    outer.add_node("sub", g)
    outer.add_node("after", lambda s: {"log": ["after"]})
    outer.add_edge("p", "sub")
    outer.add_edge("sub", "after")
    obs("nested", no_ids(outer.compile().invoke({"log": []})))
    obs("runs", runs)


@scenario
def sc_interrupt_before_compile(lg, obs):
    """compile(interrupt_before=["b"]): stops before b, `next` is b, no `__interrupt__` in invoke;
    invoke(None) continues; the breakpoint does not fire again."""
    runs: list = []
    g = chain(lg, "abc", runs=runs).compile(checkpointer=lg.InMemorySaver(), interrupt_before=["b"])
    cfg = thread()
    obs("first", g.invoke({"log": []}, cfg))
    obs("state", snap(g.get_state(cfg)))
    obs.stream("resume", g, None, cfg, stream_mode=["updates", "values"])
    obs("runs", runs)
    obs("steps", steps(g, cfg))


@scenario
def sc_interrupt_after_compile(lg, obs):
    """compile(interrupt_after=["a"]): the checkpoint after a is saved, then the run stops."""
    runs: list = []
    g = chain(lg, "abc", runs=runs).compile(checkpointer=lg.InMemorySaver(), interrupt_after=["a"])
    cfg = thread()
    obs.stream("first", g, {"log": []}, cfg, stream_mode=["updates", "values"])
    obs("state", snap(g.get_state(cfg)))
    obs("resume", g.invoke(None, cfg))
    obs("runs", runs)
    obs("steps", steps(g, cfg))


@scenario
def sc_interrupt_before_and_after_same_node(lg, obs):
    """Before and after `b`: two pauses, one per resume."""
    runs: list = []
    g = chain(lg, "abc", runs=runs).compile(
        checkpointer=lg.InMemorySaver(), interrupt_before=["b"], interrupt_after=["b"]
    )
    cfg = thread()
    obs("1", g.invoke({"log": []}, cfg))
    obs("next 1", g.get_state(cfg).next)
    obs("2", g.invoke(None, cfg))
    obs("next 2", g.get_state(cfg).next)
    obs("3", g.invoke(None, cfg))
    obs("runs", runs)
    obs("steps", steps(g, cfg))


@scenario
def sc_interrupt_at_invoke_time(lg, obs):
    """interrupt_before / interrupt_after given to invoke and stream, and "*"."""
    runs: list = []
    g = chain(lg, "abc", runs=runs).compile(checkpointer=lg.InMemorySaver())
    cfg = thread("before")
    obs("before", g.invoke({"log": []}, cfg, interrupt_before=["c"]))
    obs("next", g.get_state(cfg).next)
    obs("resume", g.invoke(None, cfg))
    cfg = thread("after")
    obs.stream("after", g, {"log": []}, cfg, interrupt_after=["b"])
    obs("next after", g.get_state(cfg).next)
    cfg = thread("star")
    obs("star", g.invoke({"log": []}, cfg, interrupt_before="*"))
    obs("star next", g.get_state(cfg).next)
    obs("star 2", g.invoke(None, cfg, interrupt_before="*"))
    obs("runs", runs)


@scenario
def sc_update_state_as_node(lg, obs):
    """Paused before b, update as b: b's reducer and edges apply, `next` becomes c; resuming runs c."""
    runs: list = []
    g = chain(lg, "abc", runs=runs).compile(checkpointer=lg.InMemorySaver(), interrupt_before=["b"])
    cfg = thread()
    g.invoke({"log": ["in"]}, cfg)
    new_config = g.update_state(cfg, {"log": ["as-b"]}, as_node="b")
    obs("config", new_config)
    obs("state", snap(g.get_state(cfg)))
    obs("resume", g.invoke(None, cfg))
    obs("runs", runs)
    obs("steps", steps(g, cfg))


@scenario
def sc_update_state_inferred_and_special(lg, obs):
    """as_node inferred (last node; __start__ on a fresh thread); __input__, __copy__, END."""
    g = chain(lg, "ab", schema=LogX).compile(checkpointer=lg.InMemorySaver())
    fresh = thread("fresh")
    g.update_state(fresh, {"x": 5})
    obs("fresh", snap(g.get_state(fresh)))
    obs("fresh run", g.invoke(None, fresh))
    cfg = thread()
    g.invoke({"log": ["in"]}, cfg)
    g.update_state(cfg, {"x": 1})
    obs("inferred", snap(g.get_state(cfg)))
    g.update_state(cfg, {"log": ["as-input"]}, as_node="__input__")
    obs("as input", snap(g.get_state(cfg)))
    obs("run input", g.invoke(None, cfg))
    g.update_state(cfg, None, as_node="__copy__")
    obs("copy", snap(g.get_state(cfg)))
    obs("steps", steps(g, cfg))


@scenario
def sc_update_state_end_clears_tasks(lg, obs):
    """update_state(cfg, None, as_node=END) on a paused thread clears its pending tasks."""
    runs: list = []
    g = chain(lg, "abc", runs=runs).compile(checkpointer=lg.InMemorySaver(), interrupt_before=["b"])
    cfg = thread()
    g.invoke({"log": []}, cfg)
    g.update_state(cfg, None, as_node=lg.END)
    obs("state", snap(g.get_state(cfg)))
    obs("resume", g.invoke(None, cfg))
    obs("runs", runs)


@scenario
def sc_update_state_errors(lg, obs):
    """LangGraph's texts: unknown as_node, END with values, ambiguous, no checkpointer; unknown keys
    are dropped."""
    b = lg.StateGraph(Log)
    b.add_node("a", lambda s: {"log": ["a"]})
    b.add_node("b", lambda s: {"log": ["b"]})
    b.add_edge(lg.START, "a")
    b.add_edge(lg.START, "b")
    g = b.compile(checkpointer=lg.InMemorySaver())
    cfg = thread()
    g.invoke({"log": []}, cfg)
    obs.attempt("unknown node", lambda: g.update_state(cfg, {"log": ["x"]}, as_node="zz"))
    obs.attempt("END with values", lambda: g.update_state(cfg, {"log": ["x"]}, as_node=lg.END))
    obs.attempt("ambiguous", lambda: g.update_state(cfg, {"log": ["x"]}))
    obs.attempt("copy on empty", lambda: g.update_state(thread("empty"), None, as_node="__copy__"))
    obs.attempt("no checkpointer", lambda: b.compile().update_state(cfg, {"log": ["x"]}, as_node="a"))
    obs.attempt("get_state without checkpointer", lambda: b.compile().get_state(cfg))
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        g.update_state(cfg, {"log": ["kept"], "zzz": 1}, as_node="a")
    obs("unknown key dropped", snap(g.get_state(cfg)))


@scenario
def sc_replay_from_checkpoint(lg, obs):
    """invoke(None, <checkpoint_id>) re-executes from there after a `fork` checkpoint."""
    runs: list = []
    g = chain(lg, "abc", runs=runs).compile(checkpointer=lg.InMemorySaver())
    cfg = thread()
    g.invoke({"log": ["in"]}, cfg)
    before_b = next(s for s in g.get_state_history(cfg) if s.next == ("b",))
    obs.stream("replay", g, None, before_b.config, stream_mode=["updates", "values"])
    obs("runs", runs)
    obs("history", [snap(s) for s in g.get_state_history(cfg)])
    obs("latest", g.get_state(cfg).values)


@scenario
def sc_fork_with_edit(lg, obs):
    """update_state on an old checkpoint, then invoke(None, returned config): a branch."""
    runs: list = []
    g = chain(lg, "abc", runs=runs).compile(checkpointer=lg.InMemorySaver())
    cfg = thread()
    g.invoke({"log": ["in"]}, cfg)
    before_b = next(s for s in g.get_state_history(cfg) if s.next == ("b",))
    edited = g.update_state(before_b.config, {"log": ["edit"]}, as_node="a")
    obs("edited", snap(g.get_state(edited)))
    obs("run", g.invoke(None, edited))
    obs("runs", runs)
    obs("history", [(s.metadata["step"], s.metadata["source"], s.next, s.values) for s in g.get_state_history(cfg)])


@scenario
def sc_replay_into_interrupt(lg, obs):
    """Replaying a checkpoint before an answered interrupt asks again (stored answers are dropped)."""
    runs: list = []
    b = chain(lg, "a", runs=runs)
    b.add_node("ask", asker(lg, "ask", 1, runs))
    b.add_edge("a", "ask")
    g = b.compile(checkpointer=lg.InMemorySaver())
    cfg = thread()
    g.invoke({"log": []}, cfg)
    g.invoke(lg.Command(resume="first"), cfg)
    before_ask = next(s for s in g.get_state_history(cfg) if s.next == ("ask",))
    obs("replay", g.invoke(None, before_ask.config))
    obs("answer", g.invoke(lg.Command(resume="second"), cfg))
    obs("runs", runs)
    obs("steps", steps(g, cfg))


@scenario
def sc_error_then_resume(lg, obs):
    """A node fails in a parallel step: no checkpoint; the sibling's writes are pending; invoke(None)
    re-runs only the failed node."""
    runs: list = []
    fail = [True]
    b = lg.StateGraph(Log)

    def ok(state):
        runs.append("ok")
        return {"log": ["ok"]}

    def boom(state):
        runs.append("boom")
        time.sleep(0.015)  # let `ok` finish first: LangGraph starts no task after a failure
        if fail[0]:
            raise ValueError("kaput")
        return {"log": ["boom-fixed"]}

    b.add_node("ok", ok)
    b.add_node("boom", boom)
    b.add_edge(lg.START, "ok")
    b.add_edge(lg.START, "boom")
    g = b.compile(checkpointer=lg.InMemorySaver())
    cfg = thread()
    obs.attempt("first", lambda: g.invoke({"log": []}, cfg))
    state = g.get_state(cfg)
    obs("state", (state.values, state.next, [(t.name, error_text(t.error), t.result) for t in state.tasks]))
    fail[0] = False
    obs("again", g.invoke(None, cfg))
    obs("runs", sorted(runs))
    obs("steps", steps(g, cfg))


@scenario
def sc_subgraph_interrupt_resumes_inside(lg, obs):
    """interrupt() in a subgraph: the subgraph resumes from its own checkpoint (s1 not re-run)."""
    runs: list = []
    sb = chain(lg, "x", runs=runs)
    sb.add_node("s2", asker(lg, "s2", 1, runs))
    sb.add_edge("x", "s2")
    b = chain(lg, "p", runs=runs)
    b.add_node("sub", sb.compile())
    b.add_edge("p", "sub")
    g = b.compile(checkpointer=lg.InMemorySaver())
    cfg = thread()
    obs.stream("first", g, {"log": []}, cfg, stream_mode=["updates", "values"], subgraphs=True)
    obs("state", snap(g.get_state(cfg)))
    obs.stream("resume", g, lg.Command(resume="R"), cfg, stream_mode=["updates", "values"], subgraphs=True)
    obs("runs", runs)
    obs("steps", steps(g, cfg))


@scenario
def sc_subgraph_breakpoint_stops_parent(lg, obs):
    """A breakpoint inside a subgraph stops the whole run; with a checkpointer it resumes inside."""
    runs: list = []
    sub = chain(lg, "xy", runs=runs).compile(interrupt_before=["y"])
    b = chain(lg, "p", runs=runs)
    b.add_node("sub", sub)
    b.add_node("after", lambda s: {"log": ["after"]})
    b.add_edge("p", "sub")
    b.add_edge("sub", "after")
    obs.stream("no checkpointer", b.compile(), {"log": []}, stream_mode=["updates", "values"], subgraphs=True)
    g = b.compile(checkpointer=lg.InMemorySaver())
    cfg = thread()
    obs("first", g.invoke({"log": []}, cfg))
    obs("next", g.get_state(cfg).next)
    obs("resume", g.invoke(None, cfg))
    obs("runs", runs)


@scenario
def sc_send_tasks_checkpointed(lg, obs):
    """Send tasks: `next` lists them (PUSH first), an interrupt in one of them, resume by id."""
    runs: list = []
    b = lg.StateGraph(Log)

    def fan(state):
        return [lg.Send("worker", {"i": i}) for i in range(2)]

    def worker(arg):
        runs.append(arg["i"])
        if arg["i"] == 1:
            return {"log": [f"w1:{lg.interrupt('w1?')}"]}
        return {"log": ["w0"]}

    b.add_node("start", lambda s: {"log": ["start"]})
    b.add_node("worker", worker)
    b.add_edge(lg.START, "start")
    b.add_conditional_edges("start", fan)
    g = b.compile(checkpointer=lg.InMemorySaver())
    cfg = thread()
    obs("first", g.invoke({"log": []}, cfg))
    obs("state", snap(g.get_state(cfg)))
    obs("resume", g.invoke(lg.Command(resume="yes"), cfg))
    obs("runs", runs)
    obs("history", [snap(s) for s in g.get_state_history(cfg)])


@scenario
def sc_unknown_thread_and_empty_resume(lg, obs):
    """get_state on an unknown thread; invoke(None) on it (LangGraph's EmptyInputError text)."""
    g = chain(lg, "a").compile(checkpointer=lg.InMemorySaver())
    obs("unknown", snap(g.get_state(thread("nobody"))))
    obs("history", list(g.get_state_history(thread("nobody"))))
    obs.attempt("none", lambda: g.invoke(None, thread("nobody")))
    obs.attempt("no thread id", lambda: g.invoke({"log": []}, {"configurable": {}}))
    obs.attempt("no config", lambda: g.invoke({"log": []}))
    obs.attempt(
        "unknown checkpoint, None",
        lambda: g.invoke(None, thread("nobody", checkpoint_id="1ef00000-0000-6000-8000-000000000000")),
    )
    obs(
        "unknown checkpoint state",
        snap(g.get_state(thread("nobody", checkpoint_id="1ef00000-0000-6000-8000-000000000000"))),
    )


@scenario
def sc_recursion_limit_checkpointed(lg, obs):
    """The last completed step is checkpointed before the recursion error; `next` still pending."""
    b = lg.StateGraph(Log)
    b.add_node("loop", lambda s: {"log": ["x"]})
    b.add_edge(lg.START, "loop")
    b.add_edge("loop", "loop")
    g = b.compile(checkpointer=lg.InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}, "recursion_limit": 3}
    obs.attempt("run", lambda: g.invoke({"log": []}, cfg))
    obs("steps", steps(g, cfg))
    obs.attempt("again", lambda: g.invoke(None, cfg))
    obs("steps again", steps(g, cfg))


@scenario
def sc_update_state_runs_routers(lg, obs):
    """update_state as a node with a conditional edge: its router sees the fresh state and picks `next`."""
    b = lg.StateGraph(LogX)
    b.add_node("a", lambda s: {"x": 1})
    b.add_node("big", lambda s: {"log": ["big"]})
    b.add_node("small", lambda s: {"log": ["small"]})
    b.add_edge(lg.START, "a")
    b.add_conditional_edges("a", lambda s: "big" if s["x"] > 10 else "small", ["big", "small"])
    g = b.compile(checkpointer=lg.InMemorySaver(), interrupt_after=["a"])
    cfg = thread()
    obs("first", g.invoke({"log": []}, cfg))
    obs("next", g.get_state(cfg).next)
    g.update_state(cfg, {"x": 50}, as_node="a")
    obs("next after update", g.get_state(cfg).next)
    obs("resume", g.invoke(None, cfg))
    obs("steps", steps(g, cfg))


@scenario
def sc_waiting_edge_across_interrupt(lg, obs):
    """A join whose one side is interrupted: the barrier's partial state survives the checkpoint."""
    runs: list = []
    b = lg.StateGraph(Log)
    b.add_node("fast", lambda s: {"log": ["fast"]})
    b.add_node("ask", asker(lg, "ask", 1, runs))
    b.add_node("mid", lambda s: {"log": ["mid"]})
    b.add_node("join", lambda s: {"log": ["join"]})
    b.add_edge(lg.START, "fast")
    b.add_edge(lg.START, "mid")
    b.add_edge("mid", "ask")
    b.add_edge(["fast", "ask"], "join")
    g = b.compile(checkpointer=lg.InMemorySaver())
    cfg = thread()
    obs("first", g.invoke({"log": []}, cfg))
    obs("state", snap(g.get_state(cfg)))
    obs("resume", g.invoke(lg.Command(resume="A"), cfg))
    obs("steps", steps(g, cfg))


@scenario
def sc_dataclass_state_round_trip(lg, obs):
    """A dataclass state restored from a checkpoint is rebuilt for the node; defaults still apply."""
    from dataclasses import dataclass, field

    @dataclass
    class D:
        log: Annotated[list, operator.add] = field(default_factory=list)
        n: int = 0

    seen: list = []

    def ask(state: D):
        seen.append((type(state).__name__, state.n, list(state.log)))
        return {"log": [lg.interrupt("q")], "n": state.n + 1}

    b = lg.StateGraph(D)
    b.add_node("ask", ask)
    b.add_edge(lg.START, "ask")
    g = b.compile(checkpointer=lg.InMemorySaver())
    cfg = thread()
    obs("first", g.invoke({"log": ["in"]}, cfg))
    obs("resume", g.invoke(lg.Command(resume="ans"), cfg))
    obs("seen", seen)
    obs("state", g.get_state(cfg).values)


@scenario
def sc_messages_across_resume(lg, obs):
    """add_messages state: ids given at input survive the checkpoint and the resume."""

    def chat(state):
        reply = lg.interrupt("your turn")
        return {"messages": [lg.AIMessage(f"echo {reply}")]}

    b = lg.StateGraph(lg.MessagesState)
    b.add_node("chat", chat)
    b.add_edge(lg.START, "chat")
    g = b.compile(checkpointer=lg.InMemorySaver())
    cfg = thread()
    obs("first", g.invoke({"messages": [lg.HumanMessage("hi")]}, cfg))
    obs("resume", g.invoke(lg.Command(resume="hello"), cfg))
    obs("history", [(s.metadata["step"], s.values) for s in g.get_state_history(cfg)])


@scenario
def sc_new_input_at_old_checkpoint(lg, obs):
    """New input sent to an older checkpoint_id: a branch starting with an input checkpoint there."""
    runs: list = []
    g = chain(lg, "ab", runs=runs).compile(checkpointer=lg.InMemorySaver())
    cfg = thread()
    g.invoke({"log": ["one"]}, cfg)
    old = next(s for s in g.get_state_history(cfg) if s.next == ("b",))
    obs("branch", g.invoke({"log": ["two"]}, old.config))
    obs("runs", runs)
    obs(
        "history",
        [
            (
                s.metadata["step"],
                s.metadata["source"],
                s.next,
                s.values,
                s.parent_config["configurable"]["checkpoint_id"] if s.parent_config else None,
                s.config["configurable"]["checkpoint_id"],
            )
            for s in g.get_state_history(cfg)
        ],
    )


@scenario
def sc_resume_at_latest_checkpoint_id(lg, obs):
    """Command(resume=...) addressed at the latest checkpoint by id is an ordinary resume."""
    runs: list = []
    b = lg.StateGraph(Log)
    b.add_node("ask", asker(lg, "ask", 1, runs))
    b.add_node("sib", lambda s: runs.append("sib") or {"log": ["sib"]})
    b.add_edge(lg.START, "ask")
    b.add_edge(lg.START, "sib")
    g = b.compile(checkpointer=lg.InMemorySaver())
    cfg = thread()
    g.invoke({"log": []}, cfg)
    latest = g.get_state(cfg).config
    obs("resume", g.invoke(lg.Command(resume="R"), latest))
    obs("runs", sorted(runs))
    obs("steps", steps(g, cfg))


@scenario
def sc_command_goto_on_resume(lg, obs):
    """Command(goto=...) sent to a paused thread: the target runs along with the pending task."""
    runs: list = []
    g = chain(lg, "abc", runs=runs).compile(checkpointer=lg.InMemorySaver(), interrupt_before=["b"])
    cfg = thread()
    g.invoke({"log": []}, cfg)
    obs.stream("goto", g, lg.Command(goto="c"), cfg, stream_mode="updates", unordered=True)
    obs("runs", runs)
    obs("steps", steps(g, cfg))


@scenario
def sc_subgraph_state_and_replay(lg, obs):
    """get_state(subgraphs=True) nests the subgraph's snapshot; replaying before the subgraph node
    runs the subgraph again from scratch."""
    runs: list = []
    sub = chain(lg, "xy", runs=runs).compile()
    b = chain(lg, "p", runs=runs)
    b.add_node("sub", sub)
    b.add_edge("p", "sub")
    g = b.compile(checkpointer=lg.InMemorySaver(), interrupt_after=["p"])
    cfg = thread()
    g.invoke({"log": []}, cfg)
    obs("paused", snap(g.get_state(cfg, subgraphs=True)))
    obs("done", g.invoke(None, cfg))
    before_sub = next(s for s in g.get_state_history(cfg) if s.next == ("sub",))
    sub_config = g.get_state(before_sub.config, subgraphs=False).tasks[0].state
    obs("sub state", snap(g.get_state(sub_config)))
    obs("sub history", [snap(s) for s in g.get_state_history(sub_config)])
    obs("record", snap(g.get_state(before_sub.config, subgraphs=True)))
    obs("replay", g.invoke(None, before_sub.config))
    obs("runs", runs)
    obs("steps", steps(g, cfg))


@scenario
def sc_parallel_subgraph_interrupts(lg, obs):
    """Two subgraph nodes interrupt in the same step; a resume map answers both, by the inner ids."""
    runs: list = []

    def subgraph(tag):
        sb = lg.StateGraph(Log)
        sb.add_node(f"{tag}1", lambda s: runs.append(f"{tag}1") or {"log": [f"{tag}1"]})
        sb.add_node(f"{tag}2", asker(lg, f"{tag}2", 1, runs))
        sb.add_edge(lg.START, f"{tag}1")
        sb.add_edge(f"{tag}1", f"{tag}2")
        return sb.compile()

    b = lg.StateGraph(Log)
    b.add_node("left", subgraph("l"))
    b.add_node("right", subgraph("r"))
    b.add_edge(lg.START, "left")
    b.add_edge(lg.START, "right")
    g = b.compile(checkpointer=lg.InMemorySaver())
    cfg = thread()
    first = g.invoke({"log": []}, cfg)
    obs("first", sorted(first["__interrupt__"], key=lambda i: i.value))
    obs.attempt("bare", lambda: g.invoke(lg.Command(resume="x"), cfg))
    answers = {i.id: i.value.upper() for i in g.get_state(cfg).interrupts}
    obs("answered", g.invoke(lg.Command(resume=answers), cfg))
    obs("runs", sorted(runs))
    obs("steps", steps(g, cfg))


# ---------------------------------------------------------------------------------------------
# Pinned LangGraph facts (read off langgraph 1.2.22's sources)
# ---------------------------------------------------------------------------------------------

EXPECT: dict[str, dict[str, Any]] = {
    "history_of_a_chain": {
        "steps": [
            (3, "loop", ()),
            (2, "loop", ("c",)),
            (1, "loop", ("b",)),
            (0, "loop", ("a",)),
            (-1, "input", ("__start__",)),
        ],
        "steps after": [
            (8, "loop", ()),
            (7, "loop", ("c",)),
            (6, "loop", ("b",)),
            (5, "loop", ("a",)),
            (4, "input", ("__start__",)),
            (3, "loop", ()),
            (2, "loop", ("c",)),
            (1, "loop", ("b",)),
            (0, "loop", ("a",)),
            (-1, "input", ("__start__",)),
        ],
    },
    "interrupt_once_with_sibling": {
        "steps after": [
            (2, "loop", ()),
            (1, "loop", ("after",)),
            (0, "loop", ("asker", "sib")),
            (-1, "input", ("__start__",)),
        ],
    },
    "two_interrupts_in_one_node": {"runs": ["ask", "ask", "ask"], "third": {"log": ["ask:A/B"]}},
    "multiple_pending_interrupts": {"bare resume": ("error", "RuntimeError", MULTIPLE)},
    "interrupt_before_and_after_same_node": {"runs": ["a", "b", "c"], "next 1": ("b",), "next 2": ("c",)},
    "update_state_as_node": {"resume": {"log": ["in", "a", "as-b", "c"]}, "runs": ["a", "c"]},
    "replay_from_checkpoint": {"runs": ["a", "b", "c", "b", "c"]},
    "interrupt_without_checkpointer": {
        "resume": ("error", "RuntimeError", "Cannot use Command(resume=...) without checkpointer"),
    },
    "update_state_errors": {
        "unknown node": ("error", "InvalidUpdateError", "Node zz does not exist"),
        "END with values": ("error", "InvalidUpdateError", "Node __end__ does not exist"),
        "ambiguous": ("error", "InvalidUpdateError", "Ambiguous update, specify as_node"),
        "no checkpointer": ("error", "ValueError", "No checkpointer set"),
    },
    "subgraph_interrupt_resumes_inside": {"runs": ["p", "x", "s2", "s2"]},
    "error_then_resume": {"runs": ["boom", "boom", "ok"]},
}


# ---------------------------------------------------------------------------------------------
# Running and comparing
# ---------------------------------------------------------------------------------------------


#: Scenarios whose state holds classes defined inside the scenario, which pickle (SqliteSaver) refuses.
NOT_PICKLABLE = {"dataclass_state_round_trip"}


def backend_namespace(backend: str) -> SimpleNamespace:
    """`engine-sqlite` is the engine with every `InMemorySaver()` replaced by a SQLite saver."""
    if backend != "engine-sqlite":
        return get_backend(backend)
    from engine import SqliteSaver

    return SimpleNamespace(**{**vars(get_backend("engine")), "InMemorySaver": lambda: SqliteSaver(":memory:")})


def record(name: str, backend: str) -> list:
    lg = backend_namespace(backend)
    recorder = Recorder(lg)
    obs = recorder
    obs.attempt = recorder.attempt  # type: ignore[method-assign]
    _with_timeout(lambda: SCENARIOS[name](lg, obs))
    mask = CheckpointNormaliser(mask=True)
    items = []
    for label, value in recorder.items:
        if isinstance(value, Unordered):
            value = ("unordered", sorted(value, key=lambda c: sort_key(mask(c))))
        items.append((label, value))
    norm = CheckpointNormaliser()
    return [(label, norm(value)) for label, value in items]


_RECORDS: dict = {}


def observed(name: str, backend: str, run: int = 0) -> list:
    key = (name, backend, run)
    if key not in _RECORDS:
        _RECORDS[key] = record(name, backend)
    return _RECORDS[key]


def differences(actual: list, reference: list) -> list[str]:
    problems = []
    if [label for label, _ in actual] != [label for label, _ in reference]:
        problems.append(f"labels: {[l for l, _ in actual]} vs reference {[l for l, _ in reference]}")
    for (label, a), (_, r) in zip(actual, reference):
        if a != r:
            problems.append(f"{label}:\n  got {a!r}\n  ref {r!r}")
    return problems


@pytest.mark.parametrize("backend", [*BACKEND_NAMES, "engine-sqlite"])
@pytest.mark.parametrize("name", list(SCENARIOS))
def test_scenario(backend: str, name: str):
    if backend == "engine-sqlite" and name in NOT_PICKLABLE:
        pytest.skip("the state holds a class defined inside the scenario: SqliteSaver cannot pickle it")
    reference = observed(name, "langgraph")
    if backend == "langgraph":
        pinned = dict(reference)
        for label, want in EXPECT.get(name, {}).items():
            assert pinned[label] == want, f"LangGraph no longer gives {label}={want!r}: {pinned[label]!r}"
        actual = observed(name, "langgraph", run=1)
        label = "a second LangGraph run"
    else:
        actual = observed(name, backend)
        label = "the engine" if backend == "engine" else "the engine with SqliteSaver"
    problems = differences(actual, reference)
    assert not problems, f"{label} differs from LangGraph:\n" + "\n".join(problems)


def test_every_scenario_is_documented():
    for name, fn in SCENARIOS.items():
        assert (fn.__doc__ or "").strip(), name


def test_comparison_is_not_vacuous():
    """A changed step number, a different parent or a renumbered interrupt is reported."""
    reference = observed("history_of_a_chain", "langgraph")
    steps_index = next(i for i, (label, _) in enumerate(reference) if label == "steps")
    changed = list(reference)
    changed[steps_index] = ("steps", [(s + 1, src, nxt) for s, src, nxt in reference[steps_index][1]])
    assert differences(changed, reference)
    norm = CheckpointNormaliser()
    a, b = "0" * 31 + "1", "0" * 31 + "2"
    assert norm([a, b, a]) == ["<iid-1>", "<iid-2>", "<iid-1>"]
    assert CheckpointNormaliser()([a, a]) != CheckpointNormaliser()([a, b])
    assert norm("2024-05-01T10:00:00.123456+00:00") == "<ts>"
