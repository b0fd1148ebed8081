"""Values JavaScript has and JSON lacks round-trip as documented; whatever stops node keeps the committed
steps; what stops the app from starting is one line that says how to fix it."""

from __future__ import annotations

import json
import math
import os
import signal
import time
from pathlib import Path

import pytest

from debugger.diagnostics import diagnose_trace
from debugger.runtimes.langgraphjs import JSAppError, record_js_app
from debugger.runtimes.langgraphjs.process import NodeRun
from debugger.runtimes.langgraphjs.reader import EventReader
from debugger.sources.recording import record_run
from debugger.sources.trace_check import parse_trace
from engine.codec import JS_UNDEFINED, Recorded, decode
from engine.tracefile import to_json
from sample_graphs import refund_concurrent_update, subgraph_trap

from .conftest import ROOT_MODULES, app

pytestmark = pytest.mark.slow


def test_javascript_values_round_trip_as_documented(langgraph_js):
    trace = parse_trace(to_json(record_js_app(app("values.mjs"), "graph", {}, None, timeout=60)))
    bag = decode(trace.output)["bag"]
    assert bag["nothing"] is JS_UNDEFINED and repr(bag["nothing"]) == "undefined"
    assert bag["empty"] is None
    assert bag["when"] == Recorded("Date", text="2024-05-01T12:00:00.000Z")
    assert bag["byId"] == {"a": 1, 2: "b"}
    assert bag["tags"] == {"x", "y"}
    assert bag["big"] == 12345678901234567890
    assert math.isnan(bag["nan"]) and bag["inf"] == -math.inf
    assert bag["ticket"] == Recorded("Ticket", {"id": 7, "tags": ["vip"]})
    assert bag["cyclic"]["name"] == "loop"
    assert trace.output["bag"]["cyclic"]["self"]["cut"] == "cycle"
    assert bag["list"] == [JS_UNDEFINED, None, 1.5]


def test_process_exit_in_a_node_keeps_the_committed_steps(langgraph_js):
    trace = parse_trace(to_json(record_js_app(app("exits.mjs"), "graph", {}, None, timeout=60)))
    assert trace.status == "error" and trace.error["class"] == "ProcessExit"
    assert trace.error["message"].startswith("The app called process.exit(3) after step 1, while quits ran")
    assert [s.step for s in trace.steps if s.committed] == [-1, 0, 1]


def test_an_unhandled_rejection_is_one_line_and_keeps_the_committed_steps(langgraph_js):
    trace = parse_trace(to_json(record_js_app(app("rejects.mjs"), "graph", {}, None, timeout=60)))
    assert trace.status == "error" and trace.error["class"] == "UnhandledRejection"
    assert "\n" not in trace.error["message"]
    assert trace.error["message"].startswith("TypeError: lost promise was a promise rejection nobody awaited")
    assert [s.step for s in trace.steps if s.committed] == [-1, 0, 1]


def test_a_timeout_stops_node_and_keeps_what_came(langgraph_js):
    trace = parse_trace(to_json(record_js_app(app("hangs.mjs"), "graph", {}, None, timeout=6)))
    assert trace.status == "timeout" and trace.error["class"] == "RunTimeout"
    assert trace.error["message"].startswith("The run did not finish within 6 s; stopped after step 1")
    assert "after step 1, while hangs ran" in trace.error["message"]
    assert [s.step for s in trace.steps if s.committed] == [-1, 0, 1]
    assert decode(trace.steps[-2].reducer_calls[0].write) == 1


def test_a_killed_node_process_leaves_every_committed_step(langgraph_js):
    reader = EventReader(target="hangs.mjs:graph", run_id="r1")
    run = NodeRun({"app": app("hangs.mjs"), "export": "graph", "input": {}, "config": {}}, reader)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline and not (
        reader.trace and any(s.step == 2 for s in reader.trace.steps)
    ):  # `hangs` planned
        time.sleep(0.05)
    os.kill(run.process.pid, signal.SIGKILL)  # no handler runs: only what was already flushed counts
    run.wait(None)
    trace = reader.close(empty_run=lambda: pytest.fail("the run had started"))
    assert trace.status == "error" and trace.error["class"] == "RecorderLost"
    assert [s.step for s in trace.steps if s.committed] == [-1, 0, 1]
    assert [t.name for t in trace.steps[-1].tasks] == ["hangs"]


@pytest.mark.parametrize(
    "js_app,python_sample,kind",
    [
        ("concurrent_update.mjs", refund_concurrent_update, "concurrent_update"),
        ("subgraph_trap.mjs", subgraph_trap, "subgraph_duplication"),
    ],
)
def test_the_js_app_gets_the_finding_its_python_twin_gets(langgraph_js, js_app, python_sample, kind):
    trace = record_js_app(app(js_app), "graph", {}, None, timeout=60)
    js_found = [(f.kind, f.severity, f.step, f.key, f.title) for f in diagnose_trace(trace)]
    twin = record_run(python_sample.graph, python_sample.example_input, {}, target="twin").trace
    python_found = [(f.kind, f.severity, f.step, f.key, f.title) for f in diagnose_trace(twin)]
    assert js_found == python_found
    assert [k for k, *_ in js_found] == [kind]


