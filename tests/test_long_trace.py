"""Long traces are read step by step (issue 26 item 2): a trace file is indexed by byte offsets and its
steps decoded when asked for, a stored run's steps stay in its rows, and export/import/show stream. The
thresholds are lowered here so a small run takes the long-run path."""

from __future__ import annotations

import contextlib
import io
import json
from typing import TypedDict

import pytest

import engine
from debugger import cli
from debugger.sources import trace_check, trace_scan, trace_stream
from debugger.sources.trace_check import TraceFileError, parse_trace, read_trace_file
from debugger.sources.trace_stream import LazySteps
from debugger.stores import row_store
from debugger.stores.sqlite import RunStore
from engine.trace import Recorder
from engine.tracefile import from_json, to_json


class Note(TypedDict):
    n: int
    text: str


def _run(steps: int = 30) -> engine.trace.Trace:
    """A loop whose state holds non-ASCII text (bytes and characters differ), recorded."""
    g = engine.StateGraph(Note)
    g.add_node("step", lambda s: {"n": s["n"] + 1, "text": f"é€😀 {s['n']}"})
    g.add_edge(engine.START, "step")
    g.add_conditional_edges("step", lambda s: "step" if s["n"] < steps else engine.END)
    recorder = Recorder()
    g.compile().invoke({"n": 0, "text": ""}, {"recursion_limit": steps + 5}, hooks=recorder)
    return recorder.trace


