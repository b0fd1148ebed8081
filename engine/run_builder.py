"""Turning a `Recorder`'s events into records (`engine/recorder.py` captures them; this builds them).

An event is a flat tuple, `(kind, ...)`, holding the values as they were when it came: the originals
(when it is built at once) or shallow copies of flat values (when it is kept to be built later), which
hold the very same items. The checks that depend on when an event came (is this the object recorded
last?) were made as it came, so both ways give the same records. `RunBuilder` holds one run's records
and what building has reached (trackers, the open step); `freeze` decides which values can wait.
"""

from __future__ import annotations

import operator
import threading
import time
from collections import deque
from typing import TYPE_CHECKING, Any, Callable

from .algo import Task
from .channels import MISSING
from .codec import BIG_INT, MISSING_ENCODED, RESERVED, DeltaTracker, encode, encode_error
from .constants import PULL, START
from .records import SAME, SAME_AS_WRITES, VIEW, ReducerCallRecord, RunRecord, StepRecord, TaskRecord, fields_of

if TYPE_CHECKING:  # pragma: no cover
    from .recorder import StepSink


class Encode:
    """A node input that is not the recorded state: recorded as its encoding."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


class RunBuilder:
    """Builds one RunRecord from the events of one namespace (the run's own thread emits them; a
    reader of `Recorder.trace` may build from another thread, so building holds `lock`)."""

    def __init__(self, record: RunRecord, sink: StepSink | None = None) -> None:
        self.record = record
        self.sink = sink
        """Where finished steps go instead of staying in `record.steps` (the root run only)."""
        self.lazy = sink is None
        """Events are kept and built later only without a sink (a step must be whole when handed over)."""
        self.pending: deque[tuple[Any, ...]] = deque()
        """Events kept as they came, oldest first (a deque: the run's thread appends while a reader
        of the trace may be emptying it)."""
        self.lock = threading.Lock()
        # What the events have reached (the run's thread only):
        self.latest: dict[str, Any] = {}
        """Per state key, the object recorded last, as of the newest event: what the builder's
        `DeltaTracker.raw` will be when it gets there, so identity checks are made as events come."""
        self.views: dict[tuple[str, ...], tuple[str, ...]] = {}
        """One tuple per set of keys a node input is a view of, shared by every event that has it."""
        self.shared: dict[Any, Any] = {}
        """One object for equal ones that events keep (fired triggers, updated channels): a long run
        keeps fewer objects, which the garbage collector would otherwise keep walking."""
        self.copies: dict[int, Any] = {}
        self.copied: dict[int, Any] = {}
        self.copies_step: int | None = None
        self.grown: dict[str, Any] = {}
        """Per channel, the list the last `operator.add` call of this step made (see `REDUCED_GROWN`)."""
        """`freeze`'s copies of this step's values, by identity. An object written, reduced and
        committed in one step gets one copy, which stands for it in every record of the step, built
        later or at once (`stand_in`): its records share one encoding, as when all are built at once."""
        # What building has reached (touched with `lock` held only):
        self.trackers: dict[str, DeltaTracker] = {}
        self.step: StepRecord | None = None
        self.tasks_by_id: dict[str, TaskRecord] = {}
        self.versions: dict[str, int] = {}
        self.started = time.perf_counter()
        self.memo: dict[int, tuple[Any, Any]] = {}

    def now(self, event: tuple[Any, ...]) -> None:
        """Builds an event at once, after every event kept before it."""
        with self.lock:
            self._build_pending()
            BUILD[event[0]](self, event)

    def catch_up(self) -> None:
        """Turns the kept events into records."""
        if self.pending:
            with self.lock:
                self._build_pending()

    def _build_pending(self) -> None:
        pending = self.pending
        while pending:
            event = pending.popleft()
            BUILD[event[0]](self, event)

    def start_copies(self, step: int) -> None:
        """Forgets the copies of the last step: `step` has its own."""
        self.copies.clear()
        self.copied.clear()
        self.grown.clear()
        self.copies_step = step

    def freeze(self, value: Any, step: int) -> Any:
        """`_freeze`, one copy per object per step (see `copies`)."""
        copies, copied = self.copies, self.copied
        if step != self.copies_step:
            self.start_copies(step)
        key = id(value)
        if copied.get(key, THAWED) is value:
            return copies[key]
        copy = _freeze(value)
        copies[key] = copy
        copied[key] = value  # keeps `value` alive, so its id is not reused (two dicts: no pair to allocate)
        return copy

    def stand_in(self, value: Any, step: int) -> Any:
        """What records `value` in an event built at once: its copy if it has one (so an object
        recorded in several events of a step is always the same object), else itself."""
        if type(value) in FROZEN:
            return value
        copy = self.freeze(value, step)
        return value if copy is THAWED else copy

    def view_of(self, task: Task) -> tuple[str, ...] | None:
        """When a node's input is exactly the recorded state (checked as the task is planned: the node
        may replace values in its input dict), the keys it holds, as one tuple shared by every event
        with the same keys; else None."""
        if task.path[0] != PULL or task.name == START:
            return None
        value = task.input
        latest = self.latest
        if type(value) is dict:
            for key, item in value.items():
                if latest.get(key, THAWED) is not item:
                    return None
            keys = tuple(value)
        else:
            items = fields_of(value)
            if items is None or not all(latest.get(k, THAWED) is v for k, v in items):
                return None
            keys = tuple(k for k, _ in items)
        return self.views.setdefault(keys, keys)

    def tracker(self, channel: str) -> DeltaTracker:
        tracker = self.trackers.get(channel)
        if tracker is None:
            tracker = self.trackers[channel] = DeltaTracker()
        return tracker

    def open_step(self, step: int) -> StepRecord:
        if self.step is None or self.step.step != step:
            if self.sink is not None and self.record.steps:
                self.sink.flush(self.record)  # the previous step is final: hand it over, hold no more of it
                self.tasks_by_id.clear()
            self.step = StepRecord(step)
            self.record.steps.append(self.step)
            self.memo.clear()
        return self.step

    def encode(self, value: Any, _depth: int = 0) -> Any:
        """`encode`, sharing one encoding per object within a step: a node's return value, its write
        and the reducer's new items are usually the same objects, recorded once in memory. Only the
        top levels are shared; deeper down `encode` takes over, with its depth limit and cycle guard."""
        kind = type(value)
        if kind is str or kind is bool or value is None or (kind is int and -BIG_INT < value < BIG_INT):
            return value  # as `encode` records them, without its guards (most values recorded are these)
        if kind in _SCALARS or _depth >= _SHARED_LEVELS:
            return encode(value, _depth)
        hit = self.memo.get(id(value))
        if hit is not None and hit[0] is value:
            return hit[1]
        if kind is list:
            encoded: Any = [self.encode(item, _depth + 1) for item in value]
        elif kind is dict and value.keys().isdisjoint(RESERVED) and all(type(k) is str for k in value):
            encoded = {k: self.encode(v, _depth + 1) for k, v in value.items()}
        else:
            encoded = encode(value, _depth)
        self.memo[id(value)] = (value, encoded)  # keeps `value` alive, so its id is not reused
        return encoded


# ---- turning events into records (with the builder's lock held) ----------------------------------
# Each event holds the values as they were when it came: the originals (built at once) or shallow
# copies of flat values (built later), which hold the very same items; identity checks were made as
# the event came. So both ways give the same records.

PLANNED, FINISHED, REDUCED, COMMITTED, CHECKPOINTED, FINISHED_FLAT, REDUCED_GROWN = range(7)


def _build_planned(builder: RunBuilder, event: tuple[Any, ...]) -> None:
    _, step, task_id, name, path, triggers, fired, marker, seen_versions = event
    seen_versions = dict(seen_versions)
    record = builder.step if builder.step is not None and builder.step.step == step else builder.open_step(step)
    recorded = {VIEW: list(marker)} if type(marker) is tuple else encode(marker.value)
    task_record = TaskRecord(task_id, name, list(path), list(triggers), list(fired), seen_versions, recorded)
    record.tasks.append(task_record)
    builder.tasks_by_id[task_id] = task_record


def _build_finished_flat(builder: RunBuilder, event: tuple[Any, ...]) -> None:
    _, task_id, result, duration, count = event[:5]
    record = builder.tasks_by_id[task_id]
    encode_shared = builder.encode
    record.result = result if result is SAME_AS_WRITES else encode_shared(result)
    end = 5 + 2 * count
    record.writes = [[channel, encode_shared(value)] for channel, value in zip(event[5:end:2], event[6:end:2])]
    if len(event) > end:
        record.routes = [[name, encode_shared(chosen)] for name, chosen in zip(event[end::2], event[end + 1 :: 2])]
    record.duration = round(duration, 6)


def _build_finished(builder: RunBuilder, event: tuple[Any, ...]) -> None:
    _, task_id, result, writes, routes, duration, error, attempts = event
    record = builder.tasks_by_id[task_id]
    encode_shared = builder.encode
    record.result = result if result is SAME_AS_WRITES else encode_shared(result)
    record.writes = [[channel, encode_shared(value)] for channel, value in writes]
    if routes:
        record.routes = [[name, encode_shared(chosen)] for name, chosen in routes]
    record.duration = round(duration, 6)
    if error is not None:
        record.error = encode_error(error)
    if attempts:
        record.attempts = [
            {
                "attempt": a.attempt,
                "error": encode_error(a.error),
                "duration": round(a.duration, 6),
                "retry_in": round(a.retry_in, 6),
            }
            for a in attempts
        ]


def _build_reduced(builder: RunBuilder, event: tuple[Any, ...]) -> None:
    _, step_number, channel, reducer, writer, writer_name, index, same, before, write, after, error = event
    step = builder.step
    if step is None or step.step != step_number:
        step = builder.open_step(step_number)
    tracker = builder.trackers.get(channel) or builder.tracker(channel)
    encode_shared = builder.encode
    if same and (type(before) in IMMUTABLE or _unchanged_list(before, tracker.items)):
        before_delta = SAME  # the usual case: what the last call (or commit) recorded, untouched since
    else:
        before_delta = tracker.delta(before, encode_shared)
    after_delta = tracker.delta(after, encode_shared) if error is None else SAME
    step.reducer_calls.append(
        ReducerCallRecord(
            index,
            channel,
            reducer,
            writer,
            writer_name,
            encode_shared(write),
            before_delta,
            after_delta,
            encode_error(error) if error is not None else None,
        )
    )


def _build_reduced_grown(builder: RunBuilder, event: tuple[Any, ...]) -> None:
    """`operator.add` of the channel's last recorded list and a copied write: the result is what was
    recorded plus the write's items (what `DeltaTracker.delta` finds, found without comparing)."""
    _, step_number, channel, reducer, writer, writer_name, index, write = event
    step = builder.step
    if step is None or step.step != step_number:
        step = builder.open_step(step_number)
    tracker = builder.trackers[channel]
    encode_shared = builder.encode
    if write:
        after_delta: dict[str, Any] = {"extend": [encode_shared(item) for item in write]}
        tracker.items.extend(write)
    else:
        after_delta = SAME
    tracker.encoded = MISSING_ENCODED
    step.reducer_calls.append(
        ReducerCallRecord(index, channel, reducer, writer, writer_name, encode_shared(write), SAME, after_delta)
    )


