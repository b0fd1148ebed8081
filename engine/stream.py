"""`stream()` output as a hook: turns the loop's moments into LangGraph's stream chunks.

Modes: `values` (the whole state after each step that changed a state key), `updates` (one chunk per
task: `{node: its raw writes}`), `tasks` (`task` and `task_result` events), `checkpoints` (one event
per saved checkpoint, with a checkpointer), `debug` (both of the last two, wrapped with step,
timestamp and type) and `custom` (what nodes write with `get_stream_writer()`). A string mode yields
bare chunks, a list of modes `(mode, chunk)` pairs, `subgraphs=True` puts the namespace first.
The tasks of one step are reported in the order they were started (Send tasks first, then pulled
nodes by name), which is LangGraph's order when they finish together; unlike LangGraph, not in
completion order, so a stream is the same run after run.
"""

from __future__ import annotations

import threading
from collections import Counter, deque
from dataclasses import asdict
from datetime import UTC, datetime
from typing import Any, Callable, Iterator, Sequence

from .algo import Task, scheduled_order
from .constants import INTERRUPT, RETURN, START
from .errors import GraphBubbleUp, GraphInterrupt
from .hooks import Hooks, RunInfo, StepCommit
from .types import RunStatus

STREAM_MODES = ("values", "updates", "debug", "tasks", "custom", "checkpoints", "messages")


def utc_now_iso() -> str:
    return datetime.now(UTC).isoformat()


