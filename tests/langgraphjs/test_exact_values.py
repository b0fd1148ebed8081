"""Values exactly as LangGraph.js holds them (issue 41, item 3): every JavaScript lesson's and test app's
recorded state after its run (done, paused, or stopped by an error or its recursion limit), field by field,
against LangGraph.js's own `getState().values` read in a plain node process after the same run
(tests/langgraphjs/own_state.mjs, which reads LangGraph.js's objects without StepScope's codec, in
tests/realistic/plain_state.py's shape), `__interrupt__` as the app's invoke returned it: the recorder adds
no field (a tool call's "type", which Python's langchain-core has and LangGraph.js's does not) and drops none.

Left out: the apps whose process dies or never ends (exits, hangs, rejects), that never load (load_fails,
syntax_error), the TypeScript ones (typed.ts, typed.mts: tsx, tested in test_typescript), and values.mjs,
whose cycle and BigInt LangGraph.js's own MemorySaver cannot store, so it has no getState to compare with."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest

from debugger.runtimes.langgraphjs import record_js_app
from sample_graphs.gallery import JS_LESSON_DIR
from tests.realistic.plain_state import plain_recorded

from .conftest import APPS, HERE, REPO

pytestmark = pytest.mark.slow

EXAMPLE = "example"
"""Run the app's own exampleInput."""
STOPS_AT_12 = {"recursionLimit": 12}
"""LangGraph.js's key: it ignores recursion_limit."""

LESSONS = {p: ("graph", EXAMPLE, {}) for p in sorted(JS_LESSON_DIR.glob("*.mjs")) if not p.name.startswith("_")}
REALISTIC_DIR = REPO / "tests" / "realistic" / "js"
REALISTIC = {
    p: ("graph", EXAMPLE, STOPS_AT_12 if p.stem == "draft_review" else {})
    for p in sorted(REALISTIC_DIR.glob("*.mjs"))
    if p.stem not in ("own_run", "plain_value")
}
TEST_APPS = {
    APPS / name: (export, graph_input, config)
    for name, export, graph_input, config in [
        ("breakpoint_after.mjs", "graph", {"draft": "notes"}, {}),
        ("breakpoint_before.mjs", "graph", {"draft": "notes"}, {}),
        ("command_goto.mjs", "graph", {"route": "right"}, {}),
        ("command_parent.mjs", "graph", {}, {}),
        ("concurrent_update.mjs", "graph", {}, {}),
        ("endless_loop.mjs", "graph", {}, STOPS_AT_12),
        ("growing.mjs", "graph", {"steps": 3}, {}),
        ("interrupt_ask.mjs", "graph", {}, {}),
        ("interrupt_parallel.mjs", "graph", {"draft": "notes"}, {}),
        ("interrupt_sqlite.mjs", "graph", {}, {}),
        ("interrupt_subgraph.mjs", "graph", {}, {}),
        ("interrupt_twice.mjs", "graph", {"order": "o-17"}, {}),
        ("live_pipeline.mjs", "graph", EXAMPLE, {}),
        ("messages_by_id.mjs", "graph", {"messages": [{"role": "user", "content": "q", "id": "h-1"}]}, {}),
        ("noisy.cjs", "builder", {}, {}),
        ("parallel_append.mjs", "graph", {}, {}),
        ("retries.mjs", "graph", {}, {}),
        ("review_loop.mjs", "graph", EXAMPLE, STOPS_AT_12),
        ("runs_on_import.mjs", "graph", {"n": 1}, {}),
        ("send_fanout.mjs", "graph", {"topics": ["aaa", "b", "cc"]}, {}),
        ("subgraph_trap.mjs", "graph", {}, {}),
        ("thread_failures.mjs", "graph", {}, {}),
        ("thread_failures.mjs", "conflict", {}, {}),
        ("thread_loop.mjs", "graph", {"steps": 3}, {}),
        ("thread_saver.mjs", "graph", EXAMPLE, {}),
        ("throwing_branch.mjs", "graph", {"n": 1}, {}),
        ("throws_object.mjs", "graph", {"n": 1}, {}),
        ("throws_string.mjs", "graph", {"n": 1}, {}),
        ("waiting_edge.mjs", "graph", {}, {}),
    ]
}
RUNS = [(path, *run) for path, run in {**LESSONS, **REALISTIC}.items()] + [
    (path, *run) for path, run in TEST_APPS.items()
]
THREAD = {"configurable": {"thread_id": "t-1"}}


def _own_state(path: Path, export: str, graph_input: Any, config: dict[str, Any]) -> dict[str, Any]:
    """LangGraph.js's own state after the run, read by own_state.mjs (no StepScope): {"state", "paused",
    "error"?}."""
    given = graph_input if graph_input == EXAMPLE else json.dumps(graph_input)
    done = subprocess.run(
        ["node", str(HERE / "own_state.mjs"), str(path), export, given, json.dumps(config)],
        capture_output=True, text=True, timeout=60, check=True,
    )  # fmt: skip
    return json.loads(done.stdout.strip().splitlines()[-1])


def _status(own: dict[str, Any]) -> str:
    """The recorded status LangGraph.js's own run says: the error invoke threw, else whether it paused."""
    if own.get("error"):
        return "recursion_limit" if own["error"] == "GraphRecursionError" else "error"
    return "interrupted" if own.get("paused") else "done"


@pytest.mark.parametrize(
    ("path", "export", "graph_input", "config"), RUNS, ids=lambda v: v.stem if isinstance(v, Path) else ""
)
def test_the_recorded_state_is_langgraphjs_own_get_state(
    path: Path, export: str, graph_input: Any, config: dict[str, Any], langgraph_js, tmp_path, monkeypatch
) -> None:
    monkeypatch.setenv("STEPSCOPE_TEST_THREADS", str(tmp_path / "own.sqlite"))
    own = _own_state(path, export, graph_input, config)
    monkeypatch.setenv("STEPSCOPE_TEST_THREADS", str(tmp_path / "recorded.sqlite"))
    example = graph_input == EXAMPLE
    trace = record_js_app(
        str(path), export, None if example else graph_input, {**config, **THREAD}, timeout=60, example_input=example
    )
    assert trace.status == _status(own), (trace.status, trace.error, own)
    if "state" in own:  # else getState throws the run's error again (a refused merge): no state to compare
        assert plain_recorded(trace.output) == own["state"]


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
