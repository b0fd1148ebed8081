"""`LangGraphLiveRun`: a live run of an app written with `langgraph` itself, with the same snapshots,
commands and ending as the engine's `LiveRun` (which it extends), so the Live run page and
`stepscope run --follow` read it unchanged.

langgraph owns its loop, so the controller does not drive supersteps itself: it runs the graph with
langgraph's own breakpoints, on a background thread, under the langgraph recorder. Each segment is
one `graph.stream(input, config, interrupt_before=..., interrupt_after=...)`: the user's breakpoints
(step mode and Step are `interrupt_before="*"`), with `stream_mode=["tasks", "checkpoints"]`, whose
events say when a task starts and ends and when a superstep has committed (its checkpoint is saved).
At a pause the state is langgraph's own `graph.get_state(config)` (values, next tasks, interrupts);
Step and Continue resume with `stream(None, config, ...)`, an answer with `Command(resume=answer)`,
an edit is `graph.update_state(config, values, as_node=...)`, recorded as a step of kind `update`. A
graph with `async def` nodes runs the same way with `astream`, `aget_state` and `aupdate_state`, on
one event loop of the run's thread.
Pause, or breakpoints changed while a segment runs, leave langgraph's loop at the next checkpoint
and go on from it; each segment gets what is left of the user's recursion limit.

The run needs a checkpointer to pause and resume: the app's own one (on a fresh thread id, so no
thread of the user's is touched), or, for a graph compiled without one, a fresh `InMemorySaver` on a
copy of the graph. Every segment is a run of its own to the recorder; the snapshot shows them joined
into one trace (a resumed segment's first step only reloads the checkpoint the previous one ended
on, so it is left out), which is what is stored at the end.
"""

from __future__ import annotations

import asyncio
import collections
import copy
import threading
import time
import uuid
from typing import Any

from debugger.live.controller import LiveRun, LiveRunError
from debugger.live.edits import EditError
from debugger.live.ending import error_line, names_of
from debugger.live.status import PAUSED, RUNNING, Breakpoints, LiveSnapshot, Pause, PlannedTask, TaskProgress
from engine.codec import encode, encode_error
from engine.trace import StepRecord, Trace, join_segments, update_step

START = "__start__"


def is_langgraph(graph: Any) -> bool:
    from debugger.langgraph_recorder.names import is_langgraph_graph  # imports no langgraph

    return is_langgraph_graph(graph)


