"""A long run's findings come later (issue 26 item 2): the app's view of a run of more than
`background.LONG_RUN_STEPS` steps computes `diagnose` in a daemon thread, the page says so and picks them
up when ready; a short run, a report and a command compute them when asked, as before. The threshold is
lowered here so a sample is a long run, and `diagnose` waits for the test's word, so "not yet" is sure."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import TypedDict

import pytest
from streamlit.testing.v1 import AppTest

import engine
from debugger import i18n
from debugger.diagnostics import diagnose
from debugger.model import background, highlights, trace_view
from debugger.model.trace_view import Scope, TraceView
from debugger.model.turns import turns_of
from debugger.sources import runs as sources
from engine.trace import Recorder
from tests import stepper_shown

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "debugger" / "app.py")


@pytest.fixture
def gated(monkeypatch: pytest.MonkeyPatch) -> threading.Event:
    """Every run is long, and the app's `diagnose` finishes only once the returned event is set."""
    release = threading.Event()

    def slow_diagnose(graph, trace):
        assert release.wait(30), "the test never let diagnose finish"
        return diagnose(graph, trace)

    monkeypatch.setattr(background, "LONG_RUN_STEPS", 0)
    monkeypatch.setattr(background, "HEAD_START", 0)  # no page here to wait for
    monkeypatch.setattr(trace_view, "diagnose", slow_diagnose)
    return release


def ready(view: TraceView, language: str = "en", timeout: float = 30) -> bool:
    deadline = time.monotonic() + timeout
    with i18n.using(language):
        while view.findings_pending and time.monotonic() < deadline:
            time.sleep(0.02)
        return not view.findings_pending


def subgraph_trap(tmp_path: Path):
    return sources.open_sample("subgraph_trap", db=str(tmp_path / "runs.sqlite3"))


def test_a_long_runs_findings_are_pending_first_then_the_same_as_diagnose(tmp_path, gated) -> None:
    opened = subgraph_trap(tmp_path)
    expected = diagnose(opened.graph, opened.trace)
    assert expected, "the sample has findings to wait for"
    traced = TraceView(opened.trace, opened.graph, background=True)
    root = traced.view(Scope())
    assert root.findings == () and root.findings_pending and traced.findings == []
    assert root.findings_pending, "asking again neither waits nor caches the empty answer"
    gated.set()
    assert ready(traced)
    assert traced.findings == expected
    assert root.findings == tuple(f for f in expected if f.scope == () and f.step is not None)
    assert not root.findings_pending


def test_each_language_is_computed_in_its_own_words(tmp_path, gated) -> None:
    opened = subgraph_trap(tmp_path)
    traced = TraceView(opened.trace, opened.graph, background=True)
    with i18n.using("zh-CN"):
        assert traced.findings_pending  # started in Chinese
    gated.set()
    assert ready(traced, "zh-CN")
    with i18n.using("zh-CN"):
        chinese = diagnose(opened.graph, opened.trace)
        assert traced.findings == chinese
    assert traced.findings_pending, "English is computed on its own, when an English page asks"
    assert ready(traced, "en")
    assert traced.findings == diagnose(opened.graph, opened.trace) != chinese


def test_a_short_run_a_report_and_a_command_compute_their_findings_when_asked(tmp_path, monkeypatch) -> None:
    opened = subgraph_trap(tmp_path)
    expected = diagnose(opened.graph, opened.trace)
    before = threading.active_count()
    short = TraceView(opened.trace, opened.graph, background=True)  # far below LONG_RUN_STEPS
    assert not short.findings_pending and short.findings == expected
    monkeypatch.setattr(background, "LONG_RUN_STEPS", 0)
    report = TraceView(opened.trace, opened.graph)  # no background: a report wants them all
    assert not report.findings_pending and report.findings == expected
    assert threading.active_count() == before, "no thread was started"