def _build_committed(builder: RunBuilder, event: tuple[Any, ...]) -> None:
    _, step_number, kind, updated, versions, changes = event
    step = builder.step
    if step is None or step.step != step_number:
        step = builder.open_step(step_number)
    step.committed = True
    if kind == "update":
        step.kind = "update"
    step.updated_channels = sorted(updated)
    previous = builder.versions
    step.versions = {k: v for k, v in versions.items() if previous.get(k) != v}
    builder.versions = versions  # already the barrier's own copy
    trackers = builder.trackers
    encode_shared = builder.encode
    for key, value, same in changes:
        tracker = trackers.get(key)
        if tracker is None:
            tracker = builder.tracker(key)
        elif same and (type(value) in IMMUTABLE or _unchanged_list(value, tracker.items)):
            continue  # the recorded object, unchanged (checked without copying the list again)
        change = tracker.delta(value, encode_shared)
        if "same" not in change:
            step.state[key] = change


def _build_checkpointed(builder: RunBuilder, event: tuple[Any, ...]) -> None:
    _, step, config = event
    for record in reversed(builder.record.steps):
        if record.step == step:
            record.checkpoint = config
            return


BUILD: tuple[Callable[[RunBuilder, tuple[Any, ...]], None], ...] = (
    _build_planned,
    _build_finished,
    _build_reduced,
    _build_committed,
    _build_checkpointed,
    _build_finished_flat,
    _build_reduced_grown,
)


