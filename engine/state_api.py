"""Looking back and changing the past: `get_state`, `get_state_history`, `update_state`.

A `StateSnapshot` describes one checkpoint: the state at the start of a step, the tasks that step
plans (`next`), and, from the pending writes, what those tasks did so far. `get_state(config)`
without a `checkpoint_id` is *live*: finished tasks' writes are applied and `next` lists only what
still has to run. History and `get_state` with a `checkpoint_id` show the step as a record: the
state at its start and every task with its result.

`update_state(config, values, as_node=...)` changes the past: it runs the writers of `as_node` on
`values` as if that node had returned them (reducers apply, its edges and routers fire), and saves
the result as a new checkpoint (`source="update"`, step + 1) after the one `config` names. Invoking
with the returned config continues from there: that is how a run is forked with an edit.
"""

from __future__ import annotations

import warnings
from types import SimpleNamespace
from typing import TYPE_CHECKING, Any, Iterator, NamedTuple

from .algo import RunState, Task, apply_writes, plan_tasks, task_id
from .checkpointing import new_checkpoint, restore_state, unknown_checkpoint
from .constants import COPY, END, INPUT, INTERRUPT, NS_END, NS_SEP, PUSH, START
from .errors import InvalidUpdateError
from .interrupts import task_ns
from .savers import (
    NULL_TASK_ID,
    BaseCheckpointSaver,
    CheckpointTuple,
    TaskStatus,
    make_config,
    read_task_statuses,
    thread_config,
)
from .stream import task_result_writes
from .writes import node_writes

if TYPE_CHECKING:  # pragma: no cover
    from .compiled import CompiledStateGraph


class PregelTask(NamedTuple):
    """One task of a snapshot's step."""

    id: str
    """The task id (the same the run used, so it matches the pending writes and the trace)."""
    name: str
    """The node it runs."""
    path: tuple[Any, ...]
    """`("__pregel_pull", name)`, or `("__pregel_push", index, False)` for a Send."""
    error: BaseException | None = None
    """The exception it raised, if it failed."""
    interrupts: tuple[Any, ...] = ()
    """Its interrupts: the unanswered ones in a live snapshot, the last it raised otherwise."""
    state: Any = None
    """For a subgraph node, `{"configurable": {"thread_id", "checkpoint_ns"}}` of its own checkpoints."""
    result: Any = None
    """Its writes to the state keys once it has finished (`{key: {"$writes": [...]}}` for repeats)."""


class StateSnapshot(NamedTuple):
    """The state of a thread at the start of a step (LangGraph's `StateSnapshot`)."""

    values: Any
    """Every state key that holds a value."""
    next: tuple[str, ...]
    """The nodes of the tasks still to run: Sends first, then nodes in the order they were added."""
    config: dict[str, Any]
    """The config that names this checkpoint: pass it to `invoke`/`stream` to replay or fork from it."""
    metadata: dict[str, Any] | None
    """`source` (`input`, `loop`, `update` or `fork`), `step` and `parents`; None for an empty thread."""
    created_at: str | None
    """When the checkpoint was saved (UTC ISO-8601)."""
    parent_config: dict[str, Any] | None
    """The config of the checkpoint before this one."""
    tasks: tuple[PregelTask, ...]
    """Every task of the step, with its result, error and interrupts so far."""
    interrupts: tuple[Any, ...]
    """All the tasks' interrupts (live: only those still waiting for an answer)."""


class UnknownKeyWarning(UserWarning):
    """`update_state` was given keys that are not state keys; LangGraph drops them silently."""


def saver_of(graph: "CompiledStateGraph") -> BaseCheckpointSaver:
    if not isinstance(graph.checkpointer, BaseCheckpointSaver):
        raise ValueError("No checkpointer set")
    return graph.checkpointer


def resolve(graph: "CompiledStateGraph", checkpoint_ns: str) -> tuple["CompiledStateGraph", tuple[str, ...]]:
    """The (sub)graph whose checkpoints live under `checkpoint_ns` (`node:task_id|...`), and its ns."""
    ns = tuple(checkpoint_ns.split(NS_SEP)) if checkpoint_ns else ()
    for part in ns:
        node = graph.nodes.get(part.split(NS_END)[0])
        if node is None or not node.is_subgraph:
            raise ValueError(f"Subgraph {part.split(NS_END)[0]!r} not found in checkpoint_ns {checkpoint_ns!r}")
        graph = node.action
    return graph, ns


