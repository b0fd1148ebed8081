"""Issue 24, item 8: the turns of a thread are first-class (one per invoke or resume, with what it was
given), a turn starts with its new input rather than "no task ran", a paused thread says what it asks,
AI message ids show the part that tells them apart, and a config shows only what the user set."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from debugger.cli import main
from debugger.model.step_summary import summary
from debugger.model.trace_view import Cursor, Scope, TraceView
from debugger.model.turns import turn_label, turns_of
from debugger.runtimes.checkpointers.savers import open_checkpointer
from debugger.runtimes.registry import runtime_of
from debugger.runtimes.runtime import RunRequest
from debugger.runtimes.targets import load_target
from debugger.runtimes.threads_api import ThreadRead
from engine.trace import StepRecord, TaskRecord, Trace

pytest.importorskip("langgraph.checkpoint.sqlite")

TWO_TURNS = Path(__file__).parent / "e2e" / "graphs" / "two_turns.py"


@pytest.fixture
def thread(tmp_path):
    """(the app's target, its SqliteSaver file, the thread's Trace read back from it)."""
    loaded = load_target(str(TWO_TURNS))
    path = tmp_path / "prod.sqlite"
    loaded.module.conversation(str(path))
    with open_checkpointer(str(path)) as saver:
        trace = runtime_of(loaded.graph).read_thread(saver, loaded.graph, ThreadRead("chat-1"))
    return f"{TWO_TURNS}:graph", path, trace


def test_a_thread_read_back_has_its_two_turns_each_with_its_input(thread) -> None:
    _, _, trace = thread
    first, second = turns_of(trace)
    assert (first.number, first.first_step, first.last_step, first.resumed) == (1, -1, 2, False)
    assert (second.first_step, second.resumed) == (3, False)
    assert second.given == {"messages": [{"role": "user", "content": "and send it"}]}
    assert (
        turn_label(second) == "Turn 2 · step 3 · new input {'messages': [{'role': 'user', 'content': 'and send it'}]}"
    )


def test_turn_two_starts_with_its_new_input_not_with_no_task_ran(thread) -> None:
    _, _, trace = thread
    view = TraceView(trace, None).view(Scope())
    lines = [line.text for line in summary(view, Cursor(Scope(), 3))]
    assert lines[0] == "Turn 2 · new input (step 3)"
    assert "The thread was given" in lines[1] and "and send it" in lines[1]
    assert not any("No node ran" in text for text in lines)
    assert [line.text for line in summary(view, Cursor(Scope(), 5))][0] == "Turn 2 · superstep 5"


def test_show_of_a_paused_thread_marks_its_turns_and_says_what_it_asks(thread, capsys) -> None:
    target, path, _ = thread
    assert main(["show", target, "--checkpointer", str(path), "--thread", "chat-1"]) == 0
    out = capsys.readouterr().out
    assert "-- Turn 2 · step 3 · new input" in out
    assert 'paused: approve asks {"question": "Send it?"}' in out
    assert "GraphInterrupt" not in out and "error:" not in out
    ids = set(re.findall(r"ai: 'plan \d' (#…[0-9a-f]{8})(?=[,\]\s])", out))  # each AI reply's id, as shown
    assert len(ids) == 2, out  # two replies, two ids told apart: not one `#lc_run--` prefix for both


def test_a_resume_run_is_a_resumed_turn_and_a_graph_file_run_shows_no_config_it_was_not_given() -> None:
    resumed = Trace(ns=[], graph={}, input={"$type": "Command", "fields": {"resume": "yes"}}, config={})
    resumed.steps = [StepRecord(5), StepRecord(6, tasks=[TaskRecord("t", "approve", [], [], [], {}, None)])]
    (turn,) = turns_of(resumed)
    assert turn.resumed and turn.given == "yes" and turn_label(turn) == "Turn 1 · step 5 · resumed with 'yes'"
    loaded = load_target(str(TWO_TURNS))
    recorded = runtime_of(loaded.graph).record(RunRequest(loaded.graph, loaded.example_input, {}, "chat")).trace
    assert recorded.config == {}  # not {"recursion_limit": 10007}: langgraph's own default, never set
