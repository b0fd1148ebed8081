"""The superstep, as pure functions over a run's channels: `plan_tasks` and `apply_writes`.

What a superstep is
-------------------
A run is a sequence of supersteps (bulk-synchronous, Pregel style). Each one has three verbs:

1. **plan** the tasks whose trigger channels changed since that node last ran;
2. **execute** them all against one frozen view of the state (`runner.py`); a node's return value
   becomes a list of writes, it never touches a channel;
3. **commit** every write at the barrier (`apply_writes`), the only place channels change.

Writes made in step N are visible from step N+1 on, never inside step N.

When a node triggers
--------------------
Edges are channels. A static or conditional edge into `x` writes `branch:to:x`; a waiting edge
`[a, b] -> x` writes the source's name into the barrier `join:a+b:x`; a `Send` queues a packet on
`__pregel_tasks`. Every channel has a version from one global clock: all channels changed at a barrier
get `max(all versions) + 1`. Node `x` runs in the next step when any of its trigger channels is
available and newer than the version `x` saw when it last ran. So a node runs at most once per step
however many predecessors fired (plus once per `Send` packet addressed to it). State keys never
trigger anything.

The order reducers are applied in
---------------------------------
At the barrier the tasks are sorted: every PULL task (triggered by edges) by node name as a string
(`"a10" < "a2"`), then every PUSH task (from a `Send`) in the order the Sends were made. Completion
order never matters, so the result is the same run after run. Writes are grouped by channel in that
order, each task's writes in the order it made them, and each channel's `update` folds them left:
`value = reducer(value, w1); value = reducer(value, w2); ...`, one reducer call per write.

Worked example: START -> a, START -> b, both -> c, `log: Annotated[list, operator.add]`, input
`{"log": ["in"]}`. Step 0 runs the hidden `__start__` task: `[] + ["in"]`. Step 1 plans `a` and `b`
(both triggered by their `branch:to:` channels), runs them concurrently, and folds `["in"] + ["a"]`
then `["in", "a"] + ["b"]`. Step 2 runs `c` once, although both `a` and `b` wrote `branch:to:c`.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass, field
from hashlib import blake2b
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from .channels import _MAYBE_OVERWRITE, MISSING, AnyValue, BinaryOperatorAggregate, Channel, EphemeralValue, LastValue
from .constants import PULL, PUSH, RESERVED_WRITE_KEYS, START, TASKS
from .control_channels import Topic
from .errors import EmptyChannelError
from .hooks import Hooks, ReducerCall

if TYPE_CHECKING:  # pragma: no cover
    from .nodes import CompiledNode

logger = logging.getLogger("engine")
bare = object.__new__
"""Makes a bare instance of a slots dataclass whose fields the caller then sets, one store each: on a
hot path, cheaper than calling the class (its `__init__` runs in a frame of its own)."""


@dataclass(eq=False, slots=True)
class Task:
    """One execution of one node in one superstep."""

    id: str
    """Deterministic: derived from the namespace, step, node name and path, never from time."""
    name: str
    path: tuple[Any, ...]
    """`("__pregel_pull", name)` for edge-triggered tasks, `("__pregel_push", index, False)` for Sends."""
    step: int
    triggers: tuple[str, ...]
    """All the node's trigger channels, sorted (`("__pregel_push",)` for a Send), as LangGraph
    records them: every one is consumed and marked seen when the task commits."""
    seen_versions: dict[str, int]
    """The versions of the channels that fired (`fired`) when the task was planned."""
    input: Any
    node: "CompiledNode" = field(repr=False)
    writes: list[tuple[str, Any]] = field(default_factory=list)
    """Channel writes in the order the node made them: state keys, then control and edge writes."""
    result: Any = MISSING
    """The node's raw return value."""
    routes: Sequence[tuple[str, Any]] = ()
    """(router name, what it returned) for each conditional edge out of this node (a list once one ran)."""
    error: BaseException | None = None
    duration: float = 0.0
    """Seconds spent in the node (and its routers)."""
    fired: tuple[str, ...] = ()
    """The trigger channels that were newer than what the node last saw: why it runs now."""
    interrupts: tuple[Any, ...] = ()
    """The `Interrupt`s this task raised with `interrupt()` (then `error` is the `GraphInterrupt`)."""
    resume: Sequence[Any] = ()
    """Answers to the task's `interrupt()` calls, by position: from earlier resumes, then new ones (a
    list once it has one; the empty default is shared, as most tasks never interrupt)."""
    restored: bool = False
    """The task finished in an earlier run of this step: its writes came back from the checkpoint
    and it was not run again (`result` is then MISSING)."""
    attempts: Sequence[Any] = ()
    """Failed attempts that its node's `RetryPolicy` retried (`hooks.TaskAttempt`), oldest first (a
    list once there is one)."""

    @property
    def is_push(self) -> bool:
        return self.path[0] == PUSH

    def sort_key(self) -> tuple[int, Any]:
        """Application order: PULL tasks by node name, then PUSH tasks by Send index."""
        return (1, self.path[1]) if self.path[0] == PUSH else (0, self.name)


