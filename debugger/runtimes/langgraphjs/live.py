"""`JSDrivenRun`: a live run of a LangGraph.js app (the `DrivenRun` of `runtimes/driven.py`), over ONE
long-lived node process running `recorder.mjs` in `mode: "live"` (`live.mjs`: the command lines it reads).

It mirrors `runtimes/langgraph/live.py`: each `step()` is one segment, `graph.stream(input | null |
new Command({resume}), {...config, interruptBefore: every node})`, which LangGraph.js's own breakpoint ends
before the next superstep; between segments the state is LangGraph.js's `getState`, an edit its
`updateState(config, values, asNode)`, recorded here as a step of kind `update`. The run goes on a fresh
thread id (never a thread of the user's), on the app's own checkpointer or, for a graph compiled without
one, on a copy with a `MemorySaver`. The recorder's patches record each segment as a run of its own (the
events `reader.py` documents); `trace()` joins them as the langgraph live run does. The same events report
progress to the controller as they come: a `task` event starts a task, `task_done` ends it, `commit` commits
the step. Stop kills node; every committed step has already been read. A node that hangs is the
controller's per-step limit's to end (`debugger/live/controller.py`): it stops the run, which kills node.
"""

from __future__ import annotations

import queue
import time
import uuid
from typing import Any, Sequence

from debugger.runtimes import driven  # the protocol's vocabulary, named where it is used
from engine.codec import decode
from engine.trace import StepRecord, Trace, join_segments, update_step

from .process import JSAppError, NodeRun
from .reader import EventReader, _stepscope_error

START = "__start__"
READY_TIMEOUT = 60.0
"""Seconds node may take to load the app and get ready for commands."""
ASKED = "asked with interrupt(); runs again with your answer"
"""Why a task that asks a question is among the next ones."""


class NodeGone(Exception):
    """The live node process ended while a command waited for its reply."""


class _LiveReader(EventReader):
    """The recorder's events of a live run: one root run per segment, progress reported as it comes, and
    the replies to the commands queued for the driving thread."""

    def __init__(self, *, target: str, run_id: str) -> None:
        super().__init__(target=target, run_id=run_id)
        self.segments: list[Trace] = []
        self.replies: queue.Queue[dict[str, Any]] = queue.Queue()
        self.ready: dict[str, Any] | None = None
        self.progress: driven.RunProgress | None = None
        self.last_step = -1
        """The newest superstep a segment committed (-1: only the input, or nothing yet)."""
        self._open_step: int | None = None
        self._names: dict[str, str] = {}
        self._reports: list[tuple[Any, tuple[Any, ...]]] = []
        """Progress calls of the event being applied, made after the reader's lock is let go (the
        controller reads `trace()` from inside them, which takes that lock)."""

    def feed(self, event: dict[str, Any]) -> None:
        """Applies one event, then reports its progress to the controller."""
        super().feed(event)
        reports, self._reports = self._reports, []
        for report, args in reports:
            report(*args)

    def _report(self, name: str, *args: Any) -> None:
        if self.progress is not None:
            self._reports.append((getattr(self.progress, name), args))

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
        if not self._is_root(event) or self.progress is None or task["name"] == START:
            return
        if self._open_step != event["step"]:
            self._open_step = event["step"]
            self._report("step_started", event["step"])
        self._names[task["id"]] = task["name"]
        self._report("task_started", task["id"], task["name"])

    def _on_task_done(self, event: dict[str, Any]) -> None:
        super()._on_task_done(event)
        name = self._names.get(event["id"])
        if not self._is_root(event) or self.progress is None or name is None:
            return
        error = event.get("error") or None
        asked = bool(error) and error.get("class") == "GraphInterrupt"
        self._report(
            "task_ended",
            driven.TaskEnd(
                event["id"],
                name,
                "interrupted" if asked else "failed" if error else "done",
                duration=float(event.get("duration") or 0.0),
                error=f"{error.get('class', 'Error')}: {error.get('message', '')}" if error and not asked else "",
                writes=tuple((channel, value) for channel, value in event.get("writes", [])),
            ),
        )

    def _on_commit(self, event: dict[str, Any]) -> None:
        super()._on_commit(event)
        if not self._is_root(event):
            return
        self.last_step = max(self.last_step, int(event["step"]))
        if self._open_step == event["step"] and self.progress is not None:
            self._open_step = None
            self._report("step_committed")