def snapshot(
    graph: "CompiledStateGraph",
    config: dict[str, Any],
    saved: CheckpointTuple | None,
    ns: tuple[str, ...] = (),
    *,
    live: bool = False,
    saver: BaseCheckpointSaver | None = None,
) -> StateSnapshot:
    """The snapshot of one saved checkpoint (LangGraph's `_prepare_state_snapshot`); with `saver`,
    each subgraph task's `state` is the subgraph's own live snapshot (`get_state(subgraphs=True)`)."""
    if saved is None:
        return StateSnapshot({}, (), config, None, None, None, (), ())
    state = restore_state(graph, saved.checkpoint)
    step = saved.metadata.get("step", -1) + 1
    order = {name: index for index, name in enumerate(graph.nodes)}
    tasks = sorted(
        plan_tasks(graph.nodes, graph.trigger_to_nodes, state, step, ns, None),
        key=lambda t: (0, t.path[1]) if t.path[0] == PUSH else (1, order[t.name]),
    )
    pending = saved.pending_writes or []
    null_writes = [(c, v) for t, c, v in pending if t == NULL_TASK_ID]
    if null_writes:
        apply_writes(state, [external_task(null_writes)], graph.trigger_to_nodes)
    statuses = read_task_statuses(pending)
    if live and statuses:
        for task in tasks:
            if task.id in statuses:
                task.writes = list(statuses[task.id].output)
        apply_writes(state, sorted((t for t in tasks if t.writes), key=Task.sort_key), graph.trigger_to_nodes)
    keys = graph.stream_keys if not isinstance(graph.output_keys, str) else graph.output_keys
    pregel_tasks = tuple(
        pregel_task(graph, saved, ns, task, statuses.get(task.id, TaskStatus()), keys, live, saver) for task in tasks
    )
    return StateSnapshot(
        read_values(state, keys),
        tuple(t.name for t in tasks if not t.writes),
        with_checkpoint_map(saved.config, saved.metadata),
        saved.metadata,
        saved.checkpoint["ts"],
        with_checkpoint_map(saved.parent_config, saved.metadata),
        pregel_tasks,
        tuple(i for t in pregel_tasks for i in t.interrupts),
    )


def read_values(state: RunState, keys: Any) -> Any:
    if isinstance(keys, str):
        channel = state.channels[keys]
        return channel.get() if channel.is_available() else None
    return state.read(keys)


def with_checkpoint_map(config: dict[str, Any] | None, metadata: dict[str, Any]) -> dict[str, Any] | None:
    """A subgraph checkpoint's config also names its ancestors' checkpoints (`checkpoint_map`)."""
    parents = metadata.get("parents") if metadata else None
    if config is None or not parents:
        return config
    conf = config["configurable"]
    return {
        **config,
        "configurable": {**conf, "checkpoint_map": {**parents, conf["checkpoint_ns"]: conf["checkpoint_id"]}},
    }


def pregel_task(
    graph: "CompiledStateGraph",
    saved: CheckpointTuple,
    ns: tuple[str, ...],
    task: Task,
    status: TaskStatus,
    keys: Any,
    live: bool,
    saver: BaseCheckpointSaver | None,
) -> PregelTask:
    if not status.finished:
        result = None
    elif isinstance(keys, str):
        result = task_result_writes([(c, v) for c, v in status.output if c == keys]).get(keys)
    else:
        result = task_result_writes([(c, v) for c, v in status.output if c in keys])
    state = None
    node = graph.nodes[task.name]
    if node.is_subgraph:
        sub_ns = task_ns(ns, task.name, task.id)
        state = {"configurable": {"thread_id": saved.config["configurable"]["thread_id"], "checkpoint_ns": sub_ns}}
        if saver is not None:
            state = snapshot(
                node.action, state, saver.get_tuple(state), tuple(sub_ns.split(NS_SEP)), live=True, saver=saver
            )
    interrupts = status.pending_interrupts if live else status.interrupts
    return PregelTask(task.id, task.name, task.path, status.error, tuple(interrupts), state, result)


