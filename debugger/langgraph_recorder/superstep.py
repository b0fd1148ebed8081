"""Turning langgraph's supersteps into Trace records, whatever way they were obtained.

The live recorder (`probe.py`) watches langgraph run and feeds this module; a reader of stored
checkpoints (SQLite, PostgreSQL: a thread's checkpoints with their pending writes) can feed it the
same way. Nothing here knows where the data came from:

    run = RunBuilder(RunRecord(...), state_keys)
    step = run.open_step(n)
    run.add_task(n, TaskRecord(...))                       # planned tasks, with their input
    run.task_done(task_record, result=..., writes=..., error=...)
    merge(channels, tasks, state_keys, run.call_sink(n))   # langgraph's own barrier, observed,
    refold(channels, tasks, state_keys, run.call_sink(n))  #   or re-folded on copies (stored threads)
    run.commit(n, committed_values, versions, updated)     # checked against what langgraph committed
    run.checkpoint(n, config, parent_config)
    run.finish(status, output, error)

`merge` and `refold` apply writes exactly as langgraph's `apply_writes` does for one channel (its
`update`), reporting one reducer call per write in langgraph's application order: tasks sorted by
path, each task's writes in order, channels in the order they were first written. `merge` runs the
channel's own `update` (the live run: nothing is computed twice); `refold` runs it on a copy.

`commit` compares each state key's committed value with what the recorded calls give. A difference
(a reducer with side effects, a channel kind this module does not know) is recorded in
`StepRecord.mismatches` and reported by `stepscope diagnose` as an error: never smoothed over.
"""

from __future__ import annotations

import time
from typing import Any, Callable, Iterable, Mapping, Sequence

from engine.codec import MISSING as ENGINE_MISSING
from engine.codec import TYPE, DeltaTracker, encode, encode_error
from engine.trace import (
    SAME,
    SAME_AS_WRITES,
    VIEW,
    ReducerCallRecord,
    RunRecord,
    StepRecord,
    TaskRecord,
    fields_of,
    same_as_writes,
)

from .names import reducer_name

_LG_MISSING: Any = None


def _lg_missing() -> Any:
    """langgraph's empty-channel marker (imported on first use: importing this module imports no langgraph)."""
    global _LG_MISSING
    if _LG_MISSING is None:
        from langgraph._internal._typing import MISSING

        _LG_MISSING = MISSING
    return _LG_MISSING


CallSink = Callable[[str, str, str, str, Any, Any, Any, "BaseException | None"], None]
"""sink(channel, reducer, writer_id, writer_name, before, write, after, error)."""

_SCALARS = (int, str, float, bool, type(None))


def version_number(version: Any) -> int:
    """langgraph's channel version as the integer clock it is: ints as they are, and the
    `"000…0042.0.123"` strings of InMemorySaver (and the SQL savers) by their integer part."""
    if type(version) is int:
        return version
    if isinstance(version, str):
        head = version.split(".", 1)[0]
        return int(head) if head.isdigit() else 0
    try:
        return int(version)
    except (TypeError, ValueError):
        return 0


