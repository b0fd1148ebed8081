"""The Trace: everything that happened in one run, as data. The contract between engine and debugger.

A `Recorder` is a hook (`engine.hooks`): attach it to `invoke`/`stream` (or a `Loop`) and it builds a
`Trace`. The debugger reads Traces and never needs the engine to do so: `to_json`/`from_json` store
one as a file, with a `schema_version`.

Shape: a `Trace` is a `RunRecord` (the root run) plus identity. A run has `steps`: one `StepRecord`
per superstep (step -1 is the input). A step has its `tasks` (each with its input view, raw return
value, writes, routes, duration, error, and the nested runs of subgraphs it started), every reducer
call of its barrier in application order, the channel versions that changed, and the state changes
not explained by reducer calls (channels that clear themselves).

Files are `engine.tracefile`'s job. Values are recorded with `engine.codec`: deep JSON-able snapshots, so history cannot change when a
node later mutates a list in place. Whatever only grows is stored as a delta: a reducer call stores
its `before` against the channel's last recorded value (normally `{"same": true}`; anything else means
the value changed outside the reducers, e.g. a node mutated its input in place) and its `after`
against `before`. A node's input is stored as a view, `{"$view": [keys]}`, when it is the recorded
state. So a trace grows with what changed, not with state size times steps. `debugger.replay`
rebuilds full values from these deltas.
"""

from __future__ import annotations

import operator
import threading
import time
import uuid
import weakref
from collections import deque
from dataclasses import dataclass, field, fields, is_dataclass
from datetime import datetime, timezone
from typing import Any, Callable, Sequence

from .algo import Task
from .channels import MISSING
from .codec import Snapshot, encode, encode_error
from .hooks import Hooks, ReducerCall, RunInfo, StepCommit

SCHEMA_VERSION = 1
"""Bump on any change a reader of older files could misread; `from_json` refuses newer files."""
VIEW = "$view"
SAME_AS_WRITES = {"$type": "same_as_writes"}
SAME = {"same": True}


@dataclass(slots=True)
class TaskRecord:
    """One task of one superstep."""

    id: str
    name: str
    path: list[Any]
    """`["__pregel_pull", name]`, or `["__pregel_push", index, false]` for a Send."""
    triggers: list[str]
    """All of the node's trigger channels (LangGraph's `task.triggers`)."""
    fired: list[str]
    """The trigger channels that were newer than what the node had seen: why it ran."""
    seen_versions: dict[str, int]
    """The versions of the fired channels when the task was planned."""
    input: Any
    """`{"$view": [keys]}` when the node read the recorded state; else the encoded input (a Send's arg)."""
    result: Any = None
    """The encoded raw return value; `{"$type": "same_as_writes"}` when it is a dict equal to its state writes."""
    writes: list[list[Any]] = field(default_factory=list)
    """`[channel, encoded value]` in the order the node made them: state keys, then edges and Sends."""
    routes: list[list[Any]] = field(default_factory=list)
    """`[router name, encoded result]` for each conditional edge out of the node."""
    duration: float = 0.0
    error: dict[str, Any] | None = None
    """The exception (class, message, notes, traceback) if the task failed or interrupted."""
    subgraphs: list["RunRecord"] = field(default_factory=list)
    """Runs started inside this task: a compiled subgraph node, or `invoke` called by the node."""
    attempts: list[dict[str, Any]] = field(default_factory=list)
    """Failed attempts its `RetryPolicy` retried, oldest first: `{"attempt": 1, "error": {...},
    "duration": seconds, "retry_in": seconds}` (`error` as in `error` above). The last attempt's
    outcome is the task's own `result`/`error`, so a task tried 3 times has 2 entries."""


@dataclass(slots=True)
class ReducerCallRecord:
    """One write folded into one channel at the barrier."""

    index: int
    """Position in the step's application order, across channels."""
    channel: str
    reducer: str
    writer: str
    """The id of the task that made the write."""
    writer_name: str
    write: Any
    before: dict[str, Any]
    """A delta against the channel's last recorded value (`{"same": true}` unless changed outside reducers)."""
    after: dict[str, Any]
    """A delta against `before`."""
    error: dict[str, Any] | None = None
    """Set when the channel refused this write (e.g. a second write to a plain key)."""


