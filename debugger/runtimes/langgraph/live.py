"""`LangGraphDrivenRun`: a live run of an app written with `langgraph` itself (the `DrivenRun` of
`runtimes/driven.py`), over langgraph's own `stream`, `get_state` and `update_state`.

langgraph owns its loop, so a superstep cannot be taken from inside it; instead each `step()` is one
segment: `graph.stream(input, config, interrupt_before="*", stream_mode=["tasks", "checkpoints"])`,
which langgraph's own breakpoint ends before the next superstep. Its `tasks` events say when a task
starts and ends, its `checkpoints` events when the superstep has committed (its checkpoint is saved).
Between segments the state is langgraph's `get_state(config)` (values, next tasks, interrupts); the
next segment resumes with `stream(None, config, ...)`, an answer to `interrupt()` with
`Command(resume=answer)` (the node runs again from its top), and an edit is
`update_state(config, values, as_node=...)`, recorded as a step of kind `update`. A graph with
`async def` nodes runs the same way with `astream`, `aget_state` and `aupdate_state`, on one event
loop of the run's thread. Each segment gets what is left of the user's recursion limit.

The run needs a checkpointer to stop and go on: the app's own one (on a fresh thread id, so no thread
of the user's is touched), or, for a graph compiled without one, a fresh `InMemorySaver` on a copy of
the graph. The langgraph recorder (`debugger/runtimes/langgraph/recorder/`) records every segment as a run of
its own; `trace()` joins them into one (a resumed segment's first step only reloads the checkpoint
the previous one ended on, so it is left out), which is what is stored at the end.
"""

from __future__ import annotations

import asyncio
import copy
import uuid
from typing import Any, Sequence

from debugger.runtimes.driven import (
    NO_ANSWER,
    Boundary,
    EditError,
    LiveRunError,
    PlannedTask,
    RunProgress,
    TaskEnd,
    Upcoming,
    node_names,
)
from debugger.runtimes.langgraph.recorder import probe
from debugger.runtimes.langgraph.recorder.names import state_keys
from debugger.runtimes.langgraph.recorder.patches import install
from debugger.runtimes.langgraph.recorder.record import Session
from debugger.runtimes.langgraph.recorder.runs import checkpointer_of, has_async_nodes
from debugger.runtimes.langgraph.recorder.superstep import UnrecordableChannel, check_recordable, reducer_name_of
from engine.codec import encode, encode_error
from engine.trace import StepRecord, Trace, join_segments, update_step

START = "__start__"
STREAM_OPTIONS = dict(interrupt_before="*", interrupt_after=None, stream_mode=["tasks", "checkpoints"])
"""Every segment ends before the next superstep, and streams what the controller shows."""


