"""The Live run page (unchanged) on a LangGraph.js lesson under AppTest: the JS runtime's driven run is
picked, a breakpoint pauses it, an edit goes through LangGraph.js's updateState, Continue finishes it."""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("drawing_without_graphviz")]

LESSON = Path(__file__).resolve().parents[2] / "sample_graphs" / "js" / "fan_out_search.mjs"


def _page() -> None:
    from debugger.views import live

    live.render()


def _until(at, predicate, timeout: float = 30.0):
    deadline = time.monotonic() + timeout
    while True:
        snap = at.session_state["live_run"].snapshot()
        if predicate(snap) or time.monotonic() > deadline:
            at.run()
            return snap
        time.sleep(0.05)


def test_a_js_lesson_pauses_at_a_breakpoint_takes_an_edit_and_finishes(langgraph_js, tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("STEPSCOPE_DB", str(tmp_path / "runs.sqlite3"))
    at = AppTest.from_function(_page, default_timeout=60)
    at.run()
    at.radio(key="live_source").set_value("Graph file").run()
    at.text_input(key="live_file").input(f"{LESSON}:graph").run()
    at.multiselect(key="live_before").set_value(["merge"]).run()
    at.button(key="live_start").click().run()
    try:
        snap = _until(at, lambda s: s.status == "paused")
        assert type(at.session_state["live_run"].driven.segments).__name__ == "JSSegments"
        assert snap.pause.reasons == ("breakpoint before merge",), snap.message
        at.selectbox(key="live_edit_key").set_value("results").run()
        at.selectbox(key="live_edit_as").set_value("search_db").run()
        at.text_area(key="live_edit_value").input('["a person"]').run()
        at.button(key="live_edit_apply").click().run()
        assert not at.exception
        at.button(key="live_continue").click().run()
        final = _until(at, lambda s: s.finished)
        assert final.status == "done", final.message
        assert final.trace.output["answer"].startswith("3 sources:") and "a person" in final.trace.output["answer"]
        assert [s.kind for s in final.trace.steps].count("update") == 1
    finally:
        at.session_state["live_run"].stop()
