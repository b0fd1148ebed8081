"""`LangGraphSegments`: a live run of an app written with `langgraph` itself, one segment at a time (the
`Segments` of `runtimes/segmented_live.py`, which drives it), over langgraph's own `stream`, `get_state`
and `update_state`.

Each segment is `graph.stream(input, config, interrupt_before="*", stream_mode=["tasks", "checkpoints"])`,
which langgraph's own breakpoint ends before the next superstep. Its `tasks` events say when a task
starts and ends, its `checkpoints` events when the superstep has committed (its checkpoint is saved).
Between segments the state is langgraph's `get_state(config)` (values, next tasks, interrupts); the next
segment resumes with `stream(None, config, ...)`, an answer to `interrupt()` with `Command(resume=answer)`,
and an edit is `update_state(config, values, as_node=...)`. A graph with `async def` nodes runs the same
way with `astream`, `aget_state` and `aupdate_state`, on one event loop of the run's thread.

The run needs a checkpointer to stop and go on: the app's own one (on the run's fresh thread id), or,
for a graph compiled without one, a fresh `InMemorySaver` on a copy of the graph. The langgraph recorder
(`debugger/runtimes/langgraph/recorder/`) records every segment as a run of its own.
"""

from __future__ import annotations

import asyncio
from typing import Any

from debugger.runtimes.driven import EditError, LiveRunError, TaskEnd
from debugger.runtimes.langgraph.recorder import probe
from debugger.runtimes.langgraph.recorder.names import state_keys
from debugger.runtimes.langgraph.recorder.patches import install
from debugger.runtimes.langgraph.recorder.record import Session
from debugger.runtimes.langgraph.recorder.runs import checkpointer_of, has_async_nodes
from debugger.runtimes.langgraph.recorder.superstep import UnrecordableChannel, check_recordable, reducer_name_of
from debugger.runtimes.segmented_live import NOT_GIVEN, Edited, LiveSetup, NextTask, Question, Standing
from engine.codec import encode, encode_error
from engine.trace import Trace

STREAM_OPTIONS = dict(interrupt_before="*", interrupt_after=None, stream_mode=["tasks", "checkpoints"])
"""Every segment ends before the next superstep, and streams what the controller shows."""


