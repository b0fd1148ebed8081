"""The engine's events, kept to be written later: what `engine/recorder.py` captures and how each
event is built on the run's `TraceWriter` (`engine/trace_writer.py`).

An event is a flat tuple, `(build, ...)`: the function that writes it, then the values as they were
when it came: the originals (when it is built at once) or shallow copies of flat values (when it is
kept to be built later), which hold the very same items. The checks that depend on when an event
came (is this the object recorded last?) were made as it came, so both ways give the same records.
`RunEvents` holds what capturing has reached for one run (the objects recorded last, this step's
copies); `freeze` decides which values can wait.
"""

from __future__ import annotations

import operator
from typing import Any

from .algo import Task
from .channels import MISSING
from .codec_encode import encode, encode_error
from .codec_types import BIG_INT, MISSING_ENCODED
from .constants import PULL, START
from .message_reducer import add_messages
from .messages import BaseMessage
from .records import SAME, SAME_AS_WRITES, ReducerCallRecord, TaskRecord, fields_of
from .trace_values import _SCALAR_TYPES, IMMUTABLE, unchanged_list
from .trace_writer import TraceWriter


class Encode:
    """A node input that is not the recorded state: recorded as its encoding."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value


class RunEvents:
    """What the events of one run (one namespace) have reached as they come, in the run's own
    thread; `writer` builds them (a reader of `Recorder.trace` may build from another thread)."""

    def __init__(self, writer: TraceWriter, *, lazy: bool | None = None) -> None:
        self.writer = writer
        self.record = writer.record
        self.lazy = writer.sink is None if lazy is None else lazy
        """Events are kept and built later only without a sink (a step must be whole when handed over);
        a subgraph run inside a run that streams to a sink is built at once too, as it is part of the
        root step that is handed over."""
        self.pending = writer.pending
        self.now = writer.now
        self.latest: dict[str, Any] = {}
        """Per state key, the object recorded last, as of the newest event: what the writer's
        `DeltaTracker.raw` will be when it gets there, so identity checks are made as events come."""
        self.views: dict[tuple[str, ...], tuple[str, ...]] = {}
        """One tuple per set of keys a node input is a view of, shared by every event that has it."""
        self.shared: dict[Any, Any] = {}
        """One object for equal ones that events keep (fired triggers, updated channels): a long run
        keeps fewer objects, which the garbage collector would otherwise keep walking."""
        self.copies: dict[int, Any] = {}
        """`freeze`'s copies of this step's values, by identity. An object written, reduced and
        committed in one step gets one copy, which stands for it in every record of the step, built
        later or at once (`stand_in`): its records share one encoding, as when all are built at once."""
        self.copied: dict[int, Any] = {}
        self.copies_step: int | None = None
        self.grown: dict[str, Any] = {}
        """Per channel, the list the last `operator.add` call of this step made (see `build_reduced_grown`)."""
        self.reduced: dict[str, Any] = {}
        """Per channel, the value its last reducer call of step `reduced_step` returned. No node runs
        between a barrier's calls and its commit, so the commit finds that value as the call recorded
        it, and does not compare a long list item by item again."""
        self.reduced_step: int | None = None
        self.message_channels: frozenset[str] = frozenset()
        """The channels whose reducer is the engine's own `add_messages` (see `appended`)."""
        self.merged: dict[str, Any] = {}
        """Per such channel, the list its last `add_messages` call made from a plain write: every item
        a message, so the next call copies them as they are (`coerce_messages`) and appends or replaces."""

    def appended(self, channel: str, before: Any, write: Any, after: Any) -> list[Any] | None:
        """The messages an `add_messages` call appended, when it did nothing else: `after` is
        `before`'s items then the write's (checked on the write's few, not the long list), and
        `before` is a list that call's own kind made (all messages, copied as they are). The writer
        still checks that `before` is unchanged since it was recorded (`TraceWriter.add_call`)."""
        if channel not in self.message_channels or type(after) is not list:
            return None
        made = self.merged.get(channel) is before
        if type(write) is list or isinstance(write, BaseMessage):
            self.merged[channel] = after  # a plain write: every item of the result is a message
        else:
            self.merged.pop(channel, None)
            return None
        items = write if type(write) is list else [write]
        start = len(after) - len(items)
        if not made or start != len(before) or not all(map(operator.is_, after[start:], items)):
            return None
        return items

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


