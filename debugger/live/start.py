"""`start_live_run`: a live run of a graph, whatever its runtime: the runtime is asked for its
`LiveDriving` capability (`debugger/runtimes/capabilities.py`), never named, and the run it drives is
handed to the controller (`controller.LiveRun`), started.
"""

from __future__ import annotations

import inspect
from typing import Any

from debugger.live.controller import LiveRun
from debugger.runtimes.capabilities import LiveDriving, need
from debugger.runtimes.driven import LiveRunError
from debugger.runtimes.registry import runtime_of
from debugger.runtimes.runtime import TargetError


def start_live_run(
    graph: Any, graph_input: Any, config: dict[str, Any] | None = None, *, target: str = "", **options: Any
) -> LiveRun:
    """A live run of `graph` on `graph_input`, started, driven by its runtime's `DrivenRun`; `options` are
    `LiveRun`'s (breakpoints, db, store, ask, step_timeout), said once there. Raises `LiveRunError` in
    words for a graph no runtime can run live."""
    inspect.signature(LiveRun).bind(None, **options)  # a wrong option fails before the runtime starts anything
    name = target or type(graph).__name__
    try:
        runtime = runtime_of(graph)
    except TargetError as exc:
        raise LiveRunError(f"{name}: {exc}") from None
    try:
        driving = need(runtime, LiveDriving, name)
    except TargetError as exc:  # the capabilities' own refusal, worded there once
        raise LiveRunError(str(exc)) from None
    driven = driving.drive(graph, graph_input, config, target=target)
    return LiveRun(driven, **options).start()
