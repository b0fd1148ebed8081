"""Checkpoints, and the savers that keep them: what a thread looked like after every superstep.

With a saver attached (`compile(checkpointer=InMemorySaver())`) and a `thread_id` in the config, a
run saves one checkpoint per superstep, numbered as LangGraph numbers them: the input is step -1 on a
new thread, the hidden `__start__` task's step is 0, the first real node's step is 1, and a later run
on the same thread continues counting. Checkpoint step N holds the state after superstep N; its
`next` tasks run as step N+1.

What a step's tasks did before the step finished (their writes, the interrupts they raised, the
answers they were given, their errors) is stored as *pending writes* on the checkpoint the step
started from: `(task_id, channel, value)` triples. A resumed run hands the finished tasks' writes
back instead of re-running them, and re-runs only the interrupted or failed ones.

The savers keep LangGraph's interface (`get_tuple`, `list`, `put`, `put_writes`, `delete_thread`), so
code written against `langgraph.checkpoint.memory.InMemorySaver` works with ours. Checkpoint ids are
time-ordered uuid6-like strings, so the newest sorts last; pass `ids=` (and `clock=`) to a saver for
reproducible ids in tests. Channel versions stay ints (LangGraph's InMemorySaver uses zero-padded
strings; they order the same way).
"""

from __future__ import annotations

import copy
import itertools
import os
import threading
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Callable, Iterator, NamedTuple, Sequence, TypedDict

from .constants import ERROR, INTERRUPT, NO_WRITES, RESUME

CHECKPOINT_VERSION = 4
"""The `v` of the checkpoints LangGraph 1.2 writes."""
NULL_TASK_ID = "00000000-0000-0000-0000-000000000000"
"""The task id of writes that come from outside any task: a `Command`'s update, goto and resume."""
WRITES_IDX_MAP = {ERROR: -1, "__scheduled__": -2, INTERRUPT: -3, RESUME: -4}
"""Control writes take a fixed slot per task, so a newer one replaces the older (LangGraph's map)."""
CONTROL_WRITES = frozenset((ERROR, INTERRUPT, RESUME, "__error_source_node__"))
EXCLUDED_METADATA_KEYS = frozenset(
    {
        "thread_id",
        "checkpoint_id",
        "checkpoint_ns",
        "checkpoint_map",
        "langgraph_step",
        "langgraph_node",
        "langgraph_triggers",
        "langgraph_path",
        "langgraph_checkpoint_ns",
    }
)
MISSING_THREAD_ID = (
    "Checkpointer requires one or more of the following 'configurable' keys: thread_id, checkpoint_ns, checkpoint_id"
)

PendingWrite = tuple[str, str, Any]
"""`(task_id, channel, value)`: one write a task made in a step that has not finished."""


class Checkpoint(TypedDict):
    """One saved state of a thread (LangGraph's dict layout, so its tools read it too)."""

    v: int
    """Format version (4)."""
    id: str
    """Time-ordered: a thread's newest checkpoint has the greatest id."""
    ts: str
    """When it was saved, UTC ISO-8601."""
    channel_values: dict[str, Any]
    """The value of every channel that has a version and holds something (as `Channel.checkpoint()`)."""
    channel_versions: dict[str, int]
    """Every channel's version on the run's global clock."""
    versions_seen: dict[str, dict[str, int]]
    """Per node, the versions of its trigger channels when it last ran (`__interrupt__`: breakpoints)."""
    updated_channels: list[str] | None
    """The channels the last barrier updated: the next step plans only the nodes they trigger."""


class CheckpointTuple(NamedTuple):
    """A checkpoint with its config, metadata, parent and pending writes, as savers return it."""

    config: dict[str, Any]
    """`{"configurable": {"thread_id", "checkpoint_ns", "checkpoint_id"}}`."""
    checkpoint: Checkpoint
    """The saved state."""
    metadata: dict[str, Any]
    """`{"source", "step", "parents"}` plus the scalar keys of the run's config metadata/configurable."""
    parent_config: dict[str, Any] | None = None
    """The config of the checkpoint this one was saved after, None for a thread's first."""
    pending_writes: list[PendingWrite] | None = None
    """The writes of the tasks of the step that started from this checkpoint and has not finished."""


# ---- ids and times ------------------------------------------------------------------------------

_last_timestamp = 0
_id_lock = threading.Lock()


