"""The `Recorder`: a hook (`engine.hooks`) that turns the engine's events into a `Trace` (`trace.py`).

Cheap while the run goes, because the run's caller is waiting. An event whose values cannot change
any more (numbers, strings, and flat lists, dicts and tuples of them, copied shallowly here) is kept
as it came, and turned into records later: when `trace` is read, or when a step goes to a sink. An
event carrying any other value (a node may later change it in place: append to a list it was given)
is recorded on the spot, after every event kept before it. So records are always built in event
order, from the values as they were when the event came, and the Trace is the same whenever it is
built. The one check that cannot wait is made as each event comes: is a node's input exactly the
recorded state (then it is recorded as a `{"$view": keys}`)? `_RunBuilder.latest` answers it.
"""

from __future__ import annotations

import operator
import threading
import time
import uuid
from collections import deque
from itertools import chain
from typing import Any, Callable, Protocol, Sequence

from .algo import Task
from .channels import MISSING
from .codec import BIG_INT, RESERVED, DeltaTracker, encode, encode_error
from .constants import PULL, START
from .hooks import Hooks, ReducerCall, RunInfo, StepCommit
from .records import (
    SAME,
    SAME_AS_WRITES,
    VIEW,
    ReducerCallRecord,
    RunRecord,
    StepRecord,
    TaskRecord,
    Trace,
    describe,
    fields_of,
    same_as_writes,
    utc_now,
)
from .types import RunStatus


class StepSink(Protocol):
    """Takes a run's finished steps as it is recorded (e.g. into a database, `debugger.recording`)."""

    def flush(self, record: RunRecord) -> None:
        """Takes `record.steps` (all final) and empties the list; may decline and leave them there."""


