"""Values exactly as LangGraph.js holds them (issue 41, item 3): every JavaScript lesson's (and the loop and
live test apps') recorded final state, field by field, against what the app's own `graph.invoke` returns in
a plain node process (tests/realistic/js/own_run.mjs, which reads LangGraph.js's objects without StepScope's
codec, compared in tests/realistic/plain_state.py's shape): the recorder adds no field (a tool call's
"type", which Python's langchain-core has and LangGraph.js's does not) and drops none."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from debugger.runtimes.langgraphjs import record_js_app
from sample_graphs.gallery import JS_LESSON_DIR
from tests.realistic.plain_state import plain_recorded

from .conftest import REPO, app

pytestmark = pytest.mark.slow

LESSONS = sorted(p for p in JS_LESSON_DIR.glob("*.mjs") if not p.name.startswith("_"))
APPS = [Path(app("review_loop.mjs"))]
OWN_RUN = REPO / "tests" / "realistic" / "js" / "own_run.mjs"
"""The app's own run, read into plain_state.py's shape: the realistic apps' tests compare the same way."""


def _own_final_state(path: Path, config: dict[str, Any]) -> dict[str, Any]:
    """The app's own final state on its exampleInput, read by tests/realistic/js/own_run.mjs (no StepScope)."""
    done = subprocess.run(
        ["node", str(OWN_RUN), str(path), json.dumps(config), "[]"],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    return json.loads(done.stdout.strip().splitlines()[-1])[-1]


@pytest.mark.parametrize("path", LESSONS + APPS, ids=lambda p: p.stem)
def test_the_recorded_final_state_is_langgraphjs_own(path: Path, langgraph_js) -> None:
    config = {"recursion_limit": 12} if path.stem == "review_loop" else {}
    own = _own_final_state(path, {"recursionLimit": 12} if config else {})
    trace = record_js_app(str(path), "graph", None, config, timeout=60, example_input=True)
    if "error" in own:
        assert trace.status != "done" and (trace.error or {}).get("class") == own["error"], (trace.status, own)
        return
    assert trace.status == "done", (trace.status, trace.error)
    assert plain_recorded(trace.output) == own


def test_a_tool_call_is_recorded_without_the_type_python_adds(langgraph_js) -> None:
    lesson = JS_LESSON_DIR / "react_agent.mjs"
    trace = record_js_app(str(lesson), "graph", None, {}, timeout=60, example_input=True)
    calls = [
        call
        for message in trace.output["messages"]
        if message.get("$type") == "message"
        for call in message["message"]["data"].get("tool_calls", [])
    ]
    assert calls and all(set(call) == {"name", "args", "id"} for call in calls), calls