def uuid6(clock_seq: int = 0) -> str:
    """A version-6 UUID (time first, so ids sort by creation), strictly increasing within a process."""
    global _last_timestamp
    with _id_lock:
        timestamp = time.time_ns() // 100 + 0x01B21DD213814000
        timestamp = _last_timestamp = max(timestamp, _last_timestamp + 1)
    value = ((timestamp >> 12) & 0xFFFFFFFFFFFF) << 80 | 6 << 76 | (timestamp & 0x0FFF) << 64
    value |= 0b10 << 62 | (clock_seq & 0x3FFF) << 48 | int.from_bytes(os.urandom(6), "big")
    h = f"{value:032x}"
    return f"{h[:8]}-{h[8:12]}-{h[12:16]}-{h[16:20]}-{h[20:]}"


def sequential_ids(start: int = 1) -> Callable[[int], str]:
    """Deterministic checkpoint ids for tests: `00000000-0000-0000-0000-000000000001`, `...002`, ..."""
    counter = itertools.count(start)
    return lambda step: f"00000000-0000-0000-0000-{next(counter):012d}"


def utc_now() -> str:
    return datetime.now(UTC).isoformat()


def empty_checkpoint(id: str = "", ts: str = "") -> Checkpoint:
    """What a thread without checkpoints starts from (LangGraph gives it metadata step -2)."""
    return Checkpoint(
        v=CHECKPOINT_VERSION,
        id=id,
        ts=ts,
        channel_values={},
        channel_versions={},
        versions_seen={},
        updated_channels=None,
    )


def checkpoint_metadata(config: dict[str, Any], metadata: dict[str, Any]) -> dict[str, Any]:
    """`metadata` plus every scalar, non-internal key of `config["metadata"]` and `config["configurable"]`."""
    merged = dict(metadata)
    for source in (config.get("metadata"), config.get("configurable")):
        for key, value in (source or {}).items():
            if key in merged or key in EXCLUDED_METADATA_KEYS or key.startswith("__"):
                continue
            if isinstance(value, (str, int, bool, float)):
                merged[key] = value
    return merged


def thread_config(config: dict[str, Any] | None) -> tuple[str, str, str | None]:
    """`(thread_id, checkpoint_ns, checkpoint_id)` of a config; a missing thread_id is LangGraph's error."""
    configurable = (config or {}).get("configurable") or {}
    if configurable.get("thread_id") is None:
        raise ValueError(MISSING_THREAD_ID)
    return str(configurable["thread_id"]), configurable.get("checkpoint_ns") or "", configurable.get("checkpoint_id")


def make_config(thread_id: str, checkpoint_ns: str, checkpoint_id: str | None) -> dict[str, Any]:
    return {"configurable": {"thread_id": thread_id, "checkpoint_ns": checkpoint_ns, "checkpoint_id": checkpoint_id}}


def task_path_str(path: tuple[Any, ...] | str | int) -> str:
    """LangGraph's sortable form of a task path: PULL tasks sort before PUSH, Sends by index."""
    if isinstance(path, (tuple, list)):
        return f"~{', '.join(task_path_str(p) for p in path)}"
    return f"{path:010d}" if isinstance(path, int) else str(path)


def safe_copy(value: Any) -> Any:
    """A deep copy, so a saved value never changes when a node later mutates the live one."""
    try:
        return copy.deepcopy(value)
    except Exception:  # noqa: BLE001 - an uncopyable object (a lock, a client) is kept as is
        return value


# ---- what the pending writes say about each task ---------------------------------------------


@dataclass(frozen=True, slots=True)
class TaskStatus:
    """One task's story so far in an unfinished step, read from the pending writes."""

    output: tuple[tuple[str, Any], ...] = ()
    """Its writes (channels and `__no_writes__`) if it finished; empty if it has not."""
    interrupts: tuple[Any, ...] = ()
    """The last interrupts it raised, answered or not."""
    resume: tuple[Any, ...] = ()
    """The answers it was given to its `interrupt()` calls, by position."""
    error: BaseException | None = None
    """The exception it raised, if it failed."""

    @property
    def finished(self) -> bool:
        return bool(self.output)

    @property
    def pending_interrupts(self) -> tuple[Any, ...]:
        return () if self.output else self.interrupts


