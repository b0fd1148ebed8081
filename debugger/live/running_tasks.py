"""`RunningTasks`: the superstep a live run is running now and how each of its tasks stands, as the
snapshot shows them (`status.TaskProgress`: waiting, running, asking, then done, failed or interrupted)
and as a stopped run reports them (`ending.cancel`: which were still running, which had finished).

Not thread-safe by itself: the controller (`controller.py`) holds its lock around every call.
"""

from __future__ import annotations

import time
from dataclasses import replace
from typing import Sequence

from debugger.live.status import TaskProgress
from debugger.runtimes.driven import TaskEnd

UNFINISHED = ("waiting", "running", "asking")
"""The states of a task a stop interrupts."""


class RunningTasks:
    """The running superstep (None between two) and its tasks' progress, by task id."""

    def __init__(self) -> None:
        self.step: int | None = None
        self._tasks: dict[str, TaskProgress] = {}

    def step_started(self, step: int, tasks: Sequence[tuple[str, str]]) -> None:
        """Superstep `step` began: its tasks (id, node) wait to start."""
        now = time.monotonic()
        self.step = step
        self._tasks = {task_id: TaskProgress(task_id, name, "waiting", started=now) for task_id, name in tasks}

    def task_started(self, task_id: str, name: str) -> None:
        self._tasks[task_id] = TaskProgress(task_id, name, "running", started=time.monotonic())

    def task_ended(self, ended: TaskEnd) -> None:
        """A task ended; timed from its start unless the runtime timed it."""
        now = time.monotonic()
        current = self._tasks.get(ended.id)
        started = current.started if current is not None else now
        took = ended.duration if ended.duration is not None else round(now - started, 6)
        self._tasks[ended.id] = TaskProgress(**{**vars(ended), "duration": took}, started=started)

    def set_state(self, task_id: str, state: str) -> None:
        """A known task's state changes (`asking` while its question waits, `running` once answered)."""
        current = self._tasks.get(task_id)
        if current is not None:
            self._tasks[task_id] = replace(current, state=state)

    def clear(self) -> None:
        """Nothing runs: the step committed, or the run is over."""
        self.step, self._tasks = None, {}

    def progress(self) -> tuple[TaskProgress, ...]:
        """Every task of the running step, in the order they were first heard of."""
        return tuple(self._tasks.values())

    def unfinished(self) -> list[TaskProgress]:
        return [p for p in self._tasks.values() if p.state in UNFINISHED]

    def finished(self) -> list[TaskProgress]:
        """The tasks that ended well (a stopped step's writes that were made)."""
        return [p for p in self._tasks.values() if p.state == "done"]
