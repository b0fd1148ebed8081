"""What a live run looks like from outside, as plain immutable data: the `LiveSnapshot` a page or the
CLI reads, with the tasks running now, the pause (if any) and the trace of the committed steps.

The controller (`controller.py`) builds a new snapshot whenever something changes and swaps it in
under a lock; readers take the current one and never see a half-built state. Values are encoded
(`engine.codec.encode`), so nothing a reader holds can change under it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable

from debugger.i18n import N_, Later
from debugger.runtimes.driven import Boundary, PlannedTask, TaskEnd
from engine.trace import Trace

__all__ = [
    "CANCELLED",
    "FINISHED",
    "PAUSED",
    "RUNNING",
    "STOPPING",
    "TIMEOUT",
    "Breakpoints",
    "LiveSnapshot",
    "Pause",
    "PlannedTask",
    "TaskProgress",
]

RUNNING, PAUSED, STOPPING = "running", "paused", "stopping"
CANCELLED = "cancelled"
"""The status of a run the user stopped (Stop in the page, Ctrl-C in the CLI), as the CLI's own runs."""
TIMEOUT = "timeout"
"""The status of a run a step (or an edit) of which outlived the per-step limit (`$STEPSCOPE_RUN_TIMEOUT`)."""
FINISHED = ("done", "error", "interrupted", "recursion_limit", CANCELLED, TIMEOUT)
"""A finished live run has one of a stored run's statuses."""
RUNNING_STATES = ("waiting", "running")
"""The states of a task that has not ended (`TaskProgress.state`)."""
ASKED_STATES = ("asking", "interrupted")
"""The states of a task whose `interrupt()` asked for an answer (waiting for it, or ended by it): paused ⏸,
never failed."""


@dataclass(frozen=True)
class Breakpoints:
    """Where a live run pauses. Before a node: before the superstep that would run it. After a node:
    once the superstep that ran it has committed. Step mode: before every superstep."""

    before: frozenset[str] = frozenset()
    after: frozenset[str] = frozenset()
    every_step: bool = False

    @classmethod
    def of(cls, before: Iterable[str] = (), after: Iterable[str] = (), every_step: bool = False) -> "Breakpoints":
        return cls(frozenset(before), frozenset(after), every_step)

    def __bool__(self) -> bool:
        return bool(self.before or self.after or self.every_step)

    def reasons(self, *, next_nodes: set[str], just_ran: set[str], single: bool, requested: bool) -> list[str]:
        """Why a run pauses before the superstep that runs `next_nodes` (after the one that ran
        `just_ran`), in words (`Later`: said in the page's language where shown); empty when it does not.
        `single`: the user pressed Step; `requested`: Pause."""
        reasons = []
        if single:
            reasons.append(Later(N_("Step: ran one superstep")))
        if requested:
            reasons.append(Later(N_("you pressed Pause")))
        if self.every_step and not single:
            reasons.append(Later(N_("step mode: pausing before every superstep")))
        reasons += [Later(N_("breakpoint after {node}"), node=name) for name in sorted(just_ran & self.after)]
        reasons += [Later(N_("breakpoint before {node}"), node=name) for name in sorted(next_nodes & self.before)]
        return reasons


@dataclass(frozen=True)
class TaskProgress(TaskEnd):
    """One task of the superstep running now. Its `state` is `waiting`, `running` or `asking` (its
    `interrupt()` waits for an answer) until it ends `done`, `failed` or `interrupted` (it asked: the run
    pauses for the answer; drawn ⏸, never as a failure)."""

    started: float = 0.0
    """`time.monotonic()` when it started."""


@dataclass(frozen=True)
class Pause(Boundary):
    """A live run waiting between supersteps (or at a question) for Step, Continue, an edit, an
    answer or Stop: where it stands (`Boundary`, as the runtime sees it) and why it waits there."""

    reasons: tuple[str, ...] = ()
    """Why it paused, in words (a breakpoint, step mode, a Step, the Pause button, an interrupt); each a
    `debugger.i18n.Later`, English as a string and said in the page's language with `i18n.say`."""

    @classmethod
    def at(cls, boundary: Boundary, reasons: Iterable[str]) -> "Pause":
        """The pause at `boundary`, for `reasons`."""
        return cls(**vars(boundary), reasons=tuple(reasons))


@dataclass(frozen=True)
class LiveSnapshot:
    """Everything a reader needs at one moment of a live run."""

    version: int
    """Increases with every change; a reader that saw version N waits for N+1."""
    status: str
    """`starting`, `running`, `paused`, `stopping`, then one of `FINISHED`."""
    trace: Trace | None
    """The recording so far: every committed superstep (and edit). The running step is not in it."""
    step: int | None = None
    """The superstep running now (None between steps)."""
    running: tuple[TaskProgress, ...] = ()
    pause: Pause | None = None
    message: str = ""
    """What the user should know: the run's error, where a stopped run stood, where it was stored."""
    run_id: str = ""
    stored: str = ""
    """Where the finished run was stored (the database path), '' until it is."""
    breakpoints: Breakpoints = field(default_factory=Breakpoints)

    @property
    def finished(self) -> bool:
        return self.status in FINISHED

    @property
    def committed_steps(self) -> list[int]:
        return [s.step for s in self.trace.steps if s.step >= 0] if self.trace is not None else []
