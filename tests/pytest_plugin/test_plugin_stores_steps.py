"""The plugin stores an engine run step by step, as `stepscope run` does (`StoreSink`), and a run that
ends is then the run the plugin stored whole before: every sample, recorded under a test's node id by
the plugin's own recording block, reads back from the store exactly as the same run saved whole
(`RunStore.save`), and lists with the same row."""

from __future__ import annotations

import json
import warnings
from dataclasses import asdict
from typing import Any

import pytest
from test_golden import _without_timings

from debugger.pytest_plugin.session import RecordingSession
from debugger.stores.opening import open_store
from debugger.stores.protocol import StoreError
from engine.message_reducer import set_id_factory
from engine.trace import Recorder
from engine.tracefile import to_dict
from sample_graphs.gallery import SAMPLES, load_sample

NODEID = "test_user.py::test_sample"


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


def test_a_store_that_fails_mid_run_loses_no_step_of_the_report_and_is_named(tmp_path) -> None:
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