def read_task_statuses(pending_writes: Sequence[PendingWrite]) -> dict[str, TaskStatus]:
    """Every task's status, by task id; the null task's writes are input, not a task's."""
    found: dict[str, dict[str, Any]] = {}
    for task_id, channel, value in pending_writes:
        if task_id == NULL_TASK_ID:
            continue
        entry = found.setdefault(task_id, {"output": [], "interrupts": [], "resume": (), "error": None})
        if channel == INTERRUPT:
            entry["interrupts"].extend(value if isinstance(value, (list, tuple)) else [value])
        elif channel == RESUME:
            entry["resume"] = tuple(value) if isinstance(value, list) else (value,)
        elif channel == ERROR:
            entry["error"] = entry["error"] or value
        elif channel not in CONTROL_WRITES:
            entry["output"].append((channel, value))
    return {
        tid: TaskStatus(tuple(e["output"]), tuple(e["interrupts"]), e["resume"], e["error"]) for tid, e in found.items()
    }


def finished_writes(status: TaskStatus) -> list[tuple[str, Any]]:
    """A finished task's channel writes, without the `__no_writes__` marker."""
    return [(c, v) for c, v in status.output if c != NO_WRITES]


class ListQuery(NamedTuple):
    """What `list(config, before=...)` asks for; None where the config does not say."""

    thread_id: Any
    checkpoint_ns: str | None
    checkpoint_id: str | None
    before_id: str | None

    def excludes(self, checkpoint_id: str) -> bool:
        """Whether a checkpoint of a wanted thread and namespace is left out by id or by `before`."""
        return bool(self.checkpoint_id and checkpoint_id != self.checkpoint_id) or bool(
            self.before_id and checkpoint_id >= self.before_id
        )


# ---- savers -------------------------------------------------------------------------------------


class BaseCheckpointSaver:
    """The saver interface (LangGraph's): subclasses store checkpoints and pending writes.

    `ids(step)` makes checkpoint ids (time-ordered uuid6 by default) and `clock()` timestamps; inject
    both for reproducible histories.
    """

    def __init__(self, *, ids: Callable[[int], str] | None = None, clock: Callable[[], str] | None = None) -> None:
        self.ids = ids or uuid6
        self.clock = clock or utc_now

    def new_id(self, step: int) -> str:
        return self.ids(step)

    def now(self) -> str:
        return self.clock()

    def get(self, config: dict[str, Any]) -> Checkpoint | None:
        saved = self.get_tuple(config)
        return saved.checkpoint if saved else None

    def get_tuple(self, config: dict[str, Any]) -> CheckpointTuple | None:
        """The checkpoint `config` names by `checkpoint_id`, else the thread's newest; None if none."""
        raise NotImplementedError

    def list(
        self,
        config: dict[str, Any] | None,
        *,
        filter: dict[str, Any] | None = None,
        before: dict[str, Any] | None = None,
        limit: int | None = None,
    ) -> Iterator[CheckpointTuple]:
        """Checkpoints newest first; `filter` matches metadata, `before` is a config, `limit` a count."""
        configurable = (config or {}).get("configurable") or {}
        wanted = ListQuery(
            configurable.get("thread_id"),
            configurable.get("checkpoint_ns"),
            configurable.get("checkpoint_id"),
            ((before or {}).get("configurable") or {}).get("checkpoint_id"),
        )
        yield from self._listed(wanted, filter, limit)

    def _listed(self, wanted: "ListQuery", filter: dict[str, Any] | None, limit: int | None) -> list[CheckpointTuple]:
        """`list`'s checkpoints, newest first: each saver's own search."""
        raise NotImplementedError

    def put(
        self, config: dict[str, Any], checkpoint: Checkpoint, metadata: dict[str, Any], new_versions: dict[str, Any]
    ) -> dict[str, Any]:
        """Saves `checkpoint` as a child of the one `config` names; returns the new checkpoint's config."""
        raise NotImplementedError

    def put_writes(
        self, config: dict[str, Any], writes: Sequence[tuple[str, Any]], task_id: str, task_path: str = ""
    ) -> None:
        """Stores a task's writes on the checkpoint `config` names."""
        raise NotImplementedError

    def delete_thread(self, thread_id: str) -> None:
        raise NotImplementedError

    def get_next_version(self, current: int | None, channel: Any = None) -> int:
        return 1 if current is None else int(str(current).split(".")[0]) + 1


def matches(metadata: dict[str, Any], filter: dict[str, Any] | None) -> bool:
    return not filter or all(metadata.get(key) == value for key, value in filter.items())


def write_slots(writes: Sequence[tuple[str, Any]]) -> Iterator[tuple[int, str, Any]]:
    """`(index, channel, value)`: control writes get their fixed negative slot, others their position."""
    for index, (channel, value) in enumerate(writes):
        yield WRITES_IDX_MAP.get(channel, index), channel, value


