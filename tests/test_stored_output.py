"""A long stored run's output is not stored a second time (issue 43, item 1): where it is the run's state after
its last step (or that state with a few list items changed: the input's messages, given ids by the reducer),
its blob row points at that state and the run reads back the same. Thresholds are lowered so a run of a
hundred steps takes the long-run path (`tests/test_kept_states.py`'s `small_gaps`)."""

from __future__ import annotations

import gzip
import json
import shutil
import sqlite3
from pathlib import Path
from typing import Annotated, TypedDict

import pytest

import engine
from debugger.sources.recording import StoreSink
from debugger.stores import sqlite as sqlite_store
from debugger.stores.final_state import STATE_POINTER
from debugger.stores.rows import ROW_FORM_KEY
from debugger.stores.sqlite import RunStore
from engine.trace import Recorder
from engine.tracefile import from_json, to_json
from tests.test_kept_states import small_gaps  # noqa: F401 (the fixture every test here uses)

pytestmark = pytest.mark.usefixtures("small_gaps")
GOLDEN = Path(__file__).parent / "golden"
LINE = "the quick brown fox jumps over the lazy dog " * 8


class Log(TypedDict):
    n: int
    log: Annotated[list, lambda a, b: a + b]
    last: list


def _graph(steps: int, *, last_whole: bool = False) -> engine.graph.CompiledGraph:
    """A list that grows by a 350-byte line a step; with `last_whole` the last step also writes the whole
    list to `last` (a plain key), so a step row points at the same value the output holds."""

    def step(state: dict) -> dict:
        update = {"n": state["n"] + 1, "log": [f"{state['n']}: {LINE}"]}
        if last_whole and state["n"] + 1 == steps:
            update["last"] = [*state["log"], *update["log"]]
        return update

    g = engine.StateGraph(Log)
    g.add_node("step", step)
    g.add_edge(engine.START, "step")
    g.add_conditional_edges("step", lambda s: "step" if s["n"] < steps else engine.END)
    return g.compile()


def _recorded(steps: int, **options) -> engine.trace.Trace:
    recorder = Recorder()
    _graph(steps, **options).invoke({"n": 0, "log": [], "last": []}, {"recursion_limit": steps + 5}, hooks=recorder)
    return recorder.trace


def _blob_rows(path: Path) -> list[str]:
    """The run's large values (its row form's mark left out)."""
    with sqlite3.connect(path) as db:
        return [data for (data,) in db.execute("SELECT data FROM run_blobs WHERE key <> ?", (ROW_FORM_KEY,))]


def test_a_long_runs_output_is_stored_as_its_last_state_and_reads_back_the_same(tmp_path) -> None:
    trace = _recorded(120)
    output_bytes = len(json.dumps(trace.output["log"]))
    path = tmp_path / "runs.sqlite3"
    store = RunStore(path)
    store.save(trace)
    rows = _blob_rows(path)
    assert len(rows) == 1 and rows[0].startswith(STATE_POINTER) and len(rows[0]) < 100 < output_bytes
    loaded = store.load(trace.run_id)
    assert loaded.output == trace.output
    assert to_json(loaded) == to_json(trace)
    assert from_json(store.export_text(trace.run_id)).output == trace.output
    store.save(trace, replace=False)  # the same run again: found the same, not refused


def test_input_messages_given_ids_by_the_reducer_are_not_stored_again(tmp_path) -> None:
    """The steps record the id `add_messages` gave the input message (tests/test_recorded_message_ids.py),
    so the output is the last step's state to the letter: a pointer, no item stored again."""

    def speak(state: dict) -> dict:
        return {"messages": [engine.AIMessage(content=f"turn {len(state['messages'])}: {LINE}")]}

    g = engine.StateGraph(engine.MessagesState)
    g.add_node("speak", speak)
    g.add_edge(engine.START, "speak")
    g.add_conditional_edges("speak", lambda s: "speak" if len(s["messages"]) < 100 else engine.END)
    recorder = Recorder()
    g.compile().invoke({"messages": [engine.HumanMessage(content="hi")]}, {"recursion_limit": 120}, hooks=recorder)
    trace = recorder.trace
    path = tmp_path / "runs.sqlite3"
    store = RunStore(path)
    store.save(trace)
    (row,) = _blob_rows(path)
    pointer = json.loads(row[len(STATE_POINTER) :])
    assert pointer["channel"] == "messages" and not pointer.get("items")
    assert store.load(trace.run_id).output["messages"][0]["message"]["data"]["id"]  # "hi", with its id
    assert to_json(store.load(trace.run_id)) == to_json(trace)