class RunBuilder:
    """Builds one RunRecord, one superstep at a time (called from one thread at a time)."""

    def __init__(self, record: RunRecord, state_keys: Iterable[str]) -> None:
        self.record = record
        self.state_keys = tuple(state_keys)
        self.trackers: dict[str, DeltaTracker] = {}
        self.steps: dict[int, StepRecord] = {}
        self.versions: dict[str, int] = {}
        self.memo: dict[int, tuple[Any, Any]] = {}
        self.committed_state: dict[str, Any] = {}
        """The state the last committed step left (raw values; MISSING for empty keys)."""
        self.last_after: dict[str, Any] = {}
        """Per channel written this step: the value its last recorded call left (for the check)."""
        self.lists: dict[tuple[str, ...], list[str]] = {}
        self.shared_pairs: dict[tuple[Any, ...], list[list[Any]]] = {}
        self.views: dict[tuple[str, ...], dict[str, list[str]]] = {}
        self.started = time.perf_counter()

    # ---- values -----------------------------------------------------------------------------

    def interned(self, names: Iterable[str]) -> list[str]:
        """`list(names)`, one list per distinct sequence of names for the whole run: a long run records
        the same paths, triggers and views every step, and each list kept is one more object for
        Python's cyclic collector to scan at every full collection (recorded lists are data: nothing
        mutates them)."""
        names = tuple(names)
        found = self.lists.get(names)
        if found is None:
            found = self.lists[names] = list(names)
        return found

    def tracker(self, channel: str) -> DeltaTracker:
        snap = self.trackers.get(channel)
        if snap is None:
            snap = self.trackers[channel] = DeltaTracker()
        return snap

    def encode(self, value: Any) -> Any:
        """`encode`, sharing one encoding per object within a step (a node's return, its write and
        the reducer's new items are usually the same objects)."""
        kind = type(value)
        if kind in _SCALARS:
            return encode(value)
        hit = self.memo.get(id(value))
        if hit is not None and hit[0] is value:
            return hit[1]
        if kind is list:
            encoded: Any = [self.encode(item) for item in value]
        elif kind is dict and TYPE not in value and all(type(k) is str for k in value):
            encoded = {k: self.encode(v) for k, v in value.items()}
        else:
            encoded = encode(value)
        self.memo[id(value)] = (value, encoded)  # keeps `value` alive, so its id is not reused
        return encoded

    def pairs(self, pairs: Sequence[tuple[str, Any]]) -> list[list[Any]]:
        """`[[name, encoded], ...]`, shared (like `interned`) when every encoded value is a scalar: a
        loop's writes and routes are usually the same few names and numbers every step."""
        if not all(type(value) in _SCALARS for _, value in pairs):
            return [[name, value] for name, value in pairs]
        key = tuple((name, type(value), value) for name, value in pairs)  # 1, 1.0 and True stay apart
        found = self.shared_pairs.get(key)
        if found is None:
            found = self.shared_pairs[key] = [[name, value] for name, value in pairs]
        return found

    def input_view(self, value: Any, managed: Iterable[str] = ()) -> Any:
        """A node's input as `{"$view": [keys]}` when it is the recorded state (the usual case), so
        a long run does not store the whole state once per task; else its encoding."""
        skip = set(managed)
        items = value.items() if type(value) is dict else fields_of(value)
        if items is not None:
            keys = []
            for key, item in items:
                if key in skip:
                    continue
                snap = self.trackers.get(key)
                if snap is None or snap.raw is not item:
                    return self.encode(value)
                keys.append(key)
            view = self.views.get(keys := tuple(keys))
            if view is None:
                view = self.views[keys] = {VIEW: self.interned(keys)}
            return view
        return self.encode(value)

    # ---- steps and tasks --------------------------------------------------------------------

    def open_step(self, step: int) -> StepRecord:
        record = self.steps.get(step)
        if record is None:
            record = self.steps[step] = StepRecord(step)
            self.record.steps.append(record)
            self.memo.clear()
            self.last_after.clear()
        return record

    def add_task(self, step: int, task: TaskRecord) -> TaskRecord:
        self.open_step(step).tasks.append(task)
        return task

    def task_done(
        self,
        task: TaskRecord,
        *,
        writes: Sequence[tuple[str, Any]],
        result: Any = None,
        has_result: bool = False,
        error: BaseException | dict[str, Any] | None = None,
    ) -> None:
        """What a task did: its writes (in its own order), its raw return value when known, its error."""
        task.writes = self.pairs([(channel, self.encode(value)) for channel, value in writes])
        if has_result:
            if type(result) is dict and same_as_writes(result, writes):
                task.result = SAME_AS_WRITES
            else:
                task.result = self.encode(result)
        if error is not None:
            task.error = error if isinstance(error, dict) else encode_error(error)

    # ---- the barrier ------------------------------------------------------------------------

    def call_sink(self, step: int) -> CallSink:
        record = self.open_step(step)

        def sink(
            channel: str,
            reducer: str,
            writer_id: str,
            writer_name: str,
            before: Any,
            write: Any,
            after: Any,
            error: BaseException | None,
        ) -> None:
            before, after = _engine_value(before), _engine_value(after)
            snap = self.tracker(channel)
            before_delta = snap.delta(before, self.encode)
            after_delta = SAME if error is not None else snap.delta(after, self.encode)
            record.reducer_calls.append(
                ReducerCallRecord(
                    index=len(record.reducer_calls),
                    channel=channel,
                    reducer=reducer,
                    writer=writer_id,
                    writer_name=writer_name,
                    write=self.encode(write),
                    before=before_delta,
                    after=after_delta,
                    error=encode_error(error) if error is not None else None,
                )
            )
            if error is None:
                self.last_after[channel] = after

        return sink

    def commit(
        self,
        step: int,
        committed: Mapping[str, Any],
        versions: Mapping[str, Any] | None = None,
        updated_channels: Iterable[str] = (),
    ) -> StepRecord:
        """The state langgraph committed after `step` (every state key; MISSING for empty ones).
        Changes the recorded calls do not explain are kept as the step's residual `state` (a channel
        that clears itself, a value loaded from a checkpoint); a reducer key written this step whose
        committed value is not what its last call returned is a mismatch."""
        record = self.open_step(step)
        record.committed = True
        record.updated_channels = self.interned(sorted(updated_channels))
        if versions is not None:
            numbers = {k: v if type(v) is int else version_number(v) for k, v in versions.items()}
            record.versions = {k: v for k, v in numbers.items() if self.versions.get(k) != v}
            self.versions = numbers
        lg_missing = _lg_missing()
        for key in self.state_keys:
            value = committed.get(key, ENGINE_MISSING)
            if value is lg_missing:
                value = ENGINE_MISSING
            self.committed_state[key] = value
            if key in self.last_after and self.last_after[key] is not value and not _equal(self.last_after[key], value):
                record.mismatches.append(
                    {"channel": key, "recorded": self.encode(self.last_after[key]), "committed": self.encode(value)}
                )
            change = self.tracker(key).delta(value, self.encode)
            if "same" not in change:
                record.state[key] = change
        self.last_after.clear()
        return record

    def checkpoint(self, step: int, config: Any, parent: Any = None) -> None:
        record = self.open_step(step)
        record.checkpoint = encode(_plain_checkpoint_config(config))
        record.parent_checkpoint = encode(_plain_checkpoint_config(parent)) if parent else None

    def finish(
        self,
        status: str,
        output: Any = None,
        error: BaseException | dict[str, Any] | None = None,
        interrupts: Sequence[dict[str, Any]] = (),
    ) -> RunRecord:
        record = self.record
        record.status = status
        record.output = encode(output)
        if error is not None:
            record.error = error if isinstance(error, dict) else encode_error(error)
        record.interrupts = list(interrupts)
        record.duration = round(time.perf_counter() - self.started, 6)
        return record