@dataclass(slots=True)
class StepRecord:
    """One superstep: step -1 is the input, step 0 the hidden `__start__` task."""

    step: int
    tasks: list[TaskRecord] = field(default_factory=list)
    reducer_calls: list[ReducerCallRecord] = field(default_factory=list)
    versions: dict[str, int] = field(default_factory=dict)
    """Channel versions that changed at this barrier (the others kept theirs)."""
    updated_channels: list[str] = field(default_factory=list)
    state: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Per state key, a delta for changes not made by reducer calls (e.g. a channel that cleared)."""
    committed: bool = False
    """False when the step failed before its barrier finished: its writes never reached the state."""
    checkpoint: dict[str, Any] | None = None
    """The config of the checkpoint saved after this step, when the run had a checkpointer."""


@dataclass(slots=True)
class RunRecord:
    """One run of one graph: the root run of a Trace, or a subgraph's run nested in a task."""

    ns: list[str]
    graph: dict[str, Any]
    """`describe(graph)`: name, nodes, edges, waiting edges, branches, channels, and the drawing."""
    input: Any
    config: Any
    recursion_limit: int = 0
    steps: list[StepRecord] = field(default_factory=list)
    status: str = "running"
    """`running`, then `done`, `interrupted`, `error` or `recursion_limit`."""
    output: Any = None
    error: dict[str, Any] | None = None
    started_at: str = ""
    duration: float = 0.0


@dataclass(slots=True)
class Trace(RunRecord):
    """A whole recorded run."""

    schema_version: int = SCHEMA_VERSION
    run_id: str = ""
    target: str = ""
    """What was run, as the user named it (a sample, `file.py:attr`, ...), when known."""


# ---- describing a graph ------------------------------------------------------------------------

_DESCRIPTIONS: "weakref.WeakKeyDictionary[Any, dict[str, Any]]" = weakref.WeakKeyDictionary()
"""Per compiled graph, forgotten with the graph (a long-running app records many)."""


def describe(graph: Any) -> dict[str, Any]:
    """What a debugger needs to know about a compiled graph without importing it. Cached per graph."""
    cached = _DESCRIPTIONS.get(graph)
    if cached is not None:
        return cached
    from .draw import graph_of  # local: drawing simulates a run, only needed once per graph

    builder = graph.builder
    channels = {}
    for key, channel in builder.channels.items():
        channels[key] = {"kind": type(channel).__name__, "reducer": channel.reducer_name}
    description = {
        "name": graph.name,
        "nodes": [
            {"name": name, "subgraph": spec.action is not graph and hasattr(spec.action, "builder"),
             "defer": spec.defer, "metadata": encode(spec.metadata)}
            for name, spec in builder.nodes.items()
        ],
        "edges": [[e.source, e.target] for e in builder.edges],
        "waiting_edges": [[list(w.sources), w.target] for w in builder.waiting_edges],
        "branches": [
            {"source": b.source, "name": b.name,
             "targets": None if b.path_map is None else {str(k): v for k, v in b.path_map.items()}}
            for branches in builder.branches.values() for b in branches.values()
        ],
        "channels": channels,
        "input_keys": list(builder.schemas[builder.input_schema]),
        "output_keys": graph.output_keys if isinstance(graph.output_keys, str) else list(graph.output_keys),
        "drawing": graph_of(graph, xray=True).to_dict(),
        "drawing_flat": graph_of(graph).to_dict(),
    }
    _DESCRIPTIONS[graph] = description
    return description


# ---- the recorder ------------------------------------------------------------------------------


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat()


class _RunBuilder:
    """Builds one RunRecord from the hook calls of one namespace (always from one thread at a time)."""

    def __init__(self, record: RunRecord) -> None:
        self.record = record
        self.snapshots: dict[str, Snapshot] = {}
        self.step: StepRecord | None = None
        self.tasks_by_id: dict[str, TaskRecord] = {}
        self.versions: dict[str, int] = {}
        self.started = time.perf_counter()
        self.memo: dict[int, tuple[Any, Any]] = {}
        self.latest: dict[str, Any] = {}
        """Per state key, the value object recorded last, kept up to date as events come."""
        self.pending: deque[tuple[Callable[..., None], tuple[Any, ...]]] = deque()
        """Events kept as they came, to be turned into records later (see `Recorder`), in order."""
        self.lock = threading.Lock()
        """Held while events are turned into records (the run's thread, or a reader of `trace`)."""

    def catch_up(self) -> None:
        """Turns the kept events into records, oldest first (call with `lock` held)."""
        pending = self.pending
        while pending:
            build, args = pending.popleft()
            build(self, *args)

    def snapshot(self, channel: str) -> Snapshot:
        snap = self.snapshots.get(channel)
        if snap is None:
            snap = self.snapshots[channel] = Snapshot()
        return snap

    def open_step(self, step: int) -> StepRecord:
        if self.step is None or self.step.step != step:
            self.step = StepRecord(step)
            self.record.steps.append(self.step)
            self.memo.clear()
        return self.step

    def encode(self, value: Any) -> Any:
        """`encode`, sharing one encoding per object within a step: a node's return value, its write
        and the reducer's new items are usually the same objects, recorded once in memory."""
        kind = type(value)
        if kind in _SCALARS:
            return encode(value)
        hit = self.memo.get(id(value))
        if hit is not None and hit[0] is value:
            return hit[1]
        if kind is list:
            encoded: Any = [self.encode(item) for item in value]
        elif kind is dict and "$type" not in value and all(type(k) is str for k in value):
            encoded = {k: self.encode(v) for k, v in value.items()}
        else:
            encoded = encode(value)
        self.memo[id(value)] = (value, encoded)  # keeps `value` alive, so its id is not reused
        return encoded