def test_sessions_that_open_the_same_long_stored_run_share_its_findings(tmp_path, gated, monkeypatch) -> None:
    from debugger.stores import row_store
    from debugger.stores.sqlite import RunStore

    monkeypatch.setattr(row_store, "STREAM_MIN_BYTES", 0)  # stored as a long run: its steps stay in rows
    monkeypatch.setattr(background, "_shared", type(background._shared)())
    calls = []
    counted = trace_view.diagnose
    monkeypatch.setattr(trace_view, "diagnose", lambda graph, trace: calls.append(1) or counted(graph, trace))
    opened = subgraph_trap(tmp_path)
    store = RunStore(tmp_path / "long.sqlite3")
    store.save(opened.trace)
    first, second = (TraceView(store.load(opened.trace.run_id), background=True) for _ in range(2))
    assert first.trace is not second.trace and first.findings_pending and second.findings_pending
    gated.set()
    assert ready(first) and ready(second)
    assert first.findings == second.findings == diagnose(None, opened.trace) and calls == [1]
    store.save(opened.trace, replace=True)  # the same run stored again: the same content, still shared
    assert ready(TraceView(store.load(opened.trace.run_id), background=True)) and calls == [1]
    with_graph = TraceView(store.load(opened.trace.run_id), opened.graph, background=True)  # its own live graph
    assert ready(with_graph) and calls == [1, 1]
    other = RunStore(tmp_path / "other.sqlite3")  # another store's run of the same id is another run
    other.save(opened.trace)
    assert ready(TraceView(other.load(opened.trace.run_id), background=True)) and calls == [1, 1, 1]


def test_the_thread_waits_for_the_page_to_be_drawn(tmp_path, monkeypatch) -> None:
    monkeypatch.setattr(background, "LONG_RUN_STEPS", 0)
    monkeypatch.setattr(background, "HEAD_START", 30)
    opened = subgraph_trap(tmp_path)
    traced = TraceView(opened.trace, opened.graph, background=True)
    assert traced.findings_pending
    time.sleep(0.3)
    assert traced.findings_pending, "it has not started: the page is not drawn yet"
    traced.drawn()
    assert ready(traced, timeout=10)
    assert traced.findings == diagnose(opened.graph, opened.trace)


def test_an_error_in_the_background_is_raised_where_the_findings_are_asked_for(tmp_path, monkeypatch) -> None:
    def broken(graph, trace):
        raise RuntimeError("diagnose broke")

    monkeypatch.setattr(background, "LONG_RUN_STEPS", 0)
    monkeypatch.setattr(background, "HEAD_START", 0)
    monkeypatch.setattr(trace_view, "diagnose", broken)
    opened = subgraph_trap(tmp_path)
    traced = TraceView(opened.trace, opened.graph, background=True)
    assert traced.findings_pending
    deadline = time.monotonic() + 30
    with pytest.raises(RuntimeError, match="diagnose broke"):
        while time.monotonic() < deadline:
            traced.findings_if_ready()
            time.sleep(0.02)


def test_a_run_on_no_thread_is_one_turn_without_reading_its_steps(tmp_path) -> None:
    opened = subgraph_trap(tmp_path)
    assert not opened.trace.thread_id
    assert TraceView(opened.trace).view(Scope()).turns == turns_of(opened.trace)


class Count(TypedDict):
    n: int


def loop_with_a_node_that_never_runs(steps: int = 30) -> engine.trace.Trace:
    g = engine.StateGraph(Count)
    g.add_node("inc", lambda s: {"n": s["n"] + 1})
    g.add_node("never", lambda s: {"n": 0})
    g.add_edge(engine.START, "inc")
    g.add_conditional_edges("inc", lambda s: "inc" if s["n"] < steps else engine.END, ["inc", "never", engine.END])
    recorder = Recorder()
    g.compile().invoke({"n": 0}, {"recursion_limit": steps + 5}, hooks=recorder)
    return recorder.trace


@pytest.mark.parametrize("ends", [2, 100])
def test_the_nodes_that_ran_before_a_step_read_from_both_ends_or_from_the_background(monkeypatch, ends) -> None:
    trace = loop_with_a_node_that_never_runs()
    expected = {step: view.highlight(step).visited for view in [TraceView(trace).view(Scope())] for step in view.steps}
    monkeypatch.setattr(background, "LONG_RUN_STEPS", 0)
    monkeypatch.setattr(background, "HEAD_START", 0)
    monkeypatch.setattr(highlights, "VISITED_ENDS", ends)
    for on in (False, True):
        view = TraceView(trace, background=on).view(Scope())
        view.highlight(view.last)
        deadline = time.monotonic() + 30
        while view.visits_pending and time.monotonic() < deadline:
            time.sleep(0.02)
        assert {step: view.highlight(step).visited for step in view.steps} == expected


# ---- the page ---------------------------------------------------------------------------------------