# ---- applying writes one channel at a time, langgraph's way ---------------------------------------


def writes_by_channel(tasks: Sequence[Any], state_keys: Iterable[str]) -> dict[str, list[tuple[Any, Any]]]:
    """`{channel: [(write, task), ...]}` for the state keys, in langgraph's application order:
    tasks sorted by path (`writes_sort_key(task_path_str(path))`), each task's writes in order,
    channels in the order they were first written. `tasks` need `.path` and `.writes`."""
    keys = state_keys if isinstance(state_keys, (set, frozenset, dict)) else set(state_keys)
    grouped: dict[str, list[tuple[Any, Any]]] = {}
    ordered = tasks if len(tasks) < 2 else sorted(tasks, key=_sort_key())
    for task in ordered:
        for channel, value in task.writes:
            if channel in keys:
                grouped.setdefault(channel, []).append((value, task))
    return grouped


_SORT_KEY: Any = None


def _sort_key() -> Callable[[Any], Any]:
    """langgraph's own order of a step's tasks at the barrier (imported once: the order is theirs)."""
    global _SORT_KEY
    if _SORT_KEY is None:
        from langgraph.pregel._algo import task_path_str, writes_sort_key

        _SORT_KEY = lambda task: writes_sort_key(task_path_str(task.path))  # noqa: E731
    return _SORT_KEY


