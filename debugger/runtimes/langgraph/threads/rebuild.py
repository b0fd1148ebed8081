"""A thread's supersteps rebuilt from its stored checkpoints, as an `engine.trace.Trace` (which
checkpoints are read, and when, is `reader.py`'s part).

Each checkpoint of a thread is the state after one superstep; the writes of the tasks of the next
superstep are stored as pending writes on it (langgraph/pregel/_loop.py). So for each pair (checkpoint
C, its child), the step that led from C to the child is rebuilt with the app's graph:

1. the null task's writes (a `Command(resume=..., update=...)` given on resume) are applied first, as
   langgraph's `_first` does;
2. the tasks are planned again with langgraph's `prepare_next_tasks` on C (task ids are derived from
   the checkpoint id, so they match the stored writes), and each gets its stored writes;
3. the writes are applied with langgraph's own `apply_writes`, each state key watched as the live
   recorder watches it (`debugger/runtimes/langgraph/recorder`: `ObservedChannels`, `observe_update`), so
   every reducer call has its value before and after; the result is committed as the child's stored
   values, and the trace writer (`engine/trace_writer.py`, as for a run recorded live) records any
   state key whose stored value differs from what the calls gave as a mismatch
   (`StepRecord.mismatches`; `stepscope diagnose` reports it). From there on the stored value is the truth;
4. a task that is a subgraph has its own checkpoints under the namespace `<node>:<task id>`: they are
   rebuilt the same way and nested under the task.

So a thread opens in every view exactly like a run recorded live, by the same writer. The newest
checkpoint ends the run: its pending writes are a step that was interrupted, failed, or stopped before
its checkpoint; without them the thread is done, or paused with tasks planned. Checkpoints made by
`update_state` or by new input show as steps without reducer calls: what changed is recorded as a
change outside the reducers.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from debugger.runtimes.checkpointers.tables import DamagedCheckpoint
from debugger.runtimes.langgraph.recorder.probe_barrier import ObservedChannels
from debugger.runtimes.langgraph.recorder.superstep import _get, call_sink, commit, plan_task, writes_by_channel
from engine.codec import MISSING as ENGINE_MISSING
from engine.codec import encode
from engine.trace import RunStatus, TraceWriter

from .damage import keep_damage_only, mark_damaged_checkpoint, mark_refused_merge
from .message_ids import adopt_stored_ids

if TYPE_CHECKING:  # the reader makes each RunRebuild and hands itself in; only the annotation names it
    from .reader import ThreadReader

NULL_TASK_ID = "00000000-0000-0000-0000-000000000000"


@dataclass(slots=True)
class StoredTask:
    """A task of a stored step: what langgraph plans, with the writes stored for it."""

    id: str
    name: str
    path: tuple[Any, ...]
    triggers: tuple[str, ...]
    input: Any
    writes: list[tuple[str, Any]] = field(default_factory=list)
    error: BaseException | None = None
    interrupts: list[Any] = field(default_factory=list)


def _values_equal(a: Any, b: Any) -> bool:
    if a is b:
        return True
    try:
        if a == b:
            return True
    except Exception:  # objects whose __eq__ fails: compare their recorded forms below
        pass
    return encode(a) == encode(b)


class RunRebuild:
    """One run's channels, carried from step to step as langgraph carries them, and its writer."""

    def __init__(
        self, reader: "ThreadReader", ns: tuple[str, ...], graph: Any, writer: TraceWriter, keys: list[str]
    ) -> None:
        self.reader = reader
        self.ns = ns
        self.graph = graph
        self.writer = writer
        self.keys = keys
        self.subgraphs = dict(graph.get_subgraphs())
        self.channels: Any = None
        self.managed: Any = None
        self.unknown: dict[str, Any] = {}
        """Versions of stored channels the graph does not have, as last reported."""
        self.last_step = -1
        """The step of the last checkpoint committed (a damaged one has no step of its own)."""

    def output(self) -> dict[str, Any]:
        """The carried values of the graph's output keys that are set."""
        return {
            k: self.value(k)
            for k in _output_keys(self.graph)
            if k in self.channels and self.value(k) is not ENGINE_MISSING
        }

    def value(self, key: str) -> Any:
        """The carried value of state key `key` (MISSING when empty)."""
        return _get(self.channels[key])

    # ---- planning and running ------------------------------------------------------------------

    def plan(self, saved: Any, checkpoint: dict[str, Any], step: int) -> list[StoredTask]:
        """The tasks langgraph plans on `saved` (ids match the stored writes), with their stored writes."""
        from langgraph.pregel._algo import prepare_next_tasks

        updated = saved.checkpoint.get("updated_channels")
        nulls = any(t == NULL_TASK_ID for t, _, _ in saved.pending_writes or [])
        planned = prepare_next_tasks(
            checkpoint,
            saved.pending_writes or [],
            self.graph.nodes,
            self.channels,
            self.managed,
            saved.config,
            step,
            step + 2,
            for_execution=True,
            store=None,
            checkpointer=None,
            manager=None,
            trigger_to_nodes=self.graph.trigger_to_nodes,
            updated_channels=set(updated) if updated is not None and not nulls else None,
        )
        tasks = [StoredTask(t.id, t.name, tuple(t.path), tuple(t.triggers), t.input) for t in planned.values()]
        by_id = {t.id: t for t in tasks}
        for task_id, channel, value in saved.pending_writes or []:
            if task_id == NULL_TASK_ID:
                continue
            task = by_id.get(task_id)
            if task is None:  # written by a task this graph does not plan: the graph is not the app's; shown
                task = by_id[task_id] = StoredTask(
                    task_id, "(unknown task)", ("__pregel_pull", "(unknown task)"), (), None
                )
                tasks.append(task)
            task.writes.append((channel, value))
        for task in tasks:
            task.error, task.interrupts = _task_outcome(task.writes)
        return tasks

    def run_tasks(self, step: int, tasks: list[StoredTask], checkpoint: dict[str, Any]) -> None:
        """Records the planned tasks, the subgraph runs nested in them, and what each task did."""
        versions = checkpoint["channel_versions"]
        seen_all = checkpoint.get("versions_seen", {})
        for task in tasks:
            record = plan_task(self.writer, step, task, versions, seen_all.get(task.name, {}))
            sub = self.subgraphs.get(task.name)
            child_ns = (*self.ns, f"{task.name}:{task.id}")
            if sub is not None and "|".join(child_ns) in self.reader.parents:
                self.reader.read_run(child_ns, sub, parent_task=record, parent_writer=self.writer)
            if task.writes or task.error is not None:
                self.writer.task_done(record, writes=task.writes, error=task.error)

    def apply(self, step: int, checkpoint: dict[str, Any], tasks: list[Any]) -> set[str]:
        """langgraph's `apply_writes` on the carried channels, each write to a state key recorded."""
        from langgraph.pregel._algo import apply_writes

        grouped = writes_by_channel(tasks, self.keys)
        channels = ObservedChannels(self.channels, grouped, call_sink(self.writer, step)) if grouped else self.channels
        return apply_writes(
            checkpoint, channels, tasks, self.reader.saver.get_next_version, self.graph.trigger_to_nodes
        )

    def apply_null_writes(self, step: int, saved: Any, checkpoint: dict[str, Any]) -> None:
        """Applies a resume's or an update's writes (the null task's) first, as langgraph's `_first` does."""
        from langgraph.pregel._algo import PregelTaskWrites

        nulls = [(c, v) for t, c, v in saved.pending_writes or [] if t == NULL_TASK_ID]
        if nulls:
            self.apply(step, checkpoint, [PregelTaskWrites((), "__input__", nulls, [])])

    # ---- one stored step -------------------------------------------------------------------------

    def step_between(self, parent: Any, child: Any) -> None:
        """Rebuilds the step that led from checkpoint `parent` to its `child`."""
        step = int(child.metadata.get("step", int(parent.metadata.get("step", -1)) + 1))
        source = child.metadata.get("source")
        checkpoint = _copy_checkpoint(parent.checkpoint)
        self.apply_null_writes(step, parent, checkpoint)
        if source == "loop":
            tasks = self.plan(parent, checkpoint, step)
            self.run_tasks(step, tasks, checkpoint)
            before = {k: self.value(k) for k in self.keys}
            ran = adopt_stored_ids(
                [t for t in tasks if t.writes], self.keys, before, child.checkpoint.get("channel_values", {})
            )
            refused = None
            try:
                self.apply(step, checkpoint, ran)
            except Exception as exc:  # the app's run merged these writes (its child checkpoint exists)
                refused = exc
            mark_refused_merge(self.writer, step, refused)
        # a new input (source "input") is a step without tasks, as the live recorder records it: the
        # input reaches the state through the `__start__` task of the next step
        self.commit(step, child)
        keep_damage_only(self.writer)

    def damaged_step(self, parent: Any, child: DamagedCheckpoint) -> None:
        """A checkpoint whose bytes cannot be decoded: a step that says so (`damage.py`); the run goes on
        from the next checkpoint that decodes (its stored values are the state from there)."""
        self.last_step += 1
        mark_damaged_checkpoint(self.writer, self.last_step, child)

    def commit(self, step: int, saved: Any) -> None:
        """Commits `saved`'s stored values: the carried value where it is the same, the stored one
        (which the writer then records as a mismatch or a change outside the reducers) where not."""
        stored = saved.checkpoint.get("channel_values", {})
        committed = {}
        for key in self.keys:
            mine = self.value(key)
            if key in stored:
                theirs = stored[key]
            else:  # never written: not stored, and as the graph starts it (e.g. [] for a list with a reducer)
                theirs = _get(self.graph.channels[key].from_checkpoint(_lg_missing()))
            if mine is ENGINE_MISSING and theirs is ENGINE_MISSING:
                committed[key] = ENGINE_MISSING
            elif mine is not ENGINE_MISSING and theirs is not ENGINE_MISSING and _values_equal(mine, theirs):
                # equal: carry the stored value on, whose objects later checkpoints share (`SharedDecoder`), so
                # the next step's comparison finds the unchanged part by identity, not element by element
                committed[key] = theirs
                if theirs is not mine:
                    self.channels[key] = self.graph.channels[key].from_checkpoint(theirs)
            else:
                committed[key] = theirs
                self.channels[key] = self.graph.channels[key].from_checkpoint(stored.get(key, _lg_missing()))
        self._restore_control(stored)
        versions = saved.checkpoint.get("channel_versions", {})
        record = commit(
            self.writer, step, self.keys, committed, versions, saved.checkpoint.get("updated_channels") or ()
        )
        for key, version in versions.items():  # stored channels this graph does not have: not the app's graph
            if key not in self.graph.channels and self.unknown.get(key) != version:
                self.unknown[key] = version
                self.writer.add_mismatch(record, key, ENGINE_MISSING, stored.get(key, ENGINE_MISSING))
        self.writer.checkpoint(step, saved.config, saved.parent_config)
        self.last_step = step

    def _restore_control(self, stored: dict[str, Any]) -> None:
        """Edge and Send channels follow the stored checkpoint: they are not state, and their stored
        form is what the next step is planned from."""
        for key, spec in self.graph.channels.items():
            if key not in self.keys and hasattr(spec, "from_checkpoint"):
                self.channels[key] = spec.from_checkpoint(stored[key] if key in stored else _lg_missing())

    def finish(self, head: Any, *, stop_here: bool = False) -> None:
        """The last checkpoint: a step in progress (its pending writes), or done / paused. With
        `stop_here` (a checkpoint the thread went on from, chosen as the end) the run stops there:
        `running` when it had work planned, without the step that followed."""
        step = int(head.metadata.get("step", -1)) + 1
        checkpoint = _copy_checkpoint(head.checkpoint)
        if stop_here:
            self.writer.finish("running" if self.plan(head, checkpoint, step) else "done", self.output())
            return
        self.apply_null_writes(step, head, checkpoint)
        tasks = self.plan(head, checkpoint, step)
        status: RunStatus = "done"
        error: BaseException | None = None
        interrupts: list[dict[str, Any]] = []
        if tasks:
            self.run_tasks(step, tasks, checkpoint)
            errors = [t for t in tasks if t.error is not None and not t.interrupts]
            asked = [t for t in tasks if t.interrupts]
            if errors:
                status, error = "error", errors[0].error
            elif asked:
                status = "interrupted"
                interrupts = [
                    {
                        "id": getattr(i, "id", ""),
                        "value": encode(getattr(i, "value", None)),
                        "node": t.name,
                        "task": t.id,
                    }
                    for t in asked
                    for i in t.interrupts
                ]
                from langgraph.errors import GraphInterrupt

                error = GraphInterrupt(tuple(i for t in asked for i in t.interrupts))
            elif all(t.writes for t in tasks):
                try:  # every task finished but no checkpoint followed: the merge failed, or the process stopped
                    self.apply(step, checkpoint, tasks)
                    status = "running"
                    commit(self.writer, step, self.keys, {k: self.value(k) for k in self.keys})
                except Exception as exc:  # e.g. INVALID_CONCURRENT_GRAPH_UPDATE: what the live run raised
                    status, error = "error", exc
            else:
                status = "interrupted" if self._at_breakpoint(tasks) else "running"
        self.writer.finish(status, self.output(), error, interrupts)

    def _at_breakpoint(self, tasks: list[StoredTask]) -> bool:
        names = {t.name for t in tasks}
        for nodes in (
            getattr(self.graph, "interrupt_before_nodes", ()),
            getattr(self.graph, "interrupt_after_nodes", ()),
        ):
            if nodes == "*" or names & set(nodes or ()):
                return True
        return False


