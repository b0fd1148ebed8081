"""The records of a Trace (what `engine.trace` publishes), `describe(graph)`, and the helpers the
recorders share. See `engine.trace` for the shape of a Trace."""

from __future__ import annotations

import weakref
from dataclasses import dataclass, field, fields, is_dataclass
from datetime import UTC, datetime
from typing import Any

from .codec_encode import encode
from .codec_types import TYPE
from .constants import END, START, TASKS, branch_channel, join_channel
from .draw import graph_of
from .types import RunStatus, StepKind

SCHEMA_VERSION = 3
"""Bump on any change a reader of older files could misread; `from_json` refuses newer files.
Version 2 (issue 14): large values stored once, in the file's `blobs`. Version 3 (issue 43): a step
leaves out what the rest of the step says (`engine.step_form`). Files of versions 1 and 2 still load."""
VIEW = "$view"
SAME_AS_WRITES = {TYPE: "same_as_writes"}
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
    "duration": seconds, "retry_in": seconds}` (`error` as in `error` above; `retry_in` only when the
    engine slept before the next attempt). The last attempt's outcome is the task's own
    `result`/`error`, so a task tried 3 times has 2 entries."""
    managed: dict[str, Any] = field(default_factory=dict)
    """Managed values the node was given (e.g. `remaining_steps`), encoded; not part of the state."""


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
    parent_checkpoint: dict[str, Any] | None = None
    """The config of the checkpoint this one follows (its parent), when known."""
    mismatches: list[dict[str, Any]] = field(default_factory=list)
    """State keys whose committed value differs from what the recorded reducer calls give:
    `{"channel", "recorded", "committed"}` (encoded). Always empty unless recording went wrong."""
    kind: StepKind = "loop"
    """`loop` (a superstep), or `update`: a state edit made between supersteps (a person at a pause in
    a live run, `Loop.update_state`). An edit has no tasks; its reducer calls name the node it was made as."""


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
    status: RunStatus = "running"
    """`running`, then `done`, `interrupted`, `error` or `recursion_limit`."""
    output: Any = None
    error: dict[str, Any] | None = None
    started_at: str = ""
    duration: float = 0.0
    interrupts: list[dict[str, Any]] = field(default_factory=list)
    """The `interrupt()` calls that stopped the run: `{"id", "value", "node", "task"}` (value encoded)."""


@dataclass(slots=True)
class Trace(RunRecord):
    """A whole recorded run."""

    schema_version: int = SCHEMA_VERSION
    run_id: str = ""
    target: str = ""
    """What was run, as the user named it (a sample, `file.py:attr`, ...), when known."""
    thread_id: str = ""
    """The checkpointer thread the run belongs to (its runs are turns of one conversation), or ''."""


# ---- describing a graph ------------------------------------------------------------------------

_DESCRIPTIONS: "weakref.WeakKeyDictionary[Any, dict[str, Any]]" = weakref.WeakKeyDictionary()
"""Per compiled graph, forgotten with the graph (a long-running app records many)."""


def describe(graph: Any) -> dict[str, Any]:
    """What a debugger needs to know about a compiled graph without importing it. Cached per graph."""
    cached = _DESCRIPTIONS.get(graph)
    if cached is not None:
        return cached
    builder = graph.builder
    channels = {}
    for key, channel in builder.channels.items():
        channels[key] = {"kind": type(channel).__name__, "reducer": channel.reducer_name}
    description = {
        "name": graph.name,
        "nodes": [
            {
                "name": name,
                "subgraph": spec.action is not graph and hasattr(spec.action, "builder"),
                "defer": spec.defer,
                "metadata": encode(spec.metadata),
            }
            for name, spec in builder.nodes.items()
        ],
        "edges": [[e.source, e.target] for e in builder.edges],
        "waiting_edges": [[list(w.sources), w.target] for w in builder.waiting_edges],
        "branches": [
            {
                "source": b.source,
                "name": b.name,
                "targets": None if b.path_map is None else {str(k): v for k, v in b.path_map.items()},
            }
            for branches in builder.branches.values()
            for b in branches.values()
        ],
        "channels": channels,
        "control_channels": _control_channels(builder),
        "input_keys": list(builder.schemas[builder.input_schema]),
        "output_keys": graph.output_keys if isinstance(graph.output_keys, str) else list(graph.output_keys),
        "drawing": graph_of(graph, xray=True).to_dict(),
        "drawing_flat": graph_of(graph).to_dict(),
    }
    _DESCRIPTIONS[graph] = description
    return description


def _control_channels(builder: Any) -> dict[str, dict[str, Any]]:
    """The channels that carry control flow, by role, so a reader never parses their names:
    `{"branch:to:x": {"role": "edge", "target": "x"}, "join:a+b:x": {"role": "waiting_edge",
    "sources": ["a", "b"], "target": "x"}, "__pregel_tasks": {"role": "sends"}, "__start__": {"role": "input"}}`."""
    roles: dict[str, dict[str, Any]] = {START: {"role": "input"}, TASKS: {"role": "sends"}}
    for node in builder.nodes:
        roles[branch_channel(node)] = {"role": "edge", "target": node}
    for w in builder.waiting_edges:
        if w.target != END:
            roles[join_channel(w.sources, w.target)] = {
                "role": "waiting_edge",
                "sources": list(w.sources),
                "target": w.target,
            }
    return roles


# ---- helpers the recorders share ------------------------------------------------------------


def utc_now() -> str:
    return datetime.now(UTC).isoformat()


def fields_of(value: Any) -> list[tuple[str, Any]] | None:
    """A dataclass's or pydantic model's `(field, value)` pairs (a state object), else None."""
    if is_dataclass(value) and not isinstance(value, type):
        return [(f.name, getattr(value, f.name)) for f in fields(value)]
    model_fields = getattr(type(value), "model_fields", None)
    if model_fields is not None:
        return [(name, getattr(value, name, None)) for name in model_fields]
    return None


def same_as_writes(result: dict[str, Any], writes: list[tuple[str, Any]]) -> bool:
    """True when a node's returned dict is exactly its leading state writes (the usual case)."""
    if len(writes) < len(result):
        return False
    index = 0
    for key, value in result.items():  # indexing, not zip: this runs for every task of a recorded run
        channel, written = writes[index]
        if value is not written or key != channel:
            return False
        index += 1
    return True
