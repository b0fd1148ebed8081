"""`LiveRun`: one graph run driven on a background thread, superstep by superstep, that a page or the
CLI can watch, pause, step, edit and stop while it goes.

The run itself is a `DrivenRun` (`debugger/runtimes/driven.py`, asked of the graph's runtime by
`start.start_live_run`), taking one superstep at a time and saying what the next one would run.
Everything else is here, once for every runtime. Between two supersteps the controller looks at what the
next one would run and decides whether to pause: a breakpoint before a node of that step or after a node
of the step just committed, step mode, a Step, or the Pause button. While paused, the worker thread
waits for a command: Step (run exactly one superstep, then pause again), Continue (run to the next
breakpoint or the end), an edit (the value goes through the key's reducer as a chosen node's write, and
is recorded as a step of kind `update`), or Stop. An `interrupt()` pauses too, on whichever thread waits
for the answer, until the question is answered. Only the worker thread drives the run; other threads
send commands and read snapshots.

What the outside sees is a `LiveSnapshot` (`status.py`), rebuilt after every change: the trace of
the committed supersteps (a shallow copy: a committed StepRecord is never changed again, so copies
share them), the tasks running now with their progress, and the pause. A finished live run is a
stored run like any other (`RunStore`). Stop answers at once even when a node is stuck: the run is
recorded as far as it got (status `cancelled`, as a Ctrl-C in the CLI) and stored; the node's thread
cannot be killed in Python, so it finishes on its own and its result is dropped.

A step (or an edit) that takes longer than the per-step limit ends the run the same way, with status
`timeout` and one line naming the nodes still running: a node that never returns (a network call
without a timeout, an endless loop) must not hang the page. The limit is the app's run limit
(`$STEPSCOPE_RUN_TIMEOUT`, else 60 s); a watchdog thread keeps it (`limit.py`), so it holds for every
runtime. The time a question of `interrupt()` waits for its answer does not count.
"""

from __future__ import annotations

import collections
import threading
import time
from dataclasses import dataclass, field, replace
from typing import Any, Sequence

from debugger.i18n import N_, Later
from debugger.live.ending import cancel, error_line
from debugger.live.limit import StepLimit
from debugger.live.running_tasks import RunningTasks
from debugger.live.status import (
    CANCELLED,
    PAUSED,
    RUNNING,
    STOPPING,
    TIMEOUT,
    Breakpoints,
    LiveSnapshot,
    Pause,
)
from debugger.runtimes.driven import (
    NO_ANSWER,
    Boundary,
    DrivenRun,
    EditError,
    LiveRunError,
    PlannedTask,
    TaskEnd,
    Upcoming,
)
from debugger.sources.recording import app_run_timeout
from debugger.stores.protocol import StoreError
from debugger.stores.sqlite import RunStore
from engine.trace import Trace

__all__ = ["EditError", "LiveRun", "LiveRunError"]


@dataclass
class _Command:
    kind: str
    """`step`, `continue`, `stop`, `edit` or `answer`."""
    values: Any = None
    as_node: str | None = None
    done: threading.Event = field(default_factory=threading.Event)
    error: str | None = None


