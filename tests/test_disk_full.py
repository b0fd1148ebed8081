"""A database that fills mid-run (issue 38, 4c): the stored run says the disk filled at step N and that the
steps before N are kept, never "the recording process ended" (the process did not end); `stepscope run`
exits 3 with the whole run kept in a file. SQLite's own "database or disk is full" is made by a page
limit on the store's connections (fast), and by a real 2 MB tmpfs where this user may mount one (slow)."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from debugger.cli import main
from debugger.stores.sqlite import RunStore, SqliteDialect

APP = """
import operator
import os
from typing import Annotated, TypedDict
from engine import END, START, StateGraph

class State(TypedDict):
    items: Annotated[list, operator.add]
    n: int

def step(state):
    return {"items": [os.urandom(150_000).hex()], "n": state["n"] + 1}  # 300 KB no store compresses away

builder = StateGraph(State)
builder.add_node("step", step)
builder.add_edge(START, "step")
builder.add_conditional_edges("step", lambda state: END if state["n"] >= 20 else "step")
graph = builder.compile()
example_input = {"items": [], "n": 0}
"""


def _stored_run(db):
    store = RunStore(db)
    (summary,) = store.list()
    return summary, store.load(summary.run_id)


def _assert_says_the_disk_filled(summary, trace):
    assert summary.status == "running" and 0 < summary.steps < 20, summary
    cut = summary.steps  # steps 0..N-1 stored: the first one not taken is N
    message = trace.error["message"]
    assert message.startswith(f"Cut off at step {cut}: the disk filled ("), message
    assert f"the steps before {cut} are kept" in message and "Free space" in message, message
    assert "process" not in message and summary.error == message
    assert [s.step for s in trace.steps if s.step >= 0] == list(range(cut)), "what it says it kept is there"


def test_a_database_that_fills_mid_run_says_so_in_the_stored_status(tmp_path, monkeypatch, capsys):
    (tmp_path / "grow.py").write_text(APP)
    monkeypatch.chdir(tmp_path)
    db = str(tmp_path / "runs.db")
    RunStore(db)  # created before the limit
    connect = SqliteDialect.connect

    def limited(self):  # SQLite refuses to grow the file past 250 pages: its own SQLITE_FULL
        conn = connect(self)
        conn.execute("PRAGMA max_page_count = 250")
        return conn

    monkeypatch.setattr(SqliteDialect, "connect", limited)
    code = main(["run", "grow.py:graph", "--db", db, "--recursion-limit", "100"])
    out, err = capsys.readouterr()
    assert code == 3, err
    assert "database or disk is full" in err and "stepscope import" in err and "Traceback" not in err
    monkeypatch.setattr(SqliteDialect, "connect", connect)
    summary, trace = _stored_run(db)
    _assert_says_the_disk_filled(summary, trace)
    assert main(["runs", "--db", db]) == 0
    assert f"Cut off at step {summary.steps}: the disk filled" in capsys.readouterr().out


@pytest.mark.slow
def test_a_real_full_disk(tmp_path):
    mount = tmp_path / "small"
    mount.mkdir()
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(mount)], capture_output=True)
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.decode().strip()}")
    try:
        (tmp_path / "grow.py").write_text(APP)
        db = str(mount / "runs.db")
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
        run = subprocess.run(
            [sys.executable, "-m", "debugger.cli", "run", "grow.py:graph", "--db", db, "--recursion-limit", "100"],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
        )
        assert run.returncode == 3, run.stderr
        assert "database or disk is full" in run.stderr and "Traceback" not in run.stderr
        kept = [p for p in tmp_path.iterdir() if p.name.startswith("stepscope-unstored-")]
        assert len(kept) == 1, "the whole run is in a file beside, on the disk with room"
        _assert_says_the_disk_filled(*_stored_run(db))
    finally:
        subprocess.run(["umount", str(mount)], check=False)