# ---- helpers -------------------------------------------------------------------------------------


def _lg_missing() -> Any:
    from langgraph._internal._typing import MISSING

    return MISSING


def _copy_checkpoint(checkpoint: dict[str, Any]) -> dict[str, Any]:
    """What `apply_writes` changes (versions, versions seen), copied; values are shared, never changed."""
    out = dict(checkpoint)
    out["channel_versions"] = dict(checkpoint.get("channel_versions", {}))
    out["versions_seen"] = {k: dict(v) for k, v in checkpoint.get("versions_seen", {}).items()}
    return out


def _task_outcome(writes: list[tuple[str, Any]]) -> tuple[BaseException | None, list[Any]]:
    """(error, interrupts) of a stored task: its `__error__` write, or the interrupts of a task that
    stopped at `interrupt()` without finishing (a task resumed and finished has its answer and writes)."""
    from langgraph._internal._constants import ERROR, INTERRUPT, RESUME

    for channel, value in writes:
        if channel == ERROR:
            return (value if isinstance(value, BaseException) else RuntimeError(str(value))), []
    interrupts = [i for channel, value in writes if channel == INTERRUPT for i in (value or [])]
    if interrupts and all(c in (INTERRUPT, RESUME) for c, _ in writes):
        from langgraph.errors import GraphInterrupt

        return GraphInterrupt(tuple(interrupts)), interrupts
    return None, []


def _output_keys(graph: Any) -> list[str]:
    keys = graph.output_channels
    return [keys] if isinstance(keys, str) else list(keys)