@dataclass(slots=True)
class RunState:
    """The mutable part of one run: channel values, their versions, and what each node has seen."""

    channels: dict[str, Channel]
    versions: dict[str, int] = field(default_factory=dict)
    versions_seen: dict[str, dict[str, int]] = field(default_factory=dict)
    checkpoint_id: str = ""
    """The checkpoint the next step starts from ('' without a checkpointer). It is part of every
    task id, so a step replayed from an older checkpoint gets new task ids (as in LangGraph)."""
    clearing: tuple[str, ...] | None = field(default=None, repr=False)
    """The channels a step that does not write them can clear (`Channel.clears_unwritten`), found once."""

    def read(self, keys: Iterable[str]) -> dict[str, Any]:
        """The available values of `keys`; empty channels are left out, as in node input."""
        channels = self.channels
        values = {}
        for key in keys:
            channel = channels[key]
            if type(channel) in PLAIN_CHANNELS:  # `is_available()` and `get()`, read off the slot
                value = channel.value
                if value is not MISSING:
                    values[key] = value
            elif channel.is_available():
                values[key] = channel.get()
        return values


PLAIN_CHANNELS = frozenset(
    kind
    for kind in (LastValue, AnyValue, EphemeralValue, BinaryOperatorAggregate)
    if kind.get is Channel.get and kind.is_available is Channel.is_available
)
"""Channel classes whose value is available exactly when it is not MISSING: reading one is one
attribute read, not two calls (every node input and every state read goes through `read`)."""

NOTHING_TO_CONSUME = frozenset(
    kind
    for kind in (LastValue, AnyValue, EphemeralValue, BinaryOperatorAggregate, Topic)
    if kind.consume is Channel.consume
)
"""Channel classes whose `consume()` is the base class's `return False`: the barrier does not call it
on the trigger channels of every task (an edge's channel is one of them)."""


def task_id(ns: tuple[str, ...], step: int, name: str, path: tuple[Any, ...], checkpoint_id: str = "") -> str:
    """A UUID-shaped id that depends only on where the task is, so traces are reproducible."""
    parts = _ID_PARTS.get((ns, name, path))
    if parts is None:
        if len(_ID_PARTS) > 10_000:  # Send paths are many; the cache only spares re-formatting
            _ID_PARTS.clear()
        prefix = _HASHER.copy()  # the key's start, hashed once: blake2b takes the rest after it
        prefix.update(f"{'|'.join(ns)}#".encode("utf-8", "surrogatepass"))
        # a name may hold a lone surrogate (a decoded file name): encoded here, once
        parts = _ID_PARTS[(ns, name, path)] = (prefix, f"#{name}#{path!r}".encode("utf-8", "surrogatepass"))
    hasher = parts[0].copy()  # cheaper than making one: this runs for every task
    if checkpoint_id:
        hasher.update(b"%d%b#%b" % (step, parts[1], checkpoint_id.encode("utf-8", "surrogatepass")))
    else:
        hasher.update(b"%d%b" % (step, parts[1]))
    digest = hasher.digest()  # 8-4-4-4-12 hex digits: three `hex` calls cost less than five slices of one
    return f"{digest[:4].hex()}-{digest[4:10].hex('-', 2)}-{digest[10:].hex()}"


_ID_PARTS: dict[tuple[Any, ...], tuple[Any, bytes]] = {}
"""Per (namespace, node, path): the hasher fed the key's start, and the key's end (after the step) as bytes."""
_HASHER = blake2b(digest_size=16)
_NOTHING_SEEN: dict[str, int] = {}
"""The versions a node that never ran has seen (shared, never changed)."""


