"""The hook interface: one method per moment of a run, keyword-only arguments, all no-ops by default.

The loop calls these and nothing else to make itself observable: the trace recorder, the stream
output and checkpointers plug in here. Subclass `Hooks` and override what you need. Every method
receives `ns`, the namespace of the graph that emits it: `()` for the root graph and
`("child:<task id>",)` for a subgraph run by the root's `child` task, so nested runs can be filed
under the task that ran them. With no hook attached the loop skips all of this.
"""

from __future__ import annotations

from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Mapping, Sequence

if TYPE_CHECKING:  # pragma: no cover
    from .algo import Task
    from .types import RunStatus, StepKind


@dataclass(slots=True)
class ReducerCall:
    """One application of one write to one channel at a superstep barrier. Read-only by convention
    (not frozen: frozen dataclasses are several times slower to build, and one is built per write)."""

    step: int
    channel: str
    reducer: str
    """`operator.add`, `add_messages`, `LastValue` (a plain key: the write replaces the value), ..."""
    before: Any
    """The value before this call; `MISSING` for a channel that was empty."""
    write: Any
    writer: str
    """The id of the task whose write this is."""
    writer_name: str
    """The node name of that task (`__start__` for the input, `__input__` for external updates)."""
    after: Any
    index: int
    """Position of this call in the step's application order, across all channels."""
    error: BaseException | None = None
    """Set when the channel refused this write (e.g. a second write to a plain key); `after` is then MISSING."""
    before_unchanged: bool = False
    """The channel proved that `before` is the list its last reducer call returned, its items unchanged
    since (the engine's `add_messages` channel compares them anyway, see `engine.message_channel`): an
    observer that copied that call's `after` need not compare a long list again to see an in-place edit."""


@dataclass(slots=True)
class StepCommit:
    """What the barrier of one superstep did."""

    step: int
    updated_channels: frozenset[str]
    versions: Mapping[str, int]
    """Every channel's version after the barrier (a copy)."""
    read: Callable[[Iterable[str] | None], dict[str, Any]]
    """Reads the state after the barrier: the given keys, or every state key when None."""
    state_keys: frozenset[str]
    """The keys of this graph's state (the other channels are edges and Send queues)."""
    kind: StepKind = "loop"
    """`loop` (a superstep), `input` (the input), `resume` (a resume's Command writes, at the resumed
    checkpoint's step), `interrupt` (finished tasks of a step `interrupt()` stopped; never saved) or
    `update` (a state edit between supersteps, `Loop.update_state`: no task ran; it has a step of its own)."""


@dataclass(slots=True)
class TaskAttempt:
    """One failed attempt of a task whose node has a `RetryPolicy`, retried after `retry_in` seconds."""

    attempt: int
    """1 for the first attempt."""
    error: BaseException
    duration: float
    """Seconds the attempt ran before it raised."""
    retry_in: float
    """Seconds waited before the next attempt (backoff and jitter included)."""


@dataclass(slots=True)
class RunInfo:
    graph: Any
    """The compiled graph (for its description: `graph.get_graph()`, `graph.builder`)."""
    input: Any
    config: Mapping[str, Any]
    recursion_limit: int
    output_keys: Sequence[str] | str
    """The keys this run reports (`invoke`'s output schema, or a `__root__` channel name)."""


