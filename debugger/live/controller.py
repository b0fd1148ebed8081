"""`LiveRun`: one graph run driven on a background thread, superstep by superstep, that a page or the
CLI can watch, pause, step, edit and stop while it goes.

The engine lets its caller own the loop (`graph.loop(input)`: `start`, `plan`, `execute`), so the
controller is that caller. Between two supersteps it looks at what the next one would run (planning
is a pure function of the state) and decides whether to pause: a breakpoint before a node of that
step or after a node of the step just committed, step mode, a Step, or the Pause button. While
paused, the worker thread waits for a command: Step (run exactly one superstep, then pause again),
Continue (run to the next breakpoint or the end), an edit (`Loop.update_state`: the value goes
through the key's reducer as a chosen node's write, and is recorded as a step of kind `update`), or
Stop. An `interrupt()` pauses too, on the task's own thread, until the question is answered
(`runner.py`). Only the worker thread touches the `Loop`; other threads send commands and read
snapshots.

What the outside sees is a `LiveSnapshot` (`status.py`), rebuilt after every change: the trace of
the committed supersteps (a shallow copy: a committed StepRecord is never changed again, so copies
share them), the tasks running now with their progress, and the pause. A finished live run is a
stored run like any other (`RunStore`). Stop answers at once even when a node is stuck: the run is
recorded as far as it got (status `cancelled`, as a Ctrl-C in the CLI) and stored; the node's thread cannot be killed in
Python, so it finishes on its own and its result is dropped.
"""

from __future__ import annotations

import collections
import copy
import threading
import time
from dataclasses import dataclass, field, replace
from typing import Any

from debugger.live.edits import EditError, apply_edit
from debugger.live.ending import cancel, error_line, names_of, writers_of
from debugger.live.runner import NO_ANSWER, WatchedRunner
from debugger.live.status import (
    CANCELLED,
    PAUSED,
    RUNNING,
    STOPPING,
    Breakpoints,
    LiveSnapshot,
    Pause,
    PlannedTask,
    TaskProgress,
    why,
)
from engine import START, Hooks
from engine.codec import encode
from engine.stepping import Task, combine, infer_as_node, plan_tasks
from engine.trace import Recorder, StepRecord, Trace


@dataclass
class _Command:
    kind: str
    """`step`, `continue`, `stop` or `edit`."""
    values: Any = None
    as_node: str | None = None
    done: threading.Event = field(default_factory=threading.Event)
    error: str | None = None


class LiveRunError(Exception):
    """A graph that cannot be run live; the message says why and what to do instead."""


