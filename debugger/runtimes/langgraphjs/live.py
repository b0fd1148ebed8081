"""`JSSegments`: a live run of a LangGraph.js app, one segment at a time (the `Segments` of
`runtimes/segmented_live.py`, which drives it), over ONE long-lived node process running `recorder.mjs`
in `mode: "live"` (`live.mjs`: the command lines it reads).

Each segment is `graph.stream(input | null | new Command({resume}), {...config, interruptBefore: every
node})`, which LangGraph.js's own breakpoint ends before the next superstep; between segments the state is
LangGraph.js's `getState`, an edit its `updateState(config, values, asNode)`. The run goes on the run's
fresh thread id, on the app's own checkpointer or, for a graph compiled without one, on a copy with a
`MemorySaver`. The recorder's patches record each segment as a run of its own (the events `reader.py`
documents), and the same events report progress as they come: a `task` event starts a task, `task_done`
ends it, `commit` commits the step. Stop kills node; every committed step has already been read. A node
that hangs is the controller's per-step limit's to end (`debugger/live/controller.py`): it stops the run,
which kills node.
"""

from __future__ import annotations

import queue
import time
from typing import Any

from debugger.runtimes.driven import EditError, LiveRunError, TaskEnd
from debugger.runtimes.segmented_live import NOT_GIVEN, Edited, LiveSetup, NextTask, Question, Standing, StepReports
from engine.codec import decode
from engine.trace import Trace

from .process import JSAppError, NodeRun
from .reader import EventReader, _stepscope_error

START = "__start__"
READY_TIMEOUT = 60.0
"""Seconds node may take to load the app and get ready for commands."""


class _LiveReader(EventReader):
    """The recorder's events of a live run: one root run per segment, progress reported as it comes, and
    the replies to the commands queued for the driving thread."""

    def __init__(self, *, target: str, run_id: str, reports: StepReports) -> None:
        super().__init__(target=target, run_id=run_id)
        self.segments: list[Trace] = []
        self.replies: queue.Queue[dict[str, Any]] = queue.Queue()
        self.ready: dict[str, Any] | None = None
        self.reports = reports
        self._names: dict[str, str] = {}

    def feed(self, event: dict[str, Any]) -> None:
        """Applies one event, then reports its progress (after the reader's lock is let go: the
        controller reads `trace()` from inside its progress calls, which takes that lock)."""
        with self.reports.held():
            super().feed(event)

    def _on_live_ready(self, event: dict[str, Any]) -> None:
        self.ready = event

    def _on_reply(self, event: dict[str, Any]) -> None:
        self.replies.put(event)

    def _on_run(self, event: dict[str, Any]) -> None:
        if event.get("parent_run") is None:
            self.root = None  # a new segment: a root run of its own
        super()._on_run(event)
        if event.get("parent_run") is None and self.trace is not None and self.trace not in self.segments:
            self.segments.append(self.trace)

    def _is_root(self, event: dict[str, Any]) -> bool:
        return self.root is not None and self.runs.get(event.get("run")) is self.root

    def _on_task(self, event: dict[str, Any]) -> None:
        super()._on_task(event)
        task = event["task"]
        if not self._is_root(event) or task["name"] == START:
            return
        self._names[task["id"]] = task["name"]
        self.reports.task_started(task["id"], task["name"], step=event["step"])

    def _on_task_done(self, event: dict[str, Any]) -> None:
        super()._on_task_done(event)
        name = self._names.get(event["id"])
        if not self._is_root(event) or name is None:
            return
        error = event.get("error") or None
        asked = bool(error) and error.get("class") == "GraphInterrupt"
        self.reports.task_ended(
            TaskEnd(
                event["id"],
                name,
                "interrupted" if asked else "failed" if error else "done",
                duration=float(event.get("duration") or 0.0),
                error=f"{error.get('class', 'Error')}: {error.get('message', '')}" if error and not asked else "",
                writes=tuple((channel, value) for channel, value in event.get("writes", [])),
            )
        )

    def _on_commit(self, event: dict[str, Any]) -> None:
        super()._on_commit(event)
        if self._is_root(event):
            self.reports.committed(int(event["step"]))


