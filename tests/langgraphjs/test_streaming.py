"""How a recording streams: steps reach Python as they commit, the bytes grow with what changed (not
quadratically), Ctrl-C keeps what came, a RetryPolicy's failed attempts are kept."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from debugger.runtimes.langgraphjs import record_js_app
from debugger.runtimes.langgraphjs.process import NodeRun
from debugger.runtimes.langgraphjs.reader import EventReader

from .conftest import REPO, app

pytestmark = pytest.mark.slow


def event_bytes(steps: int) -> int:
    reader = EventReader(target="growing.mjs:graph", run_id="r")
    config = {"recursionLimit": steps + 10}
    run = NodeRun({"app": app("growing.mjs"), "export": "graph", "input": {"steps": steps}, "config": config}, reader)
    run.wait(120)
    assert reader.close(empty_run=lambda: None).status == "done"
    return run.bytes_read


def test_a_growing_list_costs_bytes_linear_in_the_steps(langgraph_js):
    short, long = event_bytes(100), event_bytes(400)
    assert long < 5 * short  # four times the steps; a full copy of the list per step would be ~16 times


def test_each_committed_step_reaches_on_step_as_it_commits(langgraph_js):
    seen = []
    trace = record_js_app(app("waiting_edge.mjs"), "graph", {}, None, timeout=60, on_step=lambda s: seen.append(s.step))
    assert seen == [s.step for s in trace.steps if s.committed] == [-1, 0, 1, 2, 3]


def test_a_retry_policys_failed_attempts_are_kept(langgraph_js):
    trace = record_js_app(app("retries.mjs"), "graph", {}, None, timeout=60)
    flaky = next(t for s in trace.steps for t in s.tasks if t.name == "flaky")
    assert [a["error"]["message"] for a in flaky.attempts] == ["attempt 1 failed", "attempt 2 failed"]
    assert flaky.error is None and trace.output == {"answer": "ok after 3"}


CTRL_C = """
import sys
from debugger.runtimes.langgraphjs import record_js_app
def told(step):
    print("committed", step.step, flush=True)
trace = record_js_app(sys.argv[1], "graph", {}, None, timeout=None, on_step=told)
print("status", trace.status, trace.error["class"], [s.step for s in trace.steps if s.committed], flush=True)
print("message", trace.error["message"], flush=True)
"""


def test_ctrl_c_stops_node_and_keeps_what_came(langgraph_js):
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    child = subprocess.Popen(
        [sys.executable, "-c", CTRL_C, app("hangs.mjs")], stdout=subprocess.PIPE, text=True, env=env, cwd=REPO
    )
    lines = []
    for line in child.stdout:
        lines.append(line.strip())
        if line.startswith("committed 1"):
            time.sleep(1.0)  # the next step's planned task reaches Python just after the commit
            child.send_signal(signal.SIGINT)
            break
    rest, _ = child.communicate(timeout=30)
    lines += rest.splitlines()
    assert "status cancelled RunCancelled [-1, 0, 1]" in lines
    assert "message Stopped with Ctrl-C after step 1, while hangs ran; what was recorded until then is kept." in lines


def test_an_interrupt_is_answered_from_a_second_process(langgraph_js, tmp_path, monkeypatch):
    if not (langgraph_js / "@langchain" / "langgraph-checkpoint-sqlite").exists():
        pytest.skip("@langchain/langgraph-checkpoint-sqlite is not installed at the repo root: run `npm ci` there")
    monkeypatch.setenv("STEPSCOPE_TEST_THREADS", str(tmp_path / "threads.db"))
    config = {"configurable": {"thread_id": "refund-17"}}
    asked = record_js_app(app("interrupt_sqlite.mjs"), "graph", {}, config, timeout=60)
    assert asked.status == "interrupted" and asked.interrupts[0]["value"] == {"ask": "Refund order 17?"}
    answered = record_js_app(app("interrupt_sqlite.mjs"), "graph", None, config, timeout=60, resume="yes")
    assert answered.status == "done" and answered.output == {"question": "Refund order 17?", "answer": "yes"}
    assert answered.input == {"$type": "Command", "fields": {"resume": "yes"}}
    first, last = answered.steps[0], answered.steps[-1]
    assert first.state == {"question": {"set": "Refund order 17?"}}  # the state the thread resumed from
    assert [(t.name, [(c.channel, c.after) for c in last.reducer_calls]) for t in last.tasks] == [
        ("ask", [("answer", {"set": "yes"})])
    ]
