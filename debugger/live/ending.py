"""How a live run ends on the record: a stopped run's trace (status `cancelled`, the step that was
running kept, never committed, its tasks marked), and small helpers the controller reports with."""

from __future__ import annotations

from dataclasses import replace

from debugger.live.status import CANCELLED, TaskProgress
from engine.trace import StepRecord, Trace


def cancel(
    trace: Trace,
    step: int | None,
    open_record: StepRecord | None,
    running: list[TaskProgress],
    paused_before: int | None,
    finished: list[TaskProgress] = (),  # type: ignore[assignment]
) -> str:
    """Marks `trace` (the committed steps) as stopped by the user; returns the message it carries.
    `open_record` is the recorder's record of the step that was running, if it never committed;
    `finished`: the tasks of that step that had finished (their writes and time, which the recorder
    only hears of once the whole step has finished)."""
    if step is not None and open_record is not None and not open_record.committed:
        trace.steps = [*trace.steps, stopped_step(open_record, {p.id for p in running}, {p.id: p for p in finished})]
    where = (
        f"during step {step} (still running: {', '.join(p.name for p in running) or 'nothing'})"
        if step is not None
        else f"before step {paused_before}"
        if paused_before is not None
        else ""
    )
    message = f"Stopped by you {where}. The supersteps committed before that are recorded."
    trace.status = CANCELLED
    trace.error = {
        "$type": "error",
        "class": "RunCancelled",
        "module": "stepscope",
        "notes": [],
        "traceback": "",
        "message": message,
    }
    return message


def stopped_step(
    record: StepRecord, unfinished: set[str], finished: dict[str, TaskProgress] | None = None
) -> StepRecord:
    """A copy of the step that was running when the user stopped: not committed, its tasks marked,
    those that had finished with what they wrote and how long they took."""
    tasks = []
    finished = finished or {}
    for task in list(record.tasks):
        done = finished.get(task.id)
        if done is not None:
            writes = task.writes or [list(pair) for pair in done.writes]
            task = replace(task, writes=writes, duration=task.duration or round(done.duration or 0.0, 6))
        error = task.error
        if error is None:
            text = (
                "was still running when the run was stopped; its result is not recorded"
                if task.id in unfinished
                else "had finished, but the step never committed, so its writes never reached the state"
            )
            error = {
                "$type": "error",
                "class": "RunCancelled" if task.id in unfinished else "StepNotCommitted",  # ⏹ vs ran
                "module": "stepscope",
                "notes": [],
                "traceback": "",
                "message": f"{task.name} {text}.",
            }
        tasks.append(replace(task, error=error, subgraphs=list(task.subgraphs)))
    return StepRecord(record.step, tasks=tasks, committed=False)


def error_line(trace: Trace) -> str:
    if trace.error is None:
        return ""
    return (
        f"{trace.error.get('class', 'Error')}: "
        f"{trace.error.get('message', '').splitlines()[0] if trace.error.get('message') else ''}"
    )
