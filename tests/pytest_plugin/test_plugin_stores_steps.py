"""The plugin stores each run step by step, as `stepscope run` stores an engine run (`StoreSink`), and a
run that ends is then the run the plugin stored whole before: every sample (engine) and every differential
case (langgraph, sync and async), recorded under a test's node id by the plugin's own recording block,
reads back from the store exactly as the same run saved whole (`RunStore.save`)."""

from __future__ import annotations

import asyncio
import json
import re
import warnings
from dataclasses import asdict
from typing import Any

import pytest
from differential.backends import get_backend
from differential.cases import CASES
from test_golden import _without_timings

from debugger.pytest_plugin.session import RecordingSession
from debugger.sources import store_sink
from debugger.stores.opening import open_store
from debugger.stores.protocol import StoreError
from engine.message_reducer import set_id_factory
from engine.trace import Recorder
from engine.tracefile import to_dict
from sample_graphs.gallery import SAMPLES, load_sample

NODEID = "test_user.py::test_sample"
TRACEBACKS = re.compile(r'"traceback": "(?:[^"\\]|\\.)*"')
ADDRESSES = re.compile(r"0x[0-9a-f]+")
UUIDS = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}|[0-9a-f]{32}")


def run_sample(name: str, hooks: Recorder | None = None) -> None:
    """The sample's example run; one that fails is recorded (and compared) all the same."""
    module = load_sample(name)
    counter = iter(range(10**6))
    previous = set_id_factory(lambda: f"id-{next(counter)}")
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            module.graph.invoke(module.example_input, dict(getattr(module, "example_config", None) or {}), hooks=hooks)
    except Exception:  # noqa: BLE001 - a failing run is stored too
        pass
    finally:
        set_id_factory(previous)


def comparable(trace: Any) -> str:
    """The trace file without what differs between two runs of one graph: durations and start times."""
    return json.dumps(_without_clock(_without_timings(to_dict(trace))), sort_keys=True)


def _without_clock(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: ("when" if k == "started_at" else _without_clock(v)) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_clock(v) for v in value]
    return value


@pytest.mark.parametrize("name", [s for s in SAMPLES if s != "slow_research"])
def test_a_finished_run_is_stored_as_the_whole_run_saved_at_once(name: str, tmp_path) -> None:
    session = RecordingSession(str(tmp_path / "plugin.sqlite3"))
    session.store = open_store(session.db)
    with session.recording(NODEID):
        run_sample(name)
    [run] = session.runs[NODEID]

    whole = Recorder(target=NODEID, run_id=run.run_id)
    run_sample(name, whole)
    saved = open_store(tmp_path / "saved.sqlite3")
    saved.save(whole.trace)

    assert comparable(session.store.load(run.run_id)) == comparable(saved.load(run.run_id))
    [listed] = session.store.list()
    [expected] = saved.list()
    assert {**asdict(listed), "started_at": ""} == {**asdict(expected), "started_at": ""}
    assert session.store.list(status="running") == []  # its recording ended with it


def test_a_store_that_fails_mid_run_loses_no_step_of_the_report_and_is_named(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(store_sink, "BATCH_STEPS", 1)  # a transaction per step: the third one fails
    session = RecordingSession(str(tmp_path / "plugin.sqlite3"))
    session.store = store = open_store(session.db)
    appended = store.append_steps

    def fails_after_two(run_id: str, steps: list) -> None:
        if store.list()[0].steps >= 2:
            raise StoreError(f"cannot store the steps of run {run_id}: database or disk is full.")
        appended(run_id, steps)

    store.append_steps = fails_after_two
    with session.recording(NODEID):
        run_sample("endless_loop")
    [run] = session.runs[NODEID]
    assert store.list()[0].steps == 2  # what the store took before it failed
    whole = Recorder(target=NODEID, run_id=run.run_id)
    run_sample("endless_loop", whole)
    assert comparable(run.trace) == comparable(whole.trace)  # the report still reads every step
    assert session.unstored == [
        f"run {run.run_id[:12]} of {NODEID}: cannot store the steps of run {run.run_id}: database or disk is full."
    ]


def _without_ids(text: str) -> str:
    """Without what differs between two langgraph runs of one graph: task and checkpoint ids (uuids),
    numbered in order of appearance, and where an async run's sibling task was cancelled (the traceback
    and the address in the CancelledError)."""
    seen: dict[str, str] = {}
    text = UUIDS.sub(lambda found: seen.setdefault(found.group(0), f"id-{len(seen)}"), text)
    return TRACEBACKS.sub('"traceback": ""', ADDRESSES.sub("0x0", text))


def run_case(name: str, asynchronous: bool) -> None:
    """A differential case on langgraph; a case langgraph refuses to build is left out."""
    built = CASES[name].build(get_backend("langgraph"))
    graph = built.graph if built.graph is not None else built.builder.compile(**built.compile_kwargs)
    config = dict(built.config or {})
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            asyncio.run(graph.ainvoke(built.input, config)) if asynchronous else graph.invoke(built.input, config)
        except Exception:  # noqa: BLE001 - a failing run is stored too
            pass


def langgraph_cases() -> list[Any]:
    pytest.importorskip("langgraph")
    cases = []
    for name in sorted(CASES):
        if name == "recursion_default_limit":  # 10,000 steps, stored one at a time: a minute on its own
            continue
        try:
            built = CASES[name].build(get_backend("langgraph"))
            built.graph if built.graph is not None else built.builder.compile(**built.compile_kwargs)
        except Exception:  # noqa: BLE001 - langgraph refuses the graph: no run to store
            continue
        cases.append(pytest.param(name, False, id=name))
        if name != "node_raises_in_parallel_step":  # async: whether the sibling ran or was cancelled is a race
            cases.append(pytest.param(name, True, id=f"{name}-async"))
    return cases


@pytest.mark.slow  # every differential case, twice, on langgraph
@pytest.mark.parametrize(("name", "asynchronous"), langgraph_cases())
def test_a_finished_langgraph_run_is_stored_as_the_whole_run_saved_at_once(name, asynchronous, tmp_path) -> None:
    from debugger.runtimes.langgraph.recorder import recording

    session = RecordingSession(str(tmp_path / "plugin.sqlite3"))
    session.store = open_store(session.db)
    with session.recording(NODEID):
        run_case(name, asynchronous)
    saved = open_store(tmp_path / "saved.sqlite3")
    with recording(target=NODEID, db=saved):
        run_case(name, asynchronous)
    streamed = [session.store.load(r.run_id) for r in session.store.list()]
    whole = [saved.load(r.run_id) for r in saved.list()]
    assert [_without_ids(comparable(t)) for t in streamed] == [_without_ids(comparable(t)) for t in whole]
    assert session.store.list(status="running") == []


def test_a_langgraph_stream_left_early_says_after_which_step_though_its_steps_were_stored(tmp_path) -> None:
    """The run's ending names the last committed step, which the store holds by then, not the run's memory."""
    pytest.importorskip("langgraph")
    from test_langgraph_stream_abandoned import chain

    session = RecordingSession(str(tmp_path / "plugin.sqlite3"))
    session.store = open_store(session.db)
    with session.recording(NODEID):
        for _chunk in chain().stream({"log": []}):
            break
    [run] = session.runs[NODEID]
    assert run.trace.status == "cancelled"
    message = run.trace.error["message"]
    assert "stopped reading the stream after step 1 " in message and "; step 2 (b) did not complete" in message