def plan_tasks(
    nodes: Mapping[str, "CompiledNode"],
    trigger_to_nodes: Mapping[str, tuple[str, ...]],
    state: RunState,
    step: int,
    ns: tuple[str, ...],
    updated_channels: Iterable[str] | None,
    stop: int = 0,
) -> list[Task]:
    """The tasks of the next superstep, in application order (PULL by name, then PUSH by Send index).

    Only nodes subscribed to a channel updated at the last barrier are candidates; with
    `updated_channels=None` (a resumed run) every node is. `stop` (the run's step budget) gives the
    managed values (`managed.py`) in a node's input.
    """
    if updated_channels is None:
        candidates = sorted(nodes)
    else:
        names: set[str] = set()
        for channel in updated_channels:
            triggered = trigger_to_nodes.get(channel)
            if triggered is not None:  # (a state key triggers nothing)
                names.update(triggered)
        candidates = sorted(names) if len(names) > 1 else names  # a loop's step: one node, nothing to sort
    tasks: list[Task] = []
    for name in candidates:
        task = _pull_task(nodes[name], state, step, ns, stop)
        if task is not None:
            tasks.append(task)
    sends = state.channels[TASKS]  # a Topic: available when it holds packets (`is_available`, written out)
    if sends.values if type(sends) is Topic else sends.is_available():
        tasks.extend(_push_tasks(nodes, state, step, ns))
    return tasks


def _pull_task(node: "CompiledNode", state: RunState, step: int, ns: tuple[str, ...], stop: int) -> Task | None:
    """The task of `node` when a trigger of it is newer than the version the node last saw, else None."""
    versions = state.versions
    channels = state.channels
    seen = state.versions_seen.get(node.name) or _NOTHING_SEEN
    fired: dict[str, int] = {}  # the triggers that fired, with their versions: the task's seen_versions
    for channel in node.triggers:
        version = versions.get(channel, 0)
        if version > seen.get(channel, 0):
            target = channels[channel]  # `is_available()`, read off the slot where it is that
            if target.value is not MISSING if type(target) in PLAIN_CHANNELS else target.is_available():
                fired[channel] = version
    if not fired:
        return None
    name = node.name
    if name == START:
        task_input = channels[START].get()
    else:
        task_input = state.read(node.reads)
        for key, get in node.managed:
            task_input[key] = get(step, stop)
        if node.input_mapper is not None:
            try:
                task_input = node.input_mapper(**task_input)
            except Exception as exc:  # e.g. pydantic validation of the node's input
                exc.add_note(f"Before task with name '{name}' and path '{(PULL, name)}'")
                raise
    path = node.pull_path
    # `Task(id, name, path, step, node.sorted_triggers, fired, task_input, node, fired=tuple(fired))`,
    # every field stored on a bare instance (see `bare`; `test_fast_built_objects` holds them to the class)
    task = bare(Task)
    parts = _ID_PARTS.get((ns, name, path))
    if parts is None or state.checkpoint_id:
        task.id = task_id(ns, step, name, path, state.checkpoint_id)
    else:  # `task_id` of a node seen before, without a checkpoint, written out (a call less every task)
        hasher = parts[0].copy()
        hasher.update(b"%d%b" % (step, parts[1]))
        digest = hasher.digest()
        task.id = f"{digest[:4].hex()}-{digest[4:10].hex('-', 2)}-{digest[10:].hex()}"
    task.name = name
    task.path = path
    task.step = step
    task.triggers = node.sorted_triggers
    task.seen_versions = fired
    task.input = task_input
    task.node = node
    task.writes = []
    task.result = MISSING
    task.routes = ()
    task.error = None
    task.duration = 0.0
    task.fired = tuple(fired)
    task.interrupts = ()
    task.resume = ()
    task.restored = False
    task.attempts = ()
    return task


def _push_tasks(nodes: Mapping[str, "CompiledNode"], state: RunState, step: int, ns: tuple[str, ...]) -> list[Task]:
    """One task per `Send` packet queued at the last barrier, in the order the Sends were made."""
    tasks = []
    for index, packet in enumerate(state.channels[TASKS].get()):
        node = nodes.get(packet.node)
        if node is None:
            logger.warning(f"Ignoring unknown node name {packet.node} in pending sends")
            continue
        path = (PUSH, index, False)  # LangGraph's public path of a Send task
        task_key = task_id(ns, step, packet.node, path, state.checkpoint_id)
        tasks.append(Task(task_key, packet.node, path, step, (PUSH,), {}, packet.arg, node, fired=(PUSH,)))
    return tasks