class Recorder(Hooks):
    """A hook that records a run into `self.trace`. One Recorder per run; thread-safe for subgraphs
    that run in parallel worker threads.

    Cheap while the run goes: an event whose values cannot change any more (numbers, strings, and
    flat lists, dicts and tuples of them, copied shallowly) is kept as it came and turned into records
    only when `trace` is read, or when an event that must be recorded at once arrives (any other
    value is encoded on the spot, since a node may later change it in place). Records are built in
    event order either way, so the Trace is the same whenever it is built.
    """

    def __init__(self, *, target: str = "", run_id: str | None = None, clock: Callable[[], str] = utc_now) -> None:
        self._trace: Trace | None = None
        self.target = target
        self.run_id = run_id or uuid.uuid4().hex
        self.clock = clock
        self.builders: dict[tuple[str, ...], _RunBuilder] = {}
        self.lock = threading.Lock()

    @property
    def trace(self) -> Trace | None:
        """The recorded run, complete up to the last event (safe to read while it runs)."""
        for builder in list(self.builders.values()):
            with builder.lock:
                builder.catch_up()
        return self._trace

    @trace.setter
    def trace(self, value: Trace | None) -> None:
        self._trace = value

    # ---- run boundaries --------------------------------------------------------------------------

    def run_started(self, *, ns: tuple[str, ...], run: RunInfo) -> None:
        common = dict(
            ns=list(ns), graph=describe(run.graph), input=encode(run.input), config=encode(_plain_config(run.config)),
            recursion_limit=run.recursion_limit, started_at=self.clock(),
        )
        with self.lock:
            if not ns:
                record: RunRecord = Trace(**common, run_id=self.run_id, target=self.target)
                self._trace = record  # type: ignore[assignment]
            else:
                record = RunRecord(**common)
                parent = self.builders.get(ns[:-1])
                task = None
                if parent is not None:
                    with parent.lock:
                        parent.catch_up()
                        task = parent.tasks_by_id.get(ns[-1].rpartition(":")[2])
                if task is not None:
                    task.subgraphs.append(record)
            self.builders[ns] = _RunBuilder(record)

    def run_finished(self, *, ns: tuple[str, ...], status: str, output: Any, error: BaseException | None, step: int) -> None:
        builder = self.builders.get(ns)
        if builder is None:
            return
        record = builder.record
        record.status = status
        record.output = encode(output)
        record.error = encode_error(error) if error is not None else None
        record.duration = round(time.perf_counter() - builder.started, 6)

    # ---- supersteps --------------------------------------------------------------------------------

    def step_planned(self, *, ns: tuple[str, ...], step: int, tasks: Sequence[Task]) -> None:
        builder = self.builders[ns]
        inputs = []
        for task in tasks:
            value = task.input
            keys = _view_keys(builder, task, value)  # now: the node may replace values in its input
            frozen = _View(keys) if keys is not None else _freeze_input(value)
            if frozen is _THAWED:
                break
            inputs.append(frozen)
        else:
            builder.pending.append((_planned, (step, tasks, inputs)))
            return
        with builder.lock:
            builder.catch_up()
            _planned(builder, step, tasks, [_input_record(builder, task) for task in tasks])

    def task_finished(self, *, ns: tuple[str, ...], step: int, task: Task) -> None:
        builder = self.builders[ns]
        result = task.result
        if type(result) is dict and _same_as_writes(result, task.writes):
            result = SAME_AS_WRITES
        if task.error is None and not task.attempts:
            frozen = result if result is SAME_AS_WRITES else _freeze(result)
            writes = _freeze_pairs(task.writes)
            routes = _freeze_pairs(task.routes)
            if frozen is not _THAWED and writes is not _THAWED and routes is not _THAWED:
                builder.pending.append((_finished, (task.id, frozen, writes, routes, task.duration, None, ())))
                return
        with builder.lock:
            builder.catch_up()
            _finished(builder, task.id, result, task.writes, task.routes, task.duration, task.error, task.attempts)

    def reducer_called(self, *, ns: tuple[str, ...], call: ReducerCall) -> None:
        builder = self.builders[ns]
        builder.latest[call.channel] = call.after if call.error is None else call.before
        if call.error is None:
            before, write, after = _freeze(call.before), _freeze(call.write), _freeze(call.after)
            if before is not _THAWED and write is not _THAWED and after is not _THAWED:
                builder.pending.append((_reduced, (call, before, write, after)))
                return
        with builder.lock:
            builder.catch_up()
            _reduced(builder, call, call.before, call.write, call.after)

    def step_committed(self, *, ns: tuple[str, ...], commit: StepCommit) -> None:
        builder = self.builders[ns]
        state = commit.read(None)
        latest = builder.latest
        for key in commit.state_keys:
            latest[key] = state.get(key, MISSING)
        frozen = {}
        for key, value in state.items():
            copy = _freeze(value)
            if copy is _THAWED:
                break
            frozen[key] = copy
        else:
            builder.pending.append((_committed, (commit.step, commit.updated_channels, commit.versions, commit.state_keys, state, frozen)))
            return
        with builder.lock:
            builder.catch_up()
            _committed(builder, commit.step, commit.updated_channels, commit.versions, commit.state_keys, state, state)

    def checkpoint_saved(self, *, ns: tuple[str, ...], step: int, config: Any, metadata: Any) -> None:
        builder = self.builders.get(ns)
        if builder is None:
            return
        with builder.lock:
            builder.catch_up()
        for record in reversed(builder.record.steps):
            if record.step == step:
                record.checkpoint = encode(config)
                return


