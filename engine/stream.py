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
        if "updates" in self.modes and task.error is None:
            self._emit(ns, "updates", {task.name: updates_chunk(task.writes, keys, task.node.state_keys)})
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

    def step_committed(self, *, ns: tuple[str, ...], commit: StepCommit) -> None:
        if "values" not in self.modes:
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
