"""The Live run page's logic under AppTest (the browser tests are in tests/e2e/test_live_browser.py):
bad input answers in place, a run starts, pauses, takes an edit or refuses one in words, stops."""

from __future__ import annotations

import re
import time
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from debugger.live import Breakpoints
from tests import stepper_shown

pytestmark = pytest.mark.usefixtures("drawing_without_graphviz")  # tests/conftest.py: no `dot` process


def _page() -> None:
    from debugger.views import live

    live.render()


@pytest.fixture
def at(tmp_path, monkeypatch):
    monkeypatch.setenv("STEPSCOPE_DB", str(tmp_path / "runs.sqlite3"))
    monkeypatch.setenv("STEPSCOPE_SAMPLE_DELAY", "0")
    app = AppTest.from_function(_page, default_timeout=30)
    app.run()
    yield app
    run = app.session_state["live_run"] if "live_run" in app.session_state else None
    if run is not None:
        run.stop()


def _until(at, predicate, timeout: float = 10.0):
    deadline = time.monotonic() + timeout
    while True:
        snap = at.session_state["live_run"].snapshot()
        if predicate(snap) or time.monotonic() > deadline:
            at.run()
            return snap
        time.sleep(0.05)


def texts(at) -> str:
    """Every text element's Markdown, without the views' backslash escapes."""
    elements = [*at.markdown, *at.error, *at.warning, *at.info, *at.success, *at.caption]
    return re.sub(r"\\(.)", r"\1", "\n".join(str(e.value) for e in elements))


def test_bad_input_json_and_a_missing_file_answer_in_place(at, tmp_path) -> None:
    at.text_area(key="live_input").input("{not json").run()
    at.button(key="live_start").click().run()
    assert not at.exception
    assert "The input is not valid JSON (line 1, column 2)" in texts(at)
    at.radio(key="live_source").set_value("Graph file").run()
    at.text_input(key="live_file").input(str(tmp_path / "nope.py")).run()
    assert not at.exception and "no such file" in texts(at)
    at.button(key="live_start").click().run()
    assert not at.exception and "live_run" not in at.session_state


def test_pause_edit_refused_then_applied_then_continue(at) -> None:
    at.multiselect(key="live_before").set_value(["review"]).run()
    at.button(key="live_start").click().run()
    snap = _until(at, lambda s: s.status == "paused")
    assert snap.pause.step == 4
    assert "Paused before step 4" in [h.value for h in at.subheader]
    at.selectbox(key="live_edit_key").set_value("notes").run()
    at.text_area(key="live_edit_value").input("5").run()
    at.button(key="live_edit_apply").click().run()
    assert not at.exception
    assert "The edit was not applied: TypeError" in texts(at)
    at.selectbox(key="live_edit_key").set_value("draft").run()
    at.selectbox(key="live_edit_as").set_value("write").run()
    at.text_area(key="live_edit_value").input("my own draft").run()  # not JSON: taken as a string
    at.button(key="live_edit_apply").click().run()
    assert "Applied draft" in texts(at)
    at.button(key="live_continue").click().run()
    final = _until(at, lambda s: s.finished)
    assert final.status == "done" and final.trace.output["verdict"] == "approved (12 characters)"
    assert "The run is over" in [h.value for h in at.subheader]


def test_stop_from_the_page(at, monkeypatch) -> None:
    monkeypatch.setenv("STEPSCOPE_SAMPLE_DELAY", "5")
    at.button(key="live_start").click().run()
    _until(at, lambda s: s.step == 1)
    at.button(key="live_stop").click().run()
    snap = at.session_state["live_run"].snapshot()
    assert snap.status == "cancelled" and snap.stored
    assert "still running: plan" in texts(at)


ASKING = """
import operator
from typing import Annotated, TypedDict
from engine import END, START, StateGraph, interrupt


class State(TypedDict):
    log: Annotated[list[str], operator.add]


def ask(state):
    return {"log": ["answer: " + str(interrupt("Approve the plan?"))]}


builder = StateGraph(State)
builder.add_node("plan", lambda state: {"log": ["plan"]})
builder.add_node("ask", ask)
builder.add_edge(START, "plan")
builder.add_edge("plan", "ask")
builder.add_edge("ask", END)
graph = builder.compile()
example_input = {"log": []}
"""


def test_an_interrupt_shows_its_question_and_takes_the_answer(at, tmp_path) -> None:
    path = tmp_path / "asking.py"
    path.write_text(ASKING, encoding="utf-8")
    at.radio(key="live_source").set_value("Graph file").run()
    at.text_input(key="live_file").input(str(path)).run()
    at.button(key="live_start").click().run()
    snap = _until(at, lambda s: s.status == "paused")
    assert snap.pause.interrupts == ("Approve the plan?",)
    assert "ask asks, in step 2" in [h.value for h in at.subheader]
    assert at.button(key="live_step").disabled and at.button(key="live_continue").disabled
    at.text_area(key="live_answer").input("yes").run()
    at.button(key="live_answer_button").click().run()
    final = _until(at, lambda s: s.finished)
    assert final.status == "done" and final.trace.output == {"log": ["plan", "answer: yes"]}


