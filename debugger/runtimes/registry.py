"""Which runtime a graph or a trace belongs to: the one place that tells them apart.

A new runtime is added to `RUNTIMES` (and nowhere else); `claims` is asked in this order, so a
runtime whose graphs could look like another's goes first.
"""

from __future__ import annotations

from typing import Any

from debugger.runtimes.capabilities import CodeRecording, capability
from debugger.runtimes.engine import ENGINE
from debugger.runtimes.langgraph import LANGGRAPH
from debugger.runtimes.langgraphjs.runtime import LANGGRAPHJS
from debugger.runtimes.runtime import Runtime, TargetError
from engine.trace import Trace

RUNTIMES: tuple[Runtime, ...] = (ENGINE, LANGGRAPH, LANGGRAPHJS)
"""Every runtime, in the order their `claims` are asked."""


def loader_for(spec: str) -> Runtime | None:
    """The runtime that loads `spec` itself (a target in another language, `app.mjs:graph`), or None:
    a Python module, imported by `targets.load_target`, whose graph says its runtime."""
    return next((runtime for runtime in RUNTIMES if runtime.loads(spec)), None)


def find_runtime(value: Any) -> Runtime | None:
    """The runtime whose compiled graph `value` is, or None for anything else."""
    return next((runtime for runtime in RUNTIMES if runtime.claims(value)), None)


def runtime_of(graph: Any) -> Runtime:
    """The runtime `graph` runs on; `TargetError` for something no runtime compiled."""
    runtime = find_runtime(graph)
    if runtime is None:
        raise TargetError(f"{type(graph).__name__} is not a compiled graph ({compiled_kinds()}).")
    return runtime


def runtime_of_trace(trace: Trace) -> Runtime:
    """The runtime that recorded `trace` (a trace no runtime claims is the engine's: StepScope's own format)."""
    return next((runtime for runtime in RUNTIMES if runtime.records(trace)), ENGINE)


def compiled_kinds() -> str:
    """ "StepScope's or langgraph's": the graphs a Python module may hold, for messages (a runtime that
    loads its own targets, such as LangGraph.js, is named by the file a target gives instead)."""
    return " or ".join(f"{runtime.title}'s" for runtime in RUNTIMES if runtime.language == "python")


def runtime_errors() -> tuple[type[Exception], ...]:
    """Every runtime's own "cannot handle this" exceptions (`Runtime.errors`), for the commands to report."""
    return tuple(error for runtime in RUNTIMES for error in runtime.errors)


def code_recording() -> CodeRecording:
    """The runtime that records the runs the user's own code starts (`CodeRecording`: `from debugger import
    record, recording`, `pytest --stepscope`): langgraph's (an engine graph takes its recorder itself,
    `invoke(..., hooks=Recorder())`)."""
    return next(found for runtime in RUNTIMES if (found := capability(runtime, CodeRecording)) is not None)
