"""`widget.run`: the recorded run a notebook widget shows, for code to read and assert on (its steps, each
step's reducer calls, the state after each step, the findings), in plain Python values. Read from the same
analysis the stepper draws (`RunView`), so what a cell asserts is what the widget shows."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from debugger.diagnostics.findings import Finding
from debugger.model.trace_view import Scope, TraceView
from engine.codec import decode
from engine.trace import Trace


@dataclass(frozen=True)
class Merge:
    """One reducer call of a step: the key, its reducer, the node that wrote, the value before, the write,
    the value after (equal to `before` for a write the reducer refused), and the sentence the stepper shows."""

    step: int
    index: int
    key: str
    reducer: str
    writer: str
    before: Any
    write: Any
    after: Any
    sentence: str
    applied: bool
    """False where the step failed: the barrier kept none of its writes."""
    repeated: tuple[int, ...] = ()
    """Indexes of `after` items that repeat items already in `before` (the subgraph trap)."""


class RecordedRun:
    """The run behind a widget: `steps`, `merges(step)`, `state(step)`, `findings`, `status`, `output`."""

    def __init__(self, traced: TraceView) -> None:
        self._traced = traced
        self._view = traced.view(Scope())

    @property
    def trace(self) -> Trace:
        """The whole recorded run (StepScope's Trace: `trace.to_json()` writes it as a file)."""
        return self._traced.trace

    @property
    def status(self) -> str:
        """How the run ended: done, error, interrupted, timeout, ..."""
        return self.trace.status

    @property
    def error(self) -> dict[str, Any] | None:
        """The run's error (its class and message), or None."""
        return self.trace.error

    @property
    def steps(self) -> list[int]:
        """The run's superstep numbers, in order (-1 is the input step)."""
        return list(self._view.steps)

    @property
    def failed_step(self) -> int | None:
        """The step that failed, or None."""
        return self._view.failed_step

    @property
    def output(self) -> Any:
        """The state the run ended with."""
        return self.state(self._view.last) if self._view.steps else None

    def _known(self, step: int) -> int:
        if step not in self._view.by_step:
            raise KeyError(f"the run has no step {step}; its steps are {self._steps_text()}")
        return step

    def _steps_text(self) -> str:
        steps = self._view.steps
        return f"{steps[0]}..{steps[-1]}" if steps else "none"

    def state(self, step: int) -> dict[str, Any]:
        """The state after `step`'s merge."""
        return dict(self._view.state(self._known(step)))

    def merges(self, step: int | None = None) -> list[Merge]:
        """The reducer calls of `step`, in the order the barrier made them; every step's without one."""
        steps = self._view.steps if step is None else [self._known(step)]
        return [
            Merge(
                number,
                m.call.index,
                m.call.channel,
                m.call.reducer,
                m.writer,
                m.before,
                decode(m.call.write),
                m.after,
                m.sentence,
                m.applied,
                m.duplicated,
            )
            for number in steps
            for m in self._view.merge(number)
        ]

    @property
    def findings(self) -> list[Finding]:
        """What StepScope found in the run (each with its title, step, explanation and fix)."""
        return list(self._traced.findings)

    def __repr__(self) -> str:
        return f"<RecordedRun {self.trace.graph.get('name')!r} {self.status}, steps {self._steps_text()}>"
