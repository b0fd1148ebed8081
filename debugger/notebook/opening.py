"""What `show()` takes, made into one recorded run: a compiled graph (run and recorded now, on its own
runtime through the one run interface), what `debugger.record()` gives, a `Trace`, a trace file, a stored
run id, a graph file target or a gallery lesson. Plain functions, no widget: `ShowError` says in one line
what was given and what `show()` takes."""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from debugger.i18n import N_, _
from engine.trace import Trace

TAKES = N_(
    "show() takes a compiled graph (with input=...), what debugger.record() gives, a Trace, a trace .json file, "
    "a stored run id, a graph file target (app.py:graph) or a lesson name (e.g. 'subgraph_trap')"
)


class ShowError(Exception):
    """`show()` cannot open what it was given; the message says what it takes instead. A notebook shows it as
    this one line, not a traceback (IPython's `_render_traceback_`)."""

    def _render_traceback_(self) -> list[str]:
        return [f"StepScope: {self}"]


class ShowTypeError(ShowError, TypeError):
    """`show()` was given a value of a type it does not take (a number, None, a builder): a `TypeError`
    too, so code that catches the built-in error for a wrong argument catches this one."""


@dataclass
class Shown:
    """One run to show: its trace, the graph it ran (None for a run read back), and the lesson beside it."""

    trace: Trace
    graph: Any = None
    title: str = ""
    lesson: str = ""


def open_shown(
    what: Any, *, graph_input: Any = None, config: dict[str, Any] | None = None, runtime: str = "", db: Any = None
) -> Shown:
    """The run `what` names (see the module doc); `graph_input`/`config` only for a graph that is run now."""
    from debugger.runtimes.registry import find_runtime

    if isinstance(what, Trace):
        return Shown(what, title=_title(what))
    traces = getattr(what, "traces", None)
    if isinstance(traces, list) and hasattr(what, "graph"):  # debugger.record(graph): its newest run
        if not traces:
            raise ShowError(_("this recorded graph has not run yet: call its invoke() first, then show() it."))
        return Shown(traces[-1], what.graph, _title(traces[-1]))
    recorded = getattr(what, "trace", None)
    if isinstance(recorded, Trace):  # a runtime's Recorded
        return Shown(recorded, title=_title(recorded))
    if find_runtime(what) is not None:
        return _run_graph(what, graph_input, config)
    if isinstance(what, Path):
        what = str(what)
    if isinstance(what, str) and what.strip():
        return _open_named(what.strip(), graph_input=graph_input, config=config, runtime=runtime, db=db)
    raise ShowTypeError(
        _("{kind} is not something StepScope can show: {takes}.").format(kind=_kind(what), takes=_(TAKES))
    )


def _run_graph(graph: Any, graph_input: Any, config: dict[str, Any] | None) -> Shown:
    from debugger.sources.runs import OpenError, record, require_input

    value = {} if graph_input is None else graph_input
    name = getattr(graph, "name", "") or "graph"
    try:
        trace = record(graph, value, dict(config or {}), name)
        require_input(graph, value, trace)
    except OpenError as exc:
        raise ShowError(str(exc)) from None
    return Shown(trace, graph, _title(trace))


def _open_named(name: str, *, graph_input: Any, config: Any, runtime: str, db: Any) -> Shown:
    """A lesson, a graph file target, a trace file or a stored run id, tried in that order."""
    from debugger.sources import runs
    from debugger.stores.opening import load_trace
    from debugger.stores.protocol import StoreError
    from engine.tracefile import TraceFileError
    from sample_graphs.gallery import SAMPLES

    try:
        if name in SAMPLES:
            opened = runs.open_lesson(name, "js" if runtime in ("js", "langgraphjs", "javascript") else "")
            return Shown(opened.trace, opened.graph, opened.title, opened.lesson)
        if ":" in name and Path(name.rsplit(":", 1)[0]).suffix in (".py", ".mjs", ".js", ".ts"):
            opened = runs.open_target(name, _as_json(graph_input), db=_db(db), config_json=_as_json(config))
            return Shown(opened.trace, opened.graph, opened.title, opened.lesson)
        trace = load_trace(name, _db(db))
    except runs.OpenError as exc:
        raise ShowError(str(exc)) from None
    except (StoreError, TraceFileError, OSError) as exc:
        if name.endswith(".json") or "/" in name:  # the file's own error names it already, mostly
            said = str(exc) if name in str(exc) else _("{name}: {error}").format(name=name, error=exc)
            raise ShowError(said) from None
        close = difflib.get_close_matches(name, SAMPLES, n=1)
        hint = _("Did you mean the lesson {name!r}?").format(name=close[0]) if close else _(TAKES) + "."
        raise ShowError(
            _("{name!r} is no lesson, trace file or stored run ({error}). {hint}").format(
                name=name, error=str(exc).rstrip("."), hint=hint
            )
        ) from None
    return Shown(trace, title=_title(trace))


def _as_json(value: Any) -> str | None:
    import json

    return None if value is None else json.dumps(value)


def _db(db: Any) -> str | None:
    return None if db is None else str(db)


def _title(trace: Trace) -> str:
    return trace.target or str(trace.graph.get("name") or "") or trace.run_id[:12]


def _kind(value: Any) -> str:
    if value is None:
        return "None"
    if isinstance(value, str):
        return _("an empty name")
    return _("a value of type {type}").format(type=type(value).__name__)
