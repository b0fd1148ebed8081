"""What a live run looks like from outside, as plain immutable data: the `LiveSnapshot` a page or the
CLI reads, with the tasks running now, the pause (if any) and the trace of the committed steps.

The controller (`controller.py`) builds a new snapshot whenever something changes and swaps it in
under a lock; readers take the current one and never see a half-built state. Values are encoded
(`engine.codec.encode`), so nothing a reader holds can change under it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Iterable

from engine import START
from engine.trace import PUSH, Trace

RUNNING, PAUSED, STOPPING = "running", "paused", "stopping"
CANCELLED = "cancelled"
"""The status of a run the user stopped (Stop in the page, Ctrl-C in the CLI), as the CLI's own runs."""
FINISHED = ("done", "error", "interrupted", "recursion_limit", CANCELLED)
"""A finished live run has one of a stored run's statuses."""


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
        `just_ran`), in words; empty when it does not. `single`: the user pressed Step; `requested`: Pause."""
        reasons = []
        if single:
            reasons.append("Step: ran one superstep")
        if requested:
            reasons.append("you pressed Pause")
        if self.every_step and not single:
            reasons.append("step mode: pausing before every superstep")
        reasons += [f"breakpoint after {name}" for name in sorted(just_ran & self.after)]
        reasons += [f"breakpoint before {name}" for name in sorted(next_nodes & self.before)]
        return reasons


@dataclass(frozen=True)
class TaskProgress:
    """One task of the superstep running now."""

    id: str
    name: str
    state: str
    """`waiting`, `running`, `asking` (its `interrupt()` waits for an answer), `done`, `failed` or `interrupted`."""
    started: float
    """`time.monotonic()` when it started."""
    duration: float | None = None
    """Seconds it took, once it has finished."""
    error: str = ""
    """`Class: message` when it failed."""
    writes: tuple[tuple[str, Any], ...] = ()
    """What it wrote once it finished, `(channel, encoded value)`: kept for a step stopped before it committed."""


@dataclass(frozen=True)
class PlannedTask:
    """A task the next superstep will run, as shown at a pause."""

    id: str
    name: str
    why: str
    """In words: the edge, Send or input that triggered it."""
    input: Any
    """What the node will receive (encoded): exactly the value planning built for it."""


@dataclass(frozen=True)
class Pause:
    """A live run waiting between supersteps for Step, Continue, an edit or Stop."""

    step: int
    """The superstep that runs next."""
    reasons: tuple[str, ...]
    """Why it paused, in words (a breakpoint, step mode, a Step, the Pause button, an interrupt)."""
    tasks: tuple[PlannedTask, ...]
    """The tasks of that superstep, in application order."""
    state: dict[str, Any]
    """The whole state now (encoded): what the next tasks read."""
    channels: dict[str, str]
    """State key -> its reducer (`LastValue` for a plain key), so an edit can say what it will do."""
    edit_as: tuple[str, ...]
    """The nodes an edit can be made as."""
    default_as: str | None
    """The node LangGraph's `update_state` would pick without `as_node` (None when ambiguous)."""
    interrupts: tuple[Any, ...] = ()
    """Questions asked with `interrupt()` (encoded values), when an interrupt paused the run."""


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


def why(name: str, fired: Iterable[str], writers: dict[str, list[str]]) -> str:
    """Why a planned task runs, in words. `writers` maps a channel to the nodes (or `your edit as X`)
    that wrote it at the last barrier."""
    fired = list(fired)
    if name == START:
        return "writes the input to the state"
    if fired == [PUSH]:
        who = writers.get("__pregel_tasks") or ["a router"]
        return f"a Send from {', '.join(who)}"
    parts = []
    for channel in fired:
        who = ", ".join(writers.get(channel, [])) or "an earlier step"
        if channel.startswith("branch:to:"):
            parts.append(f"edge from {who}")
        elif channel.startswith("join:"):
            sources = channel.split(":")[1].replace("+", ", ")
            parts.append(f"all of {sources} finished (last: {who})")
        elif channel == START:
            parts.append("the input")
        else:
            parts.append(f"{channel} changed (written by {who})")
    return "; ".join(parts) or "triggered"