# ---- turning events into records (now, or later in the same order) ---------------------------------
# Each takes the values as they were when the event came: the originals, or (kept for later) shallow
# copies of flat values, which hold the very same items. Identity checks against what was recorded
# before (`Snapshot.raw`) use the original objects, so both ways give the same records.


def _planned(builder: _RunBuilder, step: int, tasks: Sequence[Task], inputs: list[Any]) -> None:
    """`inputs`: each task's input as a `_View` of the recorded state, or the value to encode."""
    record = builder.step if builder.step is not None and builder.step.step == step else builder.open_step(step)
    records = record.tasks
    by_id = builder.tasks_by_id
    for task, value in zip(tasks, inputs):
        task_record = TaskRecord(
            task.id, task.name, list(task.path), list(task.triggers), list(task.fired), dict(task.seen_versions),
            {VIEW: value.keys} if type(value) is _View else encode(value),
        )
        records.append(task_record)
        by_id[task.id] = task_record


def _view_keys(builder: _RunBuilder, task: Task, value: Any) -> list[str] | None:
    """The keys of a node's input when it is exactly the recorded state (then it is recorded as a
    view, `{"$view": keys}`), else None."""
    if task.path[0] == "__pregel_pull" and task.name != "__start__":
        latest = builder.latest
        if type(value) is dict:
            for key, item in value.items():
                if latest.get(key, _THAWED) is not item:
                    return None
            return list(value)
        items = _fields_of(value)
        if items is not None and all(latest.get(k, _THAWED) is v for k, v in items):
            return [k for k, _ in items]
    return None


def _input_record(builder: _RunBuilder, task: Task) -> Any:
    keys = _view_keys(builder, task, task.input)
    return _View(keys) if keys is not None else task.input


class _View:
    """A node input that is exactly the recorded state: recorded as `{"$view": keys}`."""

    __slots__ = ("keys",)

    def __init__(self, keys: list[str]) -> None:
        self.keys = keys


def _finished(builder: _RunBuilder, task_id: str, result: Any, writes: Any, routes: Any, duration: float,
              error: BaseException | None, attempts: Sequence[Any]) -> None:
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
            {"attempt": a.attempt, "error": encode_error(a.error), "duration": round(a.duration, 6),
             "retry_in": round(a.retry_in, 6)}
            for a in attempts
        ]


def _reduced(builder: _RunBuilder, call: ReducerCall, before: Any, write: Any, after: Any) -> None:
    step = builder.step
    if step is None or step.step != call.step:
        step = builder.open_step(call.step)
    snap = builder.snapshots.get(call.channel) or builder.snapshot(call.channel)
    encode_shared = builder.encode
    if call.before is snap.raw and (type(before) in _IMMUTABLE or _unchanged_list(before, snap.items)):
        before_delta = SAME  # the usual case: what the last call (or commit) recorded, untouched since
    else:
        before_delta = snap.delta(before, encode_shared)
        snap.raw = call.before
    error = call.error
    if error is None:
        after_delta = snap.delta(after, encode_shared)
        snap.raw = call.after
    else:
        after_delta = SAME
    step.reducer_calls.append(
        ReducerCallRecord(
            call.index, call.channel, call.reducer, call.writer, call.writer_name, encode_shared(write), before_delta,
            after_delta, encode_error(error) if error is not None else None,
        )
    )


