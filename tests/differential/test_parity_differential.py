"""Differential cases for the parts of LangGraph's API that issue 15 added to the engine: async runs,
`RetryPolicy`, managed values, `get_stream_writer()` / the `custom` mode, the order of a step's
chunks (Send tasks first), and checkpoint events in the `debug` and `checkpoints` modes.

Each scenario builds its graph against a namespace of LangGraph's names (`lib`), runs it on the real
langgraph and on the engine, and compares everything observable: the result or the exact error
(type, text, notes), every chunk in exact order, and a probe of what the nodes saw and how often
they ran. Values are normalised by the differential harness (`Normaliser`: uuids numbered by first
appearance); debug events lose their timestamp. Steps whose tasks could finish in either order run
with `max_concurrency: 1` or with tasks that take no time, so LangGraph's order is its scheduled order.
"""

# No `from __future__ import annotations`: both libraries read the schemas' annotations eagerly.
import asyncio
import importlib
import operator
import threading
from types import SimpleNamespace
from typing import Annotated, Any, Callable, TypedDict

import pytest

pytest.importorskip("langgraph")

from .harness import FULL_UUID_RE, UUID_RE, Normaliser, _with_timeout, describe_error  # noqa: E402

NAMES = {
    "StateGraph": ("langgraph.graph", "engine"),
    "START": ("langgraph.graph", "engine"),
    "END": ("langgraph.graph", "engine"),
    "Send": ("langgraph.types", "engine"),
    "Command": ("langgraph.types", "engine"),
    "RetryPolicy": ("langgraph.types", "engine"),
    "RemainingSteps": ("langgraph.managed", "engine"),
    "IsLastStep": ("langgraph.managed", "engine"),
    "get_stream_writer": ("langgraph.config", "engine"),
    "InMemorySaver": ("langgraph.checkpoint.memory", "engine"),
    "interrupt": ("langgraph.types", "engine"),
}


def namespace(backend: str) -> SimpleNamespace:
    side = 0 if backend == "langgraph" else 1
    return SimpleNamespace(
        name=backend, **{name: getattr(importlib.import_module(modules[side]), name) for name, modules in NAMES.items()}
    )


class Log(TypedDict):
    log: Annotated[list, operator.add]


SCENARIOS: dict[str, Callable[[SimpleNamespace], dict[str, Any]]] = {}


def scenario(fn: Callable[[SimpleNamespace], Any]) -> Callable[[SimpleNamespace], Any]:
    SCENARIOS[fn.__name__] = fn
    return fn


def outcome(run: Callable[[], Any]) -> dict[str, Any]:
    """What a run gave, normalised on its own (ids numbered from 1): its value, or its exact error."""
    try:
        return Normaliser()({"value": _with_timeout(run), "error": None})
    except Exception as exc:  # noqa: BLE001 - the error is what is compared
        return {"value": None, "error": describe_error(exc, None)}


def collect(stream: Any) -> list[Any]:
    """All chunks of a sync or async stream; debug events lose their timestamp."""
    if hasattr(stream, "__aiter__"):

        async def drain() -> list[Any]:
            return [chunk async for chunk in stream]

        chunks = asyncio.run(drain())
    else:
        chunks = list(stream)
    return [_untimed(chunk) for chunk in chunks]


def _untimed(chunk: Any) -> Any:
    """Drops debug timestamps; a namespace element `name:<task id>` becomes `name:<id>`."""
    if isinstance(chunk, tuple):
        return tuple(_untimed(part) for part in chunk)
    if isinstance(chunk, list):
        return [_untimed(part) for part in chunk]
    if isinstance(chunk, dict):
        return {_untimed(k): _untimed(v) for k, v in chunk.items() if not (k == "timestamp" and "type" in chunk)}
    if isinstance(chunk, str) and UUID_RE.search(chunk) and not FULL_UUID_RE.match(chunk):
        return UUID_RE.sub("<id>", chunk)
    return chunk


# ---- 1. async ----------------------------------------------------------------------------------