class Recorder(Hooks):
    """A hook that records a run into `self.trace`. One Recorder per run; thread-safe for subgraphs
    that run in parallel worker threads, and `trace` may be read from another thread while the run
    goes (it is then complete up to the last event)."""

    def __init__(
        self,
        *,
        target: str = "",
        run_id: str | None = None,
        clock: Callable[[], str] = utc_now,
        sink: StepSink | None = None,
    ) -> None:
        self._trace: Trace | None = None
        self.sink = sink
        """With a sink, the root run's finished steps are handed over as they end and dropped from
        `trace.steps`, so recording memory does not grow with the number of steps. Its records are
        built as each event comes (a step must be whole when it is handed over)."""
        self.target = target
        self.run_id = run_id or uuid.uuid4().hex
        self.clock = clock
        self.builders: dict[tuple[str, ...], _RunBuilder] = {}
        self.lock = threading.Lock()

    @property
    def trace(self) -> Trace | None:
        """The recorded run (None before it started), with every event so far turned into records."""
        for builder in list(self.builders.values()):
            builder.catch_up()
        return self._trace

    # ---- run boundaries --------------------------------------------------------------------------

    def run_started(self, *, ns: tuple[str, ...], run: RunInfo) -> None:
        common = dict(
            ns=list(ns),
            graph=describe(run.graph),
            input=encode(run.input),
            config=encode(_plain_config(run.config)),
            recursion_limit=run.recursion_limit,
            started_at=self.clock(),
        )
        with self.lock:
            if not ns:
                record: RunRecord = Trace(**common, run_id=self.run_id, target=self.target)
                self._trace = record  # type: ignore[assignment]
            else:
                record = RunRecord(**common)
                parent = self.builders.get(ns[:-1])
                if parent is not None:
                    parent.catch_up()  # the task that started this run has its record
                    task = parent.tasks_by_id.get(ns[-1].rpartition(":")[2])
                    if task is not None:
                        task.subgraphs.append(record)
            self.builders[ns] = _RunBuilder(record, self.sink if not ns else None)

    def run_finished(
        self, *, ns: tuple[str, ...], status: RunStatus, output: Any, error: BaseException | None, step: int
    ) -> None:
        builder = self.builders.get(ns)
        if builder is None:
            return
        record = builder.record
        record.status = status
        record.output = encode(output)
        record.error = encode_error(error) if error is not None else None
        record.duration = round(time.perf_counter() - builder.started, 6)
        if builder.sink is not None:
            builder.catch_up()
            if record.steps:
                builder.sink.flush(record)

    # ---- supersteps: what each event must capture as it comes --------------------------------------
    # An event is kept as one flat tuple, `(kind, ...)`, of the values the records need and nothing
    # else: the engine's own objects (tasks, calls, commits) are let go, and a tuple of numbers and
    # strings is one the garbage collector soon stops looking at (a long run keeps many of them).

    def step_planned(self, *, ns: tuple[str, ...], step: int, tasks: Sequence[Task]) -> None:
        builder = self.builders[ns]
        latest = builder.latest
        lazy = builder.lazy
        pending = builder.pending
        shared = builder.shared
        for task in tasks:
            value = task.input
            marker: Any = None
            # now, not later: the node may replace values in its input dict
            if type(value) is dict and task.path[0] == PULL and task.name != START:
                for key, item in value.items():
                    if latest.get(key, _THAWED) is not item:
                        break
                else:
                    keys = tuple(value)
                    marker = builder.views.setdefault(keys, keys)
            else:
                keys = builder.view_keys(task)
                if keys is not None:
                    keys = tuple(keys)
                    marker = builder.views.setdefault(keys, keys)
            at_once = not lazy
            if marker is None:
                kept = _THAWED if at_once else _freeze_input(value)
                if kept is _THAWED:
                    at_once = True
                    kept = value
                marker = _Encode(kept)
            # One tuple: equal trigger tuples shared, the versions seen flattened (channel, version, ...),
            # so the event keeps no object of its own that the garbage collector would walk.
            event = (
                _PLANNED,
                step,
                task.id,
                task.name,
                task.path,
                task.triggers,
                shared.setdefault(task.fired, task.fired),
                marker,
                *_flatten(task.seen_versions.items()),
            )
            builder.now(event) if at_once else pending.append(event)

    def task_finished(self, *, ns: tuple[str, ...], step: int, task: Task) -> None:
        self.tasks_finished(ns=ns, step=step, tasks=(task,))

    def tasks_finished(self, *, ns: tuple[str, ...], step: int, tasks: Sequence[Task]) -> None:
        builder = self.builders[ns]
        lazy = builder.lazy
        pending = builder.pending
        for task in tasks:
            result = task.result
            writes = task.writes
            if type(result) is dict and same_as_writes(result, writes):
                result = SAME_AS_WRITES
            routes = task.routes
            if lazy and task.error is None and not task.attempts:
                # A task's lists are replaced, never changed, once it finished: only their values can change.
                kept = result
                if result is not SAME_AS_WRITES and type(result) not in _FROZEN:
                    kept = builder.freeze(result, step)
                # One flat tuple, `(kind, id, result, duration, number of writes, channel, value, ...,
                # router, choice, ...)`: the task's own lists and pairs are let go.
                event = [_FINISHED_FLAT, task.id, kept, task.duration, len(writes)]
                for name, value in (*writes, *routes):
                    if type(value) not in _FROZEN:
                        value = builder.freeze(value, step)
                        if value is _THAWED:
                            kept = _THAWED
                            break
                    event.append(name)
                    event.append(value)
                if kept is not _THAWED:
                    pending.append(tuple(event))
                    continue
            if lazy:  # values copied for events kept earlier in this step are recorded as those copies
                stand_in = builder.stand_in
                result = result if result is SAME_AS_WRITES else stand_in(result, step)
                writes = [(channel, stand_in(value, step)) for channel, value in writes]
                routes = [(name, stand_in(value, step)) for name, value in routes]
            builder.now((_FINISHED, task.id, result, writes, routes, task.duration, task.error, task.attempts))

    def reducer_called(self, *, ns: tuple[str, ...], call: ReducerCall) -> None:
        builder = self.builders[ns]
        latest = builder.latest
        channel = call.channel
        before, write, after, error = call.before, call.write, call.after, call.error
        same = before is latest.get(channel, MISSING)  # as the builder's tracker will have it
        latest[channel] = after if error is None else before
        at_once = error is not None or not builder.lazy
        if builder.lazy:
            step = call.step
            if error is None:
                copies, copied = builder.copies, builder.copied
                if builder.copies_step != step:
                    builder.start_copies(step)
                # the usual case: `before` and `write` were copied at an earlier event of this step
                if type(before) not in _FROZEN:
                    before = copies[id(before)] if copied.get(id(before)) is before else builder.freeze(before, step)
                if type(write) not in _FROZEN:
                    write = copies[id(write)] if copied.get(id(write)) is write else builder.freeze(write, step)
                if type(after) not in _FROZEN:
                    after = builder.freeze(after, step)
                at_once = before is _THAWED or write is _THAWED or after is _THAWED
            if at_once:
                stand_in = builder.stand_in
                before, write, after = (
                    stand_in(call.before, step),
                    stand_in(call.write, step),
                    stand_in(call.after, step),
                )
        event = (
            _REDUCED,
            call.step,
            channel,
            call.reducer,
            call.writer,
            call.writer_name,
            call.index,
            same,
            before,
            write,
            after,
            error,
        )
        builder.now(event) if at_once else builder.pending.append(event)

    def step_committed(self, *, ns: tuple[str, ...], commit: StepCommit) -> None:
        builder = self.builders[ns]
        state = commit.read(None)
        latest = builder.latest
        changes = []
        for key, value in state.items():
            previous = latest.get(key, _THAWED)
            if previous is not value:
                latest[key] = value
                changes.append((key, value, False))
            elif type(value) not in _IMMUTABLE:  # the recorded object: a node may have changed it in place
                changes.append((key, value, True))
        if len(state) != len(commit.state_keys):  # keys without a value
            for key in commit.state_keys:
                if key not in state and latest.get(key, _THAWED) is not MISSING:
                    latest[key] = MISSING
                    changes.append((key, MISSING, False))
        at_once = not builder.lazy
        if changes and not at_once:
            step = commit.step
            for index, (key, value, same) in enumerate(changes):
                if type(value) not in _FROZEN:
                    copy = builder.freeze(value, step)
                    if copy is _THAWED:
                        at_once = True
                        break
                    changes[index] = (key, copy, same)
            if at_once:  # every value as it stands in this step's records
                stand_in = builder.stand_in
                changes = [(key, stand_in(state.get(key, MISSING), step), same) for key, _, same in changes]
        updated = builder.shared.setdefault(commit.updated_channels, commit.updated_channels)
        event = (_COMMITTED, commit.step, commit.kind, updated, commit.versions, tuple(changes))
        builder.now(event) if at_once else builder.pending.append(event)

    def checkpoint_saved(self, *, ns: tuple[str, ...], step: int, config: Any, metadata: Any) -> None:
        builder = self.builders.get(ns)
        if builder is not None:
            event = (_CHECKPOINTED, step, encode(config))
            builder.pending.append(event) if builder.lazy else builder.now(event)


