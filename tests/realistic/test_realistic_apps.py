"""Realistic apps against their own runtime (issue 41, item 5): each app's state after every call (the
first run, then each `--resume` on its thread) as `stepscope run` recorded it, against what the app's own
process holds after the same call (`python APP.py` / `node own_run.mjs`, no StepScope); for a failing app its
status and error class, and for an app with a known mistake the finding `diagnose` gives."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from .plain_state import plain_recorded

pytest.importorskip("langgraph")
pytestmark = pytest.mark.slow

HERE = Path(__file__).parent
ROOT = HERE.parents[1]
THREAD = {"configurable": {"thread_id": "t-1"}}
ANSWERS = ("yes", 249.5, "IT-4")


@dataclass(frozen=True)
class Case:
    app: str
    config: dict[str, Any] = field(default_factory=dict)
    resumes: tuple[Any, ...] = ()
    context: dict[str, Any] | None = None
    recursion_limit: int | None = None
    status: str = "done"
    findings: tuple[str, ...] = ()


CASES = [
    Case("triage_agent.py", context={"tier": "gold"}),
    Case("research_fanout.py"),
    Case("draft_review.py", recursion_limit=10, status="recursion_limit", findings=("stuck_loop",)),
    Case("rag_pipeline.py"),
    Case("approval_flow.py", config=THREAD, resumes=ANSWERS),
    Case("react_parallel.py", recursion_limit=12),
]


def _run(command: list[str], cwd: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True, timeout=180)


def _options(case: Case) -> list[str]:
    options = ["--config", json.dumps(case.config)] if case.config else []
    if case.context is not None:
        options += ["--context", json.dumps(case.context)]
    if case.recursion_limit is not None:
        options += ["--recursion-limit", str(case.recursion_limit)]
    return options


def _own_states(case: Case, path: Path) -> list[Any]:
    limit = "recursionLimit" if path.suffix == ".mjs" else "recursion_limit"
    config = case.config | ({limit: case.recursion_limit} if case.recursion_limit else {})
    if path.suffix == ".mjs":
        command = ["node", str(HERE / "js" / "own_run.mjs"), str(path)]
    else:
        command = [sys.executable, str(path)]
    done = _run([*command, json.dumps(config), json.dumps(case.resumes), json.dumps(case.context)], HERE)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout.strip().splitlines()[-1])


def _recorded_states(case: Case, target: str, tmp_path: Path) -> list[dict[str, Any]]:
    db, traces = str(tmp_path / "runs.sqlite3"), []
    for call, answer in enumerate((None, *case.resumes)):
        out = tmp_path / f"trace-{call}.json"
        resume = [] if answer is None else ["--resume", json.dumps(answer)]
        done = _run([sys.executable, "-m", "debugger.cli", "run", target, *_options(case), *resume,
                     "--out", str(out), "--db", db], tmp_path)  # fmt: skip
        assert out.exists(), done.stdout + done.stderr
        traces.append(json.loads(out.read_text()))
    return traces


def _compare(case: Case, path: Path, tmp_path: Path) -> None:
    target = f"{path}:graph"
    own, traces = _own_states(case, path), _recorded_states(case, target, tmp_path)
    assert len(own) == len(traces), (own, [t["status"] for t in traces])
    for call, (theirs, trace) in enumerate(zip(own, traces)):
        if "error" in theirs:
            assert trace["status"] == case.status and trace["error"]["class"] == theirs["error"], (call, trace)
        else:
            assert trace["status"] in ("done", "interrupted"), (call, trace["status"], trace.get("error"))
            assert plain_recorded(trace["output"]) == theirs, f"call {call}"
    assert traces[-1]["status"] == case.status
    if case.findings:
        done = _run([sys.executable, "-m", "debugger.cli", "diagnose", target, *_options(case), "--json",
                     "--db", str(tmp_path / "diagnose.sqlite3")], tmp_path)  # fmt: skip
        kinds = {finding["kind"] for finding in json.loads(done.stdout)["findings"]}
        assert set(case.findings) <= kinds, (kinds, done.stderr)


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.app)
def test_a_python_app_is_recorded_as_langgraph_holds_it(case: Case, tmp_path: Path) -> None:
    _compare(case, HERE / case.app, tmp_path)


JS_CASES = [
    Case("triage_agent.mjs", config={"configurable": {"tier": "gold"}}),
    Case("research_fanout.mjs"),
    Case("draft_review.mjs", recursion_limit=10, status="recursion_limit", findings=("stuck_loop",)),
    Case("rag_pipeline.mjs"),
    Case("approval_flow.mjs", config=THREAD, resumes=ANSWERS),
    Case("react_parallel.mjs", recursion_limit=12),
]


@pytest.mark.parametrize("case", JS_CASES, ids=lambda c: c.app)
def test_a_langgraphjs_app_is_recorded_as_langgraphjs_holds_it(case: Case, tmp_path: Path) -> None:
    if shutil.which("node") is None or not (ROOT / "node_modules" / "@langchain" / "langgraph").exists():
        pytest.skip("node and the repo root's node_modules (npm ci) run the LangGraph.js apps")
    _compare(case, HERE / "js" / case.app, tmp_path)