class InMemorySaver(BaseCheckpointSaver):
    """Keeps checkpoints in a dict, for debugging and tests. Values are deep-copied in and out, so
    what was saved never changes when a node mutates the live state."""

    def __init__(self, *, ids: Callable[[int], str] | None = None, clock: Callable[[], str] | None = None) -> None:
        super().__init__(ids=ids, clock=clock)
        self.storage: dict[str, dict[str, dict[str, tuple[Checkpoint, dict[str, Any], str | None]]]] = {}
        """thread_id -> checkpoint_ns -> checkpoint_id -> (checkpoint, metadata, parent checkpoint id)."""
        self.writes: dict[tuple[str, str, str], dict[tuple[str, int], tuple[str, str, Any, str]]] = {}
        """(thread_id, checkpoint_ns, checkpoint_id) -> (task_id, slot) -> (task_id, channel, value, task_path)."""
        self.lock = threading.RLock()

    def get_tuple(self, config: dict[str, Any]) -> CheckpointTuple | None:
        thread_id, ns, checkpoint_id = thread_config(config)
        with self.lock:
            checkpoints = self.storage.get(thread_id, {}).get(ns, {})
            if checkpoint_id is None:
                if not checkpoints:
                    return None
                checkpoint_id = max(checkpoints)
            if checkpoint_id not in checkpoints:
                return None
            return self._tuple(thread_id, ns, checkpoint_id)

    def _tuple(self, thread_id: str, ns: str, checkpoint_id: str) -> CheckpointTuple:
        checkpoint, metadata, parent = self.storage[thread_id][ns][checkpoint_id]
        stored = self.writes.get((thread_id, ns, checkpoint_id), {})
        ordered = sorted(stored, key=lambda k: (stored[k][3], k[0], k[1]))
        return CheckpointTuple(
            make_config(thread_id, ns, checkpoint_id),
            safe_copy(checkpoint),
            safe_copy(metadata),
            make_config(thread_id, ns, parent) if parent else None,
            [(stored[k][0], stored[k][1], safe_copy(stored[k][2])) for k in ordered],
        )

    def _listed(self, wanted: "ListQuery", filter: dict[str, Any] | None, limit: int | None) -> list[CheckpointTuple]:
        with self.lock:
            threads = [str(wanted.thread_id)] if wanted.thread_id is not None else list(self.storage)
            found = []
            for thread_id in threads:
                for ns, checkpoints in self.storage.get(thread_id, {}).items():
                    if wanted.checkpoint_ns is not None and ns != wanted.checkpoint_ns:
                        continue
                    for checkpoint_id in sorted(checkpoints, reverse=True):
                        if wanted.excludes(checkpoint_id):
                            continue
                        if matches(checkpoints[checkpoint_id][1], filter):
                            found.append(self._tuple(thread_id, ns, checkpoint_id))
        return found[:limit] if limit is not None else found

    def put(
        self, config: dict[str, Any], checkpoint: Checkpoint, metadata: dict[str, Any], new_versions: dict[str, Any]
    ) -> dict[str, Any]:
        thread_id, ns, parent = thread_config(config)
        with self.lock:
            self.storage.setdefault(thread_id, {}).setdefault(ns, {})[checkpoint["id"]] = (
                safe_copy(checkpoint),
                safe_copy(checkpoint_metadata(config, metadata)),
                parent,
            )
        return make_config(thread_id, ns, checkpoint["id"])

    def put_writes(
        self, config: dict[str, Any], writes: Sequence[tuple[str, Any]], task_id: str, task_path: str = ""
    ) -> None:
        thread_id, ns, checkpoint_id = thread_config(config)
        with self.lock:
            stored = self.writes.setdefault((thread_id, ns, checkpoint_id or ""), {})
            for slot, channel, value in write_slots(writes):
                if slot >= 0 and (task_id, slot) in stored:
                    continue  # a task's regular writes are stored once; control writes are replaced
                stored[(task_id, slot)] = (task_id, channel, safe_copy(value), task_path)

    def delete_thread(self, thread_id: str) -> None:
        with self.lock:
            self.storage.pop(str(thread_id), None)
            for key in [k for k in self.writes if k[0] == str(thread_id)]:
                del self.writes[key]


MemorySaver = InMemorySaver
"""LangGraph's older name for `InMemorySaver`."""