def external_task(writes: list[tuple[str, Any]], step: int = 0) -> Task:
    return Task(INPUT, INPUT, (INPUT,), step, (), {}, None, None, writes)  # type: ignore[arg-type]


def get_state(graph: "CompiledStateGraph", config: dict[str, Any], subgraphs: bool = False) -> StateSnapshot:
    saver = saver_of(graph)
    thread_id, checkpoint_ns, checkpoint_id = thread_config(config)
    target, ns = resolve(graph, checkpoint_ns)
    saved = saver.get_tuple(make_config(thread_id, checkpoint_ns, checkpoint_id))
    live = "checkpoint_id" not in config["configurable"]
    return snapshot(target, config, saved, ns, live=live, saver=saver if subgraphs else None)


def get_state_history(
    graph: "CompiledStateGraph",
    config: dict[str, Any],
    *,
    filter: dict[str, Any] | None = None,
    before: dict[str, Any] | None = None,
    limit: int | None = None,
) -> Iterator[StateSnapshot]:
    saver = saver_of(graph)
    thread_id, checkpoint_ns, checkpoint_id = thread_config(config)
    target, ns = resolve(graph, checkpoint_ns)
    found = list(
        saver.list(make_config(thread_id, checkpoint_ns, checkpoint_id), filter=filter, before=before, limit=limit)
    )
    for saved in found:
        yield snapshot(target, saved.config, saved, ns)


def infer_as_node(graph: "CompiledStateGraph", versions_seen: dict[str, dict[str, int]]) -> str | None:
    """The node an update without `as_node` comes from: the one that ran last (LangGraph's rule)."""
    if len(graph.nodes) == 1:
        return next(iter(graph.nodes))
    if not any(v for seen in versions_seen.values() for v in seen.values()):
        return START
    last = sorted((v, node) for node, seen in versions_seen.items() if node in graph.nodes for v in seen.values())
    if len(last) == 1 or (last and last[-1][0] != last[-2][0]):
        return last[-1][1]
    return None


class _Base(NamedTuple):
    """The checkpoint an update starts from (`saved`, None on an empty thread) and the state restored
    from it; `save` writes the updated state as the next checkpoint."""

    graph: "CompiledStateGraph"
    saver: BaseCheckpointSaver
    config: dict[str, Any]
    thread_id: str
    saved: CheckpointTuple | None
    state: RunState

    @property
    def step(self) -> int:
        return self.saved.metadata.get("step", -1) if self.saved else -1

    def save(self, source: str, at: int, where: dict[str, Any] | None = None) -> dict[str, Any]:
        parents = self.saved.metadata.get("parents", {}) if self.saved else {}
        checkpoint = new_checkpoint(self.saver, self.state, at, None)
        metadata = {"source": source, "step": at, "parents": dict(parents)}
        return self.saver.put(where or self._put_config(), checkpoint, metadata, {})

    def _put_config(self) -> dict[str, Any]:
        configurable = {
            **self.config["configurable"],
            "thread_id": self.thread_id,
            "checkpoint_ns": "",
            "checkpoint_id": self.saved.checkpoint["id"] if self.saved else None,
        }
        return {**self.config, "configurable": configurable}

    def planned(self) -> list[Task]:
        graph = self.graph
        return plan_tasks(graph.nodes, graph.trigger_to_nodes, self.state, self.step + 1, (), None)

    def apply(self, tasks: list[Task]) -> None:
        apply_writes(self.state, tasks, self.graph.trigger_to_nodes)


def _update_base(graph: "CompiledStateGraph", config: dict[str, Any]) -> _Base:
    saver = saver_of(graph)
    thread_id, checkpoint_ns, checkpoint_id = thread_config(config)
    if checkpoint_ns:
        raise NotImplementedError(
            "update_state on a subgraph's checkpoint_ns is not supported yet; update the root thread."
        )
    saved = saver.get_tuple(make_config(thread_id, "", checkpoint_id))
    if saved is None and checkpoint_id is not None:
        message = unknown_checkpoint(thread_id, "", checkpoint_id)
        raise ValueError(message[0].upper() + message[1:])
    state = (
        restore_state(graph, saved.checkpoint) if saved else RunState({k: s.fresh() for k, s in graph.channels.items()})
    )
    return _Base(graph, saver, config, thread_id, saved, state)


