"""`--timeout` covers importing the graph module, and Ctrl-C at any moment keeps what was recorded
(issue 25, the unclear cases): a module that hangs at import is refused in one line when the limit
passes; a Ctrl-C while a langgraph app's first node runs ends with exit 130 and the run stored as
`cancelled` (it used to escape langgraph's loop and store nothing)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from debugger.cli import main
from debugger.stores.sqlite import RunStore

ROOT = Path(__file__).resolve().parents[1]

HANGS_AT_IMPORT = """
import time
time.sleep(60)
from sample_graphs.parallel_append_race import graph, example_input
"""

SLOW_NODE = """
import time
from pathlib import Path
from typing import TypedDict
from {package} import StateGraph, START, END

class S(TypedDict):
    n: int

def slow(state):
    Path({marker!r}).write_text("running")
    time.sleep(60)
    return {{"n": 1}}

builder = StateGraph(S)
builder.add_node("slow", slow)
builder.add_edge(START, "slow")
builder.add_edge("slow", END)
graph = builder.compile()
example_input = {{"n": 0}}
"""


def test_timeout_covers_the_import_of_the_graph_module(tmp_path, capsys):
    module = tmp_path / "hangs.py"
    module.write_text(HANGS_AT_IMPORT)
    assert main(["run", str(module), "--timeout", "0.5", "--db", str(tmp_path / "r.sqlite3")]) == 2
    err = capsys.readouterr().err
    assert f"{module}, line 3: importing {module} took longer than --timeout 0.5 s" in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert f"stepscope_target_{module.stem}" not in sys.modules, "a half-imported module is not left behind"


@pytest.mark.slow
@pytest.mark.parametrize("package", ["engine", "langgraph.graph"])
def test_ctrl_c_while_the_first_node_runs_keeps_the_run(tmp_path, package):
    pytest.importorskip(package.split(".")[0])
    marker = tmp_path / "started"
    module = tmp_path / "slow_app.py"
    module.write_text(SLOW_NODE.format(package=package, marker=str(marker)))
    db = tmp_path / "r.sqlite3"
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    proc = subprocess.Popen(
        [sys.executable, "-m", "debugger.cli", "run", str(module), "--db", str(db)],
        cwd=tmp_path,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not marker.exists() and proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.05)
        assert marker.exists(), "the node started"
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and "Exception ignored" not in err
    assert "status: cancelled" in out and "Stopped with Ctrl-C" in err
    (run,) = RunStore(db).list()
    assert run.status == "cancelled"