class JSDrivenRun:
    """Drives a LangGraph.js app's graph (`JSGraph`) one superstep (one segment) at a time (module doc)."""

    resume_hint = "Answer it in a live run (the app), or with `stepscope run app.mjs:graph --thread ID --resume VALUE`."

    def __init__(
        self,
        graph: Any,
        graph_input: Any,
        config: dict[str, Any] | None = None,
        *,
        target: str = "",
        hooks: Any = None,
    ) -> None:
        name = target or graph.name
        if hooks is not None:
            raise driven.LiveRunError(f"{name}: engine hooks cannot watch a LangGraph.js app's run; leave `hooks` out.")
        self.graph, self.graph_input, self.target = graph, graph_input, name
        self.thread_id = f"stepscope-live-{uuid.uuid4().hex[:12]}"
        """A fresh thread: the run never reads or writes a thread of the user's."""
        self.config = dict(config or {})
        self.config["configurable"] = {**(self.config.get("configurable") or {}), "thread_id": self.thread_id}
        self.run_id = uuid.uuid4().hex
        self.interrupt_before = tuple(graph.interrupt_before_nodes)
        self.interrupt_after = tuple(graph.interrupt_after_nodes)
        self._reader = _LiveReader(target=name, run_id=self.run_id)
        self._node = self._start_node()
        self._asks = False
        self._state: dict[str, Any] | None = None
        """LangGraph.js's `getState` at the boundary the run stands at (None before the input ran)."""
        self._edits: list[StepRecord] = []
        self._ended = self._out_of_steps = self._stopping = self._closed = False

    def _start_node(self) -> NodeRun:
        """node, loaded with the app and waiting for commands; driven.LiveRunError (one line) when it cannot be."""
        request = {"app": str(self.graph.app), "export": self.graph.export, "config": self.config, "mode": "live"}
        try:
            node = NodeRun(request, self._reader, keep_stdin=True)
        except JSAppError as exc:
            raise driven.LiveRunError(f"{self.target}: {exc}") from None
        waited = time.monotonic()
        while self._reader.ready is None and self._reader.fatal is None and node.process.poll() is None:
            if time.monotonic() - waited > READY_TIMEOUT:
                node.stop()
                raise driven.LiveRunError(f"{self.target}: node did not load the app within {READY_TIMEOUT:g} s.")
            time.sleep(0.02)
        if self._reader.ready is None:
            node.wait(5)
            why = self._reader.fatal or node.stderr_line() or f"node exited with status {node.process.returncode}"
            raise driven.LiveRunError(f"{self.target}: the live run could not start: {why}")
        return node

    # ---- driving --------------------------------------------------------------------------------

    def start(self, progress: driven.RunProgress, *, ask: bool) -> None:
        """Connects the progress reports (node is already waiting for the first segment)."""
        self._reader.progress, self._asks = progress, ask

    def preview(self) -> driven.Upcoming:
        """LangGraph.js's next nodes at this boundary, and the nodes of the last loop step recorded."""
        if self._state is None:
            return driven.Upcoming.of()
        return driven.Upcoming.of(self._state.get("next", ()), self._ran_last())

    def step(self) -> bool:
        """One segment (the input's, first); again with the answer while an `interrupt()` asks."""
        if self._ended:
            return False
        command: dict[str, Any] = (
            {"cmd": "step", "first": True, "input": self.graph_input} if self._state is None else {"cmd": "step"}
        )
        while not self._stopping:
            limit = self._segment_limit()
            if limit is None:
                self._out_of_steps = True  # the whole run has used the user's recursion limit
                return False
            if limit:
                command["recursionLimit"] = limit
            reply = self._call(command)
            if reply is None:
                return False
            self._state = reply.get("state") or self._state or {}
            if reply.get("error"):
                self._ended = True
                return False  # the segment's own failure is in its recorded run
            pending = [i for task in self._state.get("tasks", ()) for i in task.get("interrupts", ())]
            if not pending:
                self._ended = not self._state.get("next")
                return not self._ended
            if not self._asks:
                return False  # `--follow`: an interrupt ends the run, as `invoke` does
            boundary = self._boundary(self._state, pending[:1])
            answer = self._reader.progress.ask_user(boundary, [t for t in boundary.tasks if t.why == ASKED])
            if answer is driven.NO_ANSWER:
                return False
            several = len(pending) > 1 and pending[0].get("id")
            command = {"cmd": "step", "resume": {pending[0]["id"]: answer} if several else answer}
        return False

    def _segment_limit(self) -> int | None:
        """What is left of the user's recursion limit for the next segment (0: the user's own, for the
        first); None when it is used up. LangGraph.js counts it per invocation, as langgraph does."""
        limit = int(self.config.get("recursionLimit") or 25)
        last = self._reader.last_step
        if self._state is None or last < 0:
            return 0
        allowed = limit - last
        return None if allowed <= 0 else max(allowed - 2, 1)

    def _call(self, command: dict[str, Any]) -> dict[str, Any] | None:
        """Sends one command and waits for its reply; None when node is gone (the run then ends, its
        recording closed with the reason). A reply that never comes is the controller's step limit's:
        it stops the run, which ends node."""
        if self._stopping or not self._node.send(command):
            self._lost()
            return None
        while True:
            try:
                return self._reader.replies.get(timeout=0.2)
            except queue.Empty:
                if self._node.process.poll() is not None:
                    for thread in self._node.threads[:1]:
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
        self._node.stop()
        for thread in self._node.threads:
            thread.join(2)
        if self._reader.trace is None:
            return
        stopped = "cancelled" if self._stopping and self._reader.ending is None else None
        why = "Stopped {where}; what was recorded is kept."
        self._reader.close(stopped=stopped, why=why, empty_run=lambda: None)

    def boundary(self) -> driven.Boundary:
        """The pause from `getState` at this boundary."""
        return self._boundary(self._state or {}, [])

    def questions(self) -> tuple[Any, ...]:
        """The questions the last segment ended on."""
        segments = self._reader.segments
        return tuple(decode(i.get("value")) for i in segments[-1].interrupts) if segments else ()

    def request_stop(self) -> None:
        """Kills node at once (SIGTERM: the recorder flushes every committed step and exits)."""
        self._stopping = True
        if self._node.process.poll() is None:
            self._node.process.terminate()

    def close(self) -> None:
        """Ends node (a `stop` command, then SIGTERM) and closes the recording."""
        if not self._closed and self._node.process.poll() is None:
            self._node.send({"cmd": "stop"})
            try:
                self._node.process.wait(2)
            except Exception:  # noqa: BLE001 - it did not leave by itself: stopped below
                pass
        self._lost()
        if self._node.process.stdin is not None:
            try:
                self._node.process.stdin.close()
            except OSError:
                pass

    # ---- what a pause shows, and an edit ----------------------------------------------------------

    def _boundary(self, state: dict[str, Any], questions: Sequence[dict[str, Any]]) -> driven.Boundary:
        values = state.get("values") or {}
        ran = self._ran_last()
        after = ", ".join(ran) or "the input"
        tasks = []
        for task in state.get("tasks", ()):
            push = bool(task.get("push"))
            why = ASKED if task.get("interrupts") else f"a Send from {after}" if push else f"edge from {after}"
            tasks.append(
                driven.PlannedTask(task["id"], task["name"], why, task.get("send_arg", values) if push else values)
            )
        channels = self.graph.description.get("channels", {})
        return driven.Boundary(
            step=self._reader.last_step + 1,
            tasks=tuple(tasks),
            state=values,
            channels={k: str(channels[k].get("reducer", "LastValue")) for k in values if k in channels},
            edit_as=() if questions else tuple(n for n in self.graph.builder.nodes if n != START),
            default_as=ran[0] if len(ran) == 1 else None,
            interrupts=tuple(q.get("value") for q in questions),
        )

    def _ran_last(self) -> list[str]:
        last = self._last_loop_step()
        return sorted({t.name for t in last.tasks if t.name != START}) if last is not None else []

    def update_state(self, values: Any, as_node: str | None) -> str:
        """LangGraph.js's `updateState` on the run's thread, recorded as a step of kind `update`."""
        channels = self.graph.description.get("channels", {})
        if not isinstance(values, dict) or not values:
            raise driven.EditError("An edit is a non-empty {key: value} update.")
        unknown = [k for k in values if k not in channels]
        if unknown:
            raise driven.EditError(f"{', '.join(map(repr, unknown))} is not a state key of this graph.")
        if as_node is None:
            ran = self._ran_last()
            if len(ran) != 1:
                raise driven.EditError("Ambiguous update, specify as_node: pick the node to edit as.")
            as_node = ran[0]
        if as_node not in self.graph.builder.nodes:
            raise driven.EditError(f"{as_node!r} is not a node of this graph.")
        reply = self._call({"cmd": "update", "values": values, "asNode": as_node})
        if reply is None:
            raise driven.EditError("node is gone: the live run ended; start it again.")
        if reply.get("error"):
            error = reply["error"]
            raise driven.EditError(f"{error.get('class', 'Error')}: {error.get('message', '')}".strip())
        state = self._state = reply.get("state") or {}
        step = state.get("step")
        step = step if isinstance(step, int) else self._reader.last_step + 1
        after = {key: decode(value) for key, value in (state.get("values") or {}).items()}
        edits = [(key, str(channels[key].get("reducer", "LastValue")), value) for key, value in values.items()]
        self._edits.append(update_step(step, as_node, edits, after, reply.get("checkpoint") or {}))
        self._reader.last_step = step
        self._ended = False  # the next segment runs on from the edit (or ends the run with its output)
        return as_node

    # ---- the recording --------------------------------------------------------------------------

    def _last_loop_step(self) -> StepRecord | None:
        trace = self.trace()
        steps = [s for s in trace.steps if s.kind == "loop" and s.step >= 0] if trace is not None else []
        return steps[-1] if steps else None

    def trace(self, *, final: bool = False) -> Trace | None:
        """The segments joined into one trace, the edits in their places (as the langgraph live run)."""
        with self._reader.lock:
            segments = list(self._reader.segments)
        if not segments:
            return None
        view = join_segments(segments, list(self._edits), final=final, run_id=self.run_id, target=self.target)
        if final and (self._out_of_steps or segments[-1].status == "recursion_limit"):
            limit = self.config.get("recursionLimit") or 25
            view.status = "recursion_limit"  # in the words of the user's limit, not the segment's share of it
            view.error = _stepscope_error(
                "GraphRecursionError", f"Recursion limit of {limit} reached without hitting a stop condition."
            )
        return view

    def open_step(self) -> StepRecord | None:
        """The last segment's newest step, while it has not committed."""
        segments = self._reader.segments
        steps = segments[-1].steps if segments else []
        return steps[-1] if steps and not steps[-1].committed else None
