"""The `Recorder`: a hook (`engine.hooks`) that turns the engine's events into a `Trace` (`trace.py`).

Cheap while the run goes, because the run's caller is waiting. An event whose values cannot change
any more (numbers, strings, and flat lists, dicts and tuples of them, copied shallowly here) is kept
as it came, and turned into records later: when `trace` is read, or when a step goes to a sink. An
event carrying any other value (a node may later change it in place: append to a list it was given)
is recorded on the spot, after every event kept before it. So records are always built in event
order, from the values as they were when the event came, and the Trace is the same whenever it is
built. The one check that cannot wait is made as each event comes: is a node's input exactly the
recorded state (then it is recorded as a `{"$view": keys}`)? `RunEvents.latest` answers it. The
events are built on each run's `TraceWriter` (`engine/trace_writer.py`), the writer every runtime uses.
"""

from __future__ import annotations

import threading
import uuid
from itertools import chain
from typing import Any, Callable, Protocol, Sequence

from .algo import Task
from .channels import MISSING
from .constants import PULL, START
from .hooks import Hooks, ReducerCall, RunInfo, StepCommit
from .records import SAME_AS_WRITES, RunRecord, Trace, describe, utc_now
from .run_start import CHECKPOINT_KEYS, new_run, plain_config
from .trace_events import (
    FROZEN,
    NO_CHANGES,
    THAWED,
    Encode,
    RunEvents,
    build_checkpointed,
    build_committed,
    build_finished,
    build_finished_flat,
    build_planned,
    build_reduced,
    build_reduced_grown,
    freeze_input,
    message_channels,
)
from .trace_values import IMMUTABLE
from .trace_writer import TraceWriter
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
        self.builders: dict[tuple[str, ...], RunEvents] = {}
        self.lock = threading.Lock()

    @property
    def trace(self) -> Trace | None:
        """The recorded run (None before it started), with every event so far turned into records."""
        for events in list(self.builders.values()):
            events.writer.catch_up()
        return self._trace

    # ---- run boundaries --------------------------------------------------------------------------

    def run_started(self, *, ns: tuple[str, ...], run: RunInfo) -> None:
        with self.lock:
            record = new_run(
                ns=ns,
                graph=describe(run.graph),
                input=run.input,
                config=plain_config(run.config),
                recursion_limit=run.recursion_limit,
                started_at=self.clock(),
                trace=not ns,
                run_id=self.run_id,
                target=self.target,
            )
            parent = self.builders.get(ns[:-1]) if ns else None
            task = parent.writer.task(ns[-1].rpartition(":")[2]) if parent is not None else None
            if not ns:
                self._trace = record  # type: ignore[assignment]
                writer = TraceWriter(record, self.sink)
            elif task is not None:
                writer = parent.writer.subrun(task, record)  # type: ignore[union-attr]
            else:  # a run whose starting task is not recorded: kept, but reachable from no trace
                writer = TraceWriter(record)
            events = self.builders[ns] = RunEvents(writer, lazy=self.sink is None)
            events.message_channels = message_channels(run.graph)

    def run_finished(
        self, *, ns: tuple[str, ...], status: RunStatus, output: Any, error: BaseException | None, step: int
    ) -> None:
        events = self.builders.get(ns)
        if events is not None:
            events.writer.finish(status, output, error)

    # ---- supersteps: what each event must capture as it comes --------------------------------------
    # An event is kept as one flat tuple, `(kind, ...)`, of the values the records need and nothing
    # else: the engine's own objects (tasks, calls, commits) are let go, and a tuple of numbers and
    # strings is one the garbage collector soon stops looking at (a long run keeps many of them).

    def step_planned(self, *, ns: tuple[str, ...], step: int, tasks: Sequence[Task]) -> None:
        builder = self.builders[ns]
        lazy = builder.lazy
        pending = builder.pending
        shared = builder.shared
        latest = builder.latest
        for task in tasks:
            value = task.input
            marker: Any = None
            if type(value) is not dict:
                marker = builder.view_of(task)
            elif task.path[0] == PULL and task.name != START:  # `view_of` of a dict, written out
                for key, item in value.items():
                    if latest.get(key, THAWED) is not item:
                        break
                else:
                    keys = tuple(value)
                    marker = builder.views.setdefault(keys, keys)
            at_once = not lazy
            if marker is None:
                value = task.input
                kept = THAWED if at_once else freeze_input(value)
                if kept is THAWED:
                    at_once = True
                    kept = value
                marker = Encode(kept)
            # One tuple: equal trigger tuples shared, and the task's own dict of the versions it saw.
            event = (
                build_planned,
                step,
                task.id,
                task.name,
                task.path,
                task.triggers,
                shared.setdefault(task.fired, task.fired),
                marker,
                task.seen_versions,
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
            if type(result) is dict and len(writes) >= len(result):  # `same_as_writes`, written out
                index = 0
                for key, value in result.items():
                    channel, written = writes[index]
                    if value is not written or key != channel:
                        break
                    index += 1
                else:
                    result = SAME_AS_WRITES
            routes = task.routes
            if lazy and task.error is None and not task.attempts:
                # A task's lists are replaced, never changed, once it finished: only their values can change.
                kept = result
                if result is not SAME_AS_WRITES and type(result) not in FROZEN:
                    kept = builder.freeze(result, step)
                # One flat tuple, `(kind, id, result, duration, number of writes, channel, value, ...,
                # router, choice, ...)`: the task's own lists and pairs are let go.
                if len(writes) == 2 and len(routes) == 1 and kept is not THAWED:
                    # the usual task of a loop (a key, an edge, a router), its tuple built without chains
                    (key, value), (edge, trigger) = writes
                    ((router, choice),) = routes
                    if type(value) in FROZEN and type(trigger) in FROZEN and type(choice) in FROZEN:
                        event = (
                            build_finished_flat,
                            task.id,
                            kept,
                            task.duration,
                            2,
                            key,
                            value,
                            edge,
                            trigger,
                            router,
                            choice,
                        )
                        pending.append(event)
                        continue
                event = (
                    build_finished_flat,
                    task.id,
                    kept,
                    task.duration,
                    len(writes),
                    *chain.from_iterable(writes),
                    *chain.from_iterable(routes),
                )
                # not only numbers and strings written and chosen: copied (a loop: `type` is cheap
                # in one, and costly called by `map`)
                for _, value in writes:
                    if type(value) not in FROZEN:
                        event = _copied_flat(builder, event, step)
                        break
                else:
                    for _, value in routes:
                        if type(value) not in FROZEN:
                            event = _copied_flat(builder, event, step)
                            break
                if event is not None and kept is not THAWED:
                    pending.append(event)
                    continue
            _finished_at_once(builder, task, result, step)

    def reducer_called(self, *, ns: tuple[str, ...], call: ReducerCall) -> None:
        builder = self.builders[ns]
        channel, step, error = call.channel, call.step, call.error
        before, write, after = call.before, call.write, call.after
        latest = builder.latest
        same = before is latest.get(channel, MISSING)  # as the builder's tracker will have it
        latest[channel] = after if error is None else before
        if error is None:
            if builder.reduced_step != step:
                builder.reduced.clear()
                builder.reduced_step = step
            builder.reduced[channel] = after
        appended = None
        proven = False
        if (
            error is None
            and type(before) in FROZEN
            and type(write) in FROZEN
            and type(after) in FROZEN
            and builder.lazy
            and channel not in builder.message_channels
        ):  # the usual call of a counter or a plain key: every value kept as it is
            at_once = False
        else:
            kept = _kept_call_values(builder, call)
            if kept is None:  # recorded as the growth of the list its channel's last call made
                return
            before, write, after, at_once = kept
            if channel in builder.message_channels:
                appended = builder.appended(channel, call.before, call.write, call.after)
                if not at_once:  # a kept event holds copies: its delta is found from them
                    appended = None
                # the engine's channel compared `before` with the items of its last call's `after` (which
                # this builder copied, `appended` saw it made): the writer need not compare them again
                proven = appended is not None and call.before_unchanged
        event = (
            build_reduced,
            step,
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
            appended,
            proven,
        )
        builder.now(event) if at_once else builder.pending.append(event)

    def step_committed(self, *, ns: tuple[str, ...], commit: StepCommit) -> None:
        builder = self.builders[ns]
        state = commit.read(None)
        latest = builder.latest
        reduced = builder.reduced if builder.reduced_step == commit.step else NO_CHANGES  # made at this barrier
        changes: dict[str, Any] = NO_CHANGES  # a dict of its own once a key changed
        recorded: list[str] = []  # keys whose value is the object recorded last (changed in place?)
        for key, value in state.items():
            previous = latest.get(key, THAWED)
            if previous is value and (type(value) in IMMUTABLE or reduced.get(key) is value):
                continue  # the usual key: what was recorded last (or what a reducer just made)
            if changes is NO_CHANGES:
                changes = {}
            if previous is not value:
                latest[key] = value
            else:  # the recorded object: a node may have changed it in place
                recorded.append(key)
            changes[key] = value
            builder.merged.pop(key, None)  # recorded by the commit: no longer what `add_messages` made
        if len(state) != len(commit.state_keys):  # keys without a value
            changes = _emptied(builder, commit.state_keys, state, changes)
        at_once = not builder.lazy
        if changes and not at_once:
            at_once = not _kept_changes(builder, changes, commit.step)
            if at_once:  # every value as it stands in this step's records
                stand_in = builder.stand_in
                changes = {key: stand_in(state.get(key, MISSING), commit.step) for key in changes}
        updated = builder.shared.setdefault(commit.updated_channels, commit.updated_channels)
        event = (
            build_committed,
            commit.step,
            commit.kind,
            updated,
            commit.versions,
            changes,  # NO_CHANGES (one empty dict) for every step without changes: fewer objects kept
            tuple(recorded) if recorded else (),
        )
        builder.now(event) if at_once else builder.pending.append(event)

    def checkpoint_saved(self, *, ns: tuple[str, ...], step: int, config: Any, metadata: Any) -> None:
        builder = self.builders.get(ns)
        if builder is not None:
            event = (build_checkpointed, step, plain_config(config, CHECKPOINT_KEYS))  # a copy of plain strings
            builder.pending.append(event) if builder.lazy else builder.now(event)


def _kept_call_values(builder: RunEvents, call: ReducerCall) -> tuple[Any, Any, Any, bool] | None:
    """A reducer call's before, write and after as its event holds them, and whether the event is
    built at once (a value that may still change in place); None when it was recorded as the growth
    of the list its channel's last call made (`_grew`)."""
    before, write, after = call.before, call.write, call.after
    if not builder.lazy:
        return before, write, after, True
    step = call.step
    if call.error is not None:  # built at once, each value as `stand_in` gives it
        stand_in = builder.stand_in
        return stand_in(before, step), stand_in(write, step), stand_in(after, step), True
    if builder.copies_step != step:
        builder.start_copies(step)
    if _grew(builder, call):
        return None
    # the usual case: `before` and `write` were copied at an earlier event of this step
    copies, copied = builder.copies, builder.copied
    if type(before) not in FROZEN:
        before = copies[id(before)] if copied.get(id(before)) is before else builder.freeze(before, step)
    if type(write) not in FROZEN:
        write = copies[id(write)] if copied.get(id(write)) is write else builder.freeze(write, step)
    if type(after) not in FROZEN:
        after = builder.freeze(after, step)
    if before is THAWED or write is THAWED or after is THAWED:  # each value as `stand_in` gives it
        before = call.before if before is THAWED else before
        write = call.write if write is THAWED else write
        after = call.after if after is THAWED else after
        return before, write, after, True
    if type(after) is list and call.reducer == "operator.add":
        builder.grown[call.channel] = call.after  # the next call may build on it (see `_grew`)
    return before, write, after, False


def _grew(builder: RunEvents, call: ReducerCall) -> bool:
    """The commonest reducer, again on the list its last call made in this barrier (only the channel
    holds it: no code could change it since): `before + write` is what was recorded plus the copied
    write, so the long list is neither copied nor looked at again. True when recorded so."""
    before, write, channel = call.before, call.write, call.channel
    if (
        type(before) is not list
        or type(write) is not list
        or builder.grown.get(channel) is not before
        or call.reducer != "operator.add"
        or builder.copied.get(id(write), THAWED) is not write
        or type(builder.copies[id(write)]) is not list
    ):
        return False
    builder.grown[channel] = call.after
    event = (build_reduced_grown, call.step, channel, call.reducer, call.writer, call.writer_name, call.index)
    builder.pending.append((*event, builder.copies[id(write)]))
    return True


def _copied_flat(builder: RunEvents, event: tuple[Any, ...], step: int) -> tuple[Any, ...] | None:
    """A flat finished-task event with its written values and router choices copied (`freeze`); None
    when one of them may still change in place (the event is then built at once)."""
    flat = list(event)
    for index in range(6, len(flat), 2):
        value = flat[index]
        if type(value) not in FROZEN:
            value = builder.freeze(value, step)
            if value is THAWED:
                return None
            flat[index] = value
    return tuple(flat)


def _finished_at_once(builder: RunEvents, task: Task, result: Any, step: int) -> None:
    """A finished task's event built at once: with its error or attempts, a value that may still
    change, or a sink. Values copied for events kept earlier in this step are recorded as those copies."""
    writes, routes = task.writes, task.routes
    if builder.lazy:
        stand_in = builder.stand_in
        result = result if result is SAME_AS_WRITES else stand_in(result, step)
        writes = [(c, v if type(v) in FROZEN else stand_in(v, step)) for c, v in writes]
        routes = [(n, v if type(v) in FROZEN else stand_in(v, step)) for n, v in routes]
    builder.now((build_finished, task.id, result, writes, routes, task.duration, task.error, task.attempts))


def _emptied(
    builder: RunEvents, state_keys: frozenset[str], state: dict[str, Any], changes: dict[str, Any]
) -> dict[str, Any]:
    """`changes` with the state keys that lost their value at this commit (recorded as MISSING)."""
    latest = builder.latest
    for key in state_keys:
        if key not in state and latest.get(key, THAWED) is not MISSING:
            latest[key] = MISSING
            if changes is NO_CHANGES:
                changes = {}
            changes[key] = MISSING
            builder.merged.pop(key, None)
    return changes


def _kept_changes(builder: RunEvents, changes: dict[str, Any], step: int) -> bool:
    """Puts copies of a commit's changed flat values in `changes`, as its kept event holds them; False
    when one may still change in place (the event is then built at once)."""
    for key, value in changes.items():
        if type(value) not in FROZEN:
            copy = builder.freeze(value, step)
            if copy is THAWED:
                return False
            changes[key] = copy
    return True
