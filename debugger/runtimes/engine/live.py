"""`EngineDrivenRun`: a live run of a graph built with StepScope's engine (the `DrivenRun` of
`runtimes/driven.py`), over the run's own `graph.loop(...)`.

The engine lets its caller own the loop, so one `step()` is exactly the loop's `plan()` then
`execute()`, and a pause sits between them. Everything the controller hears comes through the
engine's own extension points: the trace `Recorder` and a progress hook (`task_started`,
`task_ended`) among the loop's hooks, an asker that turns an `interrupt()` into a question while the
task waits (the node then runs again from its top with the answer, as a LangGraph resume re-runs it),
`Loop.preview()` for the tasks about to run, and `Loop.update_state` for an edit (`edits.py`).
"""

from __future__ import annotations

import copy
from typing import Any, Iterable

from debugger.i18n import N_, Later
from debugger.runtimes.driven import Boundary, LiveRunError, PlannedTask, RunProgress, TaskEnd, Upcoming, node_names
from debugger.runtimes.engine.edits import apply_edit
from engine import START, Hooks
from engine.codec import encode
from engine.stepping import Task, combine, infer_as_node
from engine.trace import PUSH, Recorder, StepRecord, Trace


class EngineDrivenRun:
    """Drives `graph` (an engine graph) on `graph_input` one superstep at a time for a live run."""

    resume_hint = "Resume it from the step-through page."

    def __init__(
        self,
        graph: Any,
        graph_input: Any,
        config: dict[str, Any] | None = None,
        *,
        target: str = "",
        hooks: Hooks | None = None,
    ) -> None:
        if not callable(getattr(graph, "loop", None)):
            raise LiveRunError(
                f"{target or type(graph).__name__}: live runs drive StepScope's engine one superstep at a time, and "
                f"this is a {type(graph).__module__.split('.')[0]} graph. Record it with `stepscope run TARGET` "
                "instead, or build it with `from engine import StateGraph` to watch it live."
            )
        self.graph = graph
        self.graph_input = graph_input
        self.config = dict(config or {})
        self.target = target or getattr(graph, "name", "graph")
        self.extra_hooks = hooks
        """The caller's own hooks, attached to the run beside the recorder."""
        self.recorder = Recorder(target=self.target)
        self.run_id = self.recorder.run_id
        self.interrupt_before = node_names(graph.interrupt_before_nodes, graph)
        self.interrupt_after = node_names(graph.interrupt_after_nodes, graph)
        self.loop: Any = None
        self._progress: RunProgress | None = None
        self._just_ran: frozenset[str] = frozenset()
        self._writers: dict[str, list[str]] = {}
        """Channel -> the nodes (or `your edit as X`) that wrote it at the last barrier: why a task runs."""
        self._stopping = False

    def start(self, progress: RunProgress, *, ask: bool) -> None:
        """Makes the loop (breakpoints are the controller's, so the loop gets none) and writes the input."""
        self._progress = progress
        self.loop = self.graph.loop(
            self.graph_input,
            self.config,
            hooks=combine([self.recorder, _ProgressHooks(progress), self.extra_hooks]),
            interrupt_before=(),
            interrupt_after=(),
            asker=self._ask if ask else None,
        )
        self.loop.start()

    def preview(self) -> Upcoming:
        """`Loop.preview()`: the tasks `plan` would make next, planned without planning."""
        return Upcoming.of((t.name for t in self.loop.preview()), self._just_ran)

    def step(self) -> bool:
        """The loop's `plan()` and `execute()`, reported as the step starts and commits."""
        loop = self.loop
        if self._stopping or not loop.plan():
            return False
        self._progress.step_started(loop.step, [(t.id, t.name) for t in loop.tasks])
        more = loop.execute()
        self._just_ran = frozenset(t.name for t in loop.tasks)
        self._writers = _writers_of(loop.tasks)
        self._progress.step_committed()
        return more

    def boundary(self) -> Boundary:
        """The next superstep's tasks and the state they read, from the loop itself."""
        loop = self.loop
        graph = loop.graph
        planned = loop.preview()
        return Boundary(
            step=loop.step,
            tasks=tuple(
                PlannedTask(t.id, t.name, why(t.name, t.fired, self._writers), encode(t.input)) for t in planned
            ),
            state=encode(loop.read_state()),
            channels=self._channels(),
            edit_as=tuple(n for n in graph.nodes if n != START),
            default_as=infer_as_node(graph, loop.state.versions_seen),
        )

    def update_state(self, values: Any, as_node: str | None) -> str:
        """`edits.apply_edit`: tried on a copy first, then `Loop.update_state`."""
        as_node, channels = apply_edit(self.loop, values, as_node)
        self._writers = {channel: [f"your edit as {as_node}"] for channel in channels}
        return as_node

    def trace(self, *, final: bool = False) -> Trace | None:
        """The recorder's trace; before the end, a shallow copy of its committed steps only (the
        closed StepRecords are shared: a committed record is never changed again)."""
        trace = self.recorder.trace
        if trace is None or final:
            return trace
        steps = trace.steps
        closed = len(steps) - 1 if steps and not steps[-1].committed else len(steps)
        view = copy.copy(trace)
        view.steps = steps[:closed]
        return view

    def open_step(self) -> StepRecord | None:
        """The recorder's newest step, while it has not committed."""
        trace = self.recorder.trace
        newest = trace.steps[-1] if trace is not None and trace.steps else None
        return newest if newest is not None and not newest.committed else None

    def questions(self) -> tuple[Any, ...]:
        """The values of the `Interrupt`s the loop stopped on."""
        interrupts = self.loop.interrupts if self.loop is not None else []
        return tuple(getattr(i, "value", i) for i in interrupts)

    def request_stop(self) -> None:
        """No superstep starts after this; a node that is running finishes on its own (a Python
        thread cannot be killed), and its result is dropped by the controller."""
        self._stopping = True

    def close(self) -> None:
        """Lets go of the loop (its state and channels); the recorder's trace stays readable."""
        self.loop = None

    def _ask(self, task: Task, question: Any) -> Any:
        """The loop's asker, on the task's thread: the question as a pause, until it is answered."""
        boundary = Boundary(
            step=task.step,
            tasks=(
                PlannedTask(
                    task.id, task.name, "asked with interrupt(); runs again with your answer", encode(task.input)
                ),
            ),
            state=encode(self.loop.read_state()),
            channels=self._channels(),
            edit_as=(),
            default_as=None,
            interrupts=(encode(question),),
        )
        return self._progress.ask_user(boundary, boundary.tasks)

    def _channels(self) -> dict[str, str]:
        graph = self.loop.graph
        return {k: getattr(graph.channels[k], "reducer_name", "LastValue") for k in graph.state_keys_ordered}


