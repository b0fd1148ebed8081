"""A stored run that did not end (status `running`: its recording process was killed, or is still
recording) reads truthfully in every view: the step page, the sidebar, the stored-runs page, and
`stepscope show`/`runs`/`diagnose`. It says where the recording stops and that nothing after is
known, never "the run ended with status running". All views word statuses through
`debugger.model.run_status`."""

from __future__ import annotations

import copy
import re

import pytest
from streamlit.testing.v1 import AppTest

from debugger.cli import main
from debugger.model import run_status
from debugger.sources import runs as sources
from debugger.stores.protocol import cut_off_error
from debugger.stores.sqlite import RunStore
from tests import stepper_shown
from tests.test_app import APP, goto_page

pytestmark = pytest.mark.usefixtures("fresh_store", "drawing_without_graphviz")  # tests/conftest.py

CUT_OFF_ERROR = cut_off_error()


_RECORDERS: list[RunStore] = []
"""Stores that record a run for a test: each holds its run's recording lock while the tests run."""


def unfinished_run(db, *, error=None, recording=True) -> str:
    """A stored `slow_research` run whose recording stops after step 2: still being recorded (its lock
    held, as a live recording holds it), or, with `recording=False`, as a killed recorder leaves it."""
    trace = copy.deepcopy(sources.open_sample("slow_research", store=False).trace)
    steps = [s for s in trace.steps if s.step <= 2]
    trace.status, trace.error, trace.output = "running", error, None
    trace.run_id = "c0ffee" + trace.run_id[6:]
    store = RunStore(str(db))
    if recording and error is None:
        trace.steps = []
        store.start_run(trace)
        store.append_steps(trace.run_id, steps)
        _RECORDERS.append(store)
    else:
        trace.steps = steps
        store.save(trace)
    return trace.run_id


def plain(text: str) -> str:
    return re.sub(r"\\(.)", r"\1", text)


# ---- the one helper ----------------------------------------------------------------------------------


def test_a_running_run_is_worded_as_not_ended_never_as_ended():
    text = run_status.ending("running", None, after="step 2")
    assert "ended with status" not in text
    assert "recording stops after step 2" in text and "nothing after step 2 is known" in text
    assert run_status.label("running") == "unfinished"


def test_a_cut_off_run_says_cut_off_from_its_error_record_or_its_list_line():
    assert run_status.label("running", CUT_OFF_ERROR) == "cut off"
    assert run_status.label("running", CUT_OFF_ERROR["message"]) == "cut off"  # a run list's error column
    text = run_status.ending("running", CUT_OFF_ERROR, after="step 4")
    assert text.startswith("Cut off after step 4") and "nothing after step 4 is known" in text
    assert run_status.note("running", CUT_OFF_ERROR, after="5 supersteps").startswith("Cut off after 5 supersteps")


def test_endings_of_runs_that_did_end():
    assert run_status.ending("done") == "The run finished (done)."
    stopped = {"class": "RunCancelled", "message": "Stopped with Ctrl-C after 3 supersteps."}
    assert run_status.ending("cancelled", stopped) == (
        "The run was stopped before it finished (cancelled): Stopped with Ctrl-C after 3 supersteps."
    )
    assert run_status.label("recursion_limit") == "recursion limit"
    assert run_status.note("error", "At key 'x': boom\nmore") == "At key 'x': boom"


# ---- the app ----------------------------------------------------------------------------------------


def step_page(run_id: str, step: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=30)
    at.query_params.update({"run": run_id, "step": step})
    at.run()
    assert not at.exception, at.exception
    return at


def next_line(at: AppTest) -> str:
    """The stepper's "Next:" line at the step shown."""
    return next(text for _, text in stepper_shown.summary(at) if text.startswith("Next:"))


def test_the_step_page_says_the_recording_stops_at_the_last_step(fresh_store):
    run_id = unfinished_run(fresh_store)
    at = step_page(run_id, "2")
    line = next_line(at)
    assert "ended with status" not in line
    assert line.startswith("Next: unknown. Not finished: the recording stops after step 2")
    assert "nothing after step 2 is known" in line
    sidebar = " ".join(m.value for m in at.sidebar.markdown)
    assert "`unfinished`" in sidebar and "`running`" not in sidebar


def test_the_step_page_of_a_cut_off_run_says_cut_off(fresh_store):
    run_id = unfinished_run(fresh_store, error=CUT_OFF_ERROR)
    line = next_line(step_page(run_id, "2"))
    assert line.startswith("Next: unknown. Cut off after step 2: the process recording this run ended")


def test_a_run_no_process_records_any_more_reads_as_cut_off_without_being_told(fresh_store):
    run_id = unfinished_run(fresh_store, recording=False)  # what a killed recorder leaves
    line = next_line(step_page(run_id, "2"))
    assert line.startswith("Next: unknown. Cut off after step 2: the process recording this run ended")


def test_a_finished_run_still_says_nothing_runs_next(fresh_store):
    opened = sources.open_sample("subgraph_trap", db=str(fresh_store))
    last = str(opened.trace.steps[-1].step)
    assert next_line(step_page(opened.trace.run_id, last)) == "Next: nothing. The run finished (done)."


def test_the_stored_runs_page_lists_an_unfinished_run_as_such(fresh_store):
    run_id = unfinished_run(fresh_store)
    at = step_page(run_id, "0")
    goto_page(at, "runs")
    frame = at.dataframe[0].value
    row = frame[frame["run"] == run_id[:12]].iloc[0]
    assert row["status"] == "unfinished"
    assert row["error"].startswith("Recording stops after 3 supersteps")
    assert any(o.endswith("· unfinished") for o in at.selectbox(key="runs_page_choice").options)


# ---- the command line -------------------------------------------------------------------------------


def test_show_runs_and_diagnose_word_an_unfinished_run_truthfully(fresh_store, capsys):
    run_id = unfinished_run(fresh_store)
    assert main(["show", run_id[:8]]) == 0
    shown = capsys.readouterr().out
    assert "status unfinished" in shown and "status running" not in shown
    assert "Not finished: the recording stops after step 2 and nothing after step 2 is known" in shown
    assert main(["runs"]) == 0
    listed = capsys.readouterr().out
    assert "unfinished" in listed and "Recording stops after 3 supersteps" in listed
    assert main(["diagnose", run_id[:8]]) == 0
    diagnosed = capsys.readouterr().out
    assert "(run status: unfinished)" in diagnosed
    assert "nothing after step 2 is known" in diagnosed


def test_show_of_a_cut_off_run_says_cut_off_not_error(fresh_store, capsys):
    run_id = unfinished_run(fresh_store, error=CUT_OFF_ERROR)
    main(["show", run_id[:8]])
    shown = capsys.readouterr().out
    assert "status cut off" in shown
    assert "error: RunCutOff" not in shown
    assert "Cut off after step 2" in shown
