"""Reading long runs step by step (issue 43, item 3): what the app builds for a window of steps, and what
`show` and `diagnose` read, decode each step of the run a bounded number of times, however long it is."""

from __future__ import annotations

import contextlib
import io
import operator
import threading
from typing import Annotated, TypedDict

import pytest

import engine
from debugger import cli
from debugger.diagnostics import snapshots
from debugger.model import background, stepper_windows
from debugger.model.trace_view import Scope, TraceView
from debugger.sources import trace_check, trace_stream
from debugger.sources.trace_check import read_trace_file
from debugger.stores import row_store
from debugger.stores.sqlite import RunStore
from engine.trace import Recorder
from engine.tracefile import to_json


class Counter(TypedDict):
    n: Annotated[int, operator.add]


def _counter_file(tmp_path, steps: int):
    g = engine.StateGraph(Counter)
    g.add_node("inc", lambda state: {"n": 1})
    g.add_edge(engine.START, "inc")
    g.add_conditional_edges("inc", lambda state: "inc" if state["n"] < steps else engine.END)
    recorder = Recorder()
    g.compile().invoke({"n": 0}, {"recursion_limit": steps + 10}, hooks=recorder)
    path = tmp_path / f"counter{steps}.json"
    path.write_text(to_json(recorder.trace), encoding="utf-8")
    return path


@pytest.fixture
def decoded(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every trace file counts as long (its steps stay on disk); the positions of the steps decoded, in order."""
    monkeypatch.setattr(trace_check, "STREAM_MIN_BYTES", 0)
    positions: list[int] = []
    build = trace_stream.step_from_dict

    def counted(data, *, source, index):
        if threading.current_thread() is threading.main_thread():  # the page's, not the findings' thread
            positions.append(index)
        return build(data, source=source, index=index)

    monkeypatch.setattr(trace_stream, "step_from_dict", counted)
    return positions


def test_the_stepper_window_at_the_last_step_decodes_each_step_a_few_times(tmp_path, decoded) -> None:
    steps = 1200  # under LONG_RUN_STEPS: the marks of what ran before are read, not left to the background
    traced = TraceView(read_trace_file(_counter_file(tmp_path, steps)))
    view = traced.view(Scope())
    assert not view.findings  # diagnose's passes over the run, done before: counted from here on
    decoded.clear()
    last = view.last
    model = stepper_windows.model_for(traced, Scope(), last, svg_of=lambda dot: "<svg/>")
    assert model["at_step"] == last
    assert len(decoded) < 3 * steps  # one step's "ran before" read every earlier step: 200 x 1,200 decodes


def test_a_long_stored_run_opens_at_its_last_step_reading_about_a_window_of_steps(
    tmp_path, decoded, monkeypatch
) -> None:
    monkeypatch.setattr(background, "LONG_RUN_STEPS", 100)  # a long run: findings and the ✓ index come later
    monkeypatch.setattr(background, "HEAD_START", 3600.0)
    monkeypatch.setattr(row_store, "STREAM_MIN_BYTES", 0)  # its steps stay in the database
    steps = 4000
    store = RunStore(tmp_path / "runs.sqlite3")
    run_id = store.import_file(str(_counter_file(tmp_path, steps)))
    traced = TraceView(store.load(run_id), background=True)
    decoded.clear()
    last = traced.view(Scope()).last
    model = stepper_windows.model_for(traced, Scope(), last, svg_of=lambda dot: "<svg/>")
    assert model["at_step"] == last
    # the window, and the merge folded from the nearest kept state (at most MIN_GAP steps back); the drawing,
    # made at the first step, had read the whole run for its ✓ marks
    assert len(decoded) < 400 + snapshots.MIN_GAP


def test_show_of_a_long_run_on_no_thread_reads_its_steps_once_after_the_check(tmp_path, decoded) -> None:
    steps = 600
    path = _counter_file(tmp_path, steps)
    with contextlib.redirect_stdout(io.StringIO()) as out:
        assert cli.main(["show", str(path), "--step", str(steps), "--db", str(tmp_path / "runs.sqlite3")]) == 0
    assert f"step {steps}: inc" in out.getvalue()
    assert len(decoded) <= steps + 2  # its turns were looked for in a pass of their own: one turn, known unread


def test_diagnose_of_a_long_run_reads_each_step_once(tmp_path, decoded) -> None:
    steps = 600
    path = _counter_file(tmp_path, steps)
    with contextlib.redirect_stdout(io.StringIO()) as out:
        assert cli.main(["diagnose", str(path)]) == 0
    assert "no findings" in out.getvalue()
    assert len(decoded) <= steps + 2  # one walk feeds every rule: a walk of its own each read the run eight times
