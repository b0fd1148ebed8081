"""The engine's task runner, watched: tells a `LiveRun` when each task of the root run starts and
ends (the hooks report a step's tasks only once all of them have finished), and turns an
`interrupt()` into a pause with the question, as LangGraph does.

When a task's node calls `interrupt(question)` in a live run that asks (`LiveRun(ask=True)`), the
task's thread waits for the user's answer instead of ending the run; then the task runs again from
the top of the node with the answer as its `interrupt()` result, exactly as a LangGraph resume with
`Command(resume=answer)` re-runs it (its calls are matched by position, a later `interrupt()` asks
again; finished sibling tasks are not re-run). The step commits as the resumed step would.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from engine.codec import MISSING
from engine.stepping import Runner, Task

if TYPE_CHECKING:  # pragma: no cover
    from debugger.live.controller import LiveRun

NO_ANSWER = object()
"""What `LiveRun._ask` returns when the run was stopped instead of answered."""


class WatchedRunner(Runner):
    def __init__(self, loop: Any, live: "LiveRun") -> None:
        super().__init__(loop, loop.config.get("max_concurrency"))
        self.live = live

    def execute(self, task: Task) -> None:
        self.live._task_started(task)
        try:
            super().execute(task)
            while self.live.ask and task.interrupts and not task.node.is_subgraph:
                # a subgraph's own interrupt() answers through its checkpoints: left to end the run
                answer = self.live._ask(task, task.interrupts[0].value)
                if answer is NO_ANSWER:
                    break
                _reset(task)
                task.resume = [*task.resume, answer]
                super().execute(task)
        finally:
            self.live._task_ended(task)


def _reset(task: Task) -> None:
    """The task as before it ran (its answers kept), to run it again from the top of its node."""
    task.error = None
    task.interrupts = ()
    task.writes = []
    task.routes = ()
    task.result = MISSING