# ---- which values can wait ---------------------------------------------------------------------

THAWED = object()
"""`_freeze`'s answer for a value that may still change in place: its event is built at once."""
FROZEN = frozenset((int, str, float, bool, type(None), type(MISSING)))
_SCALARS = (int, str, float, bool, type(None))
_SHARED_LEVELS = 4
"""How deep `RunBuilder.encode` shares encodings by identity (a cycle is cut a few levels later)."""
IMMUTABLE = frozenset((int, str, float, bool, type(None), tuple))
"""Values `DeltaTracker.delta` calls unchanged when they are the recorded object itself."""


def _freeze(value: Any) -> Any:
    """A value that stays as it is now: the value itself when immutable, a shallow copy of a flat
    list or dict (whose items are immutable), else `THAWED`."""
    kind = type(value)
    if kind in FROZEN:
        return value
    if kind is list:
        return list(value) if _flat(value) else THAWED
    if kind is dict:
        return dict(value) if _flat(value.values()) else THAWED
    if kind is tuple:
        return value if _flat(value) else THAWED
    return THAWED


def _flat(items: Any) -> bool:
    """True when every item is immutable (`FROZEN`). The first item is looked at alone, so a list of
    messages fails at once; the rest are checked at C speed (a set of their types)."""
    for first in items:
        if type(first) not in FROZEN:
            return False
        return len(items) == 1 or FROZEN.issuperset(map(type, items))
    return True


def freeze_input(value: Any) -> Any:
    """`_freeze` for a node's input: a dict of flat values is copied one level deeper."""
    if type(value) is not dict:
        return _freeze(value)
    kept = {}
    for key, item in value.items():
        copy = _freeze(item)
        if copy is THAWED:
            return THAWED
        kept[key] = copy
    return kept


def _unchanged_list(value: Any, items: Any) -> bool:
    """True when `value` is a list whose items are still exactly the recorded `items` (a node may
    have changed it in place, which the delta must then show)."""
    return (
        type(value) is list
        and type(items) is list
        and len(value) == len(items)
        and all(map(operator.is_, value, items))
    )
