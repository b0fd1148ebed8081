"""Recording a run from the command line so that nothing recorded is ever lost.

`record_run` runs a graph under a `Recorder` on a worker thread while the calling thread waits, so
that Ctrl-C and a time limit stop the *wait*, not the bookkeeping: whatever happened in the meantime
is frozen into a Trace whose status says why it ended:

- `done`, `interrupted` (an `interrupt()`), `error`, `recursion_limit`: the engine's own endings;
- `cancelled`: the user pressed Ctrl-C;
- `timeout`: the run took longer than `--timeout` / `$STEPSCOPE_RUN_TIMEOUT` seconds.

An error raised before the engine recorded anything (`recursion_limit` 0, a checkpointer without a
thread id) still gives a Trace: the graph, the input and the error, with no steps. Every ending
that is not `done` or `interrupted` carries an error record with a message saying what happened.
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from typing import Any

from debugger.sources.store_sink import StoreSink, frozen_copy  # StoreSink: imported from here by many
from engine.trace import (
    Recorder,
    RunStatus,
    Trace,
    describe,
    mark_ended,
    new_run,
    plain_config,
    stepscope_error,
    utc_now,
    where_stopped,
)

RUN_TIMEOUT_ENV = "STEPSCOPE_RUN_TIMEOUT"
STOPPED_STATUSES: tuple[RunStatus, ...] = ("cancelled", "timeout")
"""Statuses a run gets when it was stopped from outside rather than ending by itself."""
ALL_STATUSES: tuple[RunStatus, ...] = ("done", "interrupted", "error", "recursion_limit", *STOPPED_STATUSES, "running")


class RecordingError(ValueError):
    """A setting that prevents recording (e.g. an unreadable time limit); the message says the fix."""


@dataclass
class RunOutcome:
    trace: Trace
    output: Any = None
    failure: BaseException | None = None
    """The run's own exception (a node that raised, the recursion limit, ...), if any."""

    @property
    def ok(self) -> bool:
        return self.failure is None and self.trace.status in ("done", "interrupted")


def timeout_from(flag: float | None) -> float | None:
    """Seconds to wait for a run: the `--timeout` flag, else `$STEPSCOPE_RUN_TIMEOUT`, else no limit."""
    if flag is not None:
        if flag <= 0:
            raise RecordingError(f"--timeout must be a positive number of seconds, not {flag}.")
        return flag
    text = os.environ.get(RUN_TIMEOUT_ENV, "").strip()
    if not text:
        return None
    try:
        seconds = float(text)
    except ValueError:
        raise RecordingError(
            f"{RUN_TIMEOUT_ENV}={text!r} is not a number of seconds; set it to e.g. 60, or unset it."
        ) from None
    if not seconds > 0:
        raise RecordingError(f"{RUN_TIMEOUT_ENV}={text!r}: the time limit must be a positive number of seconds.")
    return seconds


DEFAULT_APP_RUN_TIMEOUT = 60.0
"""Seconds the app (and its time travel) waits for a run when `$STEPSCOPE_RUN_TIMEOUT` says nothing."""


def app_run_timeout() -> float:
    """Seconds the app waits for a run: `$STEPSCOPE_RUN_TIMEOUT` as the CLI reads it (`timeout_from`),
    else 60; a setting the CLI would refuse also gives 60 here, so the page keeps working."""
    try:
        return timeout_from(None) or DEFAULT_APP_RUN_TIMEOUT
    except RecordingError:
        return DEFAULT_APP_RUN_TIMEOUT


def record_run(
    graph: Any,
    graph_input: Any,
    config: dict[str, Any],
    *,
    target: str,
    timeout: float | None = None,
    recorder: Recorder | None = None,
) -> RunOutcome:
    """Runs `graph` and returns its Trace, however the run ends (see the module docstring). With a
    recorder that streams (`Recorder(sink=StoreSink(...))`), the trace holds only the steps not
    streamed yet; finish it with `StoreSink.finish`."""
    recorder = recorder or Recorder(target=target)
    result: dict[str, Any] = {}

    def run() -> None:
        try:
            result["output"] = graph.invoke(graph_input, dict(config), hooks=recorder)
        except BaseException as exc:  # the run's own error: kept for the outcome, never lost with the thread
            result["failure"] = exc

    worker = threading.Thread(target=run, name=f"stepscope-run-{target}", daemon=True)
    started = time.monotonic()
    worker.start()
    stopped: str | None = None
    try:
        while worker.is_alive():
            left = None if timeout is None else timeout - (time.monotonic() - started)
            if left is not None and left <= 0:
                stopped = "timeout"
                break
            worker.join(0.2 if left is None else min(0.2, left))
    except KeyboardInterrupt:
        stopped = "cancelled"
    if stopped is None:
        failure = result.get("failure")
        trace = recorder.trace
        if trace is None:  # failed before the engine's first hook: keep what we know
            trace = unstarted_trace(recorder, graph, graph_input, config, failure)
        elif trace.status == "running":  # an exception escaped the engine without ending the run
            _end(trace, "error", failure, "The run stopped without finishing.")
        return RunOutcome(trace, result.get("output"), failure)
    return RunOutcome(
        _stopped_trace(recorder, graph, graph_input, config, stopped, timeout, time.monotonic() - started)
    )