def _async_fan(lib: SimpleNamespace, width: int = 8, meet: bool = True) -> Any:
    """START -> fan -> `width` async workers -> join -> async router -> a sync node. With `meet` each
    worker waits for all the others (only a concurrent run finishes; the last to arrive finishes
    first), else each just yields once (they finish in the order they started)."""
    barrier = asyncio.Barrier(width)

    def worker(i: int) -> Callable[[dict], Any]:
        async def work(state: dict) -> dict:
            if meet:
                await asyncio.wait_for(barrier.wait(), 10)
            else:
                await asyncio.sleep(0)
            return {"log": [f"w{i}"]}

        return work

    async def route(state: dict) -> str:
        await asyncio.sleep(0)
        return "sync_tail" if len(state["log"]) > width else lib.END

    g = lib.StateGraph(Log)
    g.add_node("fan", lambda s: {"log": ["fan"]})
    names = [f"w{i}" for i in range(width)]
    for i, name in enumerate(names):
        g.add_node(name, worker(i))
        g.add_edge("fan", name)
    g.add_node("join", lambda s: {"log": ["join"]})
    g.add_node("sync_tail", lambda s: {"log": [f"tail saw {len(s['log'])}"]})
    g.add_edge(lib.START, "fan")
    g.add_edge(names, "join")
    g.add_conditional_edges("join", route, ["sync_tail", lib.END])
    return g.compile()


@scenario
def async_ainvoke_concurrent(lib: SimpleNamespace) -> dict[str, Any]:
    return outcome(lambda: asyncio.run(_async_fan(lib).ainvoke({"log": []})))


@scenario
def async_astream_every_mode(lib: SimpleNamespace) -> dict[str, Any]:
    modes = ["values", "updates", "debug", "tasks", "custom"]
    return outcome(lambda: collect(_async_fan(lib, 3, meet=False).astream({"log": []}, stream_mode=modes)))


@scenario
def async_astream_default_and_subgraphs(lib: SimpleNamespace) -> dict[str, Any]:
    async def inner(state: dict) -> dict:
        await asyncio.sleep(0)
        lib.get_stream_writer()({"inner": len(state["log"])})
        return {"log": ["inner"]}

    sub = lib.StateGraph(Log)
    sub.add_node("inner", inner)
    sub.add_edge(lib.START, "inner")
    g = lib.StateGraph(Log)
    g.add_node("sub", sub.compile())
    g.add_node("after", lambda s: {"log": ["after"]})
    g.add_edge(lib.START, "sub")
    g.add_edge("sub", "after")
    app = g.compile()
    return {
        "default": outcome(lambda: collect(app.astream({"log": []}))),
        "subgraphs": outcome(
            lambda: collect(app.astream({"log": []}, stream_mode=["updates", "custom"], subgraphs=True))
        ),
        "ainvoke": outcome(lambda: asyncio.run(app.ainvoke({"log": ["x"]}))),
    }


@scenario
def async_node_in_sync_run(lib: SimpleNamespace) -> dict[str, Any]:
    async def node(state: dict) -> dict:
        return {"log": ["never"]}

    async def router(state: dict) -> str:
        return lib.END

    g = lib.StateGraph(Log)
    g.add_node("node", node)
    g.add_edge(lib.START, "node")
    h = lib.StateGraph(Log)
    h.add_node("plain", lambda s: {"log": ["plain"]})
    h.add_edge(lib.START, "plain")
    h.add_conditional_edges("plain", router)
    return {
        "node": outcome(lambda: g.compile().invoke({"log": []})),
        "router": outcome(lambda: collect(h.compile().stream({"log": []}))),
        "router_async": outcome(lambda: asyncio.run(h.compile().ainvoke({"log": []}))),
    }


@scenario
def async_failure_and_interrupt(lib: SimpleNamespace) -> dict[str, Any]:
    async def boom(state: dict) -> dict:
        raise KeyError("missing")

    async def ask(state: dict) -> dict:
        answer = lib.interrupt("name?")
        return {"log": [answer]}

    g = lib.StateGraph(Log)
    g.add_node("ok", lambda s: {"log": ["ok"]})
    g.add_node("boom", boom)
    g.add_edge(lib.START, "ok")
    g.add_edge(lib.START, "boom")
    h = lib.StateGraph(Log)
    h.add_node("ask", ask)
    h.add_edge(lib.START, "ask")
    app = h.compile(checkpointer=lib.InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}

    async def ask_then_answer() -> list[Any]:
        first = await app.ainvoke({"log": []}, cfg)
        questions = [i.value for i in first.pop("__interrupt__")]  # (their ids differ by design)
        second = [c async for c in app.astream(lib.Command(resume="Ada"), cfg, stream_mode="values")]
        return [first, questions, second]

    return {
        "failure": outcome(lambda: collect(g.compile().astream({"log": []}, {"max_concurrency": 1}))),
        "interrupt": outcome(lambda: asyncio.run(ask_then_answer())),
    }


