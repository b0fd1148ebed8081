"""`stream()` output as a hook: turns the loop's moments into LangGraph's stream chunks.

Modes: `values` (the whole state after each step that changed a state key), `updates` (one chunk per
task: `{node: its raw writes}`), `debug` (`task` and `task_result` events) and `tasks`. A string mode
yields bare chunks, a list of modes `(mode, chunk)` pairs, `subgraphs=True` puts the namespace first.
Unlike LangGraph, `updates` chunks of one step come in application order (node name, then Sends),
not completion order, so a stream is the same run after run.
"""

from __future__ import annotations

import threading
from collections import Counter, deque
from dataclasses import asdict
from datetime import datetime, timezone
from typing import Any, Callable, Iterator, Sequence

from .algo import Task
from .constants import INTERRUPT, RETURN, START
from .errors import GraphBubbleUp, GraphInterrupt
from .hooks import Hooks, RunInfo, StepCommit

STREAM_MODES = ("values", "updates", "debug", "tasks", "custom", "checkpoints", "messages")


def utc_now_iso() -> str:
    return datetime.now(timezone.utc).isoformat()


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
        keys = self.key_sets.get(ns, frozenset())
        # A task that ran on a worker thread (several tasks, or a stream waiter with subgraphs=True)
        # is yielded as it finishes; a lone task ran inline and waits for the next release.
        release = task.error is not None or self.tasks_in_step.get(ns, 1) > 1 or self.subgraphs
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

    def run_finished(self, *, ns: tuple[str, ...], status: str, output: Any, error: BaseException | None, step: int) -> None:
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