class LangGraphDrivenRun:
    """Drives a compiled langgraph `graph` one superstep (one segment) at a time (see the module doc)."""

    resume_hint = "Answer it in a live run (the app) to go on."

    def __init__(
        self, graph: Any, graph_input: Any, config: dict[str, Any] | None = None, *, target: str = "", hooks: Any = None
    ) -> None:
        name = target or getattr(graph, "name", "graph")
        if hooks is not None:
            raise LiveRunError(f"{name}: engine hooks cannot watch a langgraph app's run; leave `hooks` out.")
        try:
            check_recordable(getattr(graph, "channels", {}), state_keys(graph))
        except UnrecordableChannel as exc:
            raise LiveRunError(f"{name}: {exc}") from None
        self.is_async = has_async_nodes(graph)
        """The graph has `async def` nodes: it runs with `astream` (and `aget_state`, `aupdate_state`)
        on an event loop of the run's own thread, as `await graph.ainvoke(...)` would run it."""
        self.graph = graph
        self.runnable = graph if checkpointer_of(graph) is not None else _with_saver(graph)
        """The graph the run goes through: the user's, or a copy with a saver of the debugger's own."""
        self.graph_input = graph_input
        self.thread_id = f"stepscope-live-{uuid.uuid4().hex[:12]}"
        """A fresh thread: the run never reads or writes a thread of the user's."""
        self.config = copy.deepcopy(dict(config or {}))
        self.config["configurable"] = {**(self.config.get("configurable") or {}), "thread_id": self.thread_id}
        self.target = name
        self.run_id = uuid.uuid4().hex
        self.interrupt_before = node_names(graph.interrupt_before_nodes, graph)
        self.interrupt_after = node_names(graph.interrupt_after_nodes, graph)
        self._progress: RunProgress | None = None
        self._asks = False
        self._session: Any = None
        self._token: Any = None
        self._event_loop: asyncio.AbstractEventLoop | None = None
        self._state: Any = None
        """langgraph's `get_state` at the boundary the run stands at (None before the input ran)."""
        self._edits: list[StepRecord] = []
        self._last_step = -1
        self._in_step = False
        self._out_of_steps = False
        self._ended = False
        """The last segment ran the run to its end. (After an edit that leaves nothing to run, the next
        segment still runs: langgraph ends the run from the edited checkpoint, with its output.)"""
        self._stopping = False

    # ---- driving --------------------------------------------------------------------------------

    def start(self, progress: RunProgress, *, ask: bool) -> None:
        """Opens the recorder session the segments are recorded in (and the run's event loop)."""
        self._progress, self._asks = progress, ask
        install()
        self._session = Session(target=self.target)
        self._token = probe.ACTIVE.set(self._session)
        if self.is_async:  # one event loop for the whole run: a saver's connections may belong to it
            self._event_loop = asyncio.new_event_loop()

    def preview(self) -> Upcoming:
        """langgraph's next nodes at this boundary, and the nodes of the last loop step recorded."""
        if self._state is None:
            return Upcoming.of()
        last = self._last_loop_step()
        return Upcoming.of(self._state.next, (t.name for t in last.tasks) if last else ())

    def step(self) -> bool:
        """One segment (the input's, first); again with the answer while an `interrupt()` asks."""
        if self._ended:
            return False  # its last segment has the status and output
        graph_input = self.graph_input if self._state is None else None
        while not self._stopping:
            config = self._segment_config()
            if config is None:
                self._out_of_steps = True  # the whole run has used the user's recursion limit
                return False
            if not self._segment(graph_input, config):
                return False
            state = self._state = self._get_state(self.config)
            pending = [i for t in state.tasks for i in (t.interrupts or ())]
            if not pending:
                self._ended = not state.next
                return not self._ended
            if not self._asks:
                return False  # `--follow`: an interrupt ends the run, as `invoke` does
            boundary = self._boundary(state, pending[:1])  # one question at a time
            answer = self._progress.ask_user(boundary, [t for t in boundary.tasks if t.why == ASKED])
            if answer is NO_ANSWER:
                return False
            # several questions pending: langgraph wants each answer by its interrupt's id
            graph_input = _command(resume={pending[0].id: answer} if len(pending) > 1 else answer)
        return False

    def boundary(self) -> Boundary:
        """The pause from `get_state` at this boundary."""
        return self._boundary(self._state, [])

    def questions(self) -> tuple[Any, ...]:
        """The questions the last segment ended on."""
        segments = self._segments()
        return tuple(i.get("value") for i in segments[-1].interrupts) if segments else ()

    def request_stop(self) -> None:
        """The segment running now is left at its next event (a node that runs finishes on its own)."""
        self._stopping = True

    def close(self) -> None:
        """Leaves the recorder session and closes the run's event loop."""
        if self._token is not None:
            probe.ACTIVE.reset(self._token)
            self._token = None
        if self._event_loop is not None:
            self._event_loop.close()
            self._event_loop = None

    def _segment(self, graph_input: Any, config: dict[str, Any]) -> bool:
        """One `stream` (or `astream`) call, reporting as it goes. False when the user stopped the run."""
        if self.is_async:
            return self._await(self._asegment(self.runnable.astream(graph_input, config, **STREAM_OPTIONS)))
        stream = self.runnable.stream(graph_input, config, **STREAM_OPTIONS)
        try:
            for mode, event in stream:
                if not self._event(mode, event):
                    return False
        finally:
            stream.close()
        return not self._stopping

    async def _asegment(self, stream: Any) -> bool:
        try:
            async for mode, event in stream:
                if not self._event(mode, event):
                    return False
        finally:
            await stream.aclose()
        return not self._stopping

    def _event(self, mode: str, event: Any) -> bool:
        """Reports one streamed event; False when the user stopped the run."""
        if self._stopping:
            return False
        if mode == "checkpoints":
            step = (event.get("metadata") or {}).get("step")
            if isinstance(step, int):
                self._last_step = step
            self._in_step = False
            self._progress.step_committed()
            return True
        task_id, name = event.get("id", ""), event.get("name", "")
        if "input" in event:  # a task starts
            if not self._in_step:
                self._in_step = True
                self._progress.step_started(self._last_step + 1)
            self._progress.task_started(task_id, name)
            return True
        error = event.get("error")
        state = "interrupted" if event.get("interrupts") else "failed" if error else "done"
        described = f"{type(error).__name__}: {error}" if error else ""
        self._progress.task_ended(
            TaskEnd(task_id, name, state, error=described, writes=_result_writes(event.get("result")))
        )
        return True

    def _segment_config(self) -> dict[str, Any] | None:
        """The config for the next segment; None when the run has used up its recursion limit.
        langgraph counts the limit per invocation, from the checkpoint it resumes (steps up to
        `limit` may run in a fresh one); a segment gets what is left of the user's limit, so the
        whole live run keeps to it, as one `invoke` would."""
        limit = int(self.config.get("recursion_limit") or 25)
        if self._last_step < 0:
            return self.config
        allowed = limit - self._last_step  # supersteps still allowed: last_step + 1 .. limit
        if allowed <= 0:
            return None
        # langgraph's smallest limit (1) lets two supersteps run; a segment runs one anyway
        return {**self.config, "recursion_limit": max(allowed - 2, 1)}

    # ---- langgraph's state calls, sync or on the run's event loop -------------------------------

    def _await(self, coroutine: Any) -> Any:
        return self._event_loop.run_until_complete(coroutine)

    def _get_state(self, config: dict[str, Any]) -> Any:
        return self._await(self.runnable.aget_state(config)) if self.is_async else self.runnable.get_state(config)

    def _update_state(self, config: dict[str, Any], values: Any, as_node: str) -> Any:
        if self.is_async:
            return self._await(self.runnable.aupdate_state(config, values, as_node=as_node))
        return self.runnable.update_state(config, values, as_node=as_node)

    def _saved_checkpoint(self, config: dict[str, Any]) -> Any:
        saver = self.runnable.checkpointer
        return self._await(saver.aget_tuple(config)) if self.is_async else saver.get_tuple(config)

    # ---- what a pause shows, and an edit ----------------------------------------------------------

    def _boundary(self, state: Any, questions: Sequence[Any]) -> Boundary:
        """The pause as langgraph sees it: `get_state` values (what a node reading the state receives)
        and its next tasks."""
        values = encode(state.values)
        ran = self._ran_last()
        after = ", ".join(ran) or "the input"
        sends = self._pending_sends()
        tasks = []
        for task in state.tasks:
            push = bool(task.path) and task.path[0] == "__pregel_push"
            why = ASKED if task.interrupts else f"a Send from {after}" if push else f"edge from {after}"
            given = values  # a node reading the state receives it; a Send's target receives the Send's arg
            if push and isinstance(task.path[1], int) and task.path[1] < len(sends):
                given = encode(getattr(sends[task.path[1]], "arg", None))
            tasks.append(PlannedTask(task.id, task.name, why, given))
        channels = self.runnable.channels
        return Boundary(
            step=self._last_step + 1,
            tasks=tuple(tasks),
            state=values,
            channels={k: reducer_name_of(channels[k]) for k in values if k in channels},
            edit_as=() if questions else tuple(n for n in self.runnable.nodes if n != START),
            default_as=ran[0] if len(ran) == 1 else None,
            interrupts=tuple(encode(getattr(i, "value", i)) for i in questions),
        )

    def _ran_last(self) -> list[str]:
        last = self._last_loop_step()
        return sorted({t.name for t in last.tasks if t.name != START}) if last is not None else []

    def _pending_sends(self) -> list[Any]:
        """The Sends the next superstep runs, in langgraph's order (its checkpoint keeps them)."""
        try:
            saved = self._saved_checkpoint(self.config)
            return list(saved.checkpoint["channel_values"].get("__pregel_tasks") or []) if saved else []
        except Exception:  # a saver that cannot say: the tasks show the state instead
            return []

    def update_state(self, values: Any, as_node: str | None) -> str:
        """`update_state` on the run's thread, recorded as a step of kind `update`."""
        channels = self.runnable.channels
        if not isinstance(values, dict) or not values:
            raise EditError("An edit is a non-empty {key: value} update.")
        unknown = [k for k in values if k not in channels or k.startswith(("__", "branch:"))]
        if unknown:
            raise EditError(f"{', '.join(map(repr, unknown))} is not a state key of this graph.")
        if as_node is None:
            ran = self._ran_last()
            if len(ran) != 1:
                raise EditError("Ambiguous update, specify as_node: pick the node to edit as.")
            as_node = ran[0]
        try:
            config = self._update_state(self.config, values, as_node)
        except Exception as exc:  # langgraph or a reducer refused it: the checkpoint is unchanged
            raise EditError(f"{type(exc).__name__}: {exc}".strip()) from None
        after = self._get_state(config)
        step = (after.metadata or {}).get("step", self._last_step + 1)
        record = update_step(
            step,
            as_node,
            [(key, reducer_name_of(channels[key]), value) for key, value in values.items()],
            after.values,
            dict(config.get("configurable") or {}),
        )
        self._edits.append(record)
        self._last_step = step
        self._state = self._get_state(self.config)
        return as_node

    # ---- the recording --------------------------------------------------------------------------

    def _last_loop_step(self) -> StepRecord | None:
        trace = self.trace()
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

    def trace(self, *, final: bool = False) -> Trace | None:
        """The segments joined into one trace (shallow copies sharing the committed StepRecords),
        with the edits in their places; the running step is left out, except, at the end of a run
        that failed, the step that failed (a node that raised, writes the barrier refused): it is what
        the Errors tab, the ✖ marks and `diagnose` are about."""
        segments = self._segments()
        if not segments:
            return None
        view = join_segments(segments, list(self._edits), final=final, run_id=self.run_id, target=self.target)
        last = segments[-1]
        if final and (self._out_of_steps or last.status == "recursion_limit"):
            view.status = "recursion_limit"  # in the words of the user's limit, not the segment's share of it
            view.error = encode_error(probe._recursion_error(self.config.get("recursion_limit") or 25))
        return view

    def open_step(self) -> StepRecord | None:
        """The last segment's newest step, while it has not committed."""
        segments = self._segments()
        open_steps = segments[-1].steps if segments else []
        return open_steps[-1] if open_steps and not open_steps[-1].committed else None


ASKED = "asked with interrupt(); runs again with your answer"
"""Why a task that asks a question is among the next ones."""


def _with_saver(graph: Any) -> Any:
    """A copy of `graph` with a fresh `InMemorySaver`: pausing needs checkpoints of the debugger's own."""
    from langgraph.checkpoint.memory import InMemorySaver  # langgraph is optional: only its apps get here

    return graph.copy(update={"checkpointer": InMemorySaver()})


def _command(*, resume: Any) -> Any:
    from langgraph.types import Command  # langgraph is optional: only its apps get here

    return Command(resume=resume)


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