def test_a_run_recorded_into_the_store_keeps_its_output_as_its_last_state(tmp_path) -> None:
    path = tmp_path / "runs.sqlite3"
    store = RunStore(path)
    sink = StoreSink(store)
    recorder = Recorder(sink=sink)
    output = _graph(100).invoke({"n": 0, "log": [], "last": []}, {"recursion_limit": 110}, hooks=recorder)
    sink.finish(recorder.trace)
    (row,) = _blob_rows(path)
    assert row.startswith(STATE_POINTER)
    loaded = store.load(recorder.trace.run_id)
    assert loaded.output["log"] == output["log"] and loaded.output["n"] == 100


def test_a_value_a_step_points_at_stays_stored(tmp_path) -> None:
    trace = _recorded(100, last_whole=True)
    path = tmp_path / "runs.sqlite3"
    store = RunStore(path)
    store.save(trace)
    rows = _blob_rows(path)
    assert len(rows) == 1 and not rows[0].startswith(STATE_POINTER)  # `log` and `last`, one value: in a step
    assert to_json(store.load(trace.run_id)) == to_json(trace)


def test_a_run_whose_kept_states_are_gone_folds_its_output_from_its_steps(tmp_path) -> None:
    trace = _recorded(100)
    path = tmp_path / "runs.sqlite3"
    store = RunStore(path)
    store.save(trace)
    with sqlite3.connect(path) as db:
        db.execute("DELETE FROM run_snapshots")  # a cache, never the record
    assert to_json(store.load(trace.run_id)) == to_json(trace)


def test_a_version_3_database_is_read_as_it_was_written_and_opened_as_the_current_version(tmp_path) -> None:
    """tests/golden/runs_v3.sqlite3.gz: a long run (states kept 16 steps apart) stored by StepScope at
    6f80db1 (run store version 3), its 40 KB output a value; runs_v3.json.gz its trace file from then."""
    path = tmp_path / "runs.sqlite3"
    with gzip.open(GOLDEN / "runs_v3.sqlite3.gz") as src, open(path, "wb") as out:
        shutil.copyfileobj(src, out)
    with gzip.open(GOLDEN / "runs_v3.json.gz", "rt", encoding="utf-8") as file:
        written = file.read()
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == 3
    store = RunStore(path)
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA user_version").fetchone()[0] == sqlite_store.VERSION == 5
        assert db.execute("PRAGMA page_size").fetchone()[0] == 4096  # its pages as they were
    assert to_json(store.load("version3run")) == written  # its rows say `"committed": true`, each
    assert not _blob_rows(path)[0].startswith(STATE_POINTER)  # runs stored before are left as they are


def test_step_rows_leave_out_what_nearly_every_step_repeats_and_read_back_the_same(tmp_path) -> None:
    def step(state: dict) -> dict:
        if state["n"] == 3:
            raise ValueError("the fourth tick fails")  # a step that does not commit
        return {"n": state["n"] + 1, "log": [f"{state['n']}"]}

    g = engine.StateGraph(Log)
    g.add_node("step", step)
    g.add_edge(engine.START, "step")
    g.add_conditional_edges("step", lambda s: "step")
    recorder = Recorder()
    with pytest.raises(ValueError):
        g.compile().invoke({"n": 0, "log": [], "last": []}, hooks=recorder)
    trace = recorder.trace
    assert [s.committed for s in trace.steps[-2:]] == [True, False]
    path = tmp_path / "runs.sqlite3"
    RunStore(path).save(trace)
    with sqlite3.connect(path) as db:
        rows = [json.loads(data) for (data,) in db.execute("SELECT data FROM run_steps ORDER BY seq")]
    assert [row.get("committed") for row in rows[-2:]] == [None, False]  # true is left out, false said
    assert "updated_channels" not in rows[-2] and rows[-2]["reducer_calls"]  # the channels its writes give
    assert rows[0]["updated_channels"] == ["__start__"]  # the input step's: not its writes'
    assert to_json(RunStore(path).load(trace.run_id)) == to_json(trace)
    with sqlite3.connect(path) as db:  # a new database's pages hold eleven such rows, not five
        assert db.execute("PRAGMA page_size").fetchone()[0] == sqlite_store.PAGE_SIZE == 8192
