"""The one writer of a Trace: every runtime builds its records through a `TraceWriter`.

A runtime reports one run (the root run of a Trace, or a subgraph's run nested in a task) a step at
a time, with raw values; the writer encodes them, keeps the deltas small and hands finished steps to
a sink. In the order a superstep happens:

    writer = TraceWriter(new_run(ns=[], graph=described, input=x, config=plain_config(c), started_at=now, trace=True))
    writer.open_step(n)                                     # optional: every method opens its step
    task = writer.plan_task(n, id=..., name=..., path=..., triggers=..., fired=..., seen_versions=...,
                            input=writer.input_view(node_input))   # a planned task (or add_task(n, TaskRecord))
    writer.task_done(task, writes=[...], result=r, has_result=True, error=None)
    writer.add_call(n, channel, reducer, task.id, task.name, before, write, after, error)
    writer.commit(n, committed_values, versions, updated_channels)
    writer.checkpoint(n, config, parent_config)
    child = writer.subrun(task, new_run(ns=[...], ...))     # a subgraph run nested in `task`
    writer.finish(status, output, error, interrupts)

`add_call` takes the values before and after the write (raw) and records them as deltas against the
channel's last recorded value (`codec.DeltaTracker`): `{"same": true}` for `before` unless the value
changed outside the reducers, and only what grew for `after`. A runtime whose values arrive encoded
(LangGraph.js in node sends JSON with its own deltas) gives whole records to `add_call_record`,
its task's writes with `task_done(..., encoded=True)`, its barrier with `commit_encoded` and its
output with `finish(..., encoded=True)`. Values are recorded as `engine/trace_values.py` says.

With `check_commits` (a runtime whose own barrier folded the writes: langgraph), `commit` compares
each key's committed value with what its last recorded call returned and records any difference in
`StepRecord.mismatches`: a recording that went wrong is shown, never smoothed over.

Behind the methods, a queue: a runtime that must not wait for encoding (the engine's `Recorder`)
appends events, flat tuples whose first item is the function that builds them on the writer
(`engine.trace_events`), and they are built, in order, when the trace is read (`catch_up`) or before
the next event that must be built at once (`now`). Building holds `lock`; the record-level methods
do not take it (call them from the run's own thread, or from an event being built).

A run's first record (`new_run`) and the config a trace keeps (`plain_config`) are `engine.run_start`'s.
"""

from __future__ import annotations

import threading
import time
from collections import deque
from typing import Any, Iterable, Mapping, Sequence

from .codec_encode import encode, encode_error
from .records import (
    SAME,
    SAME_AS_WRITES,
    ReducerCallRecord,
    RunRecord,
    StepRecord,
    TaskRecord,
    same_as_writes,
)
from .run_start import CHECKPOINT_KEYS, plain_config
from .trace_values import IMMUTABLE, RecordedValues, unchanged_list
from .types import StepKind

_UNSET = object()