def test_the_page_says_the_run_is_being_checked_then_shows_its_findings(
    tmp_path, monkeypatch, gated, drawing_without_graphviz
) -> None:
    db = tmp_path / "app.sqlite3"
    monkeypatch.setenv("STEPSCOPE_DB", str(db))
    monkeypatch.setattr(background, "HEAD_START", 30)  # the page says when it is drawn
    opened = sources.open_sample("subgraph_trap", db=str(db))
    count = len(diagnose(opened.graph, opened.trace))
    at = AppTest.from_file(APP, default_timeout=30)
    at.query_params.update({"run": opened.trace.run_id, "tab": "findings"})
    at.run()
    assert not at.exception, at.exception
    steps = len(TraceView(opened.trace).view(Scope()).steps)  # the steps the stepper shows
    line = f"The run's {steps:,} steps are still being checked for problems; the findings and their 🔎 marks"
    assert any(c.value.startswith(f"⏳ {line}") for c in at.caption), "said by the stepper"
    assert [t.label for t in at.tabs if t.label.startswith("Findings")] == ["Findings ⏳"]
    assert any(i.value.startswith(line) for i in at.info), "said in the Findings tab"
    assert stepper_shown.model(at)["marked"] == [], "no 🔎 before the findings are known"
    gated.set()
    assert ready(at.session_state["stepscope_run"].view, timeout=10)
    at.run()  # what the waiting fragment's rerun does, once they are ready
    assert not at.exception, at.exception
    assert not any(line in c.value for c in at.caption)
    assert [t.label for t in at.tabs if t.label.startswith("Findings")] == [f"Findings ({count})"]
    assert not any(i.value.startswith(line) for i in at.info)
    assert stepper_shown.model(at)["marked"] == [2], "the trap's finding marks its step"


@pytest.mark.slow
def test_the_interpreter_exits_cleanly_while_the_findings_are_computed(tmp_path) -> None:
    script = f"""
import time
from debugger.model import background, trace_view
from debugger.model.trace_view import TraceView
from debugger.sources import runs
background.LONG_RUN_STEPS = 0
trace_view.diagnose = lambda graph, trace: [time.sleep(0.001) or list(trace.steps) for _ in range(100_000)]
opened = runs.open_sample("subgraph_trap", db={str(tmp_path / "runs.sqlite3")!r})
view = TraceView(opened.trace, opened.graph, background=True)
assert view.findings_pending
time.sleep(0.2)
print("exiting")
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "exiting" and "FATAL" not in done.stderr


def test_a_long_runs_stepper_holds_a_window_of_steps_and_the_page_sends_the_next(
    tmp_path, monkeypatch, drawing_without_graphviz
) -> None:
    from debugger.model import stepper_data

    db = tmp_path / "app.sqlite3"
    monkeypatch.setenv("STEPSCOPE_DB", str(db))
    monkeypatch.setattr(stepper_data, "WINDOW", 2)
    opened = sources.open_sample("subgraph_trap", db=str(db))
    at = AppTest.from_file(APP, default_timeout=30)
    at.query_params.update({"run": opened.trace.run_id})
    at.run()
    assert not at.exception, at.exception
    model = stepper_shown.model(at)
    assert (model["count"], model["at_step"], model["numbers"]) == (3, 0, {"first": 0})
    assert [s["step"] for s in model["window"]["steps"]] == [0, 1], "two steps of three sent"
    stepper_shown.move(at, 2)
    assert not at.exception, at.exception
    model = stepper_shown.model(at)
    assert at.query_params["step"] == "2" and model["at_step"] == 2
    assert [s["step"] for s in model["window"]["steps"]] == [1, 2], "the window around the step moved to"
    assert stepper_shown.shown_step(at)["step"] == 2


def test_the_waiting_line_speaks_the_pages_language(tmp_path, monkeypatch, gated, drawing_without_graphviz) -> None:
    db = tmp_path / "app.sqlite3"
    monkeypatch.setenv("STEPSCOPE_DB", str(db))
    opened = sources.open_sample("subgraph_trap", db=str(db))
    at = AppTest.from_file(APP, default_timeout=30)
    at.query_params.update({"run": opened.trace.run_id, "lang": "zh", "tab": "findings"})
    at.run()
    assert not at.exception, at.exception
    steps = len(TraceView(opened.trace).view(Scope()).steps)
    assert any(c.value.startswith(f"⏳ 这次运行的 {steps:,} 个步骤还在检查问题") for c in at.caption)
    assert any(i.value.startswith(f"这次运行的 {steps:,} 个步骤还在检查问题") for i in at.info)
    gated.set()
    assert ready(at.session_state["stepscope_run"].view, "zh-CN", timeout=10)
