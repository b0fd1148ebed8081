"""`--recursion-limit N` limits a LangGraph.js app's run as it limits a langgraph app's (issue 41, item 1):
it reaches LangGraph.js as `recursionLimit`, the key it reads (it ignores `recursion_limit`, and ran to its
default of 25), in `stepscope run` and in `stepscope diagnose` alike."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from .conftest import REPO, app

pytestmark = pytest.mark.slow

LOOP = f"{app('review_loop.mjs')}:graph"


def _cli(*arguments: str, cwd) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    command = [sys.executable, "-m", "debugger.cli", *arguments, "--db", str(cwd / "runs.sqlite3")]
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=120)


def test_run_stops_the_app_at_the_limit_given(langgraph_js, tmp_path):
    _cli("run", LOOP, "--recursion-limit", "6", "--out", str(tmp_path / "run.json"), cwd=tmp_path)
    trace = json.loads((tmp_path / "run.json").read_text())
    assert trace["status"] == "recursion_limit" and trace["config"]["recursionLimit"] == 6
    assert trace["error"]["message"].startswith("Recursion limit of 6 reached")  # LangGraph.js's own words
    assert trace["steps"][-1]["step"] == 6


def test_diagnose_stops_the_app_at_the_limit_given(langgraph_js, tmp_path):
    done = _cli("diagnose", LOOP, "--recursion-limit", "6", "--json", cwd=tmp_path)
    [loop] = [f for f in json.loads(done.stdout)["findings"] if f["kind"] == "stuck_loop"]
    assert "recursion limit (step 6)" in loop["explanation"]