@pytest.fixture
def long_path(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every trace counts as long, and the file is read 7 bytes at a time (chunks cut characters)."""
    monkeypatch.setattr(trace_check, "STREAM_MIN_BYTES", 0)
    monkeypatch.setattr(trace_scan, "CHUNK", 7)
    monkeypatch.setattr(row_store, "STREAM_MIN_BYTES", 0)


def test_a_long_file_keeps_its_steps_on_disk_and_reads_back_the_same_run(tmp_path, long_path) -> None:
    trace = _run()
    path = tmp_path / "run.json"
    path.write_text(to_json(trace, indent=1), encoding="utf-8")
    loaded = read_trace_file(path)
    assert isinstance(loaded.steps, LazySteps)
    assert loaded.steps[-1] == trace.steps[-1] and loaded.steps[3] == trace.steps[3]
    assert list(loaded.steps) == trace.steps
    assert loaded == from_json(path.read_text(encoding="utf-8"))
    assert list(loaded.steps.numbers) == [s.step for s in trace.steps]


def test_a_damaged_step_of_a_long_file_is_named(tmp_path, long_path) -> None:
    data = json.loads(to_json(_run()))
    data["steps"][5]["reducer_calls"][0]["channel"] = "nowhere"
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    with pytest.raises(TraceFileError, match=r"steps\[5\]\.reducer_calls\[0\] folds into 'nowhere'"):
        read_trace_file(path)


def test_a_truncated_long_file_says_so(tmp_path, long_path) -> None:
    text = to_json(_run())
    path = tmp_path / "cut.json"
    path.write_text(text[: len(text) // 2], encoding="utf-8")
    with pytest.raises(TraceFileError, match="cut.json is truncated"):
        read_trace_file(path)


def test_a_long_file_changed_after_opening_is_refused_when_read(tmp_path, long_path) -> None:
    path = tmp_path / "run.json"
    path.write_text(to_json(_run()), encoding="utf-8")
    loaded = read_trace_file(path)
    path.write_text(to_json(_run(5)), encoding="utf-8")
    with pytest.raises(TraceFileError, match="changed since it was opened"):
        loaded.steps[10]


def test_a_stored_long_run_reads_its_rows_and_exports_and_imports_step_by_step(tmp_path, long_path) -> None:
    trace = _run()
    store = RunStore(tmp_path / "runs.sqlite3")
    store.save(trace)
    loaded = store.load(trace.run_id)
    assert isinstance(loaded.steps, LazySteps) and loaded == trace
    out = store.export(trace.run_id, tmp_path / "out.json")
    assert from_json(out.read_text(encoding="utf-8")) == trace
    other = RunStore(tmp_path / "other.sqlite3")
    assert other.import_file(out) == trace.run_id
    assert other.load(trace.run_id) == trace
    assert other.import_file(out) == trace.run_id  # the same run again: the digest matches, nothing to refuse


def _show(ref: str, db: str) -> str:
    buffer = io.StringIO()
    with contextlib.redirect_stdout(buffer):
        assert cli.main(["show", ref, "--db", db]) == 0
    return buffer.getvalue()


def test_show_prints_the_same_from_a_long_file_as_from_a_short_one(tmp_path, monkeypatch) -> None:
    path = tmp_path / "run.json"
    path.write_text(to_json(_run()), encoding="utf-8")
    db = str(tmp_path / "runs.sqlite3")
    short = _show(str(path), db)
    monkeypatch.setattr(trace_check, "STREAM_MIN_BYTES", 0)
    assert _show(str(path), db) == short and "step 30" in short


def test_text_in_memory_is_read_the_same_way(long_path) -> None:
    trace = _run(8)
    loaded = parse_trace(to_json(trace).encode("utf-8"), source="upload")
    assert isinstance(loaded.steps, LazySteps) and loaded == trace


@pytest.mark.parametrize("number", ["0.002819", "12.5e-3", "1E+9", "123456789"])
def test_a_number_cut_by_every_chunk_boundary_is_read_whole(tmp_path, monkeypatch, number) -> None:
    """A number split anywhere by the scanner's chunks ("0." then "002819") reads as the whole number: the
    decoder stops at a "." or an "e" it cannot end on, one character before the end of the buffer."""
    text = to_json(_run(3))
    data = json.loads(text)
    data["duration"] = json.loads(number)
    body = json.dumps(data).replace(json.dumps(data["duration"]), number)
    assert number in body
    for chunk in range(1, 12):
        monkeypatch.setattr(trace_scan, "CHUNK", chunk)
        path = tmp_path / f"run{chunk}.json"
        path.write_text(body, encoding="utf-8")
        assert read_trace_file(path).duration == json.loads(number)


def test_asking_whether_a_long_run_has_a_step_decodes_none(tmp_path, long_path, monkeypatch) -> None:
    from debugger.diagnostics.replay import StepsByNumber

    trace = _run()
    path = tmp_path / "run.json"
    path.write_text(to_json(trace), encoding="utf-8")
    steps = StepsByNumber(read_trace_file(path).steps)

    def refuse(*args, **kwargs):
        raise AssertionError("a step was decoded")

    monkeypatch.setattr(trace_stream.FileSteps, "load_range", refuse)
    assert 3 in steps and -1 in steps and 10**6 not in steps and "3" not in steps


def test_a_damaged_step_row_of_a_stored_long_run_says_how_to_remove_it_when_read(tmp_path, long_path) -> None:
    import sqlite3

    trace = _run()
    path = tmp_path / "runs.sqlite3"
    RunStore(path).save(trace)
    with sqlite3.connect(path) as db:  # one row's JSON cut short, one row's schema broken
        (first,) = db.execute("SELECT MIN(seq) FROM run_steps WHERE run_id = ?", (trace.run_id,)).fetchone()
        db.execute("UPDATE run_steps SET data = substr(data, 1, 20) WHERE seq = ?", (first + 5,))
        db.execute("UPDATE run_steps SET data = replace(data, '\"tasks\"', '\"tusks\"') WHERE seq = ?", (first + 9,))
    loaded = RunStore(path).load(trace.run_id)  # the rows were checked when stored: opening reads none
    assert loaded.steps[0] == trace.steps[0]
    for position in (5, 9):
        with pytest.raises(TraceFileError) as raised:
            loaded.steps[position]
        message = str(raised.value)
        assert (f"step {position}:" in message or f"steps[{position}]" in message) and "\n" not in message
        assert message.endswith(f"(`stepscope delete {trace.run_id}` removes it)")
    assert loaded.steps[12] == trace.steps[12]


def test_a_stored_long_runs_step_layout_is_read_by_one_aggregate_when_its_rows_run_one_after_another(
    tmp_path, long_path
) -> None:
    import copy

    trace = _run()
    store = RunStore(tmp_path / "runs.sqlite3")
    store.save(trace)
    loaded = store.load(trace.run_id)
    source = loaded.steps.source
    assert isinstance(source.seqs, range) and source.numbers == range(-1, len(trace.steps) - 1)
    assert list(loaded.steps) == trace.steps
    edited = copy.deepcopy(trace)  # a state edit beside its superstep: a step number used twice
    edited.run_id = "edited-run"
    edited.steps.insert(6, copy.deepcopy(edited.steps[5]))
    store.save(edited)
    again = store.load("edited-run")
    assert not isinstance(again.steps.source.numbers, range)
    assert list(again.steps.numbers) == [s.step for s in edited.steps] and list(again.steps) == edited.steps


def test_a_long_runs_shown_steps_are_a_range_and_answer_as_the_list_would(tmp_path, long_path) -> None:
    from debugger.model.run_view import RunView

    trace = _run()
    store = RunStore(tmp_path / "runs.sqlite3")
    store.save(trace)
    ranged, listed = RunView(store.load(trace.run_id)), RunView(trace)
    assert isinstance(ranged.steps, range) and isinstance(listed.steps, list)
    assert list(ranged.steps) == listed.steps and ranged.steps[0] == 0  # the input step changed no state
    for step in (-5, -1, 0, 3, ranged.last - 1, ranged.last, ranged.last + 3):
        assert ranged.next_triggers(step) == listed.next_triggers(step)
        assert ranged.clamp(step) == listed.clamp(step) and ranged.neighbour(step, 1) == listed.neighbour(step, 1)
    assert ranged.highlights.first_run_positions() == listed.highlights.first_run_positions()