def scheduled_order(tasks: list[Task]) -> list[Task]:
    """The order LangGraph starts a step's tasks in: Send tasks first (by index), then pulled nodes
    (by name). Tasks that take no time finish in this order, so it is the order of their `updates`,
    `tasks` and `debug` chunks; `tasks` is in application order (see `plan_tasks`)."""
    if not tasks or not tasks[-1].is_push or tasks[0].is_push:
        return tasks
    return [t for t in tasks if t.is_push] + [t for t in tasks if not t.is_push]


def apply_writes(
    state: RunState,
    tasks: list[Task],
    trigger_to_nodes: Mapping[str, Any],
    hooks: Hooks | None = None,
    ns: tuple[str, ...] = (),
    step: int = 0,
    state_keys: frozenset[str] = frozenset(),
) -> set[str]:
    """The barrier: commit every task's writes, bump versions, and return the updated channels.

    `tasks` must be in application order (what `plan_tasks` returns). LangGraph's `apply_writes`,
    step for step; with `hooks`, every reducer call on a state key is reported as it happens.
    """
    channels = state.channels
    versions = state.versions
    # Every trigger of each task is marked seen at its current version; a task with triggers makes
    # this a superstep (not the input or an external update). Written out, as is the grouping below:
    # this runs every step.
    versions_seen = state.versions_seen
    bump_step = False
    for task in tasks:
        if task.triggers:
            bump_step = True
            seen = versions_seen.get(task.name)
            if seen is None:
                seen = versions_seen[task.name] = {}
            for channel in task.triggers:
                if channel in versions:
                    seen[channel] = versions[channel]
    next_version = (max(versions.values()) if versions else 0) + 1  # (`max`'s keyword costs a parse)
    consumed = tasks[0].triggers if len(tasks) == 1 else {c for task in tasks for c in task.triggers}
    for channel in consumed:
        if channel in channels and channel not in RESERVED_WRITE_KEYS:
            target = channels[channel]
            if type(target) not in NOTHING_TO_CONSUME and target.consume():
                versions[channel] = next_version

    # Each channel's writes in application order, and the task of each write.
    pending: dict[str, list[Any]] = {}
    writers: dict[str, list[Task]] = {}
    for task in tasks:
        for channel, value in task.writes:
            if channel in RESERVED_WRITE_KEYS:
                continue
            if channel in pending:
                pending[channel].append(value)
                writers[channel].append(task)
            elif channel in channels:
                pending[channel] = [value]
                writers[channel] = [task]
            else:
                logger.warning(
                    f"Task {task.name} with path {task.path} wrote to unknown channel {channel}, ignoring it."
                )
    updated: set[str] = set()
    observed = [0]  # running index of reducer calls within this step
    for channel, values in pending.items():
        target = channels[channel]
        if hooks is not None and channel in state_keys:
            write = values[0]
            if (
                type(target) is BinaryOperatorAggregate
                and len(values) == 1
                and target.value is not MISSING
                and not isinstance(write, _MAYBE_OVERWRITE)
            ):  # `_update_observed` of the usual call (one write to a reducer), written out: every step
                before = target.value
                try:
                    target.value = after = target.reduce(before, write)
                except Exception as exc:
                    _report_refused(target, channel, values, writers[channel], hooks, ns, step, observed, [], exc)
                    raise
                writer = writers[channel][0]
                call = bare(ReducerCall)  # (see `observe`)
                call.step = step
                call.channel = channel
                call.reducer = target.reducer_name
                call.before = before
                call.write = write
                call.writer = writer.id
                call.writer_name = writer.name
                call.after = after
                call.index = observed[0]
                call.error = None
                call.before_unchanged = False
                hooks.reducer_called(ns=ns, call=call)
                observed[0] += 1
                changed = True
            else:
                changed = _update_observed(target, channel, values, writers[channel], hooks, ns, step, observed)
        elif type(target) is EphemeralValue and len(values) == 1:  # an edge's trigger: its `update`, written out
            target.value = values[0]
            changed = True
        else:
            changed = target.update(values)
        if changed:
            versions[channel] = next_version
            if target.value is not MISSING if type(target) in PLAIN_CHANNELS else target.is_available():
                updated.add(channel)
    if not bump_step:
        return updated
    # After a superstep's writes: the channels nothing wrote clear (edge triggers), and when no node
    # is triggered any more, every channel hears that the run is finishing (deferred nodes, barriers).
    clearing = state.clearing
    if clearing is None:
        clearing = state.clearing = tuple(k for k, c in channels.items() if c.clears_unwritten)
    for channel in clearing:
        if channel in updated:
            continue
        target = channels[channel]
        kind = type(target)
        if kind in PLAIN_CHANNELS:  # `is_available()`, read off the slot (or Topic's list)
            available = target.value is not MISSING
        else:
            available = target.values if kind is Topic else target.is_available()
        if available and target.update(()):
            versions[channel] = next_version
            if target.is_available():
                updated.add(channel)
    if updated.isdisjoint(trigger_to_nodes):
        for channel, target in channels.items():
            if target.finish():
                versions[channel] = next_version
                if target.is_available():
                    updated.add(channel)
    return updated