class LangGraphLiveRun(LiveRun):
    """Runs a compiled langgraph `graph` live (see the module doc). Thread-safe, as `LiveRun`."""

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
        hooks: Any = None,
        ask: bool = True,
    ) -> None:
        from debugger.langgraph_recorder.names import state_keys
        from debugger.langgraph_recorder.runs import checkpointer_of, has_async_nodes
        from debugger.langgraph_recorder.superstep import UnrecordableChannel, check_recordable

        name = target or getattr(graph, "name", "graph")
        try:
            check_recordable(getattr(graph, "channels", {}), state_keys(graph))
        except UnrecordableChannel as exc:
            raise LiveRunError(f"{name}: {exc}") from None
        self.is_async = has_async_nodes(graph)
        """The graph has `async def` nodes: it runs with `astream` (and `aget_state`, `aupdate_state`)
        on an event loop of the run's own thread, as `await graph.ainvoke(...)` would run it."""
        self.user_graph = graph
        if checkpointer_of(graph) is None:  # pausing needs checkpoints: a saver of the debugger's own
            from langgraph.checkpoint.memory import InMemorySaver

            graph = graph.copy(update={"checkpointer": InMemorySaver()})
        self.graph = graph
        self.graph_input = graph_input
        self.thread_id = f"stepscope-live-{uuid.uuid4().hex[:12]}"
        """A fresh thread: the run never reads or writes a thread of the user's."""
        self.config = copy.deepcopy(dict(config or {}))
        self.config["configurable"] = {**(self.config.get("configurable") or {}), "thread_id": self.thread_id}
        self.target = name
        self.db = db
        self.store = store
        self.extra_hooks = hooks
        self.ask = ask
        self._asking = threading.Lock()
        compiled = Breakpoints.of(
            names_of(graph.interrupt_before_nodes, graph), names_of(graph.interrupt_after_nodes, graph)
        )
        self._breakpoints = breakpoints if breakpoints is not None else compiled
        self.run_id = uuid.uuid4().hex
        self._cond = threading.Condition()
        self._commands: collections.deque[Any] = collections.deque()
        self._snapshot = LiveSnapshot(0, "starting", None, run_id=self.run_id, breakpoints=self._breakpoints)
        self._progress: dict[str, TaskProgress] = {}
        self._step: int | None = None
        self._single_step = False
        self._pause_requested = False
        self._stop_requested = False
        self._final = False
        self._writers: dict[str, list[str]] = {}
        self._loop: Any = None
        self._event_loop: asyncio.AbstractEventLoop | None = None
        self._thread: threading.Thread | None = None
        self._edits: list[StepRecord] = []
        self._last_step = -1
        self._session: Any = None
        self._out_of_steps = False

    # ---- the worker thread -----------------------------------------------------------------------

    def _drive(self) -> None:
        from langgraph.types import Command

        from debugger.langgraph_recorder import probe
        from debugger.langgraph_recorder.patches import install
        from debugger.langgraph_recorder.record import Session

        install()
        self._session = Session(target=self.target)
        token = probe.ACTIVE.set(self._session)
        if self.is_async:  # one event loop for the whole run: a saver's connections may belong to it
            self._event_loop = asyncio.new_event_loop()
        try:
            graph_input = self.graph_input
            self._publish(status=RUNNING)
            while not self._stop_requested:
                with self._cond:
                    bp, single = self._breakpoints, self._single_step
                config, one_step = self._segment_config()
                if config is None:
                    self._out_of_steps = True  # the whole run has used the user's recursion limit
                    return
                before = "*" if single or bp.every_step or one_step else sorted(bp.before)
                if not self._segment(graph_input, config, before, sorted(bp.after)):
                    return
                state = self._get_state(self.config)
                pending = [i for t in state.tasks for i in (t.interrupts or ())]
                if not state.next and not pending:
                    return  # the run ended; its last segment has the status and output
                if pending and not self.ask:
                    return  # `--follow`: an interrupt ends the run, as `invoke` does
                graph_input = None
                if not pending and not self._reasons(state, [], single):
                    continue  # no reason to pause (a step taken alone for the recursion limit, new breakpoints)
                command = self._pause_at(state, pending[:1], single)  # one question at a time
                if command is None:
                    return
                graph_input = None
                if command.kind == "answer":  # several questions pending: langgraph wants each answer by its id
                    graph_input = Command(
                        resume={pending[0].id: command.values} if len(pending) > 1 else command.values
                    )
        finally:
            probe.ACTIVE.reset(token)
            if self._event_loop is not None:
                self._event_loop.close()

    def _segment(self, graph_input: Any, config: dict[str, Any], before: Any, after: list[str]) -> bool:
        """One `stream` (or `astream`) call, publishing as it goes. False when the user stopped the run."""
        options = dict(
            interrupt_before=before or None, interrupt_after=after or None, stream_mode=["tasks", "checkpoints"]
        )
        breakpoints = self._breakpoints
        if self.is_async:
            return self._await(self._asegment(self.graph.astream(graph_input, config, **options), breakpoints))
        stream = self.graph.stream(graph_input, config, **options)
        try:
            for mode, event in stream:
                leave = self._segment_event(mode, event, breakpoints)
                if leave is not None:
                    return leave
        finally:
            stream.close()
        return not self._stop_requested

    async def _asegment(self, stream: Any, breakpoints: Breakpoints) -> bool:
        try:
            async for mode, event in stream:
                leave = self._segment_event(mode, event, breakpoints)
                if leave is not None:
                    return leave
        finally:
            await stream.aclose()
        return not self._stop_requested

    def _segment_event(self, mode: str, event: Any, breakpoints: Breakpoints) -> bool | None:
        """Publishes one streamed event. None: go on; True: leave the segment to pause; False: stopped."""
        if self._stop_requested:
            return False
        if mode == "checkpoints":
            self._committed_step(event)
            if event.get("next") and (self._pause_requested or self._breakpoints != breakpoints):
                # Pause, or breakpoints changed: leave langgraph's loop between supersteps (the
                # checkpoint is saved) and go on from it with the new interrupt_before/after
                return True
        else:
            self._task_event(event)
        return None

    # ---- langgraph's state calls, sync or on the run's event loop -----------------------------------

    def _await(self, coroutine: Any) -> Any:
        return self._event_loop.run_until_complete(coroutine)

    def _get_state(self, config: dict[str, Any]) -> Any:
        return self._await(self.graph.aget_state(config)) if self.is_async else self.graph.get_state(config)

    def _update_state(self, config: dict[str, Any], values: Any, as_node: str) -> Any:
        if self.is_async:
            return self._await(self.graph.aupdate_state(config, values, as_node=as_node))
        return self.graph.update_state(config, values, as_node=as_node)

    def _saved_checkpoint(self, config: dict[str, Any]) -> Any:
        saver = self.graph.checkpointer
        return self._await(saver.aget_tuple(config)) if self.is_async else saver.get_tuple(config)

    def _segment_config(self) -> tuple[dict[str, Any] | None, bool]:
        """(the config for the next segment, whether it must run one superstep only); None when the
        run has used up its recursion limit. langgraph counts the limit per invocation, from the
        checkpoint it resumes (steps up to `limit` may run in a fresh one); a segment gets what is
        left of the user's limit, so the whole live run keeps to it, as one `invoke` would."""
        limit = int(self.config.get("recursion_limit") or 25)
        if self._last_step < 0:
            return self.config, False
        allowed = limit - self._last_step  # supersteps still allowed: last_step + 1 .. limit
        if allowed <= 0:
            return None, False
        if allowed < 3:  # langgraph's smallest limit (1) lets two supersteps run: take one at a time
            return {**self.config, "recursion_limit": 1}, True
        return {**self.config, "recursion_limit": allowed - 2}, False

    def _committed_step(self, event: dict[str, Any]) -> None:
        step = (event.get("metadata") or {}).get("step")
        with self._cond:
            if isinstance(step, int):
                self._last_step = step
            self._step, self._progress = None, {}
            self._publish_locked()

    def _task_event(self, event: dict[str, Any]) -> None:
        with self._cond:
            task_id, name = event.get("id", ""), event.get("name", "")
            if "input" in event:  # a task starts
                if self._step is None:
                    self._step, self._progress = self._last_step + 1, {}
                self._progress[task_id] = TaskProgress(task_id, name, "running", time.monotonic())
            else:
                started = self._progress.get(task_id) or TaskProgress(task_id, name, "running", time.monotonic())
                error = event.get("error")
                state = "interrupted" if event.get("interrupts") else "failed" if error else "done"
                result = event.get("result") or ()
                self._progress[task_id] = TaskProgress(
                    task_id,
                    name,
                    state,
                    started.started,
                    round(time.monotonic() - started.started, 6),
                    f"{type(error).__name__}: {error}" if error else "",
                    _result_writes(result),
                )
            self._publish_locked()

    def _pause_at(self, state: Any, questions: list[Any], single: bool) -> Any:
        """Waits at a pause, applying edits as they come; the command that leaves it (None: Stop)."""
        reasons = self._reasons(state, questions, single)
        with self._cond:
            self._single_step = self._pause_requested = False
            self._publish_locked(status=PAUSED, pause=self._pause_of_state(state, questions, reasons))
        while True:
            with self._cond:
                self._cond.wait_for(lambda: bool(self._commands))
                command = self._commands.popleft()
            if command.kind == "stop":
                self._finish_stopped()
                command.done.set()
                return None
            if command.kind == "answer" and not questions:
                command.error = "Nothing asks a question here: answers are for interrupt()."
            elif command.kind in ("step", "continue", "answer"):
                with self._cond:
                    self._single_step = command.kind == "step"
                    self._publish_locked(status=RUNNING, pause=None)
                command.done.set()
                return command
            elif questions:
                command.error = "Answer the question first: interrupt() is waiting for it."
            else:
                try:
                    as_node = self._apply_edit_lg(command.values, command.as_node)
                except EditError as exc:
                    command.error = str(exc)
                else:
                    state = self._get_state(self.config)
                    reasons = [*reasons, f"you edited {', '.join(command.values)} as {as_node}"]
                with self._cond:
                    self._publish_locked(pause=self._pause_of_state(state, questions, reasons))
            command.done.set()

    def _reasons(self, state: Any, questions: list[Any], single: bool) -> list[str]:
        if questions:
            asking = sorted({t.name for t in state.tasks if t.interrupts})
            return [f"interrupt() in {', '.join(asking)} asks a question"]
        with self._cond:
            bp, requested = self._breakpoints, self._pause_requested
        next_names = {n for n in state.next if n != START}
        last = self._last_loop_step()
        just_ran = {t.name for t in last.tasks} if last else set()
        return bp.reasons(next_nodes=next_names, just_ran=just_ran, single=single, requested=requested)

    def _pause_of_state(self, state: Any, questions: list[Any], reasons: list[str]) -> Pause:
        """The pause as langgraph sees it: `get_state` values (what a node reading the state receives)
        and its next tasks."""
        from debugger.langgraph_recorder.superstep import reducer_name_of

        values = encode(state.values)
        last = self._last_loop_step()
        ran = sorted({t.name for t in last.tasks if t.name != START}) if last is not None else []
        after = ", ".join(ran) or "the input"
        sends = self._pending_sends()
        tasks = []
        for task in state.tasks:
            push = bool(task.path) and task.path[0] == "__pregel_push"
            why = (
                "asked with interrupt(); runs again with your answer"
                if task.interrupts
                else f"a Send from {after}"
                if push
                else f"edge from {after}"
            )
            given = values  # a node reading the state receives it; a Send's target receives the Send's arg
            if push and isinstance(task.path[1], int) and task.path[1] < len(sends):
                given = encode(getattr(sends[task.path[1]], "arg", None))
            tasks.append(PlannedTask(task.id, task.name, why, given))
        nodes = tuple(n for n in self.graph.nodes if n != START)
        return Pause(
            step=self._last_step + 1,
            reasons=tuple(reasons),
            tasks=tuple(tasks),
            state=values,
            channels={k: reducer_name_of(self.graph.channels[k]) for k in values if k in self.graph.channels},
            edit_as=() if questions else nodes,
            default_as=ran[0] if len(ran) == 1 else None,
            interrupts=tuple(encode(getattr(i, "value", i)) for i in questions),
        )

    def _pending_sends(self) -> list[Any]:
        """The Sends the next superstep runs, in langgraph's order (its checkpoint keeps them)."""
        try:
            saved = self._saved_checkpoint(self.config)
            return list(saved.checkpoint["channel_values"].get("__pregel_tasks") or []) if saved else []
        except Exception:  # a saver that cannot say: the tasks show the state instead
            return []

    def _apply_edit_lg(self, values: Any, as_node: str | None) -> str:
        """`update_state` on the run's thread, recorded as a step of kind `update`."""
        from debugger.langgraph_recorder.superstep import reducer_name_of

        if not isinstance(values, dict) or not values:
            raise EditError("An edit is a non-empty {key: value} update.")
        unknown = [k for k in values if k not in self.graph.channels or k.startswith(("__", "branch:"))]
        if unknown:
            raise EditError(f"{', '.join(map(repr, unknown))} is not a state key of this graph.")
        if as_node is None:
            as_node = self._snapshot.pause.default_as if self._snapshot.pause is not None else None
            if as_node is None:
                raise EditError("Ambiguous update, specify as_node: pick the node to edit as.")
        try:
            config = self._update_state(self.config, values, as_node)
        except Exception as exc:  # langgraph or a reducer refused it: the checkpoint is unchanged
            raise EditError(f"{type(exc).__name__}: {exc}".strip()) from None
        after = self._get_state(config)
        step = (after.metadata or {}).get("step", self._last_step + 1)
        record = update_step(
            step,
            as_node,
            [(key, reducer_name_of(self.graph.channels[key]), value) for key, value in values.items()],
            after.values,
            dict(config.get("configurable") or {}),
        )
        with self._cond:
            self._edits.append(record)
            self._last_step = step
            self._publish_locked()
        return as_node

    # ---- the recording -----------------------------------------------------------------------------

    def _last_loop_step(self) -> StepRecord | None:
        trace = self._committed()
        steps = [s for s in trace.steps if s.kind == "loop" and s.step >= 0] if trace is not None else []
        return steps[-1] if steps else None

    def _segments(self) -> list[Trace]:
        session = self._session
        if session is None:
            return []
        with session.lock:
            traces = list(session.traces)
            live = session.loops.get(())
            if live is not None and live.record not in traces:
                traces.append(live.record)
        return traces

    def _committed(self, *, final: bool = False) -> Trace | None:
        """The segments joined into one trace (shallow copies sharing the committed StepRecords),
        with the edits in their places; the running step is left out, except, at the end of a run
        that failed, the step that failed (a node that raised, writes the barrier refused): it is what
        the Errors tab, the ✖ marks and `diagnose` are about."""
        segments = self._segments()
        if not segments:
            return None
        view = join_segments(segments, self._edits, final=final, run_id=self.run_id, target=self.target)
        last = segments[-1]
        if final and (self._out_of_steps or last.status == "recursion_limit"):
            from debugger.langgraph_recorder.probe import _recursion_error

            view.status = "recursion_limit"  # in the words of the user's limit, not the segment's share of it
            view.error = encode_error(_recursion_error(self.config.get("recursion_limit") or 25))
        return view

    def _finish(self) -> None:
        if self._stop_requested:
            self._finish_stopped()
            return
        with self._cond:
            if self._final:
                return
            self._final = True
            trace = self._committed(final=True)
            if trace is None:
                self._publish_final(None, "error", "The run did not start.")
                return
            status = trace.status if trace.status != "running" else "error"
            message = error_line(trace)
            if status == "interrupted" and trace.interrupts:
                questions = ", ".join(repr(i.get("value")) for i in trace.interrupts)
                message = f"Stopped by interrupt(): {questions}. Answer it in a live run (the app) to go on."
        self._publish_final(trace, status, message)

    def _open_record(self) -> StepRecord | None:
        segments = self._segments()
        open_steps = segments[-1].steps if segments else []
        return open_steps[-1] if open_steps and not open_steps[-1].committed else None


def _result_writes(result: Any) -> tuple[tuple[str, Any], ...]:
    """The state writes of a finished task, from langgraph's `tasks` stream result (`{channel: write}`,
    or `{channel: {"$writes": [...]}}` for several writes to one channel), encoded."""
    if not isinstance(result, dict):
        return ()
    writes = []
    for channel, value in result.items():
        several = isinstance(value, dict) and set(value) == {"$writes"} and isinstance(value["$writes"], list)
        for write in value["$writes"] if several else [value]:
            writes.append((channel, encode(write)))
    return tuple(writes)


def new_live_run(graph: Any, graph_input: Any, config: dict[str, Any] | None = None, **options: Any) -> LiveRun:
    """The live run for `graph`: `LangGraphLiveRun` for a langgraph app, else the engine's `LiveRun`
    (not started yet: call `.start()`)."""
    if is_langgraph(graph):
        return LangGraphLiveRun(graph, graph_input, config, **options)
    return LiveRun(graph, graph_input, config, **options)