class LangGraphSegments:
    """A compiled langgraph graph's side of a live run (see the module doc)."""

    title = "a langgraph app"
    resume_hint = "Answer it in a live run (the app) to go on."
    limit_key = "recursion_limit"

    def __init__(self, setup: LiveSetup) -> None:
        graph = setup.graph
        try:
            check_recordable(getattr(graph, "channels", {}), state_keys(graph))
        except UnrecordableChannel as exc:
            raise LiveRunError(f"{setup.target}: {exc}") from None
        self.is_async = has_async_nodes(graph)
        """The graph has `async def` nodes: it runs with `astream` (and `aget_state`, `aupdate_state`)
        on an event loop of the run's own thread, as `await graph.ainvoke(...)` would run it."""
        self.runnable = graph if checkpointer_of(graph) is not None else _with_saver(graph)
        """The graph the run goes through: the user's, or a copy with a saver of the debugger's own."""
        self.config, self.target, self.reports = setup.config, setup.target, setup.reports
        self._session: Any = None
        self._token: Any = None
        self._event_loop: asyncio.AbstractEventLoop | None = None
        self._state: Any = None
        """langgraph's `get_state` at the boundary the run stands at (None before the input ran)."""
        self._stopping = False

    def open(self) -> None:
        """Opens the recorder session the segments are recorded in (and the run's event loop)."""
        install()
        self._session = Session(target=self.target)
        self._token = probe.ACTIVE.set(self._session)
        if self.is_async:  # one event loop for the whole run: a saver's connections may belong to it
            self._event_loop = asyncio.new_event_loop()

    def segment(self, *, graph_input: Any, resume: Any, limit: int | None) -> Standing | None:
        """One `stream` (or `astream`) call, reporting as it goes, then `get_state`."""
        given = graph_input if graph_input is not NOT_GIVEN else None
        if resume is not NOT_GIVEN:
            given = _command(resume=resume)
        config = self.config if limit is None else {**self.config, "recursion_limit": limit}
        if not self._stream(given, config):
            return None
        self._state = self._get_state(self.config)
        return self._standing()

    def _standing(self) -> Standing:
        state = self._state
        asked = [i for t in state.tasks for i in (t.interrupts or ())]
        return Standing(tuple(state.next), tuple(Question(i.id, encode(getattr(i, "value", i))) for i in asked))

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

    # ---- one segment's events ---------------------------------------------------------------------

    def _stream(self, graph_input: Any, config: dict[str, Any]) -> bool:
        """Streams one segment; False when the user stopped the run."""
        if self.is_async:
            return self._await(self._astream(self.runnable.astream(graph_input, config, **STREAM_OPTIONS)))
        stream = self.runnable.stream(graph_input, config, **STREAM_OPTIONS)
        try:
            for mode, event in stream:
                if not self._event(mode, event):
                    return False
        finally:
            stream.close()
        return not self._stopping

    async def _astream(self, stream: Any) -> bool:
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
            self.reports.committed((event.get("metadata") or {}).get("step"))
            return True
        task_id, name = event.get("id", ""), event.get("name", "")
        if "input" in event:  # a task starts
            self.reports.task_started(task_id, name)
            return True
        error = event.get("error")
        state = "interrupted" if event.get("interrupts") else "failed" if error else "done"
        described = f"{type(error).__name__}: {error}" if error else ""
        writes = _result_writes(event.get("result"))
        self.reports.task_ended(TaskEnd(task_id, name, state, error=described, writes=writes))
        return True

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

    def pause_state(self) -> tuple[dict[str, Any], list[NextTask]]:
        """`get_state` values (what a node reading the state receives) and its next tasks; a Send's
        target receives the Send's argument."""
        state = self._state
        values = encode(state.values)
        sends = self._pending_sends()
        tasks = []
        for task in state.tasks:
            sent = bool(task.path) and task.path[0] == "__pregel_push"
            given = values
            if sent and isinstance(task.path[1], int) and task.path[1] < len(sends):
                given = encode(getattr(sends[task.path[1]], "arg", None))
            tasks.append(NextTask(task.id, task.name, sent, bool(task.interrupts), given))
        return values, tasks

    def _pending_sends(self) -> list[Any]:
        """The Sends the next superstep runs, in langgraph's order (its checkpoint keeps them)."""
        try:
            saved = self._saved_checkpoint(self.config)
            return list(saved.checkpoint["channel_values"].get("__pregel_tasks") or []) if saved else []
        except Exception:  # a saver that cannot say: the tasks show the state instead
            return []

    def reducers(self) -> dict[str, str]:
        return {key: reducer_name_of(channel) for key, channel in self.runnable.channels.items()}

    def nodes(self) -> tuple[str, ...]:
        return tuple(self.runnable.nodes)

    def apply_edit(self, values: dict[str, Any], as_node: str) -> Edited:
        """`update_state` on the run's thread; langgraph's or a reducer's refusal changes nothing."""
        try:
            config = self._update_state(self.config, values, as_node)
        except Exception as exc:  # langgraph or a reducer refused it: the checkpoint is unchanged
            raise EditError(f"{type(exc).__name__}: {exc}".strip()) from None
        after = self._get_state(config)
        self._state = self._get_state(self.config)
        step = (after.metadata or {}).get("step")
        return Edited(step, after.values, dict(config.get("configurable") or {}), self._standing())

    # ---- the recording --------------------------------------------------------------------------

    def recorded(self) -> list[Trace]:
        session = self._session
        if session is None:
            return []
        with session.lock:
            traces = list(session.traces)
            live = session.loops.get(())
            if live is not None and live.record not in traces:
                traces.append(live.record)
        return traces

    def asked(self, interrupt: dict[str, Any]) -> Any:
        return interrupt.get("value")

    def recursion_error(self, limit: Any) -> dict[str, Any]:
        return encode_error(probe._recursion_error(limit))


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
