"""A conversation with an app paused on parallel questions, had through `stepscope run` as a user has it:
each turn a process of its own on one thread (`--config`), each answer `--resume '{"ID": ANSWER}'` with the
ids the previous turn printed (shared by the langgraph and the LangGraph.js interrupt tests)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).parents[1]
ASKED = re.compile(r"^interrupted \(node (\w+), id (\w+)\): ", re.M)
"""A question as `stepscope run` prints it when a run stops on several: its node and its id."""


def printed_questions(printed: str) -> list[tuple[str, str]]:
    """Each (node, id) `stepscope run` printed, in its order."""
    return ASKED.findall(printed)


def stepscope_turns(target: str, turns: list[Any], tmp_path: Path) -> list[dict[str, Any]]:
    """The trace of each turn: turn 0 is the input, each later one the answers by node name."""
    traces, printed = [], ""
    for turn, given in enumerate(turns):
        if turn == 0:
            options = ["--input", json.dumps(given)]
        else:
            by_id = {ident: given[node] for node, ident in printed_questions(printed) if node in given}
            assert len(by_id) == len(given), printed
            options = ["--resume", json.dumps(by_id)]
        trace, printed = stepscope_run(target, options, tmp_path, turn)
        traces.append(trace)
    return traces


def stepscope_run(target: str, options: list[str], tmp_path: Path, turn: int) -> tuple[dict[str, Any], str]:
    """One `stepscope run` of `target` on thread t: its trace file and what it printed."""
    out = tmp_path / f"turn-{turn}.json"
    command = [sys.executable, "-m", "debugger.cli", "run", target, *options,
               "--config", json.dumps({"configurable": {"thread_id": "t"}}), "--out", str(out),
               "--db", str(tmp_path / "runs.sqlite3")]  # fmt: skip
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=120)
    assert out.exists(), done.stdout + done.stderr
    return json.loads(out.read_text()), done.stdout