class LiveRun:
    """Runs `graph` on `graph_input` in the background. Thread-safe: call its methods from anywhere."""

    def __init__(
        self,
        graph: Any,
        graph_input: Any,
        config: dict[str, Any] | None = None,
        *,
        target: str = "",
        breakpoints: Breakpoints | None = None,
        db: str | None = None,
        store: bool = True,
        hooks: Hooks | None = None,
        ask: bool = True,
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
        self.db = db
        self.store = store
        self.extra_hooks = hooks
        self.ask = ask
        """Whether an `interrupt()` pauses the run with its question (else it ends the run, as `invoke` does)."""
        self._asking = threading.Lock()
        compiled = Breakpoints.of(
            names_of(graph.interrupt_before_nodes, graph), names_of(graph.interrupt_after_nodes, graph)
        )
        self._breakpoints = breakpoints if breakpoints is not None else compiled
        self.recorder = Recorder(target=self.target)
        self._cond = threading.Condition()
        self._commands: collections.deque[_Command] = collections.deque()
        self._snapshot = LiveSnapshot(0, "starting", None, run_id=self.recorder.run_id, breakpoints=self._breakpoints)
        self._progress: dict[str, TaskProgress] = {}
        self._step: int | None = None
        self._single_step = False
        self._pause_requested = False
        self._stop_requested = False
        self._final = False
        self._writers: dict[str, list[str]] = {}
        self._loop: Any = None
        self._thread: threading.Thread | None = None

    # ---- what callers use ------------------------------------------------------------------------

    def start(self) -> "LiveRun":
        self._thread = threading.Thread(target=self._work, name=f"stepscope-live-{self.target}", daemon=True)
        self._thread.start()
        return self

    def snapshot(self) -> LiveSnapshot:
        return self._snapshot

    def wait(self, after_version: int = -1, timeout: float | None = None) -> LiveSnapshot:
        """The first snapshot newer than `after_version` (or the current one when `timeout` passes)."""
        with self._cond:
            self._cond.wait_for(lambda: self._snapshot.version > after_version, timeout)
            return self._snapshot

    def wait_until(self, predicate: Any, timeout: float = 10.0) -> LiveSnapshot:
        """Waits for a snapshot that satisfies `predicate` (or a finished run); for tests and the CLI."""
        deadline = time.monotonic() + timeout
        with self._cond:
            while not predicate(self._snapshot) and not self._snapshot.finished:
                left = deadline - time.monotonic()
                if left <= 0:
                    break
                self._cond.wait(left)
            return self._snapshot

    def set_breakpoints(self, breakpoints: Breakpoints) -> None:
        """Takes effect at the next boundary between supersteps."""
        with self._cond:
            self._breakpoints = breakpoints
            self._publish_locked(breakpoints=breakpoints)

    def step(self) -> None:
        """At a pause: run exactly one superstep, then pause again. Returns once the run has left
        the pause, so a snapshot taken next no longer shows it paused there."""
        self._send(_Command("step"), wait=True)

    def resume(self) -> None:
        """At a pause: run to the next breakpoint or the end (Continue); returns once it goes."""
        self._send(_Command("continue"), wait=True)

    def pause(self) -> None:
        """While running: pause before the next superstep."""
        with self._cond:
            self._pause_requested = True

    def stop(self) -> LiveSnapshot:
        """Ends the run now and keeps what was recorded (status `cancelled`); returns the final snapshot."""
        with self._cond:
            if self._final:
                return self._snapshot
            self._stop_requested = True
            paused = self._snapshot.status == PAUSED
            if paused:
                self._commands.append(_Command("stop"))
                self._cond.notify_all()
            else:
                self._publish_locked(status=STOPPING)
        if not paused:
            self._finish_stopped()
        return self.wait_until(lambda s: s.finished, timeout=10.0)

    def edit(self, values: dict[str, Any], as_node: str | None = None, timeout: float = 10.0) -> None:
        """At a pause: applies `values` as `as_node`'s return value (through the reducers, as
        `update_state` does). Raises `EditError` with the reason if it cannot; the run stays paused."""
        if self._snapshot.status != PAUSED:
            raise EditError("The run is not paused: pause it (or set a breakpoint) before editing the state.")
        command = _Command("edit", values, as_node)
        self._send(command)
        if not command.done.wait(timeout):
            raise EditError("The run did not take the edit in time; try again.")
        if command.error:
            raise EditError(command.error)

    def answer(self, value: Any, timeout: float = 10.0) -> None:
        """At a pause made by `interrupt()`: the node runs again from its top and its `interrupt()`
        returns `value` (LangGraph's `Command(resume=value)`). Raises `EditError` if nothing asks."""
        pause = self._snapshot.pause
        if self._snapshot.status != PAUSED or pause is None or not pause.interrupts:
            raise EditError("No interrupt() is waiting for an answer.")
        command = _Command("answer", value)
        self._send(command)
        if not command.done.wait(timeout):
            raise EditError("The run did not take the answer in time; try again.")
        if command.error:
            raise EditError(command.error)

    def join(self, timeout: float | None = None) -> LiveSnapshot:
        return self.wait_until(lambda s: s.finished, timeout=timeout if timeout is not None else 3600.0)

    # ---- the worker thread -----------------------------------------------------------------------

    def _send(self, command: _Command, wait: bool = False) -> None:
        with self._cond:
            if self._snapshot.status != PAUSED:
                command.error = "The run is not paused."
                command.done.set()
                return
            self._commands.append(command)
            self._cond.notify_all()
        if wait:
            command.done.wait(5.0)

    def _work(self) -> None:
        try:
            self._drive()
        except Exception:  # the run's own error: the recorder has it (status, error, failed step)
            pass
        except BaseException:  # noqa: BLE001 - SystemExit/KeyboardInterrupt raised inside a node
            pass
        self._finish()

    def _drive(self) -> None:
        loop = self.graph.loop(
            self.graph_input,
            self.config,
            hooks=combine([self.recorder, self.extra_hooks]),
            interrupt_before=(),
            interrupt_after=(),
        )
        loop.runner = WatchedRunner(loop, self)
        self._loop = loop
        loop.start()
        self._publish(status=RUNNING)
        just_ran: set[str] = set()
        while loop.status == "running" and not self._stop_requested:
            planned = self._preview(loop)
            reasons = self._reasons(planned, just_ran) if planned else []
            if reasons and not self._pause(loop, planned, reasons):
                return
            if not loop.plan():
                return
            with self._cond:
                self._step = loop.step
                self._progress = {t.id: TaskProgress(t.id, t.name, "waiting", time.monotonic()) for t in loop.tasks}
                self._publish_locked()
            more = loop.execute()
            if self._stop_requested:
                return
            just_ran = {t.name for t in loop.tasks}
            self._writers = writers_of(loop.tasks)
            with self._cond:
                self._step, self._progress = None, {}
                self._publish_locked()
            if not more:
                return

    def _preview(self, loop: Any) -> list[Task]:
        """The tasks the next superstep will run (planning is pure); [] when none can be planned."""
        if loop.status != "running" or loop.step > loop.stop:
            return []
        try:
            return plan_tasks(
                loop.graph.nodes, loop.graph.trigger_to_nodes, loop.state, loop.step, loop.ns, loop.updated_channels
            )
        except Exception:  # planning itself fails (bad node input): `loop.plan()` records it
            return []

    def _reasons(self, planned: list[Task], just_ran: set[str]) -> list[str]:
        names = {t.name for t in planned if t.name != START}
        if not names:
            return []  # the hidden __start__ step only writes the input
        with self._cond:
            bp, single, requested = self._breakpoints, self._single_step, self._pause_requested
        return bp.reasons(next_nodes=names, just_ran=just_ran, single=single, requested=requested)

    def _pause(self, loop: Any, planned: list[Task], reasons: list[str]) -> bool:
        """Waits at a pause; applies edits as they come. False when the user stopped the run."""
        with self._cond:
            self._single_step = self._pause_requested = False
            self._publish_locked(status=PAUSED, pause=self._pause_of(loop, planned, reasons))
        while True:
            with self._cond:
                self._cond.wait_for(lambda: bool(self._commands))
                command = self._commands.popleft()
            if command.kind == "stop":
                self._finish_stopped()
                command.done.set()
                return False
            if command.kind in ("step", "continue"):
                with self._cond:
                    self._single_step = command.kind == "step"
                    self._publish_locked(status=RUNNING, pause=None)
                command.done.set()
                return True
            if command.kind == "answer":
                command.error = "Nothing asks a question here: answers are for interrupt()."
                command.done.set()
                continue
            try:
                self._apply_edit(loop, command.values, command.as_node)
            except EditError as exc:
                command.error = str(exc)
            else:
                planned = self._preview(loop)
                as_node = command.as_node or self._snapshot.pause.default_as
                reasons = [*reasons, f"you edited {', '.join(command.values)} as {as_node}"]
            with self._cond:
                self._publish_locked(pause=self._pause_of(loop, planned, reasons))
            command.done.set()

    def _apply_edit(self, loop: Any, values: Any, as_node: str | None) -> None:
        as_node, channels = apply_edit(loop, values, as_node)
        self._writers = {channel: [f"your edit as {as_node}"] for channel in channels}
        self._publish()

    def _pause_of(self, loop: Any, planned: list[Task], reasons: list[str]) -> Pause:
        graph = loop.graph
        tasks = tuple(PlannedTask(t.id, t.name, why(t.name, t.fired, self._writers), encode(t.input)) for t in planned)
        return Pause(
            step=loop.step,
            reasons=tuple(reasons),
            tasks=tasks,
            state=encode(loop.read_state()),
            channels={k: getattr(graph.channels[k], "reducer_name", "LastValue") for k in graph.state_keys_ordered},
            edit_as=tuple(n for n in graph.nodes if n != START),
            default_as=infer_as_node(graph, loop.state.versions_seen),
        )

    # ---- task progress (called on the threads that run the tasks) -------------------------------

    def _ask(self, task: Task, question: Any) -> Any:
        """On the task's thread: pauses with `question` until the user answers (returns the answer)
        or stops the run (returns `NO_ANSWER`). One question at a time."""
        with self._asking, self._cond:
            if self._stop_requested or self._final:
                return NO_ANSWER
            loop = self._loop
            graph = loop.graph
            pause = Pause(
                step=task.step,
                reasons=(f"interrupt() in {task.name} asks a question",),
                tasks=(
                    PlannedTask(
                        task.id, task.name, "asked with interrupt(); runs again with your answer", encode(task.input)
                    ),
                ),
                state=encode(loop.read_state()),
                channels={k: getattr(graph.channels[k], "reducer_name", "LastValue") for k in graph.state_keys_ordered},
                edit_as=(),
                default_as=None,
                interrupts=(encode(question),),
            )
            self._set_progress(task, "asking")
            self._publish_locked(status=PAUSED, pause=pause)
            while True:
                self._cond.wait_for(lambda: bool(self._commands))
                command = self._commands.popleft()
                if command.kind in ("answer", "stop"):
                    break
                command.error = "Answer the question first: interrupt() is waiting for it."
                command.done.set()
            if command.kind == "answer":
                self._set_progress(task, "running")
                self._publish_locked(status=RUNNING, pause=None)
        if command.kind == "stop":
            self._finish_stopped()
            command.done.set()
            return NO_ANSWER
        command.done.set()
        return command.values

    def _set_progress(self, task: Task, state: str) -> None:
        current = self._progress.get(task.id)
        if current is not None:
            self._progress[task.id] = replace(current, state=state)

    def _task_started(self, task: Task) -> None:
        with self._cond:
            if task.id in self._progress:
                self._progress[task.id] = TaskProgress(task.id, task.name, "running", time.monotonic())
                self._publish_locked()

    def _task_ended(self, task: Task) -> None:
        with self._cond:
            started = self._progress.get(task.id)
            if started is None:
                return
            if task.interrupts:
                state, error = "interrupted", ""
            elif task.error is not None:
                state, error = "failed", f"{type(task.error).__name__}: {task.error}"
            else:
                state, error = "done", ""
            writes = tuple((channel, encode(value)) for channel, value in task.writes)
            self._progress[task.id] = replace(started, state=state, duration=task.duration, error=error, writes=writes)
            self._publish_locked()

    # ---- publishing and finishing ----------------------------------------------------------------

    def _publish(self, **changes: Any) -> None:
        with self._cond:
            self._publish_locked(**changes)

    def _publish_locked(self, **changes: Any) -> None:
        if self._final:
            return
        current = self._snapshot
        changes.setdefault("trace", self._committed())
        changes.setdefault("step", self._step)
        changes.setdefault("running", tuple(self._progress.values()))
        self._snapshot = replace(current, version=current.version + 1, **changes)
        self._cond.notify_all()

    def _committed(self) -> Trace | None:
        """The trace as far as committed: a shallow copy sharing the closed StepRecords."""
        trace = self.recorder.trace
        if trace is None:
            return None
        steps = trace.steps
        closed = len(steps) - 1 if steps and not steps[-1].committed else len(steps)
        view = copy.copy(trace)
        view.steps = steps[:closed]
        return view

    def _finish(self) -> None:
        """The worker is done (the run ended, failed or was stopped): store the trace, then publish it."""
        if self._stop_requested:
            self._finish_stopped()
            return
        with self._cond:
            if self._final:
                return
            self._final = True
            trace = self.recorder.trace
            status = trace.status if trace is not None else "error"
            message = error_line(trace) if trace is not None else "The run did not start."
            loop = self._loop
            if status == "interrupted" and loop is not None and loop.interrupts:
                questions = ", ".join(repr(getattr(i, "value", i)) for i in loop.interrupts)
                message = f"Stopped by interrupt(): {questions}. Resume it from the step-through page."
        self._publish_final(trace, status, message)

    def _finish_stopped(self) -> LiveSnapshot:
        """Stop: the committed steps, plus the step that was running (never committed) with its tasks."""
        with self._cond:
            if self._final:
                return self._snapshot
            self._final = True
            trace = self._committed() or Trace(ns=[], graph={}, input=None, config=None, run_id=self._snapshot.run_id)
            progress = self._progress.values()
            running = [p for p in progress if p.state in ("waiting", "running", "asking")]
            finished = [p for p in progress if p.state == "done"]
            pause = self._snapshot.pause
            before = pause.step if pause is not None else None
            message = cancel(trace, self._step, self._open_record(), running, before, finished)
        self._publish_final(trace, CANCELLED, message)
        return self._snapshot

    def _open_record(self) -> StepRecord | None:
        """The recorder's record of the newest step (`cancel` keeps it if it never committed)."""
        trace = self.recorder.trace
        return trace.steps[-1] if trace is not None and trace.steps else None

    def _publish_final(self, trace: Trace | None, status: str, message: str) -> None:
        stored, note = self._store(trace)
        with self._cond:
            current = self._snapshot
            self._step, self._progress = None, {}
            self._snapshot = replace(
                current,
                version=current.version + 1,
                status=status,
                trace=trace,
                step=None,
                running=(),
                pause=None,
                message=(message + note).strip(),
                stored=stored,
            )
            self._cond.notify_all()

    def _store(self, trace: Trace | None) -> tuple[str, str]:
        """(where the run was stored, a note when it could not be)."""
        if not self.store or trace is None:
            return "", ""
        from debugger.stores.protocol import StoreError
        from debugger.stores.sqlite import RunStore

        try:
            store = RunStore(self.db)
            store.save(trace)
        except StoreError as exc:
            return "", f" It could not be stored: {exc}"
        return str(store.path), ""
