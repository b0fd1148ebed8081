"""Where a run comes from: a gallery sample, a graph file with an input, a stored run, an uploaded
trace (checkpointer threads: `checkpointer_threads.py`). Plain functions (no Streamlit) returning an
`Opened` run or raising `OpenError` with the fix.

Runs made here are recorded and stored (debugger/store.py), so a link with `run=<id>` reopens them.
An uploaded or stored trace is parsed as data only; nothing in it is executed.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from debugger.i18n import _
from debugger.runtimes.registry import runtime_of, runtime_of_trace
from debugger.runtimes.run_options import FORM, RunOptions, answer_value, run_request
from debugger.runtimes.runtime import NO_RESUME, LoadedTarget, RunRequest, RunSetupError
from debugger.runtimes.targets import TargetError, load_target
from debugger.sources import js_setup, reopen
from debugger.sources.forks import origin_target
from debugger.sources.recording import app_run_timeout
from debugger.sources.trace_check import parse_trace
from debugger.stores.opening import open_store
from debugger.stores.protocol import StoreError
from engine.codec import decode
from engine.trace import Trace
from engine.tracefile import TraceFileError
from sample_graphs.gallery import JS_LESSONS, UnknownSampleError, js_lesson_path, load_sample

MAX_UPLOAD_BYTES = 200 * 1024 * 1024


class OpenError(Exception):
    """A run that cannot be opened; `file` and `line` point at the user's code when known."""

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None) -> None:
        super().__init__(message)
        self.file = file
        self.line = line


@dataclass
class Opened:
    """A run opened for the app: its trace, where it came from, and the graph's code when it has it."""

    trace: Trace
    source: str
    label: str
    graph: Any = None
    lesson: str = ""
    title: str = ""
    graph_input: Any = None
    config: dict[str, Any] = field(default_factory=dict)
    origin: tuple[str, str, str] | None = None
    """For a checkpointer thread: (graph target, checkpointer URL, thread id), for time travel on it. The
    URL may hold a password: the session keeps it, the page address never does."""
    language: str = "python"
    """What the run's code is written in (`python`, `javascript`): a gallery lesson exists in both."""
    code: str = ""
    """A gallery lesson's own source file, as the article writes it (shown beside the lesson)."""
    no_code: str = ""
    """For a reopened stored run: why its code did not come back (one line), or ''."""
    older_steps: bool = False
    """A checkpointer thread opened at its newest steps only: it has older steps, read when asked for."""
    checkpointer: str = ""
    """The saver the run went on, as the form named it (`--checkpointer`), '' for the app's own: answering
    its interrupt goes on the same one."""


def record(
    graph: Any,
    graph_input: Any,
    config: dict[str, Any] | None,
    target: str,
    timeout: float | None = None,
    *,
    thread: str | None = None,
    resume: Any = NO_RESUME,
    db: str | None = None,
    keep_thread: bool = False,
    checkpointer: str | None = None,
) -> Trace:
    """Runs `graph` on its runtime and returns its trace, however the run ends (`Runtime.record`): a
    failing run is a complete trace (status `error`); one still going after `timeout` seconds (default:
    `recording.app_run_timeout`) is what was recorded so far, status `timeout`, with a message saying
    so. `thread`/`resume`: the checkpointer thread to run on and the interrupt's answer (runtimes with
    threads); `keep_thread`: keep an in-memory thread beside the run database `db` between runs;
    `checkpointer`: the saver to run on (`RunRequest.checkpointer`)."""
    limit = app_run_timeout() if timeout is None else timeout
    request = RunRequest(
        graph,
        graph_input,
        config,
        target,
        thread,
        resume,
        timeout=limit,
        db=db,
        keep_thread=keep_thread,
        checkpointer=checkpointer or None,
    )
    return recorded_trace(request)


def recorded_trace(request: RunRequest) -> Trace:
    """`request` recorded by its graph's runtime (see `record`); a setup the runtime refuses is an `OpenError`."""
    try:
        recorded = runtime_of(request.graph).record(request)
    except Exception as exc:  # noqa: BLE001 - RunSetupError, or a runtime refusing the setup in its own words
        raise OpenError(f"{request.target}: {exc}") from None
    return recorded.trace


def answer_interrupt(
    trace: Trace,
    graph: Any,
    answer_text: str,
    *,
    config: dict[str, Any] | None,
    db: str | None,
    timeout: float,
    checkpointer: str = "",
) -> Trace:
    """Continues the interrupted run's thread with the answer (JSON, or plain text): a new run of the same
    thread, stored. Runs on the graph given, else on the code the run names; on `checkpointer` when the run
    went on a saver it named (`Opened.checkpointer`)."""
    if trace.status != "interrupted" or not trace.interrupts:
        raise OpenError(f"This run is not waiting for an answer (its status is {trace.status!r}).")
    if not trace.thread_id:
        raise OpenError(no_thread_why(trace, graph))
    if graph is None:
        if not trace.target:
            raise OpenError("Answering re-runs the graph, so it needs the graph's code; this stored run names none.")
        try:
            graph = load_target(trace.target).graph
        except TargetError as exc:
            raise OpenError(f"Answering needs the graph's code: {exc}") from None
    answered = record(
        graph,
        None,
        config,
        trace.target,
        timeout,
        thread=trace.thread_id,
        resume=answer_value(answer_text),
        db=db,
        keep_thread=True,
        checkpointer=checkpointer,
    )
    _store(answered, db)
    return answered