def unstarted_trace(
    recorder: Recorder, graph: Any, graph_input: Any, config: dict[str, Any], error: BaseException | None
) -> Trace:
    """A Trace for a run that failed before its first superstep: no steps, the error, status `error`."""
    try:
        description = describe(graph)
    except Exception:  # a graph that cannot even be described: its name is enough to list the run
        empty = {"nodes": [], "edges": []}
        description = {
            "name": str(getattr(graph, "name", type(graph).__name__)),
            "nodes": [],
            "edges": [],
            "channels": {},
            "drawing": empty,
            "drawing_flat": empty,
        }
    trace = new_run(
        ns=(),
        graph=description,
        input=graph_input,
        config=plain_config(config),
        recursion_limit=_limit(config),
        started_at=recorder.clock(),
        trace=True,
        run_id=recorder.run_id,
        target=recorder.target,
    )
    _end(trace, "error", error, "The run failed before its first superstep.")
    return trace


def _stopped_trace(
    recorder: Recorder,
    graph: Any,
    graph_input: Any,
    config: dict[str, Any],
    why: str,
    timeout: float | None,
    elapsed: float,
) -> Trace:
    stopped = stopped_trace(recorder, why, timeout, elapsed)
    if stopped is not None:
        return stopped
    frozen = unstarted_trace(recorder, graph, graph_input, config, None)
    mark_stopped(frozen, why, where_stopped(frozen, stored_up_to=_stored_up_to(recorder)), timeout=timeout)
    frozen.duration = round(elapsed, 6)
    return frozen


def stopped_trace(recorder: Recorder, why: str, timeout: float | None, elapsed: float) -> Trace | None:
    """The run `recorder` records, stopped from outside (`why`: `cancelled` by Ctrl-C, or `timeout`) after
    `elapsed` seconds, frozen as it is with its status and a message saying where it stopped; its sink, if a
    `StoreSink`, takes no more steps (finish it with this trace). None if the run had not started."""
    if isinstance(recorder.sink, StoreSink):
        recorder.sink.close()  # from here on the worker's steps stay in the trace we freeze
    with recorder.lock:  # the worker may still be adding to the live trace
        live = recorder.trace
        if live is None:
            return None
        frozen = frozen_copy(live)
    mark_stopped(frozen, why, where_stopped(frozen, stored_up_to=_stored_up_to(recorder)), timeout=timeout)
    frozen.duration = round(elapsed, 6)
    return frozen


def _stored_up_to(recorder: Recorder) -> int | None:
    """The last committed step of the run stored already (so no longer in its trace's memory), or None."""
    return recorder.sink.stored_up_to if isinstance(recorder.sink, StoreSink) else None


def mark_stopped(trace: Trace, why: str, where: str, *, timeout: float | None = None) -> None:
    """Ends `trace` as stopped from outside: `why` is `cancelled` (Ctrl-C) or `timeout` (after `timeout`
    seconds); `where` says when, e.g. "after 4 supersteps, while tick ran"."""
    if why == "cancelled":
        message = f"Stopped with Ctrl-C {where}; what was recorded until then is kept."
    else:
        message = (
            f"The run did not finish within {timeout:g} s; stopped {where}. A node may be waiting forever "
            f"(a network call without a timeout, an endless loop). Raise --timeout or {RUN_TIMEOUT_ENV} "
            "to wait longer."
        )
    mark_ended(trace, why, stepscope_error("RunCancelled" if why == "cancelled" else "RunTimeout", message))


def _end(trace: Trace, status: str, error: BaseException | None, fallback: str) -> None:
    mark_ended(trace, status, error if error is not None else trace.error)
    if not trace.error or not str(trace.error.get("message", "")).strip():
        trace.error = stepscope_error(type(error).__name__ if error else "RunError", fallback)
    trace.started_at = trace.started_at or utc_now()


def _limit(config: dict[str, Any]) -> int:
    limit = config.get("recursion_limit") if isinstance(config, dict) else None
    return limit if type(limit) is int else 0
