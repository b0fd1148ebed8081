"""Recording LangGraph.js apps: the app's own graph runs in node under `recorder.mjs`, and its events
become StepScope's Trace.

    from debugger.runtimes.langgraphjs import JSAppError, record_js_app

    trace = record_js_app("app.mjs", "graph", {"messages": []}, {"recursionLimit": 50}, timeout=60)

The app resolves `@langchain/langgraph` from its own folder (the 1.x series; `npm install` beside it).
`config` uses LangGraph.js's keys (camelCase: `recursionLimit`, `configurable.thread_id`). `resume`
answers an interrupt (`new Command({resume})`); it needs a checkpointer that outlives the node process.
Everything the app or node can do wrong ends as a Trace (status `error`, `timeout`, `cancelled`, with
every committed step), except what stops the app from starting: that is a `JSAppError` of one line.

Modules: `recorder.mjs`, `probe.mjs`, `codec.mjs`, `describe.mjs` run in node; `process.py` runs it,
`reader.py` reads its events (the protocol is documented there) into the one trace writer. A checkpointer
thread of a JS app is rebuilt in node too (`thread_replay.mjs`, time travel on it `thread_fork.mjs`),
called by `threads.py`.
"""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any, Callable

from debugger.runtimes.runtime import target_name
from engine.trace import StepRecord, Trace, new_run, utc_now

from .process import JSAppError, NodeRun, find_node
from .reader import EventReader, _unknown_graph

__all__ = ["JSAppError", "JS_SUFFIXES", "find_node", "record_js_app"]

JS_SUFFIXES = (".mjs", ".js", ".cjs", ".ts", ".mts", ".cts")
"""The app files `record_js_app` runs (TypeScript needs `tsx` installed beside the app)."""


def record_js_app(
    app_path: str,
    export: str,
    graph_input: Any,
    config: dict[str, Any] | None,
    *,
    timeout: float | None,
    resume: Any = None,
    on_step: Callable[[StepRecord], None] | None = None,
    example_input: bool = False,
    thread_file: str | None = None,
    fresh_saver: bool = False,
    checkpointer: dict[str, str] | None = None,
) -> Trace:
    """Runs `export` of the LangGraph.js app `app_path` once with `graph_input` and returns its Trace.
    `on_step` is called (on the reader thread) with each committed step of the root run as it arrives.
    `example_input`: run the app's own `exampleInput` instead of `graph_input` (its decoded copy, which
    may hold messages, cannot be sent back as JSON). `timeout` (seconds) stops node and keeps what came
    (status `timeout`); so does Ctrl-C (`cancelled`).
    Raises JSAppError when the app cannot start (no node, no file, syntax error, missing export, a
    @langchain/langgraph that is missing or not 1.x). `thread_file`: where an app's `MemorySaver` keeps the
    config's thread between processes (restored before the run, saved after it; `saved_thread.mjs`).
    `fresh_saver`: the graph runs on a MemorySaver of the debugger's own instead of the app's (time
    travel's copy, `fork.mjs`). `checkpointer` ({"kind": "sqlite" | "postgres", "url"}): the saver an app
    compiled without one runs on (`run_saver.mjs`)."""
    app = _app_file(app_path)
    target = f"{app.name}:{export}"
    reader = EventReader(target=target, run_id=uuid.uuid4().hex, on_step=on_step)
    request = {"app": str(app), "export": export, "config": config or {}, "resume": resume}
    request.update({"example_input": True} if example_input else {"input": graph_input})
    if thread_file:
        request["thread_file"] = thread_file
    if fresh_saver:
        request["fresh_saver"] = True
    if checkpointer:
        request["checkpointer"] = checkpointer
    run = NodeRun(request, reader)
    stopped = run.wait(timeout)
    if reader.fatal is not None and reader.root is None:
        raise JSAppError(reader.fatal)
    if not reader.version and stopped is None:
        why = run.stderr_line() or f"node exited with status {run.process.returncode} before the recorder started"
        raise JSAppError(f"the LangGraph.js recorder did not start: {why}")
    return reader.close(
        stopped=stopped,
        why=_why_stopped(stopped, timeout),
        empty_run=lambda: _empty_run(reader, target, graph_input, config or {}),
    )


def _app_file(app_path: str) -> Path:
    """The app's file, resolved; a JSAppError when there is none or it is not JavaScript."""
    app = Path(app_path).expanduser().resolve()
    if not app.is_file():
        raise JSAppError(f"no such file: {app}. Give the path of a .mjs, .js, .cjs or .ts file")
    if app.suffix not in JS_SUFFIXES:
        raise JSAppError(f"{app.name} is not a JavaScript file: give a {', '.join(JS_SUFFIXES)} file")
    return app


def _why_stopped(stopped: str | None, timeout: float | None) -> str:
    """Why a run stopped from outside ended where it did; `{where}` is filled with the step it was in."""
    if stopped == "timeout":
        return (
            f"The run did not finish within {timeout:g} s; stopped {{where}}. A node may be waiting forever (a network "
            "call without a timeout, an endless loop). Raise --timeout to wait longer."
        )
    if stopped == "cancelled":
        return "Stopped with Ctrl-C {where}; what was recorded until then is kept."
    return ""


def _empty_run(reader: EventReader, target: str, graph_input: Any, config: dict[str, Any]) -> Trace:
    """The run a trace holds when the app stopped before its root run began: its graph as far as drawn."""
    graphs = list(reader.graphs.values())
    graph = dict(graphs[0]) if graphs else _unknown_graph([])
    if graph.get("name") in (None, "LangGraph"):
        graph["name"] = target_name(target)
    limit = config.get("recursionLimit")
    return new_run(
        ns=[],
        graph=graph,
        input=graph_input,
        config=config,
        recursion_limit=limit if type(limit) is int else 0,
        started_at=utc_now(),
        trace=True,
        run_id=reader.run_id,
        target=target,
        thread_id=str((config.get("configurable") or {}).get("thread_id") or ""),
    )
