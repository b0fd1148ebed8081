"""Nothing lost under pytest: a session killed (SIGKILL) or stopped with Ctrl-C (SIGINT) while a test's
graph run hangs in its step 3 leaves that run in the store with the steps it committed, as `stepscope run`
leaves one: read as cut off once its process is gone, or stored as stopped with Ctrl-C."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from test_plugin import HERE, ROOT, pytest_command, pytest_environment

from debugger.stores.opening import open_store
from debugger.stores.protocol import CUT_OFF, RunSummary, StoreError

pytestmark = pytest.mark.slow  # each test runs a pytest session of its own, and stops it


RUNTIMES = ("engine", "langgraph")
KEPT = "what was recorded until then is kept."


def hanging_session(tmp_path: Path, runtime: str) -> tuple[subprocess.Popen, Path]:
    """A pytest session, recording into its own store, whose second test's `runtime` graph hangs in step 3;
    Ctrl-C reaches it as a terminal's does, whatever this process was started with."""
    shutil.copy(HERE / "hanging_tests.py", tmp_path / "test_user.py")
    db = tmp_path / "runs.sqlite3"
    command = pytest_command(tmp_path, "--stepscope", "--stepscope-db", str(db))
    session = subprocess.Popen(
        command,
        cwd=tmp_path,
        env=pytest_environment(tmp_path, {"HANGING_GRAPHS": runtime}),
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),  # a background job ignores it
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
    )
    return session, db


def runs_once_hanging(session: subprocess.Popen, db: Path) -> dict[str, RunSummary]:
    """The stored runs by test name, once the hanging run's step 2 is stored (its step 3 hangs)."""
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        assert session.poll() is None, session.communicate()[0]
        try:
            runs = {r.target.split("::")[-1]: r for r in open_store(db).list()} if db.exists() else {}
        except StoreError:  # the session is still creating the store
            runs = {}
        hanging = runs.get("test_hangs_in_step_3")
        if hanging is not None and hanging.steps >= 3:
            return runs
        time.sleep(0.1)
    session.kill()
    raise AssertionError(f"step 2 of the hanging run was never stored: {session.communicate()[0]}")


def stopped(session: subprocess.Popen, how: signal.Signals) -> tuple[int, str]:
    session.send_signal(how)
    try:
        output = session.communicate(timeout=60)[0]
    except subprocess.TimeoutExpired:
        session.kill()
        raise AssertionError(f"the session did not end on {how.name}: {session.communicate()[0]}") from None
    return session.returncode, output


def stored_steps(db: Path, run_id: str) -> list[int]:
    return [step.step for step in open_store(db).load(run_id).steps]


def runs_listing(db: Path) -> str:
    listed = subprocess.run(
        [sys.executable, "-m", "debugger.cli", "runs", "--db", str(db)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
    )
    assert listed.returncode == 0, listed.stdout + listed.stderr
    return listed.stdout


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_a_killed_session_leaves_the_hanging_run_cut_off_with_the_steps_it_committed(tmp_path, runtime):
    session, db = hanging_session(tmp_path, runtime)
    while_hanging = runs_once_hanging(session, db)
    assert while_hanging["test_hangs_in_step_3"].status == "running"
    code, _ = stopped(session, signal.SIGKILL)
    assert code == -signal.SIGKILL

    runs = {r.target.split("::")[-1]: r for r in open_store(db).list()}
    hanging = runs["test_hangs_in_step_3"]
    assert (hanging.status, hanging.steps) == ("running", 3)
    assert hanging.error == CUT_OFF.splitlines()[0]  # no process records it any more
    trace = open_store(db).load(hanging.run_id)
    assert trace.error["class"] == "RunCutOff"
    assert stored_steps(db, hanging.run_id) == [-1, 0, 1, 2]  # the input, START, two ticks; not the hung one
    # the test that ended before it is stored whole, as ever
    finished = runs["test_counts_to_five"]
    assert (finished.status, finished.steps) == ("done", 6)
    assert stored_steps(db, finished.run_id) == [-1, 0, 1, 2, 3, 4, 5]
    listing = runs_listing(db)
    line = next(row for row in listing.splitlines() if hanging.run_id[:12] in row)
    assert "cut off" in line, listing


@pytest.mark.parametrize("runtime", RUNTIMES)
def test_ctrl_c_stores_the_hanging_run_as_stopped_with_its_steps(tmp_path, runtime):
    session, db = hanging_session(tmp_path, runtime)
    runs_once_hanging(session, db)
    code, output = stopped(session, signal.SIGINT)
    assert code == 2 and "KeyboardInterrupt" in output, output  # pytest's own ending of a Ctrl-C

    runs = {r.target.split("::")[-1]: r for r in open_store(db).list()}
    hanging = runs["test_hangs_in_step_3"]
    assert hanging.status == "cancelled"
    trace = open_store(db).load(hanging.run_id)
    assert [step.step for step in trace.steps] == [-1, 0, 1, 2, 3]
    assert [(len(step.reducer_calls), step.tasks[0].error) for step in trace.steps[2:4]] == [(1, None)] * 2
    hung = trace.steps[-1].tasks[0]
    assert hung.name == "tick" and hung.result is None
    if runtime == "engine":  # the engine's run goes on in the node, never finished
        assert hung.error is None
        assert hanging.error == "Stopped with Ctrl-C after step 2, while tick ran; " + KEPT
    else:  # langgraph ends the run itself, the node's task with the KeyboardInterrupt
        assert hung.error["class"] == "KeyboardInterrupt"
        assert hanging.error == "Stopped with Ctrl-C after step 2; " + KEPT
    assert runs["test_counts_to_five"].status == "done"
