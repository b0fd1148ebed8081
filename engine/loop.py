"""One run of a compiled graph, driven one superstep at a time by its caller.

`Loop.tick()` is the whole engine in one place: plan -> execute -> commit -> report. `invoke()` and
`stream()` are short loops over it, and so is the step-through debugger. The loop formats, stores and
prints nothing: everything it has to say goes out through the hooks (`hooks.py`).
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Iterable, Literal, Sequence

from .algo import PLAIN_CHANNELS, RunState, Task, apply_writes, bare, plan_tasks, scheduled_order, task_id
from .channels import MISSING
from .constants import (
    DEFAULT_RECURSION_LIMIT,
    DEFAULT_RECURSION_LIMIT_ENV,
    INPUT,
    INTERRUPT,
    PUSH,
    START,
    branch_channel,
)
from .context import TaskContext
from .errors import EmptyInputError, GraphBubbleUp, GraphInterrupt, InvalidUpdateError, recursion_limit_error
from .hooks import Hooks, RunInfo, StepCommit
from .runner import Runner
from .schema import update_as_pairs
from .types import Command, RunStatus, StepKind
from .writes import node_writes

if TYPE_CHECKING:  # pragma: no cover
    from .checkpointing import Persistence
    from .compiled import CompiledStateGraph
    from .interrupts import Asker


def recursion_limit_of(config: dict[str, Any]) -> int:
    limit = config.get("recursion_limit")
    if limit is None:
        limit = int(os.environ.get(DEFAULT_RECURSION_LIMIT_ENV, DEFAULT_RECURSION_LIMIT))
    if limit < 1:
        raise ValueError("recursion_limit must be at least 1")
    return limit


class Loop:
    """Owns one run: its channels, step counter, status and output. Not thread-safe; one caller."""

    def __init__(
        self,
        graph: "CompiledStateGraph",
        input: Any,
        config: dict[str, Any] | None = None,
        *,
        hooks: Hooks | None = None,
        ns: tuple[str, ...] = (),
        output_keys: list[str] | str | None = None,
        interrupt_before: Sequence[str] | str | None = None,
        interrupt_after: Sequence[str] | str | None = None,
        persistence: "Persistence | None" = None,
        parent: TaskContext | None = None,
        asker: "Asker | None" = None,
    ) -> None:
        self.graph = graph
        self.persistence = persistence
        """Drives the checkpointer's saver (`checkpointing.py`); None without a checkpointer."""
        self.parent = parent
        """The task of the enclosing graph this run is nested in (None for a root run)."""
        self.resuming = parent.loop.resuming if parent is not None else False
        """True until the first step of a run that continues an interrupted one (subgraphs inherit it)."""
        self.interrupts: list[Any] = []
        """The `Interrupt`s the run stopped on (empty unless `interrupt()` stopped it)."""
        self.interrupt_before = interrupt_before if interrupt_before is not None else graph.interrupt_before_nodes
        self.interrupt_after = interrupt_after if interrupt_after is not None else graph.interrupt_after_nodes
        self.input = input
        self.config = dict(config or {})
        self.hooks = hooks
        self.asker = asker
        """Answers this run's `interrupt()`s while the task waits (`interrupts.py`); None: they end it."""
        self.ns = ns
        self.output_keys = output_keys if output_keys is not None else graph.output_keys
        self.output_key_set = frozenset([self.output_keys] if isinstance(self.output_keys, str) else self.output_keys)
        self.recursion_limit = recursion_limit_of(self.config)
        self.state = RunState({key: spec.fresh() for key, spec in graph.channels.items()})
        self.step = -1
        self.stop = self.step + self.recursion_limit + 1
        self.status: Literal["pending"] | RunStatus = "pending"
        """`pending`, `running`, then `done`, `interrupted`, `error` or `recursion_limit`."""
        self.error: BaseException | None = None
        self.output: Any = None
        """What `invoke()` returns: the output keys as of the last step that updated one of them."""
        self.updated_channels: set[str] | None = set()
        self.tasks: list[Task] = []
        """The tasks of the step most recently run, in application order."""
        self.scheduled: list[Task] = []
        """The same tasks in the order they are started and reported (`algo.scheduled_order`)."""
        self.runner = Runner(self, self.config.get("max_concurrency"))

    # ---- driving -------------------------------------------------------------------------------

    def start(self) -> None:
        """LangGraph's `_first`: resume the thread's checkpoint, or write the input to `__start__`
        (step -1 on a new thread) and checkpoint it as `source="input"`."""
        if self.hooks is not None:
            self.hooks.run_started(
                ns=self.ns, run=RunInfo(self.graph, self.input, self.config, self.recursion_limit, self.output_keys)
            )
        self.status = "running"
        if self.persistence is not None:
            try:
                resumes = self._load()
            except Exception as exc:  # e.g. an unknown checkpoint_id
                self._end("error", exc)
            if resumes:
                return self._resume()
        if self.input is None:
            self._end("error", EmptyInputError("Received no input for __start__"))
        if isinstance(self.input, Command):
            # LangGraph 1.2 without a checkpoint to resume: the Command's writes are applied as
            # external writes, and the Command is then *also* the graph input, which the __start__
            # task reads like a node's return value. Its update lands twice; both gotos fire.
            self._commit([self._external_task(self._command_input_writes(self.input))], kind="input")
        discarded = self._pending_tasks()  # new input on a paused thread: its pending tasks never run
        self._commit([*discarded, self._external_task([(START, self.input)])], kind="input")
        if self.persistence is not None:
            self._save("input")
        self.step += 1

    def _load(self) -> bool:
        """Loads the thread's checkpoint; True when this run resumes it."""
        cp = self.persistence
        self.state = cp.load(self.graph)
        self.step = cp.step
        self.stop = self.step + self.recursion_limit + 1
        self.updated_channels = cp.updated_channels
        self.resuming = cp.begin(self.input, self.resuming if self.parent is not None else None)
        return self.resuming

    def _resume(self) -> None:
        """Continues the loaded checkpoint: a Command's writes first; time travel saves a fork."""
        cp = self.persistence
        if isinstance(self.input, Command):
            try:
                cp.command(self.input)
            except Exception as exc:
                self._end("error", exc)
        restored = self.updated_channels
        self._commit(
            [self._external_task(cp.null_writes())], kind="resume", step=self.step if cp.forks else self.step - 1
        )
        if restored is not None:
            self.updated_channels |= restored
        else:
            self.updated_channels = None
        self.state.versions_seen[INTERRUPT] = dict(self.state.versions)  # breakpoints do not fire again
        if cp.forks:
            self._save("fork")
            self.step += 1

    def _pending_tasks(self) -> list[Task]:
        if self.persistence is None or not self.state.versions:
            return []
        nulls = self.persistence.null_writes()
        if nulls:
            self._commit([self._external_task(nulls)], kind="input")
        try:
            return self._planned()
        except Exception as exc:
            self._end("error", exc)

    def _external_task(self, writes: list[tuple[str, Any]]) -> Task:
        """Writes from outside any node (the input): no triggers, so the barrier bumps no step."""
        return Task(INPUT, INPUT, (INPUT,), self.step, (), {}, self.input, None, writes)  # type: ignore[arg-type]

    def _command_input_writes(self, command: Command) -> list[tuple[str, Any]]:
        if command.resume is not None and self.persistence is None:
            self._end("error", RuntimeError("Cannot use Command(resume=...) without checkpointer"))
        if command.update is None and not command.goto and command.resume is None:
            self._end("error", EmptyInputError("Received empty Command input"))
        writes = [(k, v) for k, v in update_as_pairs(command.update) if k in self.graph.state_keys]
        for target in command.goto_targets():
            writes.append((branch_channel(target), None) if isinstance(target, str) else ("__pregel_tasks", target))
        return writes

    def tick(self) -> bool:
        """Runs one superstep (`plan` then `execute`). Returns False when the run is over; raises
        what the run raised. The first tick only writes the input (step -1)."""
        if self.status == "pending":
            self.start()
            return True
        return self.plan() and self.execute()

    def preview(self) -> list[Task]:
        """The tasks the next superstep would run, as `plan` would build them, for a caller deciding
        whether to run it (a debugger's breakpoints). Pure: no hook hears of it and nothing changes.
        [] when the run is not running, is out of steps, nothing would run, or planning fails (`plan`
        then ends the run with the error)."""
        if self.status != "running" or self.step > self.stop:
            return []
        try:
            return self._planned()
        except Exception:  # noqa: BLE001 - `plan` raises it where it belongs
            return []

    def _planned(self) -> list[Task]:
        return plan_tasks(
            self.graph.nodes,
            self.graph.trigger_to_nodes,
            self.state,
            self.step,
            self.ns,
            self.updated_channels,
            self.stop,
        )

    def plan(self) -> bool:
        """Plans the next superstep and reports it to the hooks. False when the run is over (done,
        a breakpoint before a node, or the recursion limit, which raises)."""
        if self.status != "running":
            return False
        if self.step > self.stop:
            self._end("recursion_limit", recursion_limit_error(self.recursion_limit))
        graph = self.graph
        try:  # `_planned`, written out (it runs every step)
            tasks = plan_tasks(
                graph.nodes, graph.trigger_to_nodes, self.state, self.step, self.ns, self.updated_channels, self.stop
            )
        except Exception as exc:  # building a node's input failed (e.g. schema validation)
            self._end("error", exc)
        if not tasks:
            self._end("done", None)
            return False
        self.tasks = tasks
        # `scheduled_order`'s usual answer (no Send task last) found without a call
        self.scheduled = tasks if tasks[-1].path[0] != PUSH else scheduled_order(tasks)
        if self.persistence is not None:  # tasks that finished before a pause get their writes back
            self.persistence.prepare(tasks, self)
        if self.interrupt_before and self._breakpoint(self.interrupt_before, tasks):
            return False
        if self.hooks is not None:
            self.hooks.step_planned(ns=self.ns, step=self.step, tasks=tasks)
        return True

    def execute(self) -> bool:
        """Runs the planned tasks and commits their writes at the barrier. False when the run is over."""
        tasks = self.scheduled if self.persistence is None else self._to_run()
        runner = self.runner
        if len(tasks) == 1:  # `Runner.run` of one task, written out
            runner.work(tasks[0])
        else:
            runner.run(tasks)
        # `_complete`, written out (it runs every step)
        tasks = self.tasks
        if self.hooks is not None:  # in the order LangGraph reports tasks that finish together
            self.hooks.tasks_finished(ns=self.ns, step=self.step, tasks=self.scheduled)
        if self.persistence is not None:
            self.persistence.put_task_writes(tasks)
        for task in tasks:  # the usual step: no task failed, and no list is made to say so
            if task.error is not None:
                if self._stopped(tasks):
                    return False
                break
        # `self._commit(tasks)` (a `loop` commit), written out
        hooks = self.hooks
        step = self.step
        try:
            updated = apply_writes(
                self.state, tasks, self.graph.trigger_to_nodes, hooks, self.ns, step, self.graph.state_keys
            )
        except Exception as exc:
            self._end("error", exc)
        self.updated_channels = updated
        if not updated.isdisjoint(self.output_key_set):
            keys = self.output_keys  # `read_output` of a list of keys, written out
            self.output = self.read_output() if isinstance(keys, str) else self.state.read(keys)
        if hooks is not None:  # (see `_commit`)
            commit = bare(StepCommit)
            commit.step = step
            commit.updated_channels = frozenset(updated)
            commit.versions = dict(self.state.versions)
            commit.read = self.read_state
            commit.state_keys = self.graph.state_keys
            commit.kind = "loop"
            hooks.step_committed(ns=self.ns, commit=commit)
        if self.persistence is not None:
            self._save("loop")
        self.step += 1
        self.resuming = False
        return not (self.interrupt_after and self._breakpoint(self.interrupt_after, tasks))

    async def aexecute(self) -> bool:
        """`execute` in an async run: the tasks run on the caller's event loop (`Runner.arun`); the
        barrier and everything around it is the same code as in a sync run."""
        await self.runner.arun(self._to_run())
        return self._complete()

    def run(self) -> Any:
        """Ticks to the end and returns the output (what `invoke` returns)."""
        if self.status == "pending":  # `tick`, written out: a call less every step
            self.start()
        while self.plan() and self.execute():
            pass
        return self.output

    async def atick(self) -> bool:
        """`tick` in an async run."""
        if self.status == "pending":
            self.start()
            return True
        return self.plan() and await self.aexecute()

    async def arun(self) -> Any:
        """`run` in an async run (what `ainvoke` returns)."""
        while await self.atick():
            pass
        return self.output

    def update_state(self, values: Any, as_node: str) -> None:
        """Between supersteps (before `plan`, or after a `plan` whose tasks will not run): applies
        `values` as if `as_node` had returned them, as `CompiledStateGraph.update_state` does on a
        checkpoint: the values go through the reducers, the node's edges and routers fire, its
        pending task is dropped, and the edit takes a step number of its own (commit kind `update`).
        For a debugger that pauses a live run and lets a person change the state."""
        if self.status != "running":
            raise RuntimeError(f"update_state needs a running loop between supersteps; this one is {self.status!r}.")
        node = self.graph.nodes.get(as_node)
        if node is None:
            error = InvalidUpdateError(f"Node {as_node} does not exist")
            error.add_note(f"as_node must be one of: {', '.join(n for n in self.graph.nodes if n != START)}.")
            raise error
        path = (INTERRUPT, 0)
        task = Task(
            task_id(self.ns, self.step, as_node, path), as_node, path, self.step, (INTERRUPT,), {}, values, node
        )
        node_writes(node, task, values, self)  # raises for a value the node could not have returned
        self.tasks, self.scheduled = [], []
        self._commit([task], kind="update")
        self.updated_channels = None  # as after resuming a checkpoint: every node is a candidate again
        if self.persistence is not None:
            self._save("update")
        self.step += 1

    # ---- internals -----------------------------------------------------------------------------

    def _to_run(self) -> list[Task]:
        """The planned tasks that still have to run, in the order LangGraph starts them."""
        if self.persistence is None:  # only a checkpoint restores tasks that already ran
            return self.scheduled
        return [t for t in self.scheduled if not t.restored]

    def _complete(self) -> bool:
        """After the tasks ran: report them and store what they did, then commit their writes. False
        when the run is over (a task failed or interrupted: `_stopped`)."""
        tasks = self.tasks
        if self.hooks is not None:  # in the order LangGraph reports tasks that finish together
            self.hooks.tasks_finished(ns=self.ns, step=self.step, tasks=self.scheduled)
        if self.persistence is not None:
            self.persistence.put_task_writes(tasks)
        for task in tasks:  # the usual step: no task failed, and no list is made to say so
            if task.error is not None:
                if self._stopped(tasks):
                    return False
                break
        self._commit(tasks)
        self.step += 1
        self.resuming = False
        return not (self.interrupt_after and self._breakpoint(self.interrupt_after, tasks))

    def _stopped(self, tasks: list[Task]) -> bool:
        """A task of the step failed or interrupted: ends the run (raises, or True for an interrupt)."""
        stopped = [t for t in tasks if t.error is not None]
        failed = next((t for t in stopped if not isinstance(t.error, GraphInterrupt)), None)
        if failed is not None:  # a nested run handing a Command(graph=PARENT) up is interrupted, not failed
            handover = isinstance(failed.error, GraphBubbleUp) and self.parent is not None
            self._end("interrupted" if handover else "error", failed.error)
        if any(isinstance(t.error, GraphInterrupt) for t in stopped):
            self.interrupts = [i for t in tasks for i in t.interrupts]
            self.output = self.read_output()
            if self.parent is None and any(t.writes for t in tasks):
                self._commit(tasks, kind="interrupt")  # the finished tasks' writes, in memory only
            self._end("interrupted", GraphInterrupt(tuple(self.interrupts)))
            return True
        return False

    def _commit(self, tasks: list[Task], kind: StepKind = "loop", step: int | None = None) -> None:
        """The barrier (see `StepCommit.kind`); a `loop` commit is then checkpointed."""
        hooks = self.hooks
        step = self.step if step is None else step
        try:
            updated = apply_writes(
                self.state, tasks, self.graph.trigger_to_nodes, hooks, self.ns, step, self.graph.state_keys
            )
        except Exception as exc:
            self._end("error", exc)
        self.updated_channels = updated
        if kind == "resume" or (kind != "input" and not updated.isdisjoint(self.output_key_set)):
            keys = self.output_keys  # `read_output` of a list of keys, written out
            self.output = self.read_output() if isinstance(keys, str) else self.state.read(keys)
        if hooks is not None:
            # `StepCommit(step, frozenset(updated), dict(versions), self.read_state, state_keys, kind)`,
            # every field stored on a bare instance (see `algo.bare`)
            commit = bare(StepCommit)
            commit.step = step
            commit.updated_channels = frozenset(updated)
            commit.versions = dict(self.state.versions)
            commit.read = self.read_state
            commit.state_keys = self.graph.state_keys
            commit.kind = kind
            hooks.step_committed(ns=self.ns, commit=commit)
        if self.persistence is not None and kind == "loop":
            self._save(kind)

    def _save(self, source: str) -> None:
        config, metadata = self.persistence.save(self.state, self.step, self.updated_channels, source)
        if self.hooks is not None:
            self.hooks.checkpoint_saved(ns=self.ns, step=self.step, config=config, metadata=metadata)

    def _breakpoint(self, nodes: Sequence[str] | str, tasks: list[Task]) -> bool:
        """Ends the run as `interrupted` if a task is named in `nodes` and some channel changed since
        the last breakpoint (LangGraph's `should_interrupt`). Resume with `invoke(None, config)`; a
        nested run stops its parent too. `nodes` is not empty: a run without breakpoints never calls it."""
        seen = self.state.versions_seen.get(INTERRUPT, {})
        if not any(version > seen.get(channel, 0) for channel, version in self.state.versions.items()):
            return False
        if not any((t.name != START) if nodes == "*" else (t.name in nodes) for t in tasks):
            return False
        self.state.versions_seen[INTERRUPT] = dict(self.state.versions)
        self._end("interrupted", GraphInterrupt(()) if self.parent is not None else None)
        return True

    def take_resume(self) -> Any:
        """The answer of a `Command(resume=value)` for the next `interrupt()` that has none (once)."""
        value = self.persistence.take_null_resume() if self.persistence is not None else None
        if value is None and self.parent is not None:
            value = self.parent.loop.take_resume()
        return value

    def resume_map(self) -> dict[str, Any] | None:
        """`Command(resume={interrupt_id: answer})` of this run or of the run it is nested in."""
        own = self.persistence.resume_map if self.persistence is not None else None
        return own if own is not None or self.parent is None else self.parent.loop.resume_map()

    def read_state(self, keys: Iterable[str] | None = None) -> dict[str, Any]:
        # `self.state.read(...)`, written out: a hook reads the state at every commit
        channels = self.state.channels
        values = {}
        for key in self.graph.state_keys_ordered if keys is None else keys:
            channel = channels[key]
            if type(channel) in PLAIN_CHANNELS:  # `is_available()` and `get()`, read off the slot
                value = channel.value
                if value is not MISSING:
                    values[key] = value
            elif channel.is_available():
                values[key] = channel.get()
        return values

    def read_output(self) -> Any:
        if isinstance(self.output_keys, str):
            channel = self.state.channels[self.output_keys]
            return channel.get() if channel.is_available() else None
        return self.state.read(self.output_keys)

    def _end(self, status: RunStatus, error: BaseException | None) -> None:
        """Ends the run; re-raises `error` to the caller once the hooks have heard about it. An
        interrupt ends a root run quietly (`invoke` reports `__interrupt__`) and stops a nested one's parent."""
        self.status = status
        self.error = error
        self.runner.close()
        if self.hooks is not None:
            self.hooks.run_finished(ns=self.ns, status=status, output=self.output, error=error, step=self.step)
        if error is not None and not (isinstance(error, GraphInterrupt) and self.parent is None):
            raise error
