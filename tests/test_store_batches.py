"""A run recorded into the store commits its supersteps in batches (`debugger/sources/store_sink.py`): a fast
loop takes a write transaction per `BATCH_STEPS` steps or `BATCH_SECONDS`, not one per step, and the steps of
a run that has gone quiet (a node that hangs) are committed within `BATCH_SECONDS` all the same, so a
process killed then keeps them (tests/threads/test_store_streaming.py and
tests/pytest_plugin/test_plugin_stopped.py kill such processes)."""

from __future__ import annotations

import operator
import threading
import time
from typing import Annotated, TypedDict

from debugger.sources import store_sink
from debugger.sources.recording import StoreSink
from debugger.stores.sqlite import RunStore
from engine import END, START, StateGraph
from engine.trace import Recorder


class Counting(TypedDict):
    n: Annotated[list, operator.add]


def _loop(steps: int, node=None):
    g = StateGraph(Counting)
    g.add_node("tick", node or (lambda s: {"n": [len(s["n"])]}))
    g.add_edge(START, "tick")
    g.add_conditional_edges("tick", lambda s: "tick" if len(s["n"]) < steps else END)
    return g.compile()


def test_a_fast_run_takes_a_write_transaction_per_batch_not_per_step(tmp_path) -> None:
    store = RunStore(tmp_path / "runs.sqlite3")
    sink = StoreSink(store)
    recorder = Recorder(sink=sink)
    began = time.monotonic()
    _loop(1000).invoke({"n": []}, {"recursion_limit": 1100}, hooks=recorder)
    sink.finish(recorder.trace)
    elapsed = time.monotonic() - began
    # the head, a batch per 200 steps or per 0.2 s (a loaded machine takes longer), the end
    assert sink.writes <= 2 + 1002 // store_sink.BATCH_STEPS + elapsed / store_sink.BATCH_SECONDS + 1
    assert sink.writes < 100  # 1,004 when each superstep was its own transaction
    stored = store.load(recorder.trace.run_id)
    assert [s.step for s in stored.steps] == list(range(-1, 1001))
    assert store.list()[0].steps == 1001 and stored.status == "done"


def test_the_steps_before_a_node_that_hangs_are_committed_within_the_window(tmp_path) -> None:
    path = tmp_path / "runs.sqlite3"
    store = RunStore(path)
    release = threading.Event()

    def tick(state: dict) -> dict:
        if len(state["n"]) == 3:
            release.wait(30)  # step 4 hangs until the test has seen what is stored
        return {"n": [len(state["n"])]}

    sink = StoreSink(store)
    recorder = Recorder(sink=sink)
    run = threading.Thread(target=lambda: _loop(6, tick).invoke({"n": []}, hooks=recorder))
    run.start()
    try:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and not (store.list() and store.list()[0].steps >= 4):
            time.sleep(0.02)
        (listed,) = store.list()
        assert listed.status == "running" and listed.steps == 4  # steps 0..3 committed; step 4 still runs
        assert [s.step for s in RunStore(path).load(listed.run_id).steps] == [-1, 0, 1, 2, 3]
    finally:
        release.set()
        run.join(30)
    sink.finish(recorder.trace)
    assert [s.step for s in store.load(listed.run_id).steps] == list(range(-1, 7))
