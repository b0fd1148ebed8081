"""What the trace file's step-by-step checks (`trace_replay.ReplayCheck`, `trace_sense.SenseCheck`) share:
the one method each has, and running one over a whole run's steps (a subgraph's run, nested in a task)."""

from __future__ import annotations

from typing import Any, Protocol


class StepCheck(Protocol):
    def step(self, index: int, step: Any) -> str | None:
        """The first problem of the run's `index`-th step (its file form), after those before it; or None."""


def first_step_problem(check: StepCheck, run: dict[str, Any]) -> str | None:
    """The first problem `check` finds in `run`'s steps, in order, or None."""
    for index, step in enumerate(run.get("steps", ())):
        problem = check.step(index, step)
        if problem:
            return problem
    return None