class TraceWriter(RecordedValues):
    """Writes one RunRecord, one step at a time (see the module docstring for the order)."""

    def __init__(self, record: RunRecord, sink: Any = None, *, check_commits: bool = False) -> None:
        super().__init__()
        self.record = record
        self.sink = sink
        """A `StepSink` that takes each step once the next one opens (and the rest at `finish`), so
        `record.steps` holds only the open step; None keeps every step in the record."""
        self.check_commits = check_commits
        self.pending: deque[tuple[Any, ...]] = deque()
        """Events kept to be built later, oldest first (a deque: the run's thread appends while a
        reader of the trace may be emptying it)."""
        self.lock = threading.Lock()
        self.step: StepRecord | None = None
        """The open step: the one the latest call was about."""
        self.tasks_by_id: dict[str, TaskRecord] = {}
        self.versions: dict[str, int] = {}
        """The channel versions after the last commit (the writer keeps the mapping it is given)."""
        self.committed_state: dict[str, Any] = {}
        """With `check_commits`: the raw state the last commit left (MISSING for empty keys)."""
        self.last_after: dict[str, Any] = {}
        """With `check_commits`: per channel written in the open step, the value its last call left."""
        self.started = time.perf_counter()
        self.sorted_names: dict[frozenset[str], list[str]] = {}
        """`updated_channels` sets as their recorded sorted lists (`interned`), found without sorting."""

    # ---- the queue -------------------------------------------------------------------------------

    def now(self, event: tuple[Any, ...]) -> None:
        """Builds `event` at once, after every event kept before it."""
        with self.lock:
            self._build_pending()
            event[0](self, event)

    def catch_up(self) -> None:
        """Builds every kept event (a reader of the trace calls this first)."""
        if self.pending:
            with self.lock:
                self._build_pending()

    def _build_pending(self) -> None:
        pending = self.pending
        while pending:
            event = pending.popleft()
            event[0](self, event)

    # ---- steps and tasks -------------------------------------------------------------------------

    def open_step(self, step: int, kind: StepKind = "loop") -> StepRecord:
        """The record of `step`: the open one if it is that step, else a new one (the previous step
        is then final: a sink takes it)."""
        record = self.step
        if record is None or record.step != step:
            if self.sink is not None and self.record.steps:
                self.sink.flush(self.record)  # the previous step is final: hand it over, hold no more of it
                self.tasks_by_id.clear()
            # every field given (in order), so no default factory is called: a step opens per superstep
            record = self.step = StepRecord(step, [], [], {}, [], {}, False, None, None, [], kind)
            self.record.steps.append(record)
            self.memo.clear()
            self.last_after.clear()
        return record

    def add_task(self, step: int, task: TaskRecord) -> TaskRecord:
        """A planned task of `step`, its input already recorded (`input_view`, or `encode`)."""
        record = self.step if self.step is not None and self.step.step == step else self.open_step(step)
        record.tasks.append(task)
        self.tasks_by_id[task.id] = task
        return task

    def plan_task(
        self,
        step: int,
        *,
        id: str,
        name: str,
        path: list[Any],
        triggers: Sequence[str],
        fired: Sequence[str],
        seen_versions: dict[str, int],
        input: Any,
        managed: dict[str, Any] | None = None,
    ) -> TaskRecord:
        """`add_task` of a new TaskRecord: `input` and `managed` already recorded (`input_view`,
        `encode`); the name lists are shared run-wide (`interned`)."""
        task = TaskRecord(
            id,
            name,
            path,
            self.interned(triggers),
            self.interned(fired),
            seen_versions,
            input,
            managed=managed if managed is not None else {},
        )
        return self.add_task(step, task)

    def task_done(
        self,
        task: TaskRecord,
        *,
        writes: Sequence[tuple[str, Any]],
        result: Any = None,
        has_result: bool = False,
        error: BaseException | dict[str, Any] | None = None,
        routes: Sequence[tuple[str, Any]] = (),
        duration: float | None = None,
        attempts: list[dict[str, Any]] | None = None,
        encoded: bool = False,
    ) -> None:
        """What a task did: its writes (in its own order), its raw return value when known (a dict
        equal to its leading writes is recorded as `SAME_AS_WRITES`; a producer that checked that
        already may pass the marker itself), the routes its conditional edges chose, its time, its
        error (an exception, or one already encoded) and its failed attempts (already encoded).
        `encoded`: the writes, result and routes arrive encoded (a runtime that sends JSON)."""
        encode_shared = _as_is if encoded else self.encode
        task.writes = self.pairs(writes, encode_shared)
        if has_result:
            if result is SAME_AS_WRITES or (type(result) is dict and same_as_writes(result, writes)):
                task.result = SAME_AS_WRITES
            else:
                task.result = encode_shared(result)
        if routes:
            task.routes = self.pairs(routes, encode_shared)
        if duration is not None:
            task.duration = round(duration, 6)
        if error is not None:
            task.error = error if isinstance(error, dict) else encode_error(error)
        if attempts is not None:
            task.attempts = attempts

    # ---- the barrier -----------------------------------------------------------------------------

    def add_call(
        self,
        step: int,
        channel: str,
        reducer: str,
        writer_id: str,
        writer_name: str,
        before: Any,
        write: Any,
        after: Any,
        error: BaseException | None = None,
        *,
        index: int | None = None,
        before_is_recorded: bool = False,
        appended: list[Any] | None = None,
    ) -> None:
        """One write folded into `channel` at the barrier, with the raw values before and after it
        (`after` is ignored when the channel refused the write: `error`). `index`: its place in the
        step's application order (default: after the calls so far). `before_is_recorded`: the
        producer knows `before` is the object recorded last, so only an in-place change is looked for.
        `appended`: the producer knows `after` is `before`'s items then these (`add_messages` that
        only appended), which holds when `before` is unchanged: its delta is then made from them."""
        record = self.step if self.step is not None and self.step.step == step else self.open_step(step)
        tracker = self.trackers.get(channel) or self.tracker(channel)
        encode_shared = self.encode
        if before_is_recorded and (type(before) in IMMUTABLE or unchanged_list(before, tracker.items)):
            before_delta = SAME  # the usual case: what the last call (or commit) recorded, untouched since
            if appended is not None and error is None:
                after_delta = tracker.extend(after, appended, encode_shared)
            else:
                after_delta = tracker.delta(after, encode_shared) if error is None else SAME
        else:
            before_delta = tracker.delta(before, encode_shared)
            after_delta = tracker.delta(after, encode_shared) if error is None else SAME
        calls = record.reducer_calls
        calls.append(
            ReducerCallRecord(
                len(calls) if index is None else index,
                channel,
                reducer,
                writer_id,
                writer_name,
                encode_shared(write),
                before_delta,
                after_delta,
                encode_error(error) if error is not None else None,
            )
        )
        if self.check_commits and error is None:
            self.last_after[channel] = after

    def add_call_record(self, step: int, call: ReducerCallRecord) -> None:
        """A reducer call whose write and deltas are already encoded (a runtime that sends JSON)."""
        record = self.step if self.step is not None and self.step.step == step else self.open_step(step)
        record.reducer_calls.append(call)

    def commit(
        self,
        step: int,
        committed: Mapping[str, Any],
        versions: Mapping[str, int] | None = None,
        updated_channels: Iterable[str] = (),
        *,
        kind: StepKind = "loop",
        recorded: Iterable[str] = (),
    ) -> StepRecord:
        """The barrier of `step` finished: `committed` holds the raw value of each state key to record
        (MISSING for an empty key; a runtime may leave out keys it knows unchanged), `versions` every
        channel's version (integers). Changes the recorded calls do not explain are kept as the
        step's `state` (a channel that clears itself, a value loaded from a checkpoint). `recorded`:
        keys whose value the producer knows is the object recorded last (only an in-place change is
        then looked for). With `check_commits`, a key written this step whose committed value is not
        what its last call returned is a mismatch."""
        record = self.step if self.step is not None and self.step.step == step else self.open_step(step)
        record.committed = True
        if kind != "loop":
            record.kind = kind
        self._record_versions(record, updated_channels, versions)
        trackers = self.trackers
        encode_shared = self.encode
        check = self.check_commits
        last_after = self.last_after
        for key, value in committed.items():
            tracker = trackers.get(key)
            if tracker is None:
                tracker = self.tracker(key)
            elif recorded and key in recorded and (type(value) in IMMUTABLE or unchanged_list(value, tracker.items)):
                continue  # the recorded object, unchanged (checked without copying the list again)
            if check:
                self._check(record, key, value)
                if tracker.raw is value and last_after.get(key, _UNSET) is value:
                    # what this barrier's last call to `key` made and recorded: nothing ran since
                    # (no node runs between a barrier's calls and its commit), so it is not compared again
                    continue
            change = tracker.delta(value, encode_shared)
            if "same" not in change:
                record.state[key] = change
        self.last_after.clear()
        return record

    def _record_versions(
        self, record: StepRecord, updated_channels: Iterable[str], versions: Mapping[str, int] | None
    ) -> None:
        """The channels the barrier updated (sorted, one shared list per set) and the versions that changed."""
        names = self.sorted_names.get(updated_channels) if type(updated_channels) is frozenset else None
        if names is None:
            names = self.interned(sorted(updated_channels))
            if type(updated_channels) is frozenset:  # a runtime that shares equal sets (the Recorder does)
                self.sorted_names[updated_channels] = names
        record.updated_channels = names
        if versions is not None:
            previous = self.versions
            record.versions = {k: v for k, v in versions.items() if previous.get(k) != v}
            self.versions = versions  # type: ignore[assignment]

    def commit_encoded(
        self,
        step: int,
        state: Mapping[str, dict[str, Any]],
        versions: Mapping[str, int] | None = None,
        updated_channels: Iterable[str] = (),
        *,
        kind: StepKind = "loop",
    ) -> StepRecord:
        """`commit` for a runtime whose values arrive encoded: `state` holds its own deltas for the
        changes its reducer calls do not explain (as `StepRecord.state`; usually empty)."""
        record = self.commit(step, {}, versions, updated_channels, kind=kind)
        record.state.update(state)
        return record

    def _check(self, record: StepRecord, key: str, value: Any) -> None:
        """Records a mismatch when `value` is not what the last call to `key` in this step returned."""
        self.committed_state[key] = value
        last = self.last_after.get(key, _UNSET)
        if last is not _UNSET and last is not value and not _equal(last, value):
            record.mismatches.append({"channel": key, "recorded": self.encode(last), "committed": self.encode(value)})

    def add_mismatch(self, record: StepRecord, channel: str, recorded: Any, committed: Any) -> None:
        """A value the runtime committed that is not what the recorded calls give (raw values): a
        channel the graph does not have, say, found by a producer that checks more than `commit`."""
        record.mismatches.append({"channel": channel, "recorded": encode(recorded), "committed": encode(committed)})

    def mark_damaged(self, record: StepRecord, reason: str) -> None:
        """The stored data of this step cannot be read back as the run made it (a checkpoint or a write
        whose bytes are corrupt): kept as a mismatch that names the damage, not a key."""
        record.mismatches.append({"channel": "", "recorded": None, "committed": None, "damaged": reason})

    def checkpoint(self, step: int, config: Any, parent: Any = None) -> None:
        """The checkpoint saved after `step` (its config, and its parent's when known), kept as the
        address `plain_config(..., CHECKPOINT_KEYS)` gives."""
        record = self.step
        if record is None or record.step != step:
            record = next((r for r in reversed(self.record.steps) if r.step == step), None) or self.open_step(step)
        record.checkpoint = encode(plain_config(config, CHECKPOINT_KEYS))
        record.parent_checkpoint = encode(plain_config(parent, CHECKPOINT_KEYS)) if parent else None

    # ---- runs ------------------------------------------------------------------------------------

    def task(self, task_id: str) -> TaskRecord | None:
        """The record of task `task_id` (every kept event built first), if this writer has it."""
        self.catch_up()
        return self.tasks_by_id.get(task_id)

    def subrun(self, task: TaskRecord, record: RunRecord, sink: Any = None, **options: Any) -> "TraceWriter":
        """A subgraph's run nested in `task` (a compiled subgraph node, or `invoke` called by the
        node): `record` (`new_run`) joins the task's `subgraphs`, and gets its own writer."""
        with self.lock:  # parallel subgraphs may start from worker threads at once
            task.subgraphs.append(record)
        return TraceWriter(record, sink, **options)

    def finish(
        self,
        status: str,
        output: Any = None,
        error: BaseException | dict[str, Any] | None = None,
        interrupts: Sequence[dict[str, Any]] = (),
        *,
        encoded: bool = False,
    ) -> RunRecord:
        """How the run ended: its status, output (raw, or already `encoded`), error (an exception, or
        one already encoded) and the `interrupt()` calls that stopped it (already encoded); a sink
        takes the last steps."""
        record = self.record
        record.status = status  # type: ignore[assignment]
        record.output = output if encoded else encode(output)
        if error is not None:
            record.error = error if isinstance(error, dict) else encode_error(error)
        record.interrupts = list(interrupts)
        record.duration = round(time.perf_counter() - self.started, 6)
        if self.sink is not None:
            self.catch_up()
            if record.steps:
                self.sink.flush(record)
        return record


def _as_is(value: Any) -> Any:
    """The encoder of values that arrive encoded."""
    return value


def _equal(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:  # values whose == raises (arrays): compare what the trace would hold
        return encode(a) == encode(b)
