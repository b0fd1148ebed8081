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
from datetime import datetime, timezone
from typing import Any, Callable, Iterator, Sequence

from .algo import Task
from .constants import RETURN, START
from .hooks import Hooks, StepCommit

STREAM_MODES = ("values", "updates", "debug", "tasks", "custom", "checkpoints", "messages")


def utc_now_iso() -> str:
    return datetime.now(timezone.utc).isoformat()


class StreamCollector(Hooks):
    """Collects chunks while the loop runs; `stream()` drains them after every tick."""

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
        self.stream_keys = frozenset(stream_keys)
        self.stream_keys_ordered = list(stream_keys)
        self.clock = clock
        self.chunks: deque[Any] = deque()
        self.lock = threading.Lock()
        self.step_updates: dict[tuple[str, ...], list[Any]] = {}
        """Per namespace: this step's `updates` chunks, held until the barrier (see `step_committed`)."""
        self.step_shape: dict[tuple[str, ...], tuple[int, bool]] = {}
        """Per namespace: (tasks in this step, whether one of them failed)."""

    def drain(self) -> Iterator[Any]:
        while self.chunks:
            yield self.chunks.popleft()

    def _emit(self, ns: tuple[str, ...], mode: str, chunk: Any) -> None:
        if ns and not self.subgraphs:
            return
        if self.single_mode:
            item = (ns, chunk) if self.subgraphs else chunk
        else:
            item = (ns, mode, chunk) if self.subgraphs else (mode, chunk)
        with self.lock:
            self.chunks.append(item)

    def step_planned(self, *, ns: tuple[str, ...], step: int, tasks: Sequence[Task]) -> None:
        self.step_updates[ns] = []
        self.step_shape[ns] = (len(tasks), False)
        if "debug" not in self.modes and "tasks" not in self.modes:
            return
        for task in tasks:
            if task.name == START:
                continue
            payload = {"id": task.id, "name": task.name, "input": task.input, "triggers": task.triggers}
            self._emit_task_event(ns, step, "task", payload)

    def task_finished(self, *, ns: tuple[str, ...], step: int, task: Task) -> None:
        if task.name == START:
            return
        keys = self.stream_keys if not ns else None
        if task.error is not None:
            count, _ = self.step_shape.get(ns, (1, False))
            self.step_shape[ns] = (count, True)
        # LangGraph emits a task's update unless its first write is its error: a task whose
        # router failed after the node returned still shows what the node wrote.
        if "updates" in self.modes and (task.error is None or task.writes):
            chunk = {task.name: updates_chunk(task.writes, keys, task.node.state_keys)}
            self.step_updates.setdefault(ns, []).append(chunk)
        if "debug" in self.modes or "tasks" in self.modes:
            writes = [(c, v) for c, v in task.writes if (c in keys if keys is not None else c in task.node.state_keys)]
            payload = {
                "id": task.id,
                "name": task.name,
                "error": task.error,
                "result": task_result_writes(writes),
                "interrupts": [],
            }
            self._emit_task_event(ns, step, "task_result", payload)

    def _emit_task_event(self, ns: tuple[str, ...], step: int, kind: str, payload: dict[str, Any]) -> None:
        if "tasks" in self.modes:
            self._emit(ns, "tasks", payload)
        if "debug" in self.modes:
            self._emit(ns, "debug", {"step": step, "timestamp": self.clock(), "type": kind, "payload": payload})

    def _flush_updates(self, ns: tuple[str, ...]) -> None:
        for chunk in self.step_updates.pop(ns, ()):
            self._emit(ns, "updates", chunk)

    def run_finished(self, *, ns: tuple[str, ...], status: str, output: Any, error: BaseException | None, step: int) -> None:
        """A failed barrier loses a one-task step's update in LangGraph (that task ran inline and its
        chunk was never yielded); with several tasks, or a failed task, the chunks were already out."""
        count, task_failed = self.step_shape.pop(ns, (0, False))
        # With subgraphs=True LangGraph has a stream waiter, so even one task runs off-thread.
        if status == "done" or task_failed or count > 1 or self.subgraphs:
            self._flush_updates(ns)
        self.step_updates.pop(ns, None)

    def step_committed(self, *, ns: tuple[str, ...], commit: StepCommit) -> None:
        self._flush_updates(ns)
        if "values" not in self.modes or commit.step < 0:  # input writes are not a values chunk
            return
        keys = self.stream_keys_ordered if not ns else None
        if not ns:
            if commit.updated_channels.isdisjoint(self.stream_keys):
                return
        elif commit.updated_channels.isdisjoint(commit.state_keys):
            return
        self._emit(ns, "values", commit.read(keys))


def updates_chunk(writes: list[tuple[str, Any]], keys: frozenset[str] | None, state_keys: frozenset[str]) -> Any:
    """One task's `updates` value: its writes to state keys, a list of one-key dicts if it wrote a
    key twice, the `__return__` value of a functional task, or None when it wrote no state key."""
    keys = keys if keys is not None else state_keys
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