class Hooks:
    """Override any of these; each is called on the thread that owns the run's loop, except the four
    that report from inside a running task (`task_started`, `task_ended`, `task_retrying`,
    `custom_streamed`)."""

    def run_started(self, *, ns: tuple[str, ...], run: RunInfo) -> None: ...

    def step_planned(self, *, ns: tuple[str, ...], step: int, tasks: Sequence["Task"]) -> None:
        """Tasks in application order, each with its triggers, the versions it saw and its input."""

    def task_started(self, *, ns: tuple[str, ...], step: int, task: "Task") -> None:
        """A task begins, on the thread that runs it (its siblings may be running on others): for a
        caller that shows progress while a step runs. The loop only asks the runner to report it to
        hooks that override this or `task_ended`, so a run whose hooks do not pays nothing for it."""

    def task_ended(self, *, ns: tuple[str, ...], step: int, task: "Task") -> None:
        """That task has ended (retries and answered `interrupt()`s included), on its own thread, as
        soon as it has: `task.writes`, `task.duration`, `task.error`, `task.interrupts`. Its siblings
        may still be running; `task_finished` reports it again once the whole step has ended."""

    def task_finished(self, *, ns: tuple[str, ...], step: int, task: "Task") -> None:
        """Called for every task of a step once all of them have finished, in the order they were
        started (Send tasks first, then pulled nodes: `algo.scheduled_order`): `task.result` (raw
        return), `task.writes`, `task.routes`, `task.duration`, `task.error`, `task.attempts`."""

    def tasks_finished(self, *, ns: tuple[str, ...], step: int, tasks: Sequence["Task"]) -> None:
        """All the tasks of a step, once they have finished, in the order they were started: calls
        `task_finished` for each. Override it instead to take a wide step in one call."""
        for task in tasks:
            self.task_finished(ns=ns, step=step, task=task)

    def task_retrying(self, *, ns: tuple[str, ...], step: int, task: "Task", attempt: TaskAttempt) -> None:
        """An attempt of `task` failed and its `RetryPolicy` retries it after `attempt.retry_in` seconds.
        Called on the thread running the task, as it happens; the attempt is also kept in
        `task.attempts`. The last attempt's failure (retries exhausted) is `task.error` at `task_finished`."""

    def custom_streamed(self, *, ns: tuple[str, ...], step: int, task: "Task", chunk: Any) -> None:
        """A node called the writer of `get_stream_writer()` (the `custom` stream mode). Called on the
        thread running the task, while it runs."""

    def reducer_called(self, *, ns: tuple[str, ...], call: ReducerCall) -> None: ...

    def step_committed(self, *, ns: tuple[str, ...], commit: StepCommit) -> None: ...

    def checkpoint_saved(
        self, *, ns: tuple[str, ...], step: int, config: Mapping[str, Any], metadata: Mapping[str, Any]
    ) -> None:
        """After each checkpoint is saved (runs with a checkpointer only). `step` is the step of the
        `step_committed` whose state it holds; `config["configurable"]` has `thread_id`,
        `checkpoint_ns` and `checkpoint_id` (pass it to `invoke`/`stream` to resume or fork from
        there); `metadata` has `source` (`input`, `loop` or `fork`), `step` and `parents`."""

    def run_finished(
        self, *, ns: tuple[str, ...], status: RunStatus, output: Any, error: BaseException | None, step: int
    ) -> None:
        """status: `done`, `interrupted`, `error` or `recursion_limit`. A run stopped by `interrupt()`
        has `error` set to the `GraphInterrupt`, whose `.interrupts` are the `Interrupt`s (also on the
        tasks that raised them: `task.interrupts`); a breakpoint has `error=None` (in a nested run, a
        `GraphInterrupt` with no interrupts: it stops the parent run too)."""


class HookList(Hooks):
    """Several hooks called in order, so the loop always talks to exactly one object."""

    def __init__(self, hooks: Sequence[Hooks]) -> None:
        self.hooks = tuple(hooks)

    def run_started(self, **kw: Any) -> None:
        for h in self.hooks:
            h.run_started(**kw)

    def step_planned(self, **kw: Any) -> None:
        for h in self.hooks:
            h.step_planned(**kw)

    def task_started(self, **kw: Any) -> None:
        for h in self.hooks:
            h.task_started(**kw)

    def task_ended(self, **kw: Any) -> None:
        for h in self.hooks:
            h.task_ended(**kw)

    def task_finished(self, **kw: Any) -> None:
        for h in self.hooks:
            h.task_finished(**kw)

    def tasks_finished(self, **kw: Any) -> None:
        for h in self.hooks:
            h.tasks_finished(**kw)

    def task_retrying(self, **kw: Any) -> None:
        for h in self.hooks:
            h.task_retrying(**kw)

    def custom_streamed(self, **kw: Any) -> None:
        for h in self.hooks:
            h.custom_streamed(**kw)

    def reducer_called(self, **kw: Any) -> None:
        for h in self.hooks:
            h.reducer_called(**kw)

    def step_committed(self, **kw: Any) -> None:
        for h in self.hooks:
            h.step_committed(**kw)

    def checkpoint_saved(self, **kw: Any) -> None:
        for h in self.hooks:
            h.checkpoint_saved(**kw)

    def run_finished(self, **kw: Any) -> None:
        for h in self.hooks:
            h.run_finished(**kw)


def listens(hooks: Hooks | None, *moments: str) -> bool:
    """True when `hooks` (or one hook of a `HookList`) overrides one of the methods named `moments`."""
    if hooks is None:
        return False
    if isinstance(hooks, HookList):
        return any(listens(h, *moments) for h in hooks.hooks)
    return any(getattr(type(hooks), moment, None) not in (None, getattr(Hooks, moment)) for moment in moments)


def combine(hooks: Iterable[Hooks | None]) -> Hooks | None:
    """One hook object for the loop: None, the only hook, or a `HookList` of them in order."""
    present = [h for h in hooks if h is not None]
    if not present:
        return None
    return present[0] if len(present) == 1 else HookList(present)


_WATCHERS: ContextVar[tuple[Callable[[], Hooks], ...]] = ContextVar("stepscope_watchers", default=())


@contextmanager
def watching(make_hooks: Callable[[], Hooks]) -> Iterator[None]:
    """Every root run started inside the block (in this context) also gets a fresh `make_hooks()`:
    observability attached from outside the code that runs the graph, as the pytest plugin records every
    run of a test without a change to the test. Nested runs get their parent's hooks as always."""
    token = _WATCHERS.set((*_WATCHERS.get(), make_hooks))
    try:
        yield
    finally:
        _WATCHERS.reset(token)


def watchers() -> list[Hooks]:
    """The hooks `watching` attaches to a root run starting now (one new object per watcher)."""
    return [make() for make in _WATCHERS.get()]