def test_a_langgraph_app_asks_pauses_takes_an_edit_and_the_answer(at, tmp_path) -> None:
    pytest.importorskip("langgraph.graph")
    path = tmp_path / "lg_asking.py"
    path.write_text(
        ASKING.replace(
            "from engine import END, START, StateGraph, interrupt",
            "from langgraph.graph import END, START, StateGraph\nfrom langgraph.types import interrupt",
        ),
        encoding="utf-8",
    )
    at.radio(key="live_source").set_value("Graph file").run()
    at.text_input(key="live_file").input(str(path)).run()
    at.multiselect(key="live_before").set_value(["ask"]).run()
    at.button(key="live_start").click().run()
    snap = _until(at, lambda s: s.status == "paused")
    assert type(at.session_state["live_run"].driven.segments).__name__ == "LangGraphSegments"
    assert snap.pause.reasons == ("breakpoint before ask",) and "Paused before step 2" in [
        h.value for h in at.subheader
    ]
    at.selectbox(key="live_edit_key").set_value("log").run()
    at.selectbox(key="live_edit_as").set_value("plan").run()
    at.text_area(key="live_edit_value").input('["a person"]').run()
    at.button(key="live_edit_apply").click().run()
    assert not at.exception and "Applied log" in texts(at)
    at.button(key="live_continue").click().run()
    snap = _until(at, lambda s: s.status == "paused" and bool(s.pause.interrupts))
    assert snap.pause.interrupts == ("Approve the plan?",)
    at.text_area(key="live_answer").input("yes").run()
    at.button(key="live_answer_button").click().run()
    final = _until(at, lambda s: s.finished)
    assert final.status == "done" and final.trace.output == {"log": ["plan", "a person", "answer: yes"]}
    assert [s.kind for s in final.trace.steps].count("update") == 1
    at.button(key="live_open").click().run()
    assert not at.exception and at.session_state["stepscope_run"].trace.run_id == final.run_id


def test_the_step_page_says_where_a_person_edited_the_state(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv("STEPSCOPE_DB", str(tmp_path / "runs.sqlite3"))
    from debugger.live import start_live_run
    from sample_graphs.slow_research import example_input, graph

    run = start_live_run(graph, example_input, target="slow_research", breakpoints=Breakpoints.of(before=["review"]))
    run.wait_until(lambda s: s.status == "paused")
    run.edit({"draft": "MY DRAFT"}, as_node="write")
    run.resume()
    final = run.join(10)
    app = AppTest.from_file(str(Path(__file__).resolve().parents[1] / "debugger" / "app.py"), default_timeout=30)
    app.query_params["run"] = final.run_id
    app.query_params["step"] = "4"
    app.run()
    assert not app.exception
    assert any("a person edited the state" in text and "write" in text for _, text in stepper_shown.summary(app))


@pytest.mark.slow
def test_a_node_that_never_returns_ends_the_run_on_the_page_at_the_step_limit(at, monkeypatch) -> None:
    monkeypatch.setenv("STEPSCOPE_SAMPLE_DELAY", "30")  # plan sleeps far longer than the limit
    monkeypatch.setenv("STEPSCOPE_RUN_TIMEOUT", "1")
    at.button(key="live_start").click().run()
    final = _until(at, lambda s: s.finished, timeout=15)
    assert final.status == "timeout" and final.stored
    assert [e.value for e in at.exception] == []
    status = re.sub(r"\\(.)", r"\1", str(at.error[0].value))  # the status line: an error, one line, the node named
    assert "timed out: The step did not finish within 1 s" in status and "\n" not in status
    assert "still running: plan" in status
    assert "The run is over" in [h.value for h in at.subheader]


def test_the_live_page_and_its_sidebar_speak_chinese(tmp_path, monkeypatch) -> None:
    from tests.test_app import goto_page

    monkeypatch.setenv("STEPSCOPE_DB", str(tmp_path / "runs.sqlite3"))
    monkeypatch.setenv("STEPSCOPE_SAMPLE_DELAY", "0")
    app = AppTest.from_file(str(Path(__file__).resolve().parents[1] / "debugger" / "app.py"), default_timeout=30)
    app.query_params["lang"] = "zh"
    app.run()
    goto_page(app, "live")
    sidebar = "\n".join(str(e.value) for e in [*app.sidebar.markdown, *app.sidebar.caption])
    assert "本页还没有实时运行" in sidebar and app.sidebar.radio, "its words, and the language switch"
    assert "：节点 " in texts(app) and "、" in texts(app), texts(app)  # the graph's nodes, listed with 、
    app.button(key="live_start").click().run()
    run = app.session_state["live_run"]
    run.join(10)
    app.run()
    sidebar = re.sub(r"\\(.)", r"\1", "\n".join(str(e.value) for e in app.sidebar.markdown))
    assert "slow_research 的实时运行" in sidebar and "`完成`" in sidebar and "steps" not in sidebar, sidebar
    assert "5 个超级步" in sidebar, "as many as the stepper shows (0 to 4), not the input's step -1 too"
    status = [str(s.value) for s in app.success]
    assert any("已完成" in line for line in status) and "done" not in " ".join(status).lower(), status
    shown = stepper_shown.model(app)
    assert shown["at_step"] == 4 and shown["count"] == 5 and shown["labels"]["next"] == "下一步 ▶", "at the newest"
    assert stepper_shown.summary(app)[0] == ("heading", "超级步 4"), stepper_shown.summary(app)
