"""A Trace as pandas DataFrames: tasks, writes, reducer calls and channel versions, one row each.

For analysis in a notebook (`from debugger.model.frames import tasks_frame`); the app builds its own
tables from the view-model. Values are shown as short previews (`present.short`); the encoded values
stay in the Trace.
"""

from __future__ import annotations

import pandas as pd

from debugger.diagnostics.replay import Replay
from debugger.model.present import short
from engine.trace import RunRecord


def tasks_frame(run: RunRecord) -> pd.DataFrame:
    rows = [
        {
            "step": step.step,
            "task": task.name,
            "id": task.id,
            "fired": ", ".join(task.fired),
            "duration_ms": round(task.duration * 1000, 3),
            "writes": len(task.writes),
            "subgraph_runs": len(task.subgraphs),
            "error": f"{task.error['class']}: {task.error['message'].splitlines()[0]}" if task.error else "",
        }
        for step in run.steps
        for task in step.tasks
    ]
    return pd.DataFrame(
        rows, columns=["step", "task", "id", "fired", "duration_ms", "writes", "subgraph_runs", "error"]
    )


def writes_frame(run: RunRecord) -> pd.DataFrame:
    rows = [
        {"step": step.step, "task": task.name, "order": order, "channel": channel, "value": short(value, 120)}
        for step in run.steps
        for task in step.tasks
        for order, (channel, value) in enumerate(task.writes)
    ]
    return pd.DataFrame(rows, columns=["step", "task", "order", "channel", "value"])


def reducer_calls_frame(run: RunRecord) -> pd.DataFrame:
    replay = Replay(run)
    rows = [
        {
            "step": step,
            "index": call.index,
            "channel": call.channel,
            "reducer": call.reducer,
            "writer": call.writer_name,
            "before": short(before, 80),
            "write": short(call.write, 80),
            "after": "REFUSED" if call.error else short(after, 80),
            "error": call.error["message"].splitlines()[0] if call.error else "",
        }
        for step in replay.order
        for call, before, after in replay.call_values(step)
    ]
    return pd.DataFrame(
        rows, columns=["step", "index", "channel", "reducer", "writer", "before", "write", "after", "error"]
    )


def versions_frame(run: RunRecord) -> pd.DataFrame:
    """One row per step and channel: the version after that step, and whether it changed there."""
    current: dict[str, int] = {}
    rows = []
    for step in run.steps:
        current.update(step.versions)
        for channel, version in sorted(current.items()):
            rows.append(
                {"step": step.step, "channel": channel, "version": version, "changed": channel in step.versions}
            )
    return pd.DataFrame(rows, columns=["step", "channel", "version", "changed"])
