"""How a live run ends on the record: a stopped run's trace (status `cancelled` when the user stopped
it, `timeout` when a step outlived the per-step limit; the step that was running kept, never committed,
its tasks marked: `engine.trace_edits` makes both edits), and small helpers the controller reports with."""

from __future__ import annotations

from debugger.i18n import N_, Later
from debugger.live.status import CANCELLED, TIMEOUT, TaskProgress
from debugger.sources.recording import RUN_TIMEOUT_ENV
from engine.trace import StepRecord, Trace, keep_stopped_step, mark_ended, stepscope_error, stopped_step

__all__ = ["cancel", "error_line", "stopped_step"]


def cancel(
    trace: Trace,
    step: int | None,
    open_record: StepRecord | None,
    running: list[TaskProgress],
    paused_before: int | None,
    finished: list[TaskProgress] = (),  # type: ignore[assignment]
    *,
    limit: float | None = None,
    editing: bool = False,
    whole_run: bool = False,
) -> str:
    """Marks `trace` (the committed steps) as stopped; returns the message it carries. By the user
    (`cancelled`), or, with `limit`, by the per-step time limit (`timeout`: the step, or the edit when
    `editing`, took longer than `limit` seconds; with `whole_run`, the run did, its `--timeout`).
    `open_record` is the recorder's record of the step that was running, if it never committed; `finished`:
    the tasks of that step that had finished (their writes and time, which the recorder only hears of once
    the whole step has finished)."""
    if step is not None and open_record is not None and not open_record.committed:
        keep_stopped_step(trace, open_record, {p.id for p in running}, {p.id: p for p in finished})
    where = _where(step, running, paused_before)
    if limit is None:
        message = Later(N_("Stopped by you {where}. The supersteps committed before that are recorded."), where=where)
        mark_ended(trace, CANCELLED, stepscope_error("RunCancelled", str(message)))
        return message
    if whole_run:
        message = Later(
            N_("The run did not finish within {seconds} s (--timeout or {variable}); stopped {where}. {recorded}"),
            seconds=f"{limit:g}",
            variable=RUN_TIMEOUT_ENV,
            where=where,
            recorded=Later(N_("The supersteps committed before that are recorded.")),
        )
        mark_ended(trace, TIMEOUT, stepscope_error("RunTimeout", str(message)))
        return message
    message = Later(
        N_("Your edit did not finish within {seconds} s; stopped {where}. {hint}")
        if editing
        else N_("The step did not finish within {seconds} s; stopped {where}. {hint}"),
        seconds=f"{limit:g}",
        where=where,
        hint=Later(
            N_(
                "A node may be waiting forever (a network call without a timeout, an endless loop). "
                "Set {variable} to wait longer."
            ),
            variable=RUN_TIMEOUT_ENV,
        ),
    )
    mark_ended(trace, TIMEOUT, stepscope_error("RunTimeout", str(message)))
    return message


def _where(step: int | None, running: list[TaskProgress], paused_before: int | None) -> Later | str:
    """Where a stopped run stood, in words: the step running and its tasks, or the step it paused before."""
    if step is not None:
        names = tuple(p.name for p in running)
        if not names:
            return Later(N_("during step {step} (still running: nothing)"), step=step)
        return Later(N_("during step {step} (still running: {nodes})"), step=step, nodes=names)
    return Later(N_("before step {step}"), step=paused_before) if paused_before is not None else ""


def error_line(trace: Trace) -> str:
    if trace.error is None:
        return ""
    return (
        f"{trace.error.get('class', 'Error')}: "
        f"{trace.error.get('message', '').splitlines()[0] if trace.error.get('message') else ''}"
    )
