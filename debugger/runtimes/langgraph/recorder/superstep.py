"""Langgraph's supersteps as the trace writer (`engine.trace_writer.TraceWriter`) takes them,
whatever way they were obtained.

The live recorder (`probe.py`) watches langgraph run and feeds this module; a reader of stored
checkpoints (SQLite, PostgreSQL: a thread's checkpoints with their pending writes, `threads/rebuild.py`)
feeds it the same way. Nothing here knows where the data came from; what is langgraph's own (its
versions, its empty-channel marker, its barrier's order) is turned into what the writer takes:

    writer = TraceWriter(new_run(...), check_commits=True)
    task = plan_task(writer, n, task, versions, seen)          # planned tasks, with their input
    writer.task_done(task, result=..., writes=..., error=...)
    merge(channels, tasks, state_keys, call_sink(writer, n))   # langgraph's own barrier, observed,
    refold(channels, tasks, state_keys, call_sink(writer, n))  #   or re-folded on copies (stored threads)
    commit(writer, n, state_keys, committed, versions, updated)  # checked against the recorded calls
    writer.checkpoint(n, config, parent_config)
    writer.finish(status, output, error)

`merge` and `refold` apply writes exactly as langgraph's `apply_writes` does for one channel (its
`update`), reporting one reducer call per write in langgraph's application order: tasks sorted by
path, each task's writes in order, channels in the order they were first written. `merge` runs the
channel's own `update` (the live run: nothing is computed twice); `refold` runs it on a copy.

The writer's `commit` compares each state key's committed value with what the recorded calls give. A difference
(a reducer with side effects, a channel kind this module does not know) is recorded in
`StepRecord.mismatches` and reported by `stepscope diagnose` as an error: never smoothed over.
"""

from __future__ import annotations

from functools import partial
from typing import Any, Callable, Iterable, Mapping, Sequence

from engine.codec import MISSING as ENGINE_MISSING
from engine.codec import encode
from engine.trace import StepRecord, TaskRecord, TraceWriter

from .calls import add_call, lg_missing
from .names import reducer_name

CallSink = Callable[[str, str, str, str, Any, Any, Any, "BaseException | None"], None]
"""sink(channel, reducer, writer_id, writer_name, before, write, after, error)."""


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


def call_sink(writer: TraceWriter, step: int, folds: Mapping[str, str] | None = None) -> CallSink:
    """The sink `merge`/`refold`/`observe_update` report `step`'s reducer calls to: each becomes
    `writer.add_call`, langgraph's empty-channel marker recorded as an empty channel. `folds`
    (`calls.folds_of`): the state keys whose reducer is known to append (see `calls.add_call`).
    A partial of `add_call` with its first three arguments, so a reported call costs no frame of its own."""
    writer.open_step(step)
    return partial(add_call, writer, step, folds)


def commit(
    writer: TraceWriter,
    step: int,
    state_keys: Iterable[str],
    committed: Mapping[str, Any],
    versions: Mapping[str, Any] | None = None,
    updated_channels: Iterable[str] = (),
) -> StepRecord:
    """`writer.commit` of the state langgraph committed after `step`: every state key (a key left out,
    or holding langgraph's empty marker, is an empty channel), versions as integers (`version_number`)."""
    missing = lg_missing()
    values = {}
    for key in state_keys:
        value = committed.get(key, ENGINE_MISSING)
        values[key] = ENGINE_MISSING if value is missing else value
    numbers = None
    if versions is not None:
        numbers = {k: v if type(v) is int else version_number(v) for k, v in versions.items()}
    return writer.commit(step, values, numbers, updated_channels)


def plan_task(
    writer: TraceWriter,
    step: int,
    task: Any,
    versions: Mapping[str, Any],
    seen: Mapping[str, Any],
    managed: Sequence[str] = (),
) -> TaskRecord:
    """Records a task langgraph planned (its `id`, `name`, `path`, `triggers`, `input`): which of its
    triggers fired (newer than the versions it had `seen`), and its input as a view of the recorded
    state when it is one. `managed`: the loop's managed values, recorded apart from the state."""
    path = task.path
    pull = bool(path) and path[0] == "__pregel_pull"
    triggers = task.triggers
    fired = [c for c in triggers if c in versions and (c not in seen or seen[c] < versions[c])] if pull else triggers
    seen_versions = {}
    for channel in fired:
        if channel in versions:
            version = versions[channel]
            seen_versions[channel] = version if type(version) is int else version_number(version)
    value = task.input
    recorded_managed = {}
    if managed and isinstance(value, dict):
        recorded_managed = {k: encode(value[k]) for k in managed if k in value}
    interned = writer.interned  # name lists, shared run-wide
    record = TaskRecord(
        task.id,
        task.name,
        interned(path) if pull else plain_path(path),
        interned(triggers),
        interned(fired),
        seen_versions,
        writer.input_view(value, managed) if pull and task.name != "__start__" else writer.encode(value),
        managed=recorded_managed,
    )
    return writer.add_task(step, record)  # `writer.plan_task`, its lists made here


def plain_path(path: Any) -> list[Any]:
    """A task path as a trace keeps it: lists all the way down (langgraph's are nested tuples)."""
    return [plain_path(p) if isinstance(p, tuple) else p for p in path]


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
    kind = _KINDS.get(type(channel))
    if kind is None:
        kind = _KINDS[type(channel)] = type(channel).__name__
    if kind == "LastValue":
        return True
    if kind != "BinaryOperatorAggregate":
        return False
    global _get_overwrite
    if _get_overwrite is None:
        from langgraph.channels.binop import _get_overwrite
    return channel.value is not lg_missing() and not _get_overwrite(write)[0]


_KINDS: dict[type, str] = {}
"""Channel classes by name (a class lives as long as langgraph)."""


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
    """A reducer key: the operator's own calls, captured while langgraph's `update` makes them.

    Long because it mirrors langgraph's `BinaryOperatorAggregate.update` step by step (Overwrite, the first
    write, each fold), so a reader can check it against langgraph's own."""
    global _get_overwrite
    if _get_overwrite is None:
        from langgraph.channels.binop import _get_overwrite
    current = channel.value
    if len(values) == 1 and current is not lg_missing() and not _get_overwrite(values[0])[0]:
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
        if index == 0 and current is lg_missing():
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
    return ENGINE_MISSING if value is lg_missing() else value
