"""The current task: what code running inside a node can find out about the task running it.

The runner sets `current_task` around every node call; `interrupt()`, `get_stream_writer()` and a
subgraph invoked from a node read it. It lives apart from the runner so they can import it at the top.
"""

from __future__ import annotations

import contextvars
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:  # pragma: no cover
    from .algo import Task
    from .loop import Loop


@dataclass(slots=True)
class TaskContext:
    """What code running inside a task can find out about it (nested graphs, `interrupt()`)."""

    loop: "Loop"
    """The run the task belongs to."""
    task: Task
    """The task being executed."""
    config: dict[str, Any]
    """The run's config."""
    interrupt_calls: int = 0
    """How many times this execution of the task has called `interrupt()` (they match answers by position)."""


current_task: contextvars.ContextVar[TaskContext | None] = contextvars.ContextVar("stepscope_task", default=None)