def observe_update(
    channel: Any, key: str, values: Sequence[Any], writers: Sequence[tuple[str, str]], sink: CallSink
) -> bool:
    """`channel.update(values)` (langgraph's own), reporting one reducer call per write to `sink`.
    `writers[i]` is `(task id, node name)` of `values[i]`. Re-raises what `update` raises, after
    reporting the writes it refused."""
    kind = type(channel).__name__
    name = reducer_name_of(channel)
    if kind == "BinaryOperatorAggregate":
        return _observe_binop(channel, key, values, writers, sink, name)
    before = channel.value if hasattr(channel, "value") else _get(channel)
    if kind in ("LastValue", "LastValueAfterFinish", "AnyValue", "EphemeralValue", "UntrackedValue"):
        try:
            changed = channel.update(values)
        except Exception as exc:
            for write, (writer_id, writer_name) in zip(values, writers):
                sink(key, name, writer_id, writer_name, before, write, ENGINE_MISSING, exc)
            raise
        previous = before
        for write, (writer_id, writer_name) in zip(values, writers):
            sink(key, name, writer_id, writer_name, previous, write, write, None)
            previous = write
        return changed
    if kind == "Topic":
        accumulated = list(before) if getattr(channel, "accumulate", False) and isinstance(before, list) else []
        changed = channel.update(values)
        for write, (writer_id, writer_name) in zip(values, writers):
            previous = list(accumulated) if accumulated else ENGINE_MISSING
            accumulated = accumulated + (list(write) if isinstance(write, list) else [write])
            sink(key, name, writer_id, writer_name, previous, write, list(accumulated), None)
        return changed
    raise UnrecordableChannel(key, kind)


_get_overwrite: Any = None
"""langgraph's own test for an Overwrite write (imported on first use)."""
_NAMES: dict[int, str] = {}
"""Reducer names by operator (a channel kind for channels without one): reducers live as long as their graphs."""


RECORDABLE_KINDS = frozenset(
    {
        "BinaryOperatorAggregate",
        "LastValue",
        "LastValueAfterFinish",
        "AnyValue",
        "EphemeralValue",
        "UntrackedValue",
        "Topic",
    }
)
"""Channel kinds whose merge can be shown one write at a time (a state key of any other kind is refused)."""


def check_recordable(channels: Mapping[str, Any], state_keys: Iterable[str]) -> None:
    """Raises `UnrecordableChannel` for the first state key whose channel kind cannot be recorded."""
    for key in state_keys:
        channel = channels.get(key)
        if channel is not None and type(channel).__name__ not in RECORDABLE_KINDS:
            raise UnrecordableChannel(key, type(channel).__name__)


def reducer_name_of(channel: Any) -> str:
    """`reducer_name`, cached by reducer (or by channel kind)."""
    key = id(getattr(channel, "operator", type(channel)))
    name = _NAMES.get(key)
    if name is None:
        name = _NAMES[key] = reducer_name(channel)
    return name


def single_plain_write(channel: Any, write: Any) -> bool:
    """True when `channel.update([write])` makes exactly one reducer call (or none, for a plain key)
    turning the value before into the value after: a reducer key with a value and no Overwrite, or a plain key."""
    kind = type(channel).__name__
    if kind == "LastValue":
        return True
    if kind != "BinaryOperatorAggregate":
        return False
    global _get_overwrite
    if _get_overwrite is None:
        from langgraph.channels.binop import _get_overwrite
    return channel.value is not _lg_missing() and not _get_overwrite(write)[0]


class UnrecordableChannel(Exception):
    """A state key whose channel kind folds writes in a way that cannot be shown one write at a time."""

    def __init__(self, key: str, kind: str) -> None:
        super().__init__(
            f"state key '{key}' uses the langgraph channel {kind}, which folds a whole batch of writes at once, "
            f"so StepScope cannot show its merge one write at a time. To record the graph, declare the key with a "
            f"reducer instead (`Annotated[list, operator.add]`)."
        )
        self.key = key
        self.kind = kind


