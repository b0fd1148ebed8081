"""`stepscope import` of a long trace file stores each step's form as the file holds it (issue 43, item 3):
no step's form is built again from its record, and the run is stored exactly as saving the same run
stores it: the same rows, large values and digest."""

from __future__ import annotations

import sqlite3
from typing import TypedDict

import pytest

import engine
from debugger.sources import trace_check
from debugger.stores import row_store
from debugger.stores.sqlite import RunStore
from engine import tracefile
from engine.trace import Recorder
from engine.tracefile import to_json


class Doc(TypedDict):
    n: int
    text: str


def _recorded(steps: int) -> engine.trace.Trace:
    """A loop carrying a 40 KB non-ASCII document (a pooled large value, in its input and first step) that
    grows by a line at step 3."""
    g = engine.StateGraph(Doc)
    g.add_node("step", lambda s: {"n": s["n"] + 1, **({"text": s["text"] + "é😀\n"} if s["n"] == 3 else {})})
    g.add_edge(engine.START, "step")
    g.add_conditional_edges("step", lambda s: "step" if s["n"] < steps else engine.END)
    recorder = Recorder()
    g.compile().invoke({"n": 0, "text": "€" * 40_000}, {"recursion_limit": steps + 5}, hooks=recorder)
    return recorder.trace


def _stored(db) -> list[list[tuple]]:
    with sqlite3.connect(db) as con:
        return [
            con.execute(f"SELECT {columns} FROM {table} ORDER BY 1, 2").fetchall()
            for table, columns in (
                ("run_steps", "seq, step, data"),
                ("run_blobs", "key, data"),
                ("runs", "run_id, digest, trace"),
            )
        ]


@pytest.mark.parametrize("indent", [None, 1])
def test_an_imported_long_file_is_stored_as_its_run_is_saved_without_building_step_forms(
    tmp_path, monkeypatch, indent
) -> None:
    monkeypatch.setattr(trace_check, "STREAM_MIN_BYTES", 0)  # the file's steps stay on disk
    monkeypatch.setattr(row_store, "STREAM_MIN_BYTES", 0)
    trace = _recorded(40)
    saved = RunStore(tmp_path / "saved.sqlite3")
    saved.save(trace)
    path = tmp_path / "run.json"
    path.write_text(to_json(trace, indent=indent), encoding="utf-8")  # indent: an export's steps span lines
    built: list[int] = []
    form = tracefile._step_to_dict  # what every build of a step's file form from its record calls
    monkeypatch.setattr(tracefile, "_step_to_dict", lambda step: built.append(step.step) or form(step))
    imported = RunStore(tmp_path / "imported.sqlite3")
    assert imported.import_file(path) == trace.run_id
    assert len(built) < 5  # the steps that hold the document, not the 41 of the run
    for got, want in zip(_stored(tmp_path / "imported.sqlite3"), _stored(tmp_path / "saved.sqlite3")):
        assert got == want
    assert imported.load(trace.run_id) == trace