class StreamCollector(Hooks):
    """Collects chunks while the loop runs; `stream()` drains them after every tick.

    LangGraph queues chunks and yields them only at certain points: once the next step's tasks are
    planned, as the tasks of a multi-task step finish, when a task fails, and when the run ends
    normally. Chunks still queued when planning or the barrier raises are lost. We keep the same
    points, so a stream has the same chunks as LangGraph's even when the run fails.
    """

    def __init__(
        self,
        modes: Sequence[str],
        *,
        single_mode: bool,
        subgraphs: bool,
        stream_keys: Sequence[str],
        clock: Callable[[], str] = utc_now_iso,
    ) -> None:
        for mode in modes:
            if mode not in STREAM_MODES:
                raise ValueError(f"Unknown stream mode {mode!r}; expected one of {', '.join(STREAM_MODES)}")
        self.modes = frozenset(modes)
        self.single_mode = single_mode
        self.subgraphs = subgraphs
        self.stream_keys_ordered = list(stream_keys)
        self.clock = clock
        self.chunks: deque[Any] = deque()
        """Chunks `stream()` may yield now."""
        self.pending: list[Any] = []
        """Chunks made but not yet released (see the class docstring)."""
        self.lock = threading.Lock()
        self.keys_by_ns: dict[tuple[str, ...], list[str]] = {}
        self.key_sets: dict[tuple[str, ...], frozenset[str]] = {(): frozenset(self.stream_keys_ordered)}
        """The same keys as sets, built once per run rather than once per finished task."""
        self.tasks_in_step: dict[tuple[str, ...], int] = {}
        self.readers: dict[tuple[str, ...], Callable[..., dict[str, Any]]] = {}
        """Per namespace, how to read the live state (from the first commit), for interrupt chunks."""
        self.custom: dict[str, list[Any]] = {}
        """Per task id, the `custom` chunks it wrote and that wait for it to be reported."""
        self.waiter = "custom" in self.modes or "messages" in self.modes
        """LangGraph runs even a lone task in the background with these modes, yielding as it finishes."""
        self.checkpoint_events = "checkpoints" in self.modes or "debug" in self.modes
        self.last_checkpoint: dict[tuple[str, ...], Any] = {}
        """Per namespace, the config of the checkpoint saved last (the next one's `parent_config`)."""
        self.unannounced: dict[tuple[str, ...], tuple[int, dict[str, Any]]] = {}
        """Per namespace, a saved checkpoint whose event waits for the next step's tasks (its `next`)."""

    def drain(self) -> Iterator[Any]:
        while self.chunks:
            yield self.chunks.popleft()

    def _format(self, ns: tuple[str, ...], mode: str, chunk: Any) -> Any:
        if self.single_mode:
            return (ns, chunk) if self.subgraphs else chunk
        return (ns, mode, chunk) if self.subgraphs else (mode, chunk)

    def _queue(self, ns: tuple[str, ...], mode: str, chunk: Any, *, release: bool = False) -> None:
        if ns and not self.subgraphs:
            return
        with self.lock:
            self.pending.append(self._format(ns, mode, chunk))
            if release:
                self._release()

    def _release(self) -> None:
        self.chunks.extend(self.pending)
        self.pending.clear()

    def release(self) -> None:
        with self.lock:
            self._release()

    def _keys(self, ns: tuple[str, ...]) -> list[str]:
        return self.stream_keys_ordered if not ns else self.keys_by_ns.get(ns, [])

    def run_started(self, *, ns: tuple[str, ...], run: RunInfo) -> None:
        if ns:  # a nested run reports what its own invoke() would: its output keys
            keys = run.output_keys
            self.keys_by_ns[ns] = [keys] if isinstance(keys, str) else list(keys)
            self.key_sets[ns] = frozenset(self.keys_by_ns[ns])

    def step_planned(self, *, ns: tuple[str, ...], step: int, tasks: Sequence[Task]) -> None:
        self.tasks_in_step[ns] = len(tasks)
        self.release()
        tasks = scheduled_order(list(tasks))
        if ns in self.unannounced:
            self._checkpoint_event(ns, tasks)
        if "debug" not in self.modes and "tasks" not in self.modes:
            return
        for task in tasks:
            if task.name == START:
                continue
            payload = {"id": task.id, "name": task.name, "input": task.input, "triggers": task.triggers}
            self._task_event(ns, step, "task", payload, release=True)

    def task_finished(self, *, ns: tuple[str, ...], step: int, task: Task) -> None:
        if task.name == START:
            return
        if self.custom:
            with self.lock:
                written = self.custom.pop(task.id, ())
            for chunk in written:
                self._queue(ns, "custom", chunk)
        keys = self.key_sets.get(ns, frozenset())
        # A task that ran on a worker thread (several tasks, or a stream waiter with subgraphs=True)
        # is yielded as it finishes; a lone task ran inline and waits for the next release.
        release = task.error is not None or self.tasks_in_step.get(ns, 1) > 1 or self.subgraphs or self.waiter
        if task.interrupts:  # interrupt(): the questions, and the state they were asked in
            self._queue_interrupt(ns, task.interrupts, release)
        # LangGraph shows a task's update unless its first write is its error: a task whose router
        # failed after the node returned still shows what the node wrote.
        elif "updates" in self.modes and (task.error is None or task.writes):
            chunk = {task.name: updates_chunk(task.writes, keys)}
            if task.restored:  # finished before the pause; its writes came back from the checkpoint
                chunk["__metadata__"] = {"cached": True}
            self._queue(ns, "updates", chunk, release=release)
        if ("debug" in self.modes or "tasks" in self.modes) and not task.restored:
            payload = {
                "id": task.id,
                "name": task.name,
                "error": None if isinstance(task.error, GraphBubbleUp) else task.error,
                "result": task_result_writes([(c, v) for c, v in task.writes if c in keys]),
                "interrupts": [asdict(i) for i in task.interrupts],
            }
            self._task_event(ns, step, "task_result", payload, release=release)
        if release:
            self.release()

    def custom_streamed(self, *, ns: tuple[str, ...], step: int, task: Task, chunk: Any) -> None:
        """Kept with its task until the task is reported, so each task's `custom` chunks come right
        before its `updates` chunk, as in LangGraph when tasks finish one after the other."""
        if "custom" in self.modes and (self.subgraphs or not ns):
            with self.lock:
                self.custom.setdefault(task.id, []).append(chunk)

    def checkpoint_saved(self, *, ns: tuple[str, ...], step: int, config: Any, metadata: Any) -> None:
        """LangGraph announces a checkpoint once the next step is planned, with that step's tasks as
        `next`; the values are read now, before anything changes them."""
        if not self.checkpoint_events:
            return
        parent = self.last_checkpoint.get(ns)
        self.last_checkpoint[ns] = config
        values = self.readers[ns](self._keys(ns)) if ns in self.readers else {}
        payload = {
            "config": _public_config(config, metadata),
            "parent_config": _public_config(parent, metadata),
            "values": values,
            "metadata": metadata,
        }
        self.unannounced[ns] = (step, payload)

    def _checkpoint_event(self, ns: tuple[str, ...], tasks: Sequence[Task]) -> None:
        step, payload = self.unannounced.pop(ns)
        thread_id = (payload["config"].get("configurable") or {}).get("thread_id")
        payload["next"] = [t.name for t in tasks]
        payload["tasks"] = [
            {"id": t.id, "name": t.name, "interrupts": (), "state": _subgraph_state(ns, t, thread_id)} for t in tasks
        ]
        if "checkpoints" in self.modes:
            self._queue(ns, "checkpoints", payload, release=True)
        if "debug" in self.modes:
            event = {"step": step, "timestamp": self.clock(), "type": "checkpoint", "payload": payload}
            self._queue(ns, "debug", event, release=True)

    def _queue_interrupt(self, ns: tuple[str, ...], interrupts: tuple[Any, ...], release: bool) -> None:
        if "updates" in self.modes:
            self._queue(ns, "updates", {INTERRUPT: interrupts}, release=release)
        if "values" in self.modes:
            keys = self._keys(ns)
            values = self.readers[ns](keys) if ns in self.readers else {}
            self._queue(ns, "values", {**values, INTERRUPT: interrupts}, release=release)

    def _task_event(self, ns: tuple[str, ...], step: int, kind: str, payload: dict[str, Any], *, release: bool) -> None:
        if "tasks" in self.modes:
            self._queue(ns, "tasks", payload, release=release)
        if "debug" in self.modes:
            event = {"step": step, "timestamp": self.clock(), "type": kind, "payload": payload}
            self._queue(ns, "debug", event, release=release)

    def step_committed(self, *, ns: tuple[str, ...], commit: StepCommit) -> None:
        self.readers.setdefault(ns, commit.read)
        if "values" not in self.modes or commit.kind == "input":  # input writes are not a values chunk
            return
        keys = self._keys(ns)
        if commit.kind == "resume" or not commit.updated_channels.isdisjoint(keys):  # a resume shows the state
            self._queue(ns, "values", commit.read(keys))

    def run_finished(
        self, *, ns: tuple[str, ...], status: RunStatus, output: Any, error: BaseException | None, step: int
    ) -> None:
        if ns in self.unannounced and status == "done":  # the last checkpoint: nothing comes next
            self._checkpoint_event(ns, ())
        breakpoint = error is None or (isinstance(error, GraphInterrupt) and not error.interrupts)
        if status == "interrupted" and breakpoint and not ns and "updates" in self.modes:
            self._queue(ns, "updates", {INTERRUPT: ()})  # a breakpoint, here or in a subgraph
        if status != "error" or ns:
            self.release()
        else:
            # The run failed in planning or at the barrier (a failed task released already):
            # LangGraph never yields what was still queued.
            with self.lock:
                self.pending.clear()