class _ProgressHooks(Hooks):
    """Tells the controller when each task of the root run starts and ends, as it happens."""

    def __init__(self, progress: RunProgress) -> None:
        self.progress = progress

    def task_started(self, *, ns: tuple[str, ...], step: int, task: Task) -> None:
        """A root task began."""
        if not ns:  # a subgraph's tasks are inside the root task that runs it
            self.progress.task_started(task.id, task.name)

    def task_ended(self, *, ns: tuple[str, ...], step: int, task: Task) -> None:
        """A root task ended: how, and what it wrote."""
        if ns:
            return
        if task.interrupts:
            state, error = "interrupted", ""
        elif task.error is not None:
            state, error = "failed", f"{type(task.error).__name__}: {task.error}"
        else:
            state, error = "done", ""
        writes = tuple((channel, encode(value)) for channel, value in task.writes)
        self.progress.task_ended(TaskEnd(task.id, task.name, state, task.duration, error, writes))


def _writers_of(tasks: list[Task]) -> dict[str, list[str]]:
    writers: dict[str, list[str]] = {}
    for task in tasks:
        for channel, _ in task.writes:
            names = writers.setdefault(channel, [])
            if task.name not in names:
                names.append(task.name)
    return writers


def why(name: str, fired: Iterable[str], writers: dict[str, list[str]]) -> str:
    """Why a planned task runs, in words. `writers` maps a channel to the nodes (or `your edit as X`)
    that wrote it at the last barrier."""
    fired = list(fired)
    if name == START:
        return Later(N_("writes the input to the state"))
    if fired == [PUSH]:
        who = writers.get("__pregel_tasks")
        return Later(N_("a Send from {nodes}"), nodes=tuple(who)) if who else Later(N_("a Send from a router"))
    parts = [_fired_why(channel, writers.get(channel, [])) for channel in fired]
    return Later("{parts}", parts=parts) if parts else Later(N_("triggered"))


def _fired_why(channel: str, writers: list[str]) -> Later:
    """Why one fired channel runs a task, in words (`Later`: said in the page's language where shown)."""
    who = tuple(writers) if writers else Later(N_("an earlier step"))
    if channel.startswith("branch:to:"):
        return Later(N_("edge from {who}"), who=who)
    if channel.startswith("join:"):
        sources = tuple(channel.split(":")[1].split("+"))
        return Later(N_("all of {nodes} finished (last: {who})"), nodes=sources, who=who)
    if channel == START:
        return Later(N_("the input"))
    return Later(N_("{key} changed (written by {who})"), key=channel, who=who)