def _committed(builder: _RunBuilder, step_number: int, updated: Any, versions: dict[str, int], state_keys: Any,
               state: dict[str, Any], values: dict[str, Any]) -> None:
    step = builder.step
    if step is None or step.step != step_number:
        step = builder.open_step(step_number)
    step.committed = True
    step.updated_channels = sorted(updated)
    previous = builder.versions
    step.versions = {k: v for k, v in versions.items() if previous.get(k) != v}
    builder.versions = versions  # already the barrier's own copy
    snapshots = builder.snapshots
    encode_shared = builder.encode
    for key in state_keys:
        raw = state.get(key, MISSING)
        value = values.get(key, MISSING)
        snap = snapshots.get(key)
        if snap is None:
            snap = builder.snapshot(key)
        elif raw is snap.raw and (type(value) in _IMMUTABLE or _unchanged_list(value, snap.items)):
            continue  # the common case, checked without copying the list again
        change = snap.delta(value, encode_shared)
        snap.raw = raw
        if "same" not in change:
            step.state[key] = change


_second = operator.itemgetter(1)
_THAWED = object()
"""`_freeze`'s answer for a value that may still change in place: it is recorded at once."""
_FROZEN = frozenset((int, str, float, bool, type(None), type(MISSING)))


def _freeze(value: Any) -> Any:
    """A value that stays as it is now: the value itself when immutable, a shallow copy of a flat
    list or dict (whose items are immutable), else `_THAWED`."""
    kind = type(value)
    if kind in _FROZEN:
        return value
    if kind is list:
        return list(value) if all(map(_FROZEN.__contains__, map(type, value))) else _THAWED
    if kind is dict:
        return dict(value) if all(map(_FROZEN.__contains__, map(type, value.values()))) else _THAWED
    if kind is tuple:
        return value if all(map(_FROZEN.__contains__, map(type, value))) else _THAWED
    return _THAWED


def _freeze_input(value: Any) -> Any:
    """`_freeze` for a node's input: a dict of flat values is copied one level deeper."""
    if type(value) is not dict:
        return _freeze(value)
    frozen = {}
    for key, item in value.items():
        copy = _freeze(item)
        if copy is _THAWED:
            return _THAWED
        frozen[key] = copy
    return frozen


def _freeze_pairs(pairs: list[tuple[str, Any]]) -> Any:
    """`_freeze` for a task's writes or routes, `(name, value)` pairs."""
    if all(map(_FROZEN.__contains__, map(type, map(_second, pairs)))):
        return list(pairs)  # the usual case, checked at C speed
    frozen = []
    for name, value in pairs:
        copy = _freeze(value)
        if copy is _THAWED:
            return _THAWED
        frozen.append((name, copy))
    return frozen


_SCALARS = (int, str, float, bool, type(None))
_IMMUTABLE = frozenset((int, str, float, bool, type(None), tuple))
"""Values `Snapshot.delta` calls unchanged when they are the recorded object itself."""


def _unchanged_list(value: Any, items: Any) -> bool:
    """True when `value` is a list whose items are still exactly the recorded `items` (a node may
    have changed it in place, which the delta must then show)."""
    return type(value) is list and type(items) is list and len(value) == len(items) and all(map(operator.is_, value, items))


def _fields_of(value: Any) -> list[tuple[str, Any]] | None:
    if is_dataclass(value) and not isinstance(value, type):
        return [(f.name, getattr(value, f.name)) for f in fields(value)]
    model_fields = getattr(type(value), "model_fields", None)
    if model_fields is not None:
        return [(name, getattr(value, name)) for name in model_fields]
    return None


def _same_as_writes(result: dict[str, Any], writes: list[tuple[str, Any]]) -> bool:
    """True when a node's returned dict is exactly its leading state writes (the usual case)."""
    if len(writes) < len(result):
        return False
    for (key, value), (channel, written) in zip(result.items(), writes):
        if key != channel or value is not written:
            return False
    return True


def _plain_config(config: Any) -> Any:
    """The config without objects that only matter in-process (callbacks, savers)."""
    if not isinstance(config, dict):
        return config
    return {k: v for k, v in config.items() if k not in ("callbacks", "checkpointer")}