def _observe_binop(
    channel: Any, key: str, values: Sequence[Any], writers: Sequence[tuple[str, str]], sink: CallSink, name: str
) -> bool:
    """A reducer key: the operator's own calls, captured while langgraph's `update` makes them."""
    global _get_overwrite
    if _get_overwrite is None:
        from langgraph.channels.binop import _get_overwrite
    current = channel.value
    if len(values) == 1 and current is not _lg_missing() and not _get_overwrite(values[0])[0]:
        # one plain write into a value: exactly one operator call, whose arguments and result are
        # the values before and after (the usual step; no wrapper needed)
        try:
            changed = channel.update(values)
        except Exception as exc:
            sink(key, name, writers[0][0], writers[0][1], current, values[0], ENGINE_MISSING, exc)
            raise
        sink(key, name, writers[0][0], writers[0][1], current, values[0], channel.value, None)
        return changed
    operator = channel.operator
    calls: list[tuple[Any, Any]] = []

    def observed(left: Any, right: Any) -> Any:
        result = operator(left, right)
        calls.append((left, result))
        return result

    channel.operator = observed
    failure: BaseException | None = None
    try:
        changed = channel.update(values)
    except Exception as exc:
        failure = exc
    finally:
        channel.operator = operator
    # Attribute the calls to the writes exactly as `BinaryOperatorAggregate.update` walks them.
    done = 0
    seen_overwrite = False
    made = iter(calls)
    for index, (write, (writer_id, writer_name)) in enumerate(zip(values, writers)):
        if index == 0 and current is _lg_missing():
            sink(key, name, writer_id, writer_name, ENGINE_MISSING, write, write, None)
            current = write
            done = 1
            continue
        is_overwrite, value = _get_overwrite(write)
        if is_overwrite:
            if seen_overwrite:
                break  # the second Overwrite of a step: refused below
            sink(key, name, writer_id, writer_name, current, write, value, None)
            current, seen_overwrite = value, True
        elif not seen_overwrite:
            pair = next(made, None)
            if pair is None:
                break  # the operator raised on this write
            sink(key, name, writer_id, writer_name, pair[0], write, pair[1], None)
            current = pair[1]
        done = index + 1
    if failure is not None:
        for write, (writer_id, writer_name) in list(zip(values, writers))[done:]:
            sink(key, name, writer_id, writer_name, current, write, ENGINE_MISSING, failure)
        raise failure
    return changed


def merge(channels: Mapping[str, Any], tasks: Sequence[Any], state_keys: Iterable[str], sink: CallSink) -> None:
    """Reports what langgraph's barrier does to the state keys by running each channel's `update`
    here, in langgraph's order; used on copies by `refold`. Task objects need `.id`, `.name`,
    `.path`, `.writes`."""
    for key, pairs in writes_by_channel(tasks, state_keys).items():
        observe_update(
            channels[key],
            key,
            [w for w, _ in pairs],
            [(getattr(t, "id", None) or t.name, t.name) for _, t in pairs],
            sink,
        )


def refold(
    channels: Mapping[str, Any], tasks: Sequence[Any], state_keys: Iterable[str], sink: CallSink
) -> dict[str, Any]:
    """The reducer calls of one superstep from data alone (a stored thread: the checkpoint before,
    the tasks' pending writes): applied to copies of `channels` (langgraph channel objects holding
    the state before the step), which are left untouched. Returns the values after the step (or
    raises what the barrier raised, after reporting the refused writes)."""
    copies = {key: channels[key].copy() for key in state_keys if key in channels}
    merge(copies, tasks, copies.keys(), sink)
    return {key: _get(channel) for key, channel in copies.items()}


# ---- helpers ------------------------------------------------------------------------------------


def _get(channel: Any) -> Any:
    try:
        return channel.get()
    except Exception:  # langgraph's EmptyChannelError: the key has no value
        return ENGINE_MISSING


def _engine_value(value: Any) -> Any:
    """langgraph's MISSING marker as the engine's, so it is recorded as an empty channel."""
    return ENGINE_MISSING if value is _lg_missing() else value


def _equal(a: Any, b: Any) -> bool:
    try:
        return bool(a == b)
    except Exception:  # values whose == raises (arrays): compare what the trace would hold
        return encode(a) == encode(b)


def _plain_checkpoint_config(config: Any) -> Any:
    """`{"configurable": {thread_id, checkpoint_ns, checkpoint_id}}`: what resumes or forks a run."""
    if not isinstance(config, Mapping):
        return config
    configurable = config.get("configurable") or {}
    return {
        "configurable": {
            k: configurable[k] for k in ("thread_id", "checkpoint_ns", "checkpoint_id") if k in configurable
        }
    }