# ---- 2. retries --------------------------------------------------------------------------------


class Flaky:
    """A node that raises `error` on its first `failures` calls, then succeeds."""

    def __init__(
        self, failures: int, error: Callable[[int], Exception] = lambda n: ConnectionError(f"down {n}")
    ) -> None:
        self.failures = failures
        self.error = error
        self.calls = 0

    def __call__(self, state: dict) -> dict:
        self.calls += 1
        if self.calls <= self.failures:
            raise self.error(self.calls)
        return {"log": [f"ok after {self.calls}"]}


def _retry_run(lib: SimpleNamespace, flaky: Any, policy: Any, stream: bool = False) -> dict[str, Any]:
    g = lib.StateGraph(Log)
    g.add_node("flaky", flaky, retry_policy=policy)
    g.add_node("after", lambda s: {"log": ["after"]})
    g.add_edge(lib.START, "flaky")
    g.add_edge("flaky", "after")
    app = g.compile()
    run = (
        (lambda: collect(app.stream({"log": []}, stream_mode=["updates", "values"])))
        if stream
        else (lambda: app.invoke({"log": []}))
    )
    result = outcome(run)
    result["calls"] = flaky.calls
    return result


def _fast(lib: SimpleNamespace, **kw: Any) -> Any:
    return lib.RetryPolicy(initial_interval=0.001, max_interval=0.002, jitter=False, **kw)


@scenario
def retry_succeeds_after_failures(lib: SimpleNamespace) -> dict[str, Any]:
    return {
        "twice": _retry_run(lib, Flaky(2), _fast(lib)),
        "stream": _retry_run(lib, Flaky(1), _fast(lib), stream=True),
        "five_of_six": _retry_run(lib, Flaky(5), _fast(lib, max_attempts=6)),
    }


@scenario
def retry_exhausted(lib: SimpleNamespace) -> dict[str, Any]:
    return {
        "default_3": _retry_run(lib, Flaky(10), _fast(lib)),
        "one_attempt": _retry_run(lib, Flaky(10), _fast(lib, max_attempts=1)),
        "stream": _retry_run(lib, Flaky(10), _fast(lib, max_attempts=2), stream=True),
    }


@scenario
def retry_on_rules(lib: SimpleNamespace) -> dict[str, Any]:
    class Transient(Exception):
        pass

    value_error = lambda n: ValueError(f"bad value {n}")  # noqa: E731
    transient = lambda n: Transient(f"try again {n}")  # noqa: E731
    return {
        # LangGraph's default retry_on does not retry a ValueError, and does retry other errors
        "default_value_error": _retry_run(lib, Flaky(1, value_error), _fast(lib)),
        "default_custom_error": _retry_run(lib, Flaky(1, transient), _fast(lib)),
        "class": _retry_run(lib, Flaky(2, transient), _fast(lib, retry_on=Transient)),
        "tuple_mismatch": _retry_run(lib, Flaky(2, value_error), _fast(lib, retry_on=(Transient, KeyError))),
        "callable": _retry_run(lib, Flaky(2, value_error), _fast(lib, retry_on=lambda e: "bad" in str(e))),
        "policies_in_order": _retry_run(
            lib, Flaky(3, transient), [_fast(lib, retry_on=KeyError), _fast(lib, retry_on=Transient, max_attempts=4)]
        ),
    }


@scenario
def retry_node_defaults(lib: SimpleNamespace) -> dict[str, Any]:
    def run(flaky: Flaky, own: Any) -> dict[str, Any]:
        g = lib.StateGraph(Log).set_node_defaults(retry_policy=_fast(lib, max_attempts=4))
        g.add_node("flaky", flaky, retry_policy=own)
        g.add_edge(lib.START, "flaky")
        result = outcome(lambda: g.compile().invoke({"log": []}))
        result["calls"] = flaky.calls
        return result

    return {"default": run(Flaky(3), None), "own_wins": run(Flaky(3), _fast(lib, max_attempts=2))}


