"""What the hooks and the Trace show of retries and custom chunks (issue 15); the behaviour itself
is compared with langgraph in tests/differential/test_parity_differential.py."""

import asyncio
import json
import operator
from typing import Annotated, TypedDict

import pytest

from engine import START, RetryPolicy, StateGraph, get_stream_writer
from engine.hooks import Hooks
from engine.trace import Recorder
from engine.tracefile import from_json, to_json


def run_async(coroutine):
    """`asyncio.run` on a thread of its own: other tests (the browser's sync API) may leave an event
    loop marked running on the main thread."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result(timeout=60)


class Log(TypedDict):
    log: Annotated[list, operator.add]


class Seen(Hooks):
    def __init__(self) -> None:
        self.retries: list[tuple[str, int, str, float]] = []
        self.custom: list[tuple[tuple[str, ...], str, object]] = []

    def task_retrying(self, *, ns, step, task, attempt):
        self.retries.append((task.name, attempt.attempt, str(attempt.error), attempt.retry_in))

    def custom_streamed(self, *, ns, step, task, chunk):
        self.custom.append((ns, task.name, chunk))


def flaky_graph(failures: int, max_attempts: int = 3):
    calls = {"n": 0}

    def flaky(state):
        calls["n"] += 1
        get_stream_writer()(f"attempt {calls['n']}")
        if calls["n"] <= failures:
            raise ConnectionError(f"down {calls['n']}")
        return {"log": ["ok"]}

    g = StateGraph(Log)
    g.add_node(
        "flaky",
        flaky,
        retry_policy=RetryPolicy(initial_interval=0.001, backoff_factor=3, jitter=False, max_attempts=max_attempts),
    )
    g.add_edge(START, "flaky")
    return g.compile()


def test_every_failed_attempt_reaches_the_hooks_and_the_trace():
    seen, recorder = Seen(), Recorder()
    assert flaky_graph(2).invoke({"log": []}, hooks=seen) == {"log": ["ok"]}
    assert [(n, a, e) for n, a, e, _ in seen.retries] == [("flaky", 1, "down 1"), ("flaky", 2, "down 2")]
    assert [r for *_, r in seen.retries] == pytest.approx([0.001, 0.003])  # backoff, no jitter
    assert [c for *_, c in seen.custom] == ["attempt 1", "attempt 2", "attempt 3"]

    flaky_graph(2).invoke({"log": []}, hooks=recorder)
    task = next(t for s in recorder.trace.steps for t in s.tasks if t.name == "flaky")
    assert task.error is None and task.writes == [["log", ["ok"]]]
    assert [a["attempt"] for a in task.attempts] == [1, 2]
    assert task.attempts[0]["error"]["message"] == "down 1" and task.attempts[1]["retry_in"] == pytest.approx(0.003)
    assert set(task.attempts[0]) == {"attempt", "error", "duration", "retry_in"}
    again = from_json(to_json(recorder.trace))  # the field survives a trace file
    assert [a["attempt"] for s in again.steps for t in s.tasks for a in t.attempts] == [1, 2]


def test_exhausted_retries_leave_the_last_error_on_the_task():
    recorder = Recorder()
    with pytest.raises(ConnectionError, match="down 3"):
        flaky_graph(10).invoke({"log": []}, hooks=recorder)
    task = next(t for s in recorder.trace.steps for t in s.tasks if t.name == "flaky")
    assert [a["error"]["message"] for a in task.attempts] == ["down 1", "down 2"]
    assert task.error["message"] == "down 3"
    assert recorder.trace.status == "error"
    json.loads(to_json(recorder.trace))


def test_async_run_records_the_same_trace_as_a_sync_one():
    def build(node):
        g = StateGraph(Log)
        g.add_node("a", node)
        g.add_node("b", lambda s: {"log": ["b"]})
        g.add_edge(START, "a")
        g.add_edge(START, "b")
        return g.compile()

    async def a_async(state):
        await asyncio.sleep(0)
        return {"log": ["a"]}

    sync, asynchronous = Recorder(run_id="r", clock=lambda: "t"), Recorder(run_id="r", clock=lambda: "t")
    build(lambda s: {"log": ["a"]}).invoke({"log": []}, hooks=sync)
    run_async(build(a_async).ainvoke({"log": []}, hooks=asynchronous))

    def shape(trace):
        return [[(t.name, t.writes, t.error) for t in s.tasks] for s in trace.steps], trace.output

    assert shape(asynchronous.trace) == shape(sync.trace)


def test_stream_writer_outside_any_observed_run_is_harmless():
    with pytest.raises(RuntimeError, match="outside of a runnable context"):
        get_stream_writer()
    assert flaky_graph(0).invoke({"log": []}) == {"log": ["ok"]}  # no hooks: the writer discards


def test_trace_built_after_the_run_keeps_values_as_they_were_when_recorded():
    """Flat values are turned into records only when the trace is read; a node that later changes a
    recorded list in place must not rewrite what was recorded before it did."""
    kept = {}

    def first(state):
        return {"log": [1, 2]}

    def sneaky(state):
        kept["list"] = state["log"]
        state["log"].append("in place")  # mutates the channel's list: not a write
        return {}

    def later(state):
        kept["list"][0] = "rewritten"  # after the step that recorded it
        return {"log": ["later"]}

    g = StateGraph(Log)
    g.add_node("first", first)
    g.add_node("sneaky", sneaky)
    g.add_node("later", later)
    g.add_edge(START, "first")
    g.add_edge("first", "sneaky")
    g.add_edge("sneaky", "later")
    recorder = Recorder()
    g.compile().invoke({"log": []}, hooks=recorder)
    kept["list"].append("after the run")  # before the trace is read
    steps = {s.step: s for s in recorder.trace.steps}
    assert steps[1].reducer_calls[0].after == {"extend": [1, 2]}
    assert steps[2].state["log"] == {"extend": ["in place"]}  # seen as a change outside the reducers
    assert steps[3].reducer_calls[0].before == {"splice": 0, "items": ["rewritten", 2, "in place"]}


def test_a_blocking_sync_node_does_not_stall_the_event_loop():
    """In ainvoke a sync node runs on a worker thread: here it waits for a coroutine that only the
    event loop can run; run inline it would wait forever (the wait gives up after 10 s)."""
    import threading

    released = threading.Event()

    def waits(state):
        return {"log": ["released" if released.wait(10) else "stalled"]}

    g = StateGraph(Log)
    g.add_node("waits", waits)
    g.add_edge(START, "waits")

    async def main():
        async def release():
            await asyncio.sleep(0.01)
            released.set()

        result, _ = await asyncio.gather(g.compile().ainvoke({"log": []}), release())
        return result

    assert run_async(main()) == {"log": ["released"]}