class LiveRun:
    """Drives `driven` in the background. Thread-safe: call its methods from anywhere. It is also
    the `RunProgress` its driven run reports to (the methods under "what the driven run reports")."""

    def __init__(
        self,
        driven: DrivenRun,
        *,
        breakpoints: Breakpoints | None = None,
        db: str | None = None,
        store: bool = True,
        ask: bool = True,
        step_timeout: float | None = None,
        run_timeout: float | None = None,
    ) -> None:
        self.driven = driven
        self.graph, self.graph_input, self.config = driven.graph, driven.graph_input, driven.config
        """The graph as the user wrote it, its input and the config the run goes with."""
        self.target = driven.target
        self.db = db
        self.store = store
        self.ask = ask
        """Whether an `interrupt()` pauses the run with its question (else it ends the run, as `invoke` does)."""
        self._asking = threading.Lock()
        seconds = step_timeout if step_timeout is not None else app_run_timeout()
        self._limit = StepLimit(seconds, self._time_out, name=self.target)
        """Seconds one superstep or edit may take before the run ends `timeout` (module doc)."""
        self._run_limit = run_timeout
        """Seconds the whole run may take (`stepscope run --follow --timeout`), pauses included, or None."""
        self._run_timer: threading.Timer | None = None
        self._run_limit_hit = False
        compiled = Breakpoints.of(driven.interrupt_before, driven.interrupt_after)
        self._breakpoints = breakpoints if breakpoints is not None else compiled
        self._cond = threading.Condition()
        self._commands: collections.deque[_Command] = collections.deque()
        self._snapshot = LiveSnapshot(0, "starting", None, run_id=driven.run_id, breakpoints=self._breakpoints)
        self._running = RunningTasks()
        self._single_step = False
        self._pause_requested = False
        self._stop_requested = False
        self._final = False
        self._thread: threading.Thread | None = None

    # ---- what callers use ------------------------------------------------------------------------

    def start(self) -> "LiveRun":
        """Starts the worker thread; returns the run."""
        self._thread = threading.Thread(target=self._work, name=f"stepscope-live-{self.target}", daemon=True)
        self._thread.start()
        self._limit.start()
        if self._run_limit is not None:
            self._run_timer = threading.Timer(self._run_limit, self._time_out, kwargs={"whole_run": True})
            self._run_timer.daemon = True
            self._run_timer.start()
        return self

    def snapshot(self) -> LiveSnapshot:
        """The run as it stands now."""
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
            self.driven.request_stop()
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
            raise EditError(
                Later(N_("The run is not paused: pause it (or set a breakpoint) before editing the state."))
            )
        late = Later(N_("The run did not take the edit in time; try again."))
        self._send_and_check(_Command("edit", values, as_node), timeout, late)

    def answer(self, value: Any, timeout: float = 10.0) -> None:
        """At a pause made by `interrupt()`: the node runs again from its top and its `interrupt()`
        returns `value` (LangGraph's `Command(resume=value)`). Raises `EditError` if nothing asks."""
        pause = self._snapshot.pause
        if self._snapshot.status != PAUSED or pause is None or not pause.interrupts:
            raise EditError(Later(N_("No interrupt() is waiting for an answer.")))
        late = Later(N_("The run did not take the answer in time; try again."))
        self._send_and_check(_Command("answer", value), timeout, late)

    def join(self, timeout: float | None = None) -> LiveSnapshot:
        """Waits for the run to finish; the final snapshot."""
        return self.wait_until(lambda s: s.finished, timeout=timeout if timeout is not None else 3600.0)

    # ---- what the driven run reports (RunProgress), from any thread ------------------------------

    def step_started(self, step: int, tasks: Sequence[tuple[str, str]] = ()) -> None:
        """Superstep `step` began: its tasks (id, node) wait to start."""
        with self._cond:
            self._running.step_started(step, tasks)
            self._publish_locked()

    def task_started(self, task_id: str, name: str) -> None:
        """A task of the running superstep began."""
        with self._cond:
            self._running.task_started(task_id, name)
            self._publish_locked()

    def task_ended(self, ended: TaskEnd) -> None:
        """A task ended; timed from its start unless the runtime timed it."""
        with self._cond:
            self._running.task_ended(ended)
            self._publish_locked()

    def step_committed(self) -> None:
        """The running superstep committed: nothing runs until the next one starts."""
        with self._cond:
            self._running.clear()
            self._publish_locked()

    def ask_user(self, boundary: Boundary, asking: Sequence[PlannedTask]) -> Any:
        """Pauses with `boundary`'s question until the user answers (returns the answer) or stops the
        run (returns `NO_ANSWER`). One question at a time; called on whichever thread waits for it."""
        names = tuple(sorted({t.name for t in asking}))
        with self._asking, self._cond:
            if self._stop_requested or self._final:
                return NO_ANSWER
            for task in asking:
                self._running.set_state(task.id, "asking")
            reason = Later(N_("interrupt() in {nodes} asks a question"), nodes=names)
            self._limit.time(None)  # the user may take their time to answer
            self._publish_locked(status=PAUSED, pause=Pause.at(boundary, [reason]))
            while True:
                self._cond.wait_for(lambda: bool(self._commands))
                command = self._commands.popleft()
                if command.kind in ("answer", "stop"):
                    break
                command.error = Later(N_("Answer the question first: interrupt() is waiting for it."))
                command.done.set()
            if command.kind == "answer":
                for task in asking:
                    self._running.set_state(task.id, "running")
                self._limit.time("step")  # the node runs again, from its top
                self._publish_locked(status=RUNNING, pause=None)
        if command.kind == "stop":
            self._finish_stopped()
            command.done.set()
            return NO_ANSWER
        command.done.set()
        return command.values

    # ---- the worker thread -----------------------------------------------------------------------

    def _send(self, command: _Command, wait: bool = False) -> None:
        with self._cond:
            if self._snapshot.status != PAUSED:
                command.error = Later(N_("The run is not paused."))
                command.done.set()
                return
            self._commands.append(command)
            self._cond.notify_all()
        if wait:
            command.done.wait(5.0)

    def _send_and_check(self, command: _Command, timeout: float, late: str) -> None:
        self._send(command)
        if not command.done.wait(timeout):
            raise EditError(late)
        if command.error:
            raise EditError(command.error)

    def _work(self) -> None:
        try:
            self._drive()
        except BaseException:  # noqa: BLE001 - the run's own error (a node's SystemExit too): the trace has it
            pass
        try:
            self._finish()
        finally:
            self.driven.close()

    def _drive(self) -> None:
        driven = self.driven
        driven.start(self, ask=self.ask)
        self._publish(status=RUNNING)
        while not self._stop_requested:
            reasons = self._reasons(driven.preview())
            if reasons and not self._pause(reasons):
                return
            self._limit.time("step")
            try:
                more = driven.step()
            finally:
                self._limit.time(None)
            if not more:
                return

    def _reasons(self, upcoming: Upcoming) -> list[str]:
        if not upcoming.nodes:
            return []  # the run is over, or the hidden __start__ step only writes the input
        with self._cond:
            bp, single, requested = self._breakpoints, self._single_step, self._pause_requested
        return bp.reasons(
            next_nodes=set(upcoming.nodes), just_ran=set(upcoming.just_ran), single=single, requested=requested
        )

    def _pause(self, reasons: list[str]) -> bool:
        """Waits at a pause; applies edits as they come. False when the user stopped the run."""
        boundary = self.driven.boundary()
        with self._cond:
            self._single_step = self._pause_requested = False
            self._publish_locked(status=PAUSED, pause=Pause.at(boundary, reasons))
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
                command.error = Later(N_("Nothing asks a question here: answers are for interrupt()."))
            else:
                self._limit.time("edit")
                try:
                    as_node = self.driven.update_state(command.values, command.as_node)
                except EditError as exc:
                    command.error = str(exc)
                else:
                    boundary = self.driven.boundary()
                    edited = Later(N_("you edited {keys} as {node}"), keys=tuple(command.values), node=as_node)
                    reasons = [*reasons, edited]
                    self._publish(pause=Pause.at(boundary, reasons))
                finally:
                    self._limit.time(None)
            command.done.set()

    def _time_out(self, whole_run: bool = False) -> None:
        """A limit's watchdog: the step or edit running now outlived the step limit, or with `whole_run` the
        run outlived its own (`run_timeout`); the run ends `timeout`."""
        with self._cond:
            if self._final:
                return
            self._run_limit_hit = whole_run
            self._stop_requested = True
            self.driven.request_stop()
        self._finish_stopped()

    # ---- publishing and finishing ----------------------------------------------------------------

    def _publish(self, **changes: Any) -> None:
        with self._cond:
            self._publish_locked(**changes)

    def _publish_locked(self, **changes: Any) -> None:
        if self._final:
            return
        current = self._snapshot
        changes.setdefault("trace", self.driven.trace())
        changes.setdefault("step", self._running.step)
        changes.setdefault("running", self._running.progress())
        self._snapshot = replace(current, version=current.version + 1, **changes)
        self._cond.notify_all()

    def _finish(self) -> None:
        """The worker is done (the run ended, failed or was stopped): store the trace, then publish it."""
        if self._stop_requested:
            self._finish_stopped()
            return
        with self._cond:
            if self._final:
                return
            self._final = True
            trace = self.driven.trace(final=True)
            status = "error" if trace is None or trace.status == "running" else trace.status
            message = error_line(trace) if trace is not None else Later(N_("The run did not start."))
            questions = self.driven.questions() if status == "interrupted" else ()
            if questions:
                asked = tuple(repr(q) for q in questions)
                said = N_("Stopped by interrupt(): {asked}. {hint}")
                message = Later(said, asked=asked, hint=self.driven.resume_hint)
        self._publish_final(trace, status, message)

    def _finish_stopped(self) -> LiveSnapshot:
        """Stop: the committed steps, plus the step that was running (never committed) with its tasks."""
        with self._cond:
            if self._final:
                return self._snapshot
            self._final = True
            trace = self.driven.trace() or Trace(ns=[], graph={}, input=None, config=None, run_id=self._snapshot.run_id)
            running, finished = self._running.unfinished(), self._running.finished()
            pause = self._snapshot.pause
            before = pause.step if pause is not None else None
            timed_out = self._limit.expired or self._run_limit_hit
            limit = self._run_limit if self._run_limit_hit else self._limit.seconds if self._limit.expired else None
            editing = self._limit.what == "edit" and not self._run_limit_hit
            step, open_step = self._running.step, self.driven.open_step()
            message = cancel(
                trace,
                step,
                open_step,
                running,
                before,
                finished,
                limit=limit,
                editing=editing,
                whole_run=self._run_limit_hit,
            )
        self._publish_final(trace, TIMEOUT if timed_out else CANCELLED, message)
        return self._snapshot

    def _publish_final(self, trace: Trace | None, status: str, message: str) -> None:
        self._limit.close()
        if self._run_timer is not None:
            self._run_timer.cancel()
        stored, note = self._store(trace)
        with self._cond:
            current = self._snapshot
            self._running.clear()
            self._snapshot = replace(
                current,
                version=current.version + 1,
                status=status,
                trace=trace,
                step=None,
                running=(),
                pause=None,
                message=Later("{message} {note}", message=message, note=note) if note else message,
                stored=stored,
            )
            self._cond.notify_all()

    def _store(self, trace: Trace | None) -> tuple[str, str]:
        """(where the run was stored, a note when it could not be)."""
        if not self.store or trace is None:
            return "", ""
        try:
            store = RunStore(self.db)
            store.save(trace)
        except StoreError as exc:
            return "", Later(N_("It could not be stored: {error}"), error=str(exc))
        return str(store.path), ""
