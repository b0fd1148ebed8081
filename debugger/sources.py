"""Where a run comes from: a gallery sample, a graph file with an input, a stored run, an uploaded
trace. Plain functions (no Streamlit) returning an `Opened` run or raising `OpenError` with the fix.

Runs made here are recorded and stored (debugger/stores/sqlite.py), so a link with `run=<id>` reopens them.
An uploaded or stored trace is parsed as data only; nothing in it is executed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from debugger.langgraph_recorder.names import is_langgraph_graph
from debugger.recording import RecordingError, record_run, timeout_from
from debugger.stores.opening import open_store
from debugger.stores.protocol import StoreError
from debugger.targets import TargetError, load_target
from debugger.tracecheck import parse_trace
from engine.codec import decode
from engine.trace import Trace
from engine.tracefile import TraceFileError

MAX_UPLOAD_BYTES = 200 * 1024 * 1024


class OpenError(Exception):
    """A run that cannot be opened; `file` and `line` point at the user's code when known."""

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None) -> None:
        super().__init__(message)
        self.file = file
        self.line = line


@dataclass
class Opened:
    trace: Trace
    source: str
    label: str
    graph: Any = None
    lesson: str = ""
    title: str = ""
    graph_input: Any = None
    config: dict[str, Any] = field(default_factory=dict)


DEFAULT_RUN_TIMEOUT = 60.0


def run_timeout() -> float:
    """Seconds the app waits for a run: `$STEPSCOPE_RUN_TIMEOUT` as the CLI reads it
    (`recording.timeout_from`), else 60; a setting the CLI would refuse also gives 60 here, so the
    page keeps working."""
    try:
        return timeout_from(None) or DEFAULT_RUN_TIMEOUT
    except RecordingError:
        return DEFAULT_RUN_TIMEOUT


def record(
    graph: Any, graph_input: Any, config: dict[str, Any] | None, target: str, timeout: float | None = None
) -> Trace:
    """Runs `graph` and returns its trace, however the run ends (`debugger.recording.record_run`): a
    failing run is a complete trace (status `error`); one still going after `timeout` seconds (a node
    waiting forever, say) is what was recorded so far, status `timeout`, with a message saying so."""
    if is_langgraph_graph(graph):  # langgraph runs it; StepScope watches
        return _record_langgraph(graph, graph_input, config, target, run_timeout() if timeout is None else timeout)
    limit = run_timeout() if timeout is None else timeout
    return record_run(graph, graph_input, dict(config or {}), target=target, timeout=limit).trace


def _record_langgraph(
    graph: Any, graph_input: Any, config: dict[str, Any] | None, target: str, timeout: float
) -> Trace:
    from debugger.langgraph_recorder.runs import RunResult, run_in_background

    try:
        done = run_in_background(
            graph, graph_input, timeout=timeout, target=target, config=config, db=False, keep_thread=False
        )  # a re-run on the debugger's own saver
    except Exception as exc:  # noqa: BLE001 - a run that cannot be set up (bad context, unreadable thread)
        raise OpenError(f"{target}: {exc}") from None
    return done.trace if isinstance(done, RunResult) else done


def keep(trace: Trace, db: str | None = None) -> None:
    """Stores a run made in the app (a fork), so a link to it reopens it."""
    _store(trace, db)


def _store(trace: Trace, db: str | None) -> None:
    try:
        open_store(db).save(trace)
    except StoreError:
        pass  # a read-only or broken database must not stop the debugger from showing the run


def _parse_input(input_json: str | None, default: Any) -> Any:
    """The input a user typed as JSON, or `default` when they typed nothing."""
    if input_json is None or not input_json.strip():
        return default
    try:
        return json.loads(input_json)
    except json.JSONDecodeError as exc:
        raise OpenError(f"The input is not valid JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}.") from None


def require_input(graph: Any, graph_input: Any, trace: Trace) -> None:
    """Refuses an empty input that the graph could not run with (a node read a key nobody gave it: a
    bare KeyError), saying what the graph expects. An empty input a graph runs fine with is kept."""
    if graph_input not in (None, {}, "") or trace.status != "error" or (trace.error or {}).get("class") != "KeyError":
        return
    builder = getattr(graph, "builder", None)
    schemas = getattr(builder, "schemas", {})
    keys = list(schemas.get(getattr(builder, "input_schema", None), {}) or getattr(builder, "channels", {}))
    if not keys:
        return
    example = "{" + ", ".join(f'"{k}": ...' for k in keys[:4]) + (", ..." if len(keys) > 4 else "") + "}"
    raise OpenError(
        f"The input is empty, and {trace.graph.get('name', 'the graph')} needs one: a node read "
        f"{trace.error.get('message', '')} before anything wrote it. "
        f"The graph's input has the keys {', '.join(keys)}: give a JSON object "
        f"such as {example}, or define `example_input` in the graph's module."
    )


