"""A thread's supersteps rebuilt from its stored checkpoints, as an `engine.trace.Trace`.

Each checkpoint of a thread is the state after one superstep; the writes of the tasks of the next
superstep are stored as pending writes on it (langgraph/pregel/_loop.py). So for each pair (checkpoint
C, its child), the step that led from C to the child is rebuilt with the app's graph:

1. the null task's writes (a `Command(resume=..., update=...)` given on resume) are applied first, as
   langgraph's `_first` does;
2. the tasks are planned again with langgraph's `prepare_next_tasks` on C (task ids are derived from
   the checkpoint id, so they match the stored writes), and each gets its stored writes;
3. the writes are folded by `refold.apply_observed` (langgraph's `apply_writes`, each reducer call
   reported), and the result is checked against the child's stored values. A state key whose stored
   value differs is recorded in the step's `mismatches` and the stored value is taken as the
   truth from there on (the difference shows as a change outside the reducers);
4. a task that is a subgraph has its own checkpoints under the namespace `<node>:<task id>`: they are
   rebuilt the same way and nested under the task.

The records are made by the engine's own `Recorder`, fed through its hook methods, so a thread opens
in every view exactly like a recorded run. The newest checkpoint ends the run: its pending writes
are a step that was interrupted, failed, or stopped before its checkpoint; without them the thread is
done, or paused with tasks planned. Checkpoints made by `update_state` or new input show as steps
without reducer calls: what changed is recorded as a change outside the reducers.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Any

from engine.codec import encode
from engine.hooks import ReducerCall, RunInfo, StepCommit
from engine.trace import Recorder, Trace

from .message_ids import adopt_stored_ids
from .refold import Fold, apply_observed, channel_value
from .savers import Checkpointer, CheckpointerError


@dataclass(slots=True)
class StoredTask:
    """A task of a stored step, in the shape the Recorder reads (see `engine.algo.Task`)."""

    id: str
    name: str
    path: tuple[Any, ...]
    triggers: tuple[str, ...]
    fired: tuple[str, ...]
    seen_versions: dict[str, int]
    input: Any
    writes: list[tuple[str, Any]] = field(default_factory=list)
    result: Any = None
    routes: list[Any] = field(default_factory=list)
    duration: float = 0.0
    error: BaseException | None = None


def int_version(version: Any) -> int:
    """Savers' string versions (`"000…0005.0.79…"`) as the global clock's integer."""
    if isinstance(version, int):
        return version
    try:
        return int(str(version).split(".")[0])
    except ValueError:
        return 0


def _values_equal(a: Any, b: Any) -> bool:
    if a is b:
        return True
    try:
        if a == b:
            return True
    except Exception:  # objects whose __eq__ fails: compare their recorded forms below
        pass
    return encode(a) == encode(b)


class ThreadReader:
    """Feeds one thread's checkpoints, namespace by namespace, into a `Recorder`."""

    def __init__(self, checkpointer: Checkpointer, tuples: list[Any], graph: Any, described: Any,
                 recorder: Recorder) -> None:
        self.saver = checkpointer.saver
        self.recorder = recorder
        self.by_ns: dict[str, dict[str, Any]] = {}
        for saved in tuples:
            conf = saved.config["configurable"]
            self.by_ns.setdefault(conf.get("checkpoint_ns", ""), {})[conf["checkpoint_id"]] = saved
        self.graph = graph
        self.described = described
        self.unknown_tasks: list[tuple[int, str]] = []
        """(step, task id) of stored writes made by a task the given graph does not plan."""
        self.refold_errors: list[tuple[tuple[str, ...], int, BaseException]] = []
        """Steps whose stored writes the graph's reducers refuse although the app's run merged them."""

    def lineage(self, ns: str, head: str | None = None) -> list[Any]:
        """The checkpoints from the first to `head` (default: the newest), following parent links."""
        saved_by_id = self.by_ns.get(ns, {})
        if not saved_by_id:
            return []
        if head is None:
            head = max(saved_by_id)
        elif head not in saved_by_id:
            raise CheckpointerError(f"no checkpoint {head!r} in this thread.")
        chain = []
        current = saved_by_id.get(head)
        while current is not None:
            chain.append(current)
            parent = (current.parent_config or {}).get("configurable", {}).get("checkpoint_id")
            current = saved_by_id.get(parent) if parent else None
        chain.reverse()
        return chain

    # ---- one run (one namespace) -------------------------------------------------------------------

    def read_run(self, ns: tuple[str, ...], graph: Any, described: Any, head: str | None = None) -> None:
        from langgraph.pregel._checkpoint import channels_from_checkpoint

        ns_str = "|".join(ns)
        chain = self.lineage(ns_str, head)
        if not chain:
            return
        first = chain[0]
        values = first.checkpoint.get("channel_values", {})
        run = _RunState(self, ns, graph, described)
        self.recorder.run_started(ns=ns, run=RunInfo(described, values.get("__start__"), _plain(first.config),
                                                     0, graph.output_channels))
        builder = self.recorder.builders[ns]
        builder.record.started_at = str(first.checkpoint.get("ts", ""))
        run.channels, run.managed = channels_from_checkpoint(graph.channels, first.checkpoint, saver=self.saver,
                                                             config=first.config)
        run.commit(int(first.metadata.get("step", -1)), first, [])
        for parent, child in zip(chain, chain[1:]):
            run.step_between(parent, child)
        run.finish(chain[-1])


