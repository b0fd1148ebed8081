"""`DrivenRun`: a graph run that the live controller (`debugger/live/controller.py`) drives one
superstep at a time. Two implementations: `runtimes/engine/live.py` over the engine's `graph.loop(...)`,
and `runtimes/segmented_live.py` (`SegmentedRun`) for the runtimes that own their loop, driven one
segment at a time over each one's `Segments`: langgraph's `stream`/`get_state`/`update_state`
(`runtimes/langgraph/live.py`) and LangGraph.js's in a node process (`runtimes/langgraphjs/live.py`).
The controller owns everything else (the pause loop, breakpoints, step mode, the commands, the
snapshots, stopping and storing), so the Live run page and `stepscope run --follow` never ask which
runtime they are talking to.

What a runtime must provide for live runs: a class built as
`DrivenRun(graph, graph_input, config, *, target, hooks=None)` (raising `LiveRunError` in words for a
graph it cannot run live) with the attributes and methods of the Protocol below. Its contract:

- Threads. `start`, `preview`, `step`, `boundary`, `update_state`, `trace`, `open_step` and `close`
  are called on the controller's worker thread, one at a time; `request_stop` and `trace` may be
  called from any thread. Calls into `RunProgress` may come from any thread (a task's own thread).
- `start(progress, ask=...)` prepares the run (nothing of the graph need have run yet).
- `preview()` says, cheaply, which nodes the next superstep would run and which ran in the one that
  committed last (`Upcoming`); the controller decides from it whether to pause. Empty `nodes` when
  nothing but the input would run or the run is over.
- `step()` runs exactly one superstep (the first call also writes the input), reporting progress as
  it goes: `progress.step_started` when its tasks are known, `task_started`/`task_ended` for each,
  `step_committed` once its writes are in the state. It returns False when the run is over (done,
  failed, out of steps, ended by an `interrupt()`, or stopped), True when another boundary follows.
  It raises what the run raised, if anything (the controller keeps going to the ending).
- Questions. With `ask=True`, an `interrupt()` must not end the run: the runtime calls
  `progress.ask_user(boundary, asking)` (on whichever thread waits) and gets the answer, or `NO_ANSWER`
  when the user stopped the run; the asking node then runs again from its top with the answer, as a
  LangGraph resume does. With `ask=False` an `interrupt()` ends the run `interrupted`.
- `boundary()` is what a pause shows: the next superstep's tasks with their inputs and why they run,
  the whole state, each key's reducer, the nodes an edit can be made as and the default one; values
  encoded with `engine.codec.encode`.
- `update_state(values, as_node)` applies an edit between supersteps as `as_node`'s return value
  (through the reducers, LangGraph's `update_state`), recorded as a step of kind `update`; returns the
  node it was made as; raises `EditError` in words and changes nothing when it cannot.
- `trace()` is the recording so far: the committed supersteps and edits (a copy that shares the
  committed, never-again-changed `StepRecord`s); `trace(final=True)` once the run is over, with its
  status, output and error (a failed step kept). `open_step()` is the record of the step running now
  if it never committed (a stopped run keeps it). None until anything was recorded. `questions()`
  are those of the `interrupt()`s a run ended on (said with `resume_hint`, how to go on from there).
- `request_stop()` asks the run to stop at its next chance without waiting for it; `close()` frees
  what the run holds (an event loop, a recorder session) once the controller is done with it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Iterable, Protocol, Sequence

from engine import START
from engine.stepping import NO_ANSWER
from engine.trace import StepRecord, Trace

__all__ = [
    "NO_ANSWER",
    "Boundary",
    "DrivenRun",
    "EditError",
    "LiveRunError",
    "PlannedTask",
    "RunProgress",
    "TaskEnd",
    "Upcoming",
    "node_names",
]


class LiveRunError(Exception):
    """A graph that cannot be run live; the message says why and what to do instead."""


class EditError(Exception):
    """An edit that cannot be applied; the run is unchanged and still paused."""


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
class TaskEnd:
    """How one task of the running superstep ended, as soon as it has."""

    id: str
    """The task's id (`Task.id`, or langgraph's task id)."""
    name: str
    """The node it ran."""
    state: str
    """`done`, `failed` or `interrupted`."""
    duration: float | None = None
    """Seconds it took; None: the controller times it from its start."""
    error: str = ""
    """`Class: message` when it failed."""
    writes: tuple[tuple[str, Any], ...] = ()
    """What it wrote, `(channel, encoded value)`: kept for a step stopped before it committed."""


@dataclass(frozen=True)
class Upcoming:
    """Where a run stands between two supersteps, as much as a breakpoint needs."""

    nodes: frozenset[str]
    """The nodes the next superstep runs (the input's `__start__` left out); empty when none."""
    just_ran: frozenset[str]
    """The nodes of the superstep that committed last."""

    @classmethod
    def of(cls, nodes: Iterable[str] = (), just_ran: Iterable[str] = ()) -> "Upcoming":
        """From node names as a runtime has them (the input's `__start__` is dropped)."""
        return cls(frozenset(n for n in nodes if n != START), frozenset(just_ran))


@dataclass(frozen=True)
class Boundary:
    """What a pause between supersteps (or at a question) shows; the controller adds why it paused."""

    step: int
    """The superstep that runs next (or the one whose task asks)."""
    tasks: tuple[PlannedTask, ...]
    """Its tasks, in application order."""
    state: dict[str, Any]
    """The whole state now (encoded): what the next tasks read."""
    channels: dict[str, str]
    """State key -> its reducer (`LastValue` for a plain key), so an edit can say what it will do."""
    edit_as: tuple[str, ...]
    """The nodes an edit can be made as (none while a question waits)."""
    default_as: str | None
    """The node LangGraph's `update_state` would pick without `as_node` (None when ambiguous)."""
    interrupts: tuple[Any, ...] = ()
    """The question asked with `interrupt()` (encoded), when one waits for its answer."""


class RunProgress(Protocol):
    """What a driven run tells its controller while a superstep runs (any thread may call it)."""

    def step_started(self, step: int, tasks: Sequence[tuple[str, str]] = ()) -> None:
        """Superstep `step` began; `tasks` are (id, node) of its tasks, all waiting to start."""

    def task_started(self, task_id: str, name: str) -> None:
        """A task of the running superstep began."""

    def task_ended(self, ended: TaskEnd) -> None:
        """A task of the running superstep ended."""

    def step_committed(self) -> None:
        """The running superstep's writes are in the state (its record is in `trace()`)."""

    def ask_user(self, boundary: Boundary, asking: Sequence[PlannedTask]) -> Any:
        """An `interrupt()` of the `asking` tasks waits: blocks until the user answers (returns the
        answer) or stops the run (returns `NO_ANSWER`)."""


class DrivenRun(Protocol):
    """A graph run the live controller drives one superstep at a time (the contract: module doc)."""

    graph: Any
    """The graph as the user wrote it (what the step-through page opens the run with)."""
    graph_input: Any
    config: dict[str, Any]
    """The config the run goes with (a langgraph run's names the fresh thread it uses)."""
    target: str
    run_id: str
    interrupt_before: tuple[str, ...]
    """The nodes the graph was compiled to stop before (the breakpoints a live run starts with)."""
    interrupt_after: tuple[str, ...]
    resume_hint: str
    """How to go on from a run an `interrupt()` ended, in words (said when it ends so)."""

    def start(self, progress: RunProgress, *, ask: bool) -> None:
        """Prepares the run, reporting to `progress`; `ask`: an `interrupt()` asks instead of ending it."""

    def preview(self) -> Upcoming:
        """What the next superstep would run, and what the last one ran."""

    def step(self) -> bool:
        """Runs one superstep; False when the run is over."""

    def boundary(self) -> Boundary:
        """What a pause before the next superstep shows."""

    def update_state(self, values: Any, as_node: str | None) -> str:
        """Applies an edit as `as_node` (None: the node LangGraph would pick); the node it was made as."""

    def trace(self, *, final: bool = False) -> Trace | None:
        """The recording so far (committed steps), or the whole of it once the run is over (`final`)."""

    def open_step(self) -> StepRecord | None:
        """The record of the step running now, if it has not committed."""

    def questions(self) -> tuple[Any, ...]:
        """The questions (values as asked) of the `interrupt()`s the run ended on; () if none did."""

    def request_stop(self) -> None:
        """Asks the run to stop at its next chance; returns at once (any thread)."""

    def close(self) -> None:
        """Frees what the run holds, once the controller is done with it."""


def node_names(nodes: Any, graph: Any) -> tuple[str, ...]:
    """A graph's `interrupt_before`/`interrupt_after` setting as node names (`"*"`: every node)."""
    if not nodes:
        return ()
    if nodes == "*":
        return tuple(n for n in graph.nodes if n != START)
    return (nodes,) if isinstance(nodes, str) else tuple(nodes)