class _Encode:
    """A node input that is not the recorded state: recorded as its encoding."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


class _RunBuilder:
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
            _BUILD[event[0]](self, event)

    def catch_up(self) -> None:
        """Turns the kept events into records."""
        if self.pending:
            with self.lock:
                self._build_pending()

    def _build_pending(self) -> None:
        pending = self.pending
        while pending:
            event = pending.popleft()
            _BUILD[event[0]](self, event)

    def view(self, keys: Any) -> tuple[str, ...]:
        """The shared tuple of these keys (a dict's keys, or a list of them)."""
        keys = tuple(keys)
        return self.views.setdefault(keys, keys)

    def start_copies(self, step: int) -> None:
        """Forgets the copies of the last step: `step` has its own."""
        self.copies.clear()
        self.copied.clear()
        self.copies_step = step

    def freeze(self, value: Any, step: int) -> Any:
        """`_freeze`, one copy per object per step (see `copies`)."""
        copies, copied = self.copies, self.copied
        if step != self.copies_step:
            self.start_copies(step)
        key = id(value)
        if copied.get(key, _THAWED) is value:
            return copies[key]
        copy = _freeze(value)
        copies[key] = copy
        copied[key] = value  # keeps `value` alive, so its id is not reused (two dicts: no pair to allocate)
        return copy

    def stand_in(self, value: Any, step: int) -> Any:
        """What records `value` in an event built at once: its copy if it has one (so an object
        recorded in several events of a step is always the same object), else itself."""
        if type(value) in _FROZEN:
            return value
        copy = self.freeze(value, step)
        return value if copy is _THAWED else copy

    def view_keys(self, task: Task) -> list[str] | None:
        """The keys of a node's input when it is exactly the recorded state, else None."""
        if task.path[0] != PULL or task.name == START:
            return None
        value = task.input
        latest = self.latest
        if type(value) is dict:
            for key, item in value.items():
                if latest.get(key, _THAWED) is not item:
                    return None
            return list(value)
        items = fields_of(value)
        if items is not None and all(latest.get(k, _THAWED) is v for k, v in items):
            return [k for k, _ in items]
        return None

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

_PLANNED, _FINISHED, _REDUCED, _COMMITTED, _CHECKPOINTED, _FINISHED_FLAT = range(6)


def _build_planned(builder: _RunBuilder, event: tuple[Any, ...]) -> None:
    _, step, task_id, name, path, triggers, fired, marker = event[:8]
    seen_versions = dict(zip(event[8::2], event[9::2]))
    record = builder.step if builder.step is not None and builder.step.step == step else builder.open_step(step)
    recorded = {VIEW: list(marker)} if type(marker) is tuple else encode(marker.value)
    task_record = TaskRecord(task_id, name, list(path), list(triggers), list(fired), seen_versions, recorded)
    record.tasks.append(task_record)
    builder.tasks_by_id[task_id] = task_record


def _build_finished_flat(builder: _RunBuilder, event: tuple[Any, ...]) -> None:
    _, task_id, result, duration, count = event[:5]
    record = builder.tasks_by_id[task_id]
    encode_shared = builder.encode
    record.result = result if result is SAME_AS_WRITES else encode_shared(result)
    end = 5 + 2 * count
    record.writes = [[channel, encode_shared(value)] for channel, value in zip(event[5:end:2], event[6:end:2])]
    if len(event) > end:
        record.routes = [[name, encode_shared(chosen)] for name, chosen in zip(event[end::2], event[end + 1 :: 2])]
    record.duration = round(duration, 6)


def _build_finished(builder: _RunBuilder, event: tuple[Any, ...]) -> None:
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


def _build_reduced(builder: _RunBuilder, event: tuple[Any, ...]) -> None:
    _, step_number, channel, reducer, writer, writer_name, index, same, before, write, after, error = event
    step = builder.step
    if step is None or step.step != step_number:
        step = builder.open_step(step_number)
    tracker = builder.trackers.get(channel) or builder.tracker(channel)
    encode_shared = builder.encode
    if same and (type(before) in _IMMUTABLE or _unchanged_list(before, tracker.items)):
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


def _build_committed(builder: _RunBuilder, event: tuple[Any, ...]) -> None:
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
        elif same and (type(value) in _IMMUTABLE or _unchanged_list(value, tracker.items)):
            continue  # the recorded object, unchanged (checked without copying the list again)
        change = tracker.delta(value, encode_shared)
        if "same" not in change:
            step.state[key] = change


def _build_checkpointed(builder: _RunBuilder, event: tuple[Any, ...]) -> None:
    _, step, config = event
    for record in reversed(builder.record.steps):
        if record.step == step:
            record.checkpoint = config
            return


_BUILD: tuple[Callable[[_RunBuilder, tuple[Any, ...]], None], ...] = (
    _build_planned,
    _build_finished,
    _build_reduced,
    _build_committed,
    _build_checkpointed,
    _build_finished_flat,
)


# ---- which values can wait ---------------------------------------------------------------------

_THAWED = object()
"""`_freeze`'s answer for a value that may still change in place: its event is built at once."""
_FROZEN = frozenset((int, str, float, bool, type(None), type(MISSING)))
_SCALARS = (int, str, float, bool, type(None))
_SHARED_LEVELS = 4
"""How deep `_RunBuilder.encode` shares encodings by identity (a cycle is cut a few levels later)."""
_IMMUTABLE = frozenset((int, str, float, bool, type(None), tuple))
"""Values `DeltaTracker.delta` calls unchanged when they are the recorded object itself."""


def _freeze(value: Any) -> Any:
    """A value that stays as it is now: the value itself when immutable, a shallow copy of a flat
    list or dict (whose items are immutable), else `_THAWED`."""
    kind = type(value)
    if kind in _FROZEN:
        return value
    if kind is list:
        return list(value) if _flat(value) else _THAWED
    if kind is dict:
        return dict(value) if _flat(value.values()) else _THAWED
    if kind is tuple:
        return value if _flat(value) else _THAWED
    return _THAWED


_flatten = chain.from_iterable
"""`((a, 1), (b, 2))` -> `a, 1, b, 2`."""


def _flat(items: Any) -> bool:
    """True when every item is immutable (`_FROZEN`). The first item is looked at alone, so a list of
    messages fails at once; the rest are checked at C speed (a set of their types)."""
    for first in items:
        if type(first) not in _FROZEN:
            return False
        return len(items) == 1 or _FROZEN.issuperset(map(type, items))
    return True


def _freeze_input(value: Any) -> Any:
    """`_freeze` for a node's input: a dict of flat values is copied one level deeper."""
    if type(value) is not dict:
        return _freeze(value)
    kept = {}
    for key, item in value.items():
        copy = _freeze(item)
        if copy is _THAWED:
            return _THAWED
        kept[key] = copy
    return kept


def _flat_pairs(pairs: Sequence[tuple[str, Any]]) -> bool:
    """True when every value of these `(name, value)` pairs is immutable (kept as they are)."""
    for _, value in pairs:
        if type(value) not in _FROZEN:
            return False
    return True


def _unchanged_list(value: Any, items: Any) -> bool:
    """True when `value` is a list whose items are still exactly the recorded `items` (a node may
    have changed it in place, which the delta must then show)."""
    return (
        type(value) is list
        and type(items) is list
        and len(value) == len(items)
        and all(map(operator.is_, value, items))
    )


def _plain_config(config: Any) -> Any:
    """The config without objects that only matter in-process (callbacks, savers)."""
    if not isinstance(config, dict):
        return config
    return {k: v for k, v in config.items() if k not in ("callbacks", "checkpointer")}