def message_channels(graph: Any) -> frozenset[str]:
    """The state keys of `graph` whose reducer is the engine's `add_messages` (plain: a `format`
    rebuilds every message, so nothing is known to be appended)."""
    builder = getattr(graph, "builder", None)
    channels = getattr(builder, "channels", None) or {}
    return frozenset(key for key, channel in channels.items() if getattr(channel, "operator", None) is add_messages)


_is = operator.is_
NO_CHANGES: dict[str, Any] = {}
"""The changed values of a commit whose changes its reducer calls recorded (shared: never changed)."""


# ---- building events on the writer (with its lock held) ------------------------------------------
# Each event holds the values as they were when it came: the originals (built at once) or shallow
# copies of flat values (built later), which hold the very same items; identity checks were made as
# the event came. So both ways give the same records.


def build_planned(writer: TraceWriter, event: tuple[Any, ...]) -> None:
    """`(build_planned, step, id, name, path, triggers, fired, view keys or Encode, seen versions)`.
    (`TraceWriter.plan_task`, written out: this runs for every task of a recorded run.)"""
    _, step, task_id, name, path, triggers, fired, marker, seen_versions = event
    if type(marker) is tuple:
        recorded = writer.views.get(marker) or writer.view(marker)
    else:
        recorded = encode(marker.value)
    if path[0] == PULL:  # name lists, shared run-wide (a pull task's path is two names too): one lookup
        key = (path, triggers, fired)
        names = writer.task_names.get(key)
        if names is None:
            interned = writer.interned
            names = writer.task_names[key] = (interned(path), interned(triggers), interned(fired))
        kept_path, kept_triggers, kept_fired = names
    else:
        kept_path, kept_triggers, kept_fired = list(path), writer.interned(triggers), writer.interned(fired)
    # every field given (in order), so no default factory is called
    task = TaskRecord(
        task_id,
        name,
        kept_path,
        kept_triggers,
        kept_fired,
        seen_versions,
        recorded,
        None,
        [],
        [],
        0.0,
        None,
        [],
        [],
        {},
    )
    record = writer.step
    if record is None or record.step != step:
        record = writer.open_step(step)
    record.tasks.append(task)
    writer.tasks_by_id[task_id] = task


def build_finished_flat(writer: TraceWriter, event: tuple[Any, ...]) -> None:
    """`(build_finished_flat, id, result, duration, number of writes, channel, value, ..., router, choice, ...)`:
    a task that finished without an error or a retry."""
    # `TraceWriter.task_done`, for values that cannot be an error, an attempt or an encoded value;
    # `same_as_writes` was checked as the event came
    task = writer.tasks_by_id[event[1]]
    tail = event[4:]  # the number of writes, then the names and values: a loop has the same every step
    last = writer.last_finished.get(task.name)  # the node's last task's, when the very same objects
    if last is not None and len(last[0]) == len(tail) and all(map(_is, tail, last[0])):
        found = last[1]
    else:
        end = 1 + 2 * tail[0]
        found = (writer.flat_pairs(tail[1:end]), writer.flat_pairs(tail[end:]) if len(tail) > end else None)
        if _SCALAR_TYPES.issuperset(map(type, tail)) and all(
            type(value) in _SCALAR_TYPES for pairs in found if pairs for _, value in pairs
        ):  # lists `flat_pairs` shares (not a huge int): the same for the same objects next time
            writer.last_finished[task.name] = (tail, found)
    task.writes = found[0]
    if found[1] is not None:
        task.routes = found[1]
    result = event[2]
    task.result = result if result is SAME_AS_WRITES else writer.encode(result)
    duration = event[3]
    if duration is not None:
        task.duration = round(duration, 6)


def build_finished(writer: TraceWriter, event: tuple[Any, ...]) -> None:
    """`(build_finished, id, result, writes, routes, duration, error, attempts)`."""
    _, task_id, result, writes, routes, duration, error, attempts = event
    tried = None
    if attempts:
        tried = [
            {
                "attempt": a.attempt,
                "error": encode_error(a.error),
                "duration": round(a.duration, 6),
                "retry_in": round(a.retry_in, 6),
            }
            for a in attempts
        ]
    writer.task_done(
        writer.tasks_by_id[task_id],
        writes=writes,
        result=result,
        has_result=True,
        routes=routes,
        duration=duration,
        error=error,
        attempts=tried,
    )