def _plain(config: dict[str, Any]) -> dict[str, Any]:
    conf = config.get("configurable", {})
    return {"configurable": {k: conf[k] for k in ("thread_id", "checkpoint_ns") if k in conf}}


class _RunState:
    """The channels of one run as they are carried from step to step, and the steps' records."""

    def __init__(self, reader: ThreadReader, ns: tuple[str, ...], graph: Any, described: Any) -> None:
        self.reader = reader
        self.ns = ns
        self.graph = graph
        self.described = described
        self.channels: Any = None
        self.managed: Any = None
        self.state_keys = [k for k in _state_keys(graph) if k in graph.channels]
        self.subgraphs = dict(graph.get_subgraphs())
        self.status = "done"
        self.error: BaseException | None = None
        self.counter = 0

    @property
    def recorder(self) -> Recorder:
        return self.reader.recorder

    def read(self, keys: Any = None) -> dict[str, Any]:
        out = {}
        for key in self.state_keys if keys is None else keys:
            value = channel_value(self.channels[key])
            if value is not ENGINE_MISSING:
                out[key] = value
        return out

    def report(self, step: int) -> Any:
        def emit(fold: Fold) -> None:
            self.recorder.reducer_called(ns=self.ns, call=ReducerCall(
                step, fold.channel, fold.reducer, fold.before, fold.write, fold.writer_id, fold.writer_name,
                fold.after, self.counter, fold.error))
            self.counter += 1
        return emit

    def apply(self, step: int, checkpoint: dict[str, Any], tasks: list[Any]) -> set[str]:
        return apply_observed(checkpoint, self.channels, tasks, self.state_keys, self.reader.saver.get_next_version,
                              self.graph.trigger_to_nodes, self.report(step))

    def plan(self, saved: Any, checkpoint: dict[str, Any], step: int, updated: Any) -> list[StoredTask]:
        """The tasks langgraph plans on `saved` (ids match the stored writes), with their stored writes."""
        from langgraph.pregel._algo import prepare_next_tasks

        planned = prepare_next_tasks(
            checkpoint, saved.pending_writes or [], self.graph.nodes, self.channels, self.managed, saved.config,
            step, step + 2, for_execution=True, store=None, checkpointer=None, manager=None,
            trigger_to_nodes=self.graph.trigger_to_nodes, updated_channels=updated)
        versions = checkpoint["channel_versions"]
        seen_all = checkpoint.get("versions_seen", {})
        tasks = []
        for task in planned.values():
            seen = seen_all.get(task.name, {})
            fired = tuple(t for t in task.triggers if t in versions and (t not in seen or versions[t] > seen[t]))
            tasks.append(StoredTask(task.id, task.name, tuple(task.path), tuple(task.triggers), fired,
                                    {t: int_version(versions[t]) for t in fired}, task.input))
        by_id = {t.id: t for t in tasks}
        for task_id, channel, value in saved.pending_writes or []:
            if task_id == NULL_TASK_ID:
                continue
            task = by_id.get(task_id)
            if task is None:  # written by a task this graph does not plan: the graph is not the app's
                task = by_id[task_id] = StoredTask(task_id, "(unknown task)", ("__pregel_pull", "(unknown task)"),
                                                   (), (), {}, None)
                tasks.append(task)
                self.reader.unknown_tasks.append((step, task_id))
            task.writes.append((channel, value))
        for task in tasks:
            task.result = {c: v for c, v in task.writes if c in self.state_keys}
            task.error = _task_error(task.writes)
        return tasks

    def step_between(self, parent: Any, child: Any) -> None:
        step = int(child.metadata.get("step", int(parent.metadata.get("step", -1)) + 1))
        source = child.metadata.get("source")
        checkpoint = _copy_checkpoint(parent.checkpoint)
        self.apply_null_writes(step, parent, checkpoint)
        if source == "loop":
            tasks = self.plan(parent, checkpoint, step, _updated(parent))
            self.run_tasks(step, tasks)
            before = {k: channel_value(self.channels[k]) for k in self.state_keys}
            ran = adopt_stored_ids([t for t in tasks if t.writes], self.state_keys, before,
                                   child.checkpoint.get("channel_values", {}))
            try:
                self.apply(step, checkpoint, ran)
            except Exception as exc:  # the stored child says the merge succeeded: the graph must differ
                self.reader.refold_errors.append((self.ns, step, exc))
        elif source == "input":
            value = child.checkpoint.get("channel_values", {}).get("__start__")
            task = StoredTask(f"input-{step}", "__input__", ("__input__",), (), (), {}, value,
                              writes=[("__start__", value)])
            self.run_tasks(step, [task])
        self.commit(step, child, self.state_keys)

    def apply_null_writes(self, step: int, saved: Any, checkpoint: dict[str, Any]) -> None:
        from langgraph.pregel._algo import PregelTaskWrites

        nulls = [(c, v) for t, c, v in saved.pending_writes or [] if t == NULL_TASK_ID]
        if nulls:
            task = PregelTaskWrites((), "__input__", nulls, [])
            self.apply(step, checkpoint, [task])

    def run_tasks(self, step: int, tasks: list[StoredTask]) -> None:
        """Reports the planned tasks, the subgraph runs nested in them, and what each task did."""
        self.recorder.step_planned(ns=self.ns, step=step, tasks=tasks)
        for task in tasks:
            sub = self.subgraphs.get(task.name)
            child_ns = f"{task.name}:{task.id}"
            if sub is not None and "|".join((*self.ns, child_ns)) in self.reader.by_ns:
                self.reader.read_run((*self.ns, child_ns), sub, _subgraph_description(self.described, task.name, sub))
        for task in tasks:
            if task.writes or task.error is not None:
                self.recorder.task_finished(ns=self.ns, step=step, task=task)

    def commit(self, step: int, saved: Any, compare: Any) -> None:
        """Checks the carried channels against `saved`'s stored values, takes the stored ones where they
        differ, and reports the barrier and the checkpoint."""
        stored = saved.checkpoint.get("channel_values", {})
        mismatch = []
        for key in compare:
            mine = channel_value(self.channels[key])
            if key in stored:
                theirs = stored[key]
            else:  # never written: not stored, and as the graph starts it (e.g. [] for a list with a reducer)
                theirs = channel_value(self.graph.channels[key].from_checkpoint(_LG_MISSING()))
            if mine is ENGINE_MISSING and theirs is ENGINE_MISSING:
                continue
            if mine is ENGINE_MISSING or theirs is ENGINE_MISSING or not _values_equal(mine, theirs):
                mismatch.append({"channel": key, "recorded": encode(mine), "committed": encode(theirs)})
                self.channels[key] = self.graph.channels[key].from_checkpoint(stored.get(key, _LG_MISSING()))
        self._restore_control(saved)
        versions = {k: int_version(v) for k, v in saved.checkpoint.get("channel_versions", {}).items()}
        updated = frozenset(saved.checkpoint.get("updated_channels") or ())
        self.recorder.step_committed(ns=self.ns, commit=StepCommit(step, updated, versions, self.read,
                                                                   frozenset(self.state_keys)))
        record = self.recorder.builders[self.ns].step
        if record is not None:
            record.mismatches = mismatch
            if saved.parent_config:
                record.parent_checkpoint = _plain_checkpoint_config(saved.parent_config)
        self.recorder.checkpoint_saved(ns=self.ns, step=step, config=_plain_checkpoint_config(saved.config),
                                       metadata=saved.metadata)

    def _restore_control(self, saved: Any) -> None:
        """Edge and Send channels always follow the stored checkpoint: they are not state, and their
        stored form is what the next step is planned from."""
        stored = saved.checkpoint.get("channel_values", {})
        for key, spec in self.graph.channels.items():
            if key in self.state_keys or not hasattr(spec, "from_checkpoint"):
                continue
            self.channels[key] = spec.from_checkpoint(stored[key] if key in stored else _LG_MISSING())

    def finish(self, head: Any) -> None:
        """The newest checkpoint: a step in progress (its pending writes), or done / paused."""
        step = int(head.metadata.get("step", -1)) + 1
        checkpoint = _copy_checkpoint(head.checkpoint)
        self.apply_null_writes(step, head, checkpoint)
        tasks = self.plan(head, checkpoint, step, _updated(head))
        status, error = "done", None
        if tasks:
            self.run_tasks(step, tasks)
            failed = [t for t in tasks if t.error is not None]
            interrupted = [t for t in failed if _is_interrupt(t.error)]
            errors = [t for t in failed if not _is_interrupt(t.error)]
            if errors:
                status, error = "error", errors[0].error
            elif interrupted:
                status, error = "interrupted", None
            elif all(t.writes for t in tasks):
                try:  # every task finished but no checkpoint followed: the merge failed, or the process stopped
                    self.apply(step, checkpoint, tasks)
                    status, error = "running", None
                except Exception as exc:  # e.g. INVALID_CONCURRENT_GRAPH_UPDATE: what the live run raised
                    status, error = "error", exc
            else:
                status = "interrupted" if self._at_breakpoint(tasks) else "running"
        output = self.read(_output_keys(self.graph))
        self.recorder.run_finished(ns=self.ns, status=status, output=output, error=error, step=step)

    def _at_breakpoint(self, tasks: list[StoredTask]) -> bool:
        names = {t.name for t in tasks}
        for nodes in (getattr(self.graph, "interrupt_before_nodes", ()), getattr(self.graph, "interrupt_after_nodes", ())):
            if nodes == "*" or names & set(nodes or ()):
                return True
        return False