@scenario
def retry_async_node(lib: SimpleNamespace) -> dict[str, Any]:
    calls = {"n": 0}

    async def flaky(state: dict) -> dict:
        calls["n"] += 1
        if calls["n"] < 3:
            raise TimeoutError(f"slow {calls['n']}")
        return {"log": ["async ok"]}

    g = lib.StateGraph(Log)
    g.add_node("flaky", flaky, retry_policy=_fast(lib, retry_on=TimeoutError))
    g.add_edge(lib.START, "flaky")
    result = outcome(lambda: asyncio.run(g.compile().ainvoke({"log": []})))
    result["calls"] = calls["n"]
    return result


# ---- 3. managed values -------------------------------------------------------------------------


@scenario
def managed_values_under_small_limit(lib: SimpleNamespace) -> dict[str, Any]:
    class State(TypedDict):
        log: Annotated[list, operator.add]
        remaining_steps: lib.RemainingSteps
        is_last_step: lib.IsLastStep

    seen: list[Any] = []

    def agent(state: dict) -> dict:
        seen.append(dict(state))
        return {"log": [(state["remaining_steps"], state["is_last_step"])], "remaining_steps": 100}

    def route(state: dict) -> str:
        seen.append(("router", state["remaining_steps"], state["is_last_step"]))
        return lib.END if state["remaining_steps"] <= 2 else "agent"

    g = lib.StateGraph(State)
    g.add_node("agent", agent)
    g.add_edge(lib.START, "agent")
    g.add_conditional_edges("agent", route, ["agent", lib.END])
    endless = lib.StateGraph(State)
    endless.add_node("agent", agent)
    endless.add_edge(lib.START, "agent")
    endless.add_edge("agent", "agent")
    results = {
        "stops_itself": outcome(lambda: g.compile().invoke({"log": [], "remaining_steps": 9}, {"recursion_limit": 6})),
        "values": outcome(
            lambda: collect(g.compile().stream({"log": []}, {"recursion_limit": 5}, stream_mode=["values", "updates"]))
        ),
        "endless": outcome(lambda: endless.compile().invoke({"log": []}, {"recursion_limit": 4})),
        "async": outcome(lambda: asyncio.run(g.compile().ainvoke({"log": []}, {"recursion_limit": 4}))),
    }
    results["seen"] = seen
    return results


# ---- 4. custom stream and checkpoint events ----------------------------------------------------


def _writer_graph(lib: SimpleNamespace) -> Any:
    def a(state: dict) -> dict:
        write = lib.get_stream_writer()
        write({"progress": 1})
        write("half way")
        return {"log": ["a"]}

    def b(state: dict) -> dict:
        lib.get_stream_writer()(("b", len(state["log"])))
        return {"log": ["b"]}

    def route(state: dict) -> str:
        lib.get_stream_writer()("routing")
        return lib.END

    sub = lib.StateGraph(Log)
    sub.add_node("s1", lambda s: lib.get_stream_writer()("from the subgraph") or {"log": ["s1"]})
    sub.add_edge(lib.START, "s1")
    g = lib.StateGraph(Log)
    g.add_node("a", a)
    g.add_node("b", b)
    g.add_node("sub", sub.compile())
    # One task per step: with the custom mode LangGraph runs tasks in the background and yields as
    # they finish, so parallel writers would come in timing order (and max_concurrency 1 hangs it).
    g.add_edge(lib.START, "a")
    g.add_edge("a", "b")
    g.add_edge("b", "sub")
    g.add_conditional_edges("sub", route)
    return g.compile()


@scenario
def custom_stream_chunks(lib: SimpleNamespace) -> dict[str, Any]:
    app = _writer_graph(lib)
    return {
        "custom": outcome(lambda: collect(app.stream({"log": []}, stream_mode="custom"))),
        "custom_updates": outcome(lambda: collect(app.stream({"log": []}, stream_mode=["custom", "updates"]))),
        "subgraphs": outcome(
            lambda: collect(app.stream({"log": []}, stream_mode=["custom", "values"], subgraphs=True))
        ),
        "invoke_ignores": outcome(lambda: app.invoke({"log": []})),
        "outside_a_node": outcome(lambda: lib.get_stream_writer()),
    }