def build_reduced(writer: TraceWriter, event: tuple[Any, ...]) -> None:
    """`(build_reduced, step, channel, reducer, writer id, writer name, index, before is the recorded
    object, before, write, after, error, appended items or None, before proven unchanged)`: `proven` when
    the producer knows `before`'s items are still those recorded (`ReducerCall.before_unchanged`)."""
    _, step, channel, reducer, writer_id, writer_name, index, same, before, write, after, error, appended, proven = (
        event
    )
    tracker = writer.trackers.get(channel)
    if (
        error is not None
        or not same
        or tracker is None
        or writer.check_commits
        or (type(before) not in IMMUTABLE and not proven and not unchanged_list(before, tracker.items))
    ):
        writer.add_call(
            step,
            channel,
            reducer,
            writer_id,
            writer_name,
            before,
            write,
            after,
            error,
            index=index,
            before_is_recorded=same,
            appended=appended,
        )
        return
    # `TraceWriter.add_call` when `before` is what was recorded last, untouched since (the usual
    # call), written out: this runs for every reducer call of a recorded run
    record = writer.step
    if record is None or record.step != step:
        record = writer.open_step(step)
    encode_shared = writer.encode
    kind = type(after)
    if (kind is int and -BIG_INT < after < BIG_INT) or kind is str or kind is bool or after is None:
        if after is tracker.raw:  # `DeltaTracker.delta` of a scalar, as it answers
            after_delta: dict[str, Any] = SAME
        else:
            tracker.encoded = tracker.raw = after
            tracker.items = None
            after_delta = {"set": after}
    elif appended is not None:
        after_delta = tracker.extend(after, appended, encode_shared)
    else:
        after_delta = tracker.delta(after, encode_shared)
    kind = type(write)
    if not ((kind is int and -BIG_INT < write < BIG_INT) or kind is str or kind is bool or write is None):
        write = encode_shared(write)
    record.reducer_calls.append(
        ReducerCallRecord(index, channel, reducer, writer_id, writer_name, write, SAME, after_delta)
    )


def build_reduced_grown(writer: TraceWriter, event: tuple[Any, ...]) -> None:
    """`operator.add` of the channel's last recorded list and a copied write: the result is what was
    recorded plus the write's items (what `DeltaTracker.delta` finds, found without comparing)."""
    _, step, channel, reducer, writer_id, writer_name, index, write = event
    tracker = writer.trackers[channel]
    encode_shared = writer.encode
    if write:
        after_delta: dict[str, Any] = {"extend": [encode_shared(item) for item in write]}
        tracker.items.extend(write)
    else:
        after_delta = SAME
    tracker.encoded = MISSING_ENCODED
    writer.add_call_record(
        step,
        ReducerCallRecord(index, channel, reducer, writer_id, writer_name, encode_shared(write), SAME, after_delta),
    )


def build_committed(writer: TraceWriter, event: tuple[Any, ...]) -> None:
    """`(build_committed, step, kind, updated channels, versions, changed values, unchanged keys)`."""
    _, step, kind, updated, versions, changes, recorded = event
    if changes or kind == "update" or writer.check_commits or type(updated) is not frozenset or versions is None:
        # the engine's commit kinds are `input`, `loop` and `update`; a trace tells only an edit apart
        kind = "update" if kind == "update" else "loop"
        writer.commit(step, changes, versions, updated, kind=kind, recorded=recorded)
        return
    # `TraceWriter.commit` of a barrier whose every change its reducer calls recorded (the usual
    # one), written out: this runs for every step of a recorded run
    record = writer.step
    if record is None or record.step != step:
        record = writer.open_step(step)
    record.committed = True
    names = writer.sorted_names.get(updated)
    if names is None:
        names = writer.sorted_names[updated] = writer.interned(sorted(updated))
    record.updated_channels = names
    previous = writer.versions
    changed = {}
    for channel, version in versions.items():
        if previous.get(channel) != version:
            changed[channel] = version
    record.versions = changed
    writer.versions = versions


def build_checkpointed(writer: TraceWriter, event: tuple[Any, ...]) -> None:
    """`(build_checkpointed, step, config)`."""
    _, step, config = event
    writer.checkpoint(step, config)


# ---- which values can wait ---------------------------------------------------------------------

THAWED = object()
"""`_freeze`'s answer for a value that may still change in place: its event is built at once."""
FROZEN = frozenset((int, str, float, bool, type(None), type(MISSING)))


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