# ---- helpers -------------------------------------------------------------------------------------

from engine.channels import MISSING as ENGINE_MISSING  # noqa: E402

NULL_TASK_ID = "00000000-0000-0000-0000-000000000000"


def _LG_MISSING() -> Any:
    from langgraph._internal._typing import MISSING

    return MISSING


def _copy_checkpoint(checkpoint: dict[str, Any]) -> dict[str, Any]:
    """What `apply_writes` changes (versions, versions seen), copied; values are shared, never changed."""
    out = dict(checkpoint)
    out["channel_versions"] = dict(checkpoint.get("channel_versions", {}))
    out["versions_seen"] = {k: dict(v) for k, v in checkpoint.get("versions_seen", {}).items()}
    return out


def _updated(saved: Any) -> set[str] | None:
    updated = saved.checkpoint.get("updated_channels")
    return set(updated) if updated is not None and not any(t == NULL_TASK_ID for t, _, _ in saved.pending_writes or []) else None


def _task_error(writes: list[tuple[str, Any]]) -> BaseException | None:
    from langgraph._internal._constants import ERROR, INTERRUPT

    for channel, value in writes:
        if channel == ERROR:
            if isinstance(value, BaseException):
                return value
            return RuntimeError(str(value))
    interrupts = [i for channel, value in writes if channel == INTERRUPT for i in (value or [])]
    if interrupts and not any(c not in (INTERRUPT, "__resume__") for c, _ in writes):
        from langgraph.errors import GraphInterrupt

        return GraphInterrupt(tuple(interrupts))
    return None