@scenario
def debug_checkpoint_events(lib: SimpleNamespace) -> dict[str, Any]:
    def app() -> Any:
        g = lib.StateGraph(Log)
        g.add_node("a", lambda s: {"log": ["a"]})
        g.add_node("b", lambda s: {"log": ["b"]})
        g.add_node("c", lambda s: {"log": ["c"]})
        g.add_edge(lib.START, "a")
        g.add_edge(lib.START, "b")
        g.add_edge("a", "c")
        g.add_edge("b", "c")
        return g.compile(checkpointer=lib.InMemorySaver())

    def cfg(thread: str) -> dict[str, Any]:
        return {"configurable": {"thread_id": thread}, "max_concurrency": 1}

    return {
        "debug": outcome(lambda: collect(app().stream({"log": []}, cfg("1"), stream_mode="debug"))),
        "checkpoints": outcome(lambda: collect(app().stream({"log": []}, cfg("2"), stream_mode="checkpoints"))),
        "both_with_values": outcome(
            lambda: collect(app().stream({"log": []}, cfg("3"), stream_mode=["debug", "values"]))
        ),
        "subgraph_debug": outcome(
            lambda: collect(
                _writer_graph_with_saver(lib).stream(
                    {"log": []}, {"configurable": {"thread_id": "4"}}, stream_mode="debug", subgraphs=True
                )
            )
        ),
    }


def _writer_graph_with_saver(lib: SimpleNamespace) -> Any:
    sub = lib.StateGraph(Log)
    sub.add_node("s1", lambda s: {"log": ["s1"]})
    sub.add_edge(lib.START, "s1")
    g = lib.StateGraph(Log)
    g.add_node("sub", sub.compile())
    g.add_edge(lib.START, "sub")
    return g.compile(checkpointer=lib.InMemorySaver())


# ---- 5. order of a step's chunks ---------------------------------------------------------------


def _send_and_pull(lib: SimpleNamespace) -> Any:
    """Step 2 runs two Send tasks (`worker`) and two pulled nodes (`b`, `a_pulled`) together."""

    def fan(state: dict) -> Any:
        return lib.Command(
            update={"log": ["fan"]}, goto=[lib.Send("worker", {"log": ["s1"]}), lib.Send("worker", {"log": ["s2"]})]
        )

    g = lib.StateGraph(Log)
    g.add_node("fan", fan)
    g.add_node("worker", lambda s: {"log": [f"worker {s['log'][0]}"]})
    g.add_node("b", lambda s: {"log": ["b"]})
    g.add_node("a_pulled", lambda s: {"log": ["a_pulled"]})
    g.add_edge(lib.START, "fan")
    g.add_edge("fan", "b")
    g.add_edge("fan", "a_pulled")
    return g.compile()


@scenario
def update_order_send_first(lib: SimpleNamespace) -> dict[str, Any]:
    app = _send_and_pull(lib)
    one = {"max_concurrency": 1}
    return {
        "updates": outcome(lambda: collect(app.stream({"log": []}, one, stream_mode="updates"))),
        "tasks": outcome(lambda: collect(app.stream({"log": []}, one, stream_mode="tasks"))),
        "debug": outcome(lambda: collect(app.stream({"log": []}, one, stream_mode="debug"))),
        "async_updates": outcome(lambda: collect(app.astream({"log": []}, one, stream_mode=["updates", "values"]))),
        "final": outcome(lambda: app.invoke({"log": []})),
    }


# ---- the test ----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(SCENARIOS))
def test_engine_matches_langgraph(name: str) -> None:
    expected = Normaliser()(SCENARIOS[name](namespace("langgraph")))
    actual = Normaliser()(SCENARIOS[name](namespace("engine")))
    assert actual == expected


def test_async_workers_of_one_step_run_concurrently_on_the_engine() -> None:
    """Eight async nodes that each wait until all eight are waiting: only a concurrent run finishes."""
    result = _with_timeout(lambda: asyncio.run(_async_fan(namespace("engine")).ainvoke({"log": []})))
    assert result["log"][:2] == ["fan", "w0"] and result["log"][-1].startswith("tail saw")


def test_sync_nodes_of_an_async_step_run_in_threads() -> None:
    """Sync nodes of a step with several tasks run in worker threads, so they can wait for each other."""
    lib = namespace("engine")
    barrier = threading.Barrier(3, timeout=10)
    g = lib.StateGraph(Log)
    for name in ("x", "y", "z"):
        g.add_node(name, lambda s, name=name: barrier.wait() is not None and {"log": [name]})
        g.add_edge(lib.START, name)
    assert _with_timeout(lambda: asyncio.run(g.compile().ainvoke({"log": []}))) == {"log": ["x", "y", "z"]}