# ---- what stops the app from starting: one line each -------------------------------------------------


def one_line(call) -> str:
    with pytest.raises(JSAppError) as raised:
        call()
    message = str(raised.value)
    assert "\n" not in message and message.strip() == message
    return message


def test_a_syntax_error_is_one_line_with_its_line(langgraph_js):
    message = one_line(lambda: record_js_app(app("syntax_error.mjs"), "graph", {}, None, timeout=60))
    assert message.startswith("syntax_error.mjs has a syntax error at line 2: ")


def test_an_app_that_throws_while_loading_is_one_line(langgraph_js):
    message = one_line(lambda: record_js_app(app("load_fails.mjs"), "graph", {}, None, timeout=60))
    assert message == "load_fails.mjs failed while loading (before any run): Error: OPENAI_API_KEY is not set"


def test_a_missing_export_names_the_exports_there_are(langgraph_js):
    message = one_line(lambda: record_js_app(app("noisy.cjs"), "graph", {}, None, timeout=60))
    assert message == (
        'noisy.cjs has no export "graph"; its exports are: builder, notAGraph; its graphs: builder. '
        "Name one with noisy.cjs:<export>"
    )


def test_an_export_that_is_not_a_graph_says_what_it_is(langgraph_js):
    message = one_line(lambda: record_js_app(app("noisy.cjs"), "notAGraph", {}, None, timeout=60))
    assert message.startswith('export "notAGraph" of noisy.cjs is a number, not a LangGraph.js graph')
    assert message.endswith("its graphs: builder. Name one with noisy.cjs:<export>")


def test_another_langgraph_js_major_is_refused_by_its_version(langgraph_js, tmp_path: Path):
    package = tmp_path / "node_modules" / "@langchain" / "langgraph"
    package.mkdir(parents=True)
    (package / "package.json").write_text(
        json.dumps({"name": "@langchain/langgraph", "version": "0.2.74", "main": "index.js"})
    )
    (package / "index.js").write_text("module.exports = {};\n")
    (tmp_path / "app.mjs").write_text('import { StateGraph } from "@langchain/langgraph";\nexport const graph = 1;\n')
    message = one_line(lambda: record_js_app(str(tmp_path / "app.mjs"), "graph", {}, None, timeout=60))
    assert message.startswith("the app uses @langchain/langgraph 0.2.74 (")
    assert message.endswith("run `npm install @langchain/langgraph@1` in the app's folder")


def test_no_langgraph_js_beside_the_app_says_what_to_install(langgraph_js, tmp_path: Path):
    (tmp_path / "app.mjs").write_text("export const graph = 1;\n")
    message = one_line(lambda: record_js_app(str(tmp_path / "app.mjs"), "graph", {}, None, timeout=60))
    assert message.endswith("run `npm install @langchain/langgraph @langchain/core` in the app's folder")


def test_typescript_without_tsx_says_npm_install_tsx(langgraph_js, tmp_path: Path):
    (tmp_path / "node_modules").mkdir()
    (tmp_path / "node_modules" / "@langchain").symlink_to(ROOT_MODULES / "@langchain")
    (tmp_path / "app.mts").write_text("export const graph: number = 1;\n")
    message = one_line(lambda: record_js_app(str(tmp_path / "app.mts"), "graph", {}, None, timeout=60))
    assert (
        message
        == "app.mts is TypeScript and tsx is not installed beside it: run `npm install -D tsx` in the app's folder"
    )


def test_no_node_says_how_to_install_it(monkeypatch, tmp_path: Path):
    monkeypatch.delenv("STEPSCOPE_NODE", raising=False)
    monkeypatch.setenv("PATH", str(tmp_path))
    (tmp_path / "app.mjs").write_text("export const graph = 1;\n")
    assert one_line(lambda: record_js_app(str(tmp_path / "app.mjs"), "graph", {}, None, timeout=5)) == (
        "node is not installed: apt-get install nodejs npm"
    )


@pytest.mark.parametrize("name", ["typed.ts", "typed.mts"])
def test_a_typescript_app_is_recorded_with_tsx(langgraph_js, name):
    if not (langgraph_js / "tsx").exists():
        pytest.skip("tsx is not installed at the repo root: run `npm ci` there (or `npm install -D tsx`)")
    trace = record_js_app(app(name), "graph", {}, None, timeout=60)
    assert trace.status == "done" and trace.output == {"n": 2}
    assert [c.writer_name for s in trace.steps for c in s.reducer_calls] == ["inc"]