class JSSegments:
    """A LangGraph.js app's graph (`JSGraph`) side of a live run, over one node process (module doc)."""

    title = "a LangGraph.js app"
    resume_hint = "Answer it in a live run (the app), or with `stepscope run app.mjs:graph --thread ID --resume VALUE`."
    limit_key = "recursionLimit"

    def __init__(self, setup: LiveSetup) -> None:
        self.graph, self.target = setup.graph, setup.target
        self._reader = _LiveReader(target=setup.target, run_id=setup.run_id, reports=setup.reports)
        self.node = self._start_node(setup.config)
        """The node process the app runs in."""
        self._state: dict[str, Any] | None = None
        """LangGraph.js's `getState` at the boundary the run stands at (None before the input ran)."""
        self._stopping = self._closed = False

    def _start_node(self, config: dict[str, Any]) -> NodeRun:
        """node, loaded with the app and waiting for commands; LiveRunError (one line) when it cannot be."""
        request = {"app": str(self.graph.app), "export": self.graph.export, "config": config, "mode": "live"}
        try:
            node = NodeRun(request, self._reader, keep_stdin=True)
        except JSAppError as exc:
            raise LiveRunError(f"{self.target}: {exc}") from None
        waited = time.monotonic()
        while self._reader.ready is None and self._reader.fatal is None and node.process.poll() is None:
            if time.monotonic() - waited > READY_TIMEOUT:
                node.stop()
                raise LiveRunError(f"{self.target}: node did not load the app within {READY_TIMEOUT:g} s.")
            time.sleep(0.02)
        if self._reader.ready is None:
            node.wait(5)
            why = self._reader.fatal or node.stderr_line() or f"node exited with status {node.process.returncode}"
            raise LiveRunError(f"{self.target}: the live run could not start: {why}")
        return node

    def open(self) -> None:
        """Nothing to prepare: node is already waiting for the first segment."""

    def segment(self, *, graph_input: Any, resume: Any, limit: int | None) -> Standing | None:
        """One `step` command and its reply (the state after the segment)."""
        command: dict[str, Any] = {"cmd": "step"}
        if graph_input is not NOT_GIVEN:
            command.update(first=True, input=graph_input)
        if resume is not NOT_GIVEN:
            command["resume"] = resume
        if limit:
            command["recursionLimit"] = limit
        reply = self._call(command)
        if reply is None:
            return None
        self._state = reply.get("state") or self._state or {}
        return self._standing(failed=bool(reply.get("error")))

    def _standing(self, *, failed: bool = False) -> Standing:
        state = self._state or {}
        asked = [i for task in state.get("tasks", ()) for i in task.get("interrupts", ())]
        questions = tuple(Question(i.get("id"), i.get("value")) for i in asked)
        return Standing(tuple(state.get("next", ())), questions, failed)

    def _call(self, command: dict[str, Any]) -> dict[str, Any] | None:
        """Sends one command and waits for its reply; None when node is gone (the run then ends, its
        recording closed with the reason). A reply that never comes is the controller's step limit's:
        it stops the run, which ends node."""
        if self._stopping or not self.node.send(command):
            self._lost()
            return None
        while True:
            try:
                return self._reader.replies.get(timeout=0.2)
            except queue.Empty:
                if self.node.process.poll() is not None:
                    for thread in self.node.threads[:1]:
                        thread.join(2)  # the events still in the pipe
                    if not self._reader.replies.empty():
                        return self._reader.replies.get()
                    self._lost()
                    return None

    def _lost(self) -> None:
        """node ended (Stop, a crash, `process.exit()` in a node): the open segments end with the reason."""
        if self._closed:
            return
        self._closed = True
        self.node.stop()
        for thread in self.node.threads:
            thread.join(2)
        if self._reader.trace is None:
            return
        stopped = "cancelled" if self._stopping and self._reader.ending is None else None
        why = "Stopped {where}; what was recorded is kept."
        self._reader.close(stopped=stopped, why=why, empty_run=lambda: None)

    def request_stop(self) -> None:
        """Kills node at once (SIGTERM: the recorder flushes every committed step and exits)."""
        self._stopping = True
        if self.node.process.poll() is None:
            self.node.process.terminate()

    def close(self) -> None:
        """Ends node (a `stop` command, then SIGTERM) and closes the recording."""
        if not self._closed and self.node.process.poll() is None:
            self.node.send({"cmd": "stop"})
            try:
                self.node.process.wait(2)
            except Exception:  # noqa: BLE001 - it did not leave by itself: stopped below
                pass
        self._lost()
        if self.node.process.stdin is not None:
            try:
                self.node.process.stdin.close()
            except OSError:
                pass

    # ---- what a pause shows, and an edit ----------------------------------------------------------

    def pause_state(self) -> tuple[dict[str, Any], list[NextTask]]:
        """`getState`'s values and next tasks (a Send's target receives its `send_arg`)."""
        state = self._state or {}
        values = state.get("values") or {}
        tasks = []
        for task in state.get("tasks", ()):
            sent = bool(task.get("push"))
            given = task.get("send_arg", values) if sent else values
            tasks.append(NextTask(task["id"], task["name"], sent, bool(task.get("interrupts")), given))
        return values, tasks

    def reducers(self) -> dict[str, str]:
        channels = self.graph.description.get("channels", {})
        return {key: str(channel.get("reducer", "LastValue")) for key, channel in channels.items()}

    def nodes(self) -> tuple[str, ...]:
        return tuple(self.graph.builder.nodes)

    def apply_edit(self, values: dict[str, Any], as_node: str) -> Edited:
        """LangGraph.js's `updateState` on the run's thread, in node."""
        if as_node not in self.graph.builder.nodes:
            raise EditError(f"{as_node!r} is not a node of this graph.")
        reply = self._call({"cmd": "update", "values": values, "asNode": as_node})
        if reply is None:
            raise EditError("node is gone: the live run ended; start it again.")
        if reply.get("error"):
            error = reply["error"]
            raise EditError(f"{error.get('class', 'Error')}: {error.get('message', '')}".strip())
        state = self._state = reply.get("state") or {}
        after = {key: decode(value) for key, value in (state.get("values") or {}).items()}
        return Edited(state.get("step"), after, reply.get("checkpoint") or {}, self._standing())

    # ---- the recording --------------------------------------------------------------------------

    def recorded(self) -> list[Trace]:
        with self._reader.lock:
            return list(self._reader.segments)

    def asked(self, interrupt: dict[str, Any]) -> Any:
        return decode(interrupt.get("value"))

    def recursion_error(self, limit: Any) -> dict[str, Any]:
        return _stepscope_error(
            "GraphRecursionError", f"Recursion limit of {limit} reached without hitting a stop condition."
        )