def no_thread_why(trace: Trace, graph: Any) -> str:
    """Why an interrupted run that went on no thread cannot be answered, from what was found: the graph's
    checkpointer class (its runtime's `checkpointer_class`), none, or nothing known without the graph."""
    if graph is None:
        return _("This run went on no thread, so there is none to continue.")
    saver = runtime_of_trace(trace).checkpointer_class(graph)
    if saver is None:
        return _("The graph was compiled without a checkpointer, so there is no thread to continue.")
    return _(
        "The graph has a checkpointer ({saver}), but this run went on no thread: run it again with a thread "
        "to answer it here."
    ).format(saver=saver)


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
    code = Path(module.__file__).read_text(encoding="utf-8")
    source = "edited" if edited else "sample"
    return _opened_code(
        trace, source, name, module.graph, module, graph_input=value, config=config, title=title, code=code
    )


def open_lesson(name: str, lang: str = "") -> Opened:
    """A gallery lesson as its link names it: `lang` "js" opens its JavaScript twin, else the Python sample."""
    return open_js_lesson(name) if lang == "js" else open_sample(name, store=False)


def open_js_lesson(name: str, *, db: str | None = None, store: bool = False) -> Opened:
    """Runs the JavaScript twin of a gallery lesson (`gallery.JS_LESSONS`) through the LangGraph.js runtime,
    with its own example input. Not stored by default: its link (`sample=<name>&runtime=js`) reproduces it."""
    if name not in JS_LESSONS:
        known = ", ".join(JS_LESSONS)
        raise OpenError(f"{name!r} has no JavaScript lesson; these do: {known}. Open it in Python instead.")
    problem = js_setup.setup_problem()
    if problem:
        raise OpenError(problem)
    path = js_lesson_path(name)
    target = f"{path}:graph"
    loaded = _loaded(target)
    trace = record(loaded.graph, loaded.example_input, dict(loaded.example_config), target)
    if store:
        _store(trace, db)
    return _opened_code(
        trace,
        "sample",
        name,
        loaded.graph,
        loaded.module,
        graph_input=loaded.example_input,
        config=dict(loaded.example_config),
        language="javascript",
        code=path.read_text(encoding="utf-8"),
    )


def open_target(
    target: str,
    input_json: str | None = None,
    *,
    db: str | None = None,
    config_json: str | None = None,
    **fields: str | None,
) -> Opened:
    """Runs a graph file with the Graph file form's fields (by `RunOption.name`: `thread=`, `recursion_limit=`,
    `checkpointer=`, ...), read as `stepscope run` reads its options (`run_options.run_request`: the thread is the
    config's `configurable.thread_id` or the Thread field, the same refusals in the form's words)."""
    try:
        given = {"input": input_json, "config": config_json, **{name: text for name, text in fields.items() if text}}
        typed = RunOptions.from_form(default_timeout=app_run_timeout(), **given)
        loaded = _loaded(target)
        request = run_request(loaded, typed, FORM)
    except (RunSetupError, TargetError) as exc:
        raise OpenError(str(exc)) from None
    trace = recorded_trace(replace(request, db=db, keep_thread=True))
    require_input(loaded.graph, request.graph_input, trace)
    _store(trace, db)
    config = dict(request.config or {})
    return _opened_code(
        trace,
        "file",
        target,
        loaded.graph,
        loaded.module,
        graph_input=request.graph_input,
        config=config,
        checkpointer=request.checkpointer or "",
    )


def _loaded(target: str) -> LoadedTarget:
    """The graph file or app `target` names, loaded; an OpenError naming its file and line when it cannot be."""
    try:
        return load_target(target)
    except TargetError as exc:
        raise OpenError(str(exc), file=exc.file, line=exc.line) from None


def _opened_code(trace: Trace, source: str, label: str, graph: Any, module: Any, **fields: Any) -> Opened:
    """A run opened with the code it ran: the lesson and the title are its module's (the title the label
    where the module names none) unless `fields` give them."""
    fields = {"lesson": getattr(module, "lesson", ""), "title": getattr(module, "title", label), **fields}
    return Opened(trace, source, label, graph, **fields)


def open_stored(run_id: str, *, db: str | None = None, with_code: bool = False, checkpointer: str = "") -> Opened:
    """A stored run. `with_code`: also load the graph's code it was made from (a sample, or the graph
    file, when it is still the same; a checkpointer thread's app graph and `checkpointer`), so What-if and
    Time travel work as they did when it was made; a branch made by time travel finds its original's code
    the same way. Nothing is run; `Opened.no_code` says why the code did not come back."""
    try:
        trace = open_store(db).load(run_id)
    except StoreError as exc:
        raise OpenError(str(exc)) from None
    source = "fork" if trace.target != origin_target(trace.target) else "stored"
    opened = Opened(trace, source, trace.run_id, None, "", trace.target or trace.graph.get("name", ""))
    if with_code and source == "stored" and reopen.thread_target(trace):
        back = reopen.thread_back(trace, checkpointer)
        opened.no_code = back.why_not
        if back.origin is not None:
            opened.source, opened.origin = "thread", back.origin
            opened.title = _("{app} · thread {thread}").format(
                app=back.origin[0].rpartition("/")[2], thread=trace.thread_id
            )
    elif with_code:
        _attach_code(opened, origin_target(trace.target))
    return opened


def _attach_code(opened: Opened, target: str) -> None:
    """Gives `opened` the graph `target` names (`reopen.code_back`), or the line that says why not."""
    back = reopen.code_back(opened.trace, target)
    if back.graph is None:
        opened.no_code = back.why_not
        return
    opened.graph, opened.config, opened.lesson = back.graph, back.config, back.lesson
    opened.graph_input = decode(opened.trace.input)
    if opened.source != "fork":
        opened.title = back.title


def open_upload(data: bytes, filename: str, *, db: str | None = None) -> Opened:
    """An uploaded trace file, checked as data only (nothing in it runs) and stored."""
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