def open_sample(name: str, *, db: str | None = None, input_json: str | None = None, store: bool = True) -> Opened:
    """Runs a gallery sample. `store=False` for a sample opened by its link (`sample=<name>`): the
    link reproduces it, so storing it on every visit would only fill the run list with copies."""
    from sample_graphs.gallery import UnknownSampleError, load_sample

    try:
        module = load_sample(name)
    except UnknownSampleError as exc:
        raise OpenError(str(exc)) from None
    config = dict(getattr(module, "example_config", None) or {})
    value = _parse_input(input_json, module.example_input)
    trace = record(module.graph, value, config, name)
    require_input(module.graph, value, trace)
    edited = input_json is not None and input_json.strip() != "" and value != module.example_input
    if store or edited:
        _store(trace, db)
    title = getattr(module, "title", name) + (" (edited input)" if edited else "")
    return Opened(
        trace, "edited" if edited else "sample", name, module.graph, getattr(module, "lesson", ""), title, value, config
    )


def open_target(
    target: str,
    input_json: str | None = None,
    *,
    db: str | None = None,
    config_json: str | None = None,
    thread: str | None = None,
) -> Opened:
    """Runs a graph file. `config_json` and `thread` (langgraph apps): the run config, and the
    checkpointer thread to run on (a graph with a checkpointer and no thread gets a fresh one)."""
    try:
        loaded = load_target(target)
    except TargetError as exc:
        raise OpenError(str(exc), file=exc.file, line=exc.line) from None
    graph_input = _parse_input(input_json, loaded.example_input)
    config = {**loaded.example_config, **(_parse_input(config_json, None) or {})}
    if loaded.is_langgraph:
        from debugger.langgraph_recorder.app_runs import run_for_app

        trace = run_for_app(
            loaded.graph, graph_input, target=target, config=config, thread=thread, db=db, timeout=run_timeout()
        )
    else:
        trace = record(loaded.graph, graph_input, config, target)
    require_input(loaded.graph, graph_input, trace)
    _store(trace, db)
    module = loaded.module
    return Opened(
        trace,
        "file",
        target,
        loaded.graph,
        getattr(module, "lesson", ""),
        getattr(module, "title", target),
        graph_input,
        config,
    )


def open_stored(run_id: str, *, db: str | None = None, with_code: bool = False) -> Opened:
    """A stored run. `with_code`: also load the graph's code it was made from (a sample, or the graph
    file, when it is still there), so What-if and Time travel work as they did when it was made; a
    branch made by time travel finds its original's code the same way. Nothing is run."""
    try:
        trace = open_store(db).load(run_id)
    except StoreError as exc:
        raise OpenError(str(exc)) from None
    source = "fork" if trace.target != origin_target(trace.target) else "stored"
    opened = Opened(trace, source, trace.run_id, None, "", trace.target or trace.graph.get("name", ""))
    if with_code:
        _attach_code(opened, origin_target(trace.target))
    return opened


def origin_target(target: str) -> str:
    from debugger.timetravel import origin_target as origin

    return origin(target)


def _attach_code(opened: Opened, target: str) -> None:
    """Loads `target`'s graph (a sample name or a file target) without running it; quietly nothing if
    it cannot be loaded: the stored run is still shown, only re-running needs the code."""
    from sample_graphs.gallery import SAMPLES, load_sample

    try:
        if target in SAMPLES:
            module = load_sample(target)
            graph, config = module.graph, dict(getattr(module, "example_config", None) or {})
            title = getattr(module, "title", target)
        elif target.partition(":")[0].endswith(".py") or ":" in target:
            loaded = load_target(target)
            module, graph, config = loaded.module, loaded.graph, loaded.example_config
            title = getattr(module, "title", target)
        else:
            return
    except Exception:  # the code moved or broke since: show the stored run without it
        return
    if graph.name != opened.trace.graph.get("name", graph.name):
        return  # not the graph this run was made from
    opened.graph, opened.config = graph, config
    opened.lesson = getattr(module, "lesson", "")
    opened.graph_input = decode(opened.trace.input)
    if opened.source != "fork":
        opened.title = title


def open_upload(data: bytes, filename: str, *, db: str | None = None) -> Opened:
    if len(data) > MAX_UPLOAD_BYTES:
        raise OpenError(
            f"{filename} is {len(data) / 1e6:.0f} MB; traces up to {MAX_UPLOAD_BYTES // 1_000_000} MB open here. "
            "Use `stepscope show` for larger ones."
        )
    try:
        trace = parse_trace(data, source=filename)
    except TraceFileError as exc:
        raise OpenError(str(exc)) from None
    _store(trace, db)
    return Opened(trace, "upload", trace.run_id, None, "", trace.target or filename)