def _public_config(config: Any, metadata: Any) -> Any:
    """A checkpoint's config as LangGraph streams it: only its `configurable` part, without the
    engine's private keys; in a nested run, with the `checkpoint_map` of the checkpoints it is in."""
    if config is None:
        return None
    configurable = {k: v for k, v in (config.get("configurable") or {}).items() if not k.startswith("__pregel_")}
    parents = (metadata or {}).get("parents")
    if parents:
        configurable["checkpoint_map"] = {
            **parents,
            configurable.get("checkpoint_ns", ""): configurable.get("checkpoint_id"),
        }
    return {"configurable": configurable}


def _subgraph_state(ns: tuple[str, ...], task: Task, thread_id: Any) -> Any:
    """Where a subgraph task's own checkpoints are (LangGraph's signal that they exist), else None."""
    if not task.node.is_subgraph:
        return None
    return {"configurable": {"thread_id": thread_id, "checkpoint_ns": "|".join((*ns, f"{task.name}:{task.id}"))}}


def updates_chunk(writes: list[tuple[str, Any]], keys: frozenset[str]) -> Any:
    """One task's `updates` value: its writes to `keys`, a list of one-key dicts if it wrote a key
    twice, the `__return__` value of a functional task, or None when it wrote none of the keys."""
    for channel, value in writes:
        if channel == RETURN:
            return value
    relevant = [(c, v) for c, v in writes if c in keys]
    if not relevant:
        return None
    counts = Counter(c for c, _ in relevant)
    if any(n > 1 for n in counts.values()):
        return [{c: v} for c, v in relevant]
    return dict(relevant)


def task_result_writes(writes: list[tuple[str, Any]]) -> dict[str, Any]:
    counts = Counter(c for c, _ in writes)
    result: dict[str, Any] = {}
    for channel, value in writes:
        if counts[channel] == 1:
            result[channel] = value
        else:
            result.setdefault(channel, {"$writes": []})["$writes"].append(value)
    return result