def _update_observed(
    target: Channel,
    channel: str,
    values: list[Any],
    writers: list[Task],
    hooks: Hooks,
    ns: tuple[str, ...],
    step: int,
    counter: list[int],
) -> bool:
    reducer = target.reducer_name
    reducer_called = hooks.reducer_called
    reported: list[int] = []

    # Reported as it happens: a reducer that changes its value in place changes it again at the next
    # write. (What it needs comes in as defaults, not closed over: cheaper to make, once per channel.)
    def observe(
        index: int,
        before: Any,
        write: Any,
        after: Any,
        unchanged: bool = False,
        _writers: list[Task] = writers,
        _reported: list[int] = reported,
        _counter: list[int] = counter,
        _call: Any = reducer_called,
        _ns: tuple[str, ...] = ns,
        _step: int = step,
        _channel: str = channel,
        _reducer: str = reducer,
    ) -> None:
        writer = _writers[index]
        _reported.append(index)
        # `ReducerCall(...)`, every field set on a bare instance: calling the class runs its `__init__`
        # in a frame of its own, which costs more than the eleven stores (one call per reducer call)
        call = bare(ReducerCall)
        call.step = _step
        call.channel = _channel
        call.reducer = _reducer
        call.before = before
        call.write = write
        call.writer = writer.id
        call.writer_name = writer.name
        call.after = after
        call.index = _counter[0]
        call.error = None
        call.before_unchanged = unchanged
        _call(ns=_ns, call=call)
        _counter[0] += 1

    try:
        return target.update(values, observe)
    except Exception as exc:
        _report_refused(target, channel, values, writers, hooks, ns, step, counter, reported, exc)
        raise


def _report_refused(
    target: Channel,
    channel: str,
    values: list[Any],
    writers: list[Task],
    hooks: Hooks,
    ns: tuple[str, ...],
    step: int,
    counter: list[int],
    reported: list[int],
    exc: Exception,
) -> None:
    """Reports the writes the channel refused, so a failing merge is as visible as a good one."""
    reducer = target.reducer_name
    before = target.value if target.is_available() else MISSING
    for index, (write, writer) in enumerate(zip(values, writers)):
        if index not in reported:
            hooks.reducer_called(
                ns=ns,
                call=ReducerCall(
                    step, channel, reducer, before, write, writer.id, writer.name, MISSING, counter[0], exc
                ),
            )
            counter[0] += 1


def local_read(state: RunState, keys: Iterable[str], writes: list[tuple[str, Any]]) -> dict[str, Any]:
    """The state as one task sees it after its own writes: for routers (LangGraph's fresh read).

    The step-start values with only this task's writes applied through copies of the channels;
    the run's channels are untouched.
    """
    by_channel: dict[str, list[Any]] = {}
    for channel, value in writes:
        by_channel.setdefault(channel, []).append(value)
    values = {}
    channels = state.channels
    for key in keys:
        channel = channels[key]
        try:
            values[key] = channel.get_after(by_channel[key]) if key in by_channel else channel.get()
        except EmptyChannelError:
            pass
    return values