def _is_interrupt(error: BaseException) -> bool:
    return type(error).__name__ == "GraphInterrupt"


def _state_keys(graph: Any) -> list[str]:
    builder = getattr(graph, "builder", None)
    channels = getattr(builder, "channels", None)
    if channels:
        return list(channels)
    return list(graph.stream_channels_list)


def _output_keys(graph: Any) -> list[str]:
    keys = graph.output_channels
    return [keys] if isinstance(keys, str) else list(keys)


def _plain_checkpoint_config(config: dict[str, Any]) -> dict[str, Any]:
    conf = config.get("configurable", {})
    return {"configurable": {k: conf[k] for k in ("thread_id", "checkpoint_ns", "checkpoint_id") if k in conf}}


def _subgraph_description(described: Any, name: str, sub: Any) -> Any:
    """The engine twin of subgraph `name` when the parent's twin has one, else the subgraph itself."""
    nodes = getattr(getattr(described, "builder", None), "nodes", {})
    spec = nodes.get(name) if isinstance(nodes, dict) else None
    action = getattr(spec, "action", None)
    return action if hasattr(action, "builder") else describe_target(sub)


def describe_target(graph: Any) -> Any:
    """What `engine.trace.describe` can read for a langgraph graph: its rebuild on the engine."""
    from debugger.adapters.langgraph_graph import to_engine_graph

    if getattr(graph, "checkpointer", None) not in (None, False, True):
        graph = graph.copy(update={"checkpointer": None})  # only its shape is needed, never its saver
    return to_engine_graph(graph)


def read_thread(checkpointer: Checkpointer, thread_id: str, graph: Any, *, described: Any = None,
                checkpoint_id: str | None = None, target: str = "") -> Trace:
    """The thread `thread_id` of `checkpointer`, rebuilt with the app's `graph` (a langgraph compiled
    graph), up to `checkpoint_id` (default: its newest checkpoint)."""
    tuples = checkpointer.history(thread_id)
    if described is None:
        described = describe_target(graph)
    head = checkpoint_id or max(t.config["configurable"]["checkpoint_id"] for t in tuples
                                if t.config["configurable"].get("checkpoint_ns", "") == "")
    run_id = uuid.uuid5(uuid.NAMESPACE_URL, f"{checkpointer.label}#{thread_id}#{head}").hex
    recorder = Recorder(target=target or f"thread {thread_id} @ {checkpointer.label}", run_id=run_id)
    reader = ThreadReader(checkpointer, tuples, graph, described, recorder)
    reader.read_run((), graph, described, head)
    trace = recorder.trace
    if trace is None:
        raise CheckpointerError(f"thread {thread_id!r} has no checkpoint of the root graph.")
    return trace