def update_state(
    graph: "CompiledStateGraph",
    config: dict[str, Any],
    values: Any,
    as_node: str | None = None,
    task_id_: str | None = None,
) -> dict[str, Any]:
    """Applies `values` as `as_node`'s output to the checkpoint `config` names; returns the new config."""
    base = _update_base(graph, config)
    if values is None and as_node == END:
        return _clear_pending_tasks(base)
    if as_node == INPUT:
        return _write_input(base, values)
    if as_node == COPY:
        return _copy_checkpoint(base, values)
    return _write_as_node(base, values, _checked_as_node(base, values, as_node), task_id_)


def _clear_pending_tasks(base: _Base) -> dict[str, Any]:
    """`update_state(config, None, as_node=END)`: the planned tasks finish with what they wrote so far."""
    if base.saved is not None:
        tasks = base.planned()
        pending = base.saved.pending_writes or []
        null_writes = [(c, v) for t, c, v in pending if t == NULL_TASK_ID]
        if null_writes:
            base.apply([external_task(null_writes)])
        statuses = read_task_statuses(pending)
        for task in tasks:
            task.writes = list(statuses[task.id].output) if task.id in statuses else []
        base.apply(tasks)
    return base.save("update", base.step + 1)


def _write_input(base: _Base, values: Any) -> dict[str, Any]:
    if values is None:
        raise InvalidUpdateError(f"Received no input writes for {START}")
    base.apply([external_task([(START, values)])])
    return base.save("input", base.step + 1 if base.saved else -1)


def _copy_checkpoint(base: _Base, values: Any) -> dict[str, Any]:
    if base.saved is None:
        raise InvalidUpdateError("Cannot copy a non-existent checkpoint")
    if isinstance(values, list) and values:
        raise NotImplementedError(
            "update_state(..., as_node='__copy__') with updates is not supported; "
            "copy first, then call update_state on the returned config."
        )
    where = base.saved.parent_config or make_config(base.thread_id, "", None)
    config = base.config
    return base.save(
        "fork", base.step + 1, {**config, "configurable": {**config["configurable"], **where["configurable"]}}
    )


def _checked_as_node(base: _Base, values: Any, as_node: str | None) -> str:
    """`as_node`, or the node LangGraph infers; refuses a node the graph lacks, warns of unknown keys."""
    graph = base.graph
    if as_node is None:
        as_node = infer_as_node(graph, base.saved.checkpoint["versions_seen"] if base.saved else {})
        if as_node is None:
            raise InvalidUpdateError("Ambiguous update, specify as_node")
    if as_node not in graph.nodes:
        error = InvalidUpdateError(f"Node {as_node} does not exist")
        error.add_note(
            f"as_node must be one of: {', '.join(graph.nodes)} (or __input__, __copy__, or END with values=None)."
        )
        raise error
    if isinstance(values, dict) and (unknown := [k for k in values if k not in graph.state_keys]):
        warnings.warn(
            f"update_state ignored {', '.join(map(repr, unknown))}: not a state key of this graph "
            f"({', '.join(graph.state_keys_ordered)}). LangGraph drops such keys silently; check the spelling.",
            UnknownKeyWarning,
            stacklevel=4,
        )
    return as_node


def _write_as_node(base: _Base, values: Any, as_node: str, task_id_: str | None) -> dict[str, Any]:
    """Runs `as_node`'s writers on `values` as a task of the next step (reusing a planned task's id)."""
    node = base.graph.nodes[as_node]
    saved, step = base.saved, base.step
    reused = [t.id for t in base.planned() if t.name == as_node] if saved is not None else []
    path = (INTERRUPT, 0)
    the_id = task_id_ or (
        reused[0] if reused else task_id((), step + 1, as_node, path, saved.checkpoint["id"] if saved else "")
    )
    task = Task(the_id, as_node, path, step + 1, (INTERRUPT,), {}, values, node)
    node_writes(node, task, values, SimpleNamespace(state=base.state, config=base.config))
    base.apply([task])
    return base.save("update", step + 1)
