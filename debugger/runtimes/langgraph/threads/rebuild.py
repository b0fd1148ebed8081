"""A thread's supersteps rebuilt from its stored checkpoints, as an `engine.trace.Trace`.

Each checkpoint of a thread is the state after one superstep; the writes of the tasks of the next
superstep are stored as pending writes on it (langgraph/pregel/_loop.py). So for each pair (checkpoint
C, its child), the step that led from C to the child is rebuilt with the app's graph:

1. the null task's writes (a `Command(resume=..., update=...)` given on resume) are applied first, as
   langgraph's `_first` does;
2. the tasks are planned again with langgraph's `prepare_next_tasks` on C (task ids are derived from
   the checkpoint id, so they match the stored writes), and each gets its stored writes;
3. the writes are applied with langgraph's own `apply_writes`, each state key watched as the live
   recorder watches it (`debugger/runtimes/langgraph/recorder`: `_ObservedChannels`, `observe_update`), so
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

import uuid
from dataclasses import dataclass, field
from typing import Any

from debugger.runtimes.langgraph.recorder.names import DEFAULT_NAME, describe, state_keys
from debugger.runtimes.langgraph.recorder.probe import _ObservedChannels
from debugger.runtimes.langgraph.recorder.superstep import _get, call_sink, commit, plan_task, writes_by_channel
from engine.codec import MISSING as ENGINE_MISSING
from engine.codec import encode
from engine.trace import RunRecord, RunStatus, TaskRecord, Trace, TraceWriter, new_run, plain_config

from .cache import ThreadCache, splice
from .damage import DamagedData, keep_damage_only, mark_damaged_checkpoint, mark_refused_merge
from .message_ids import adopt_stored_ids
from .savers import Checkpointer, CheckpointerError
from .tables import CheckpointKey, DamagedCheckpoint

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


class ThreadReader:
    """Rebuilds one thread's runs (the root graph and its subgraphs' namespaces) from its checkpoints,
    decoding a checkpoint only when a run reaches it (or all at once, given `loaded`)."""

    def __init__(
        self,
        checkpointer: Checkpointer,
        keys: list[CheckpointKey],
        thread_id: str,
        target: str,
        loaded: dict[tuple[str, str], Any] | None = None,
    ) -> None:
        self.checkpointer = checkpointer
        self.saver = checkpointer.saver
        self.thread_id = thread_id
        self.target = target
        self.parents: dict[str, dict[str, str | None]] = {}
        """Per namespace, each checkpoint id's parent id: the thread's shape, nothing decoded."""
        for key in keys:
            self.parents.setdefault(key.ns, {})[key.checkpoint_id] = key.parent_id
        self.loaded = dict(loaded or {})

    def saved(self, ns: str, checkpoint_id: str) -> Any:
        """The checkpoint tuple (or `DamagedCheckpoint`), decoded the first time it is asked for."""
        where = (ns, checkpoint_id)
        if where not in self.loaded:
            parent = self.parents.get(ns, {}).get(checkpoint_id)
            self.loaded[where] = self.checkpointer.read(self.thread_id, CheckpointKey(ns, checkpoint_id, parent))
        return self.loaded[where]

    def steps_after(self, ns: str, start: str, head: str) -> int | None:
        """How many checkpoints follow `start` on the way to `head` (None when `head` does not descend from it)."""
        parents = self.parents.get(ns, {})
        count, current = 0, head
        while current is not None and current in parents:
            if current == start:
                return count
            count += 1
            current = parents[current]
        return None

    def lineage(self, ns: str, head: str | None = None, newest: int | None = None) -> list[Any]:
        """The checkpoints from the first to `head` (default: the newest), following parent links; with
        `newest`, only the last `newest + 1` of them (the newest steps and the state before them)."""
        parents = self.parents.get(ns, {})
        if not parents:
            return []
        if head is None:
            head = max(parents)
        elif head not in parents:
            raise CheckpointerError(f"no checkpoint {head!r} in thread {self.thread_id!r}.")
        ids: list[str] = []
        current: str | None = head
        while current is not None and current in parents:
            ids.append(current)
            current = parents[current]
        ids.reverse()
        if newest is not None:
            ids = ids[-(newest + 1) :]
        missing = [CheckpointKey(ns, i, parents[i]) for i in ids if (ns, i) not in self.loaded]
        if missing:  # read together: a backend that stores values by version decodes each version once
            self.loaded.update(self.checkpointer.read_many(self.thread_id, missing))
        return [self.saved(ns, checkpoint_id) for checkpoint_id in ids]

    def read_run(
        self,
        ns: tuple[str, ...],
        graph: Any,
        head: str | None = None,
        parent_task: TaskRecord | None = None,
        run_id: str = "",
        parent_writer: TraceWriter | None = None,
        newest: int | None = None,
    ) -> RunRecord | None:
        """Rebuilds the run of namespace `ns` from its checkpoints up to `head` (a subgraph: in `parent_task`);
        with `newest`, its last `newest` steps only, from the state the checkpoint before them stored."""
        from langgraph.pregel._checkpoint import channels_from_checkpoint

        chain = self.lineage("|".join(ns), head, newest)
        while chain and isinstance(chain[0], DamagedCheckpoint):  # start at the first checkpoint that decodes
            chain = chain[1:]
        if not chain:
            return None
        first = chain[0]
        own = getattr(graph, "name", None)
        name = ns[-1].rpartition(":")[0] if ns else (own if own and own != DEFAULT_NAME else self.target or own)
        record = new_run(
            ns=ns,
            graph=describe(graph, name),
            input=first.checkpoint.get("channel_values", {}).get("__start__"),
            config=plain_config(first.config, ("thread_id", "checkpoint_ns")),  # the thread, not one checkpoint
            started_at=str(first.checkpoint.get("ts", "")),
            trace=parent_task is None,
            run_id=run_id,
            target=self.target if parent_task is None else "",
            thread_id=self.thread_id if parent_task is None else "",
        )
        keys = [k for k in state_keys(graph) if k in graph.channels]
        if parent_task is None or parent_writer is None:
            writer = TraceWriter(record, check_commits=True)
        else:  # a subgraph's run, nested in the task that ran it
            writer = parent_writer.subrun(parent_task, record, check_commits=True)
        run = _Run(self, ns, graph, writer, keys)
        run.channels, run.managed = channels_from_checkpoint(
            graph.channels, first.checkpoint, saver=self.saver, config=first.config
        )
        run.commit(int(first.metadata.get("step", -1)), first)
        for parent, child in zip(chain, chain[1:]):
            if isinstance(child, DamagedCheckpoint):
                run.damaged_step(parent, child)
            elif isinstance(parent, DamagedCheckpoint):
                run.commit(int(child.metadata.get("step", -1)), child)  # the state again from the next that decodes
            else:
                run.step_between(parent, child)
        last = chain[-1].config["configurable"]["checkpoint_id"]
        later = last in self.parents.get("|".join(ns), {}).values()
        if isinstance(chain[-1], DamagedCheckpoint):
            run.writer.finish("error", run.output(), DamagedData(chain[-1].reason))
        else:
            run.finish(chain[-1], stop_here=later)
        return record


class _Run:
    """One run's channels, carried from step to step as langgraph carries them, and its writer."""

    def __init__(
        self, reader: ThreadReader, ns: tuple[str, ...], graph: Any, writer: TraceWriter, keys: list[str]
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
        channels = _ObservedChannels(self.channels, grouped, call_sink(self.writer, step)) if grouped else self.channels
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
            output = {
                k: self.value(k)
                for k in _output_keys(self.graph)
                if k in self.channels and self.value(k) is not ENGINE_MISSING
            }
            self.writer.finish("running" if self.plan(head, checkpoint, step) else "done", output)
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
        output = {
            k: self.value(k)
            for k in _output_keys(self.graph)
            if k in self.channels and self.value(k) is not ENGINE_MISSING
        }
        self.writer.finish(status, output, error, interrupts)

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


def read_thread(
    checkpointer: Checkpointer,
    thread_id: str,
    graph: Any,
    *,
    checkpoint_id: str | None = None,
    target: str = "",
    newest: int | None = None,
    from_step: int | None = None,
) -> Trace:
    """The thread `thread_id` of `checkpointer`, rebuilt with the app's `graph` (a langgraph compiled
    graph), up to `checkpoint_id` (default: its newest checkpoint). With `newest`, only its last `newest`
    steps are decoded and rebuilt (the first view of a long thread); with `from_step`, the steps from that
    one on (`show --step N`). Without either, the whole thread, each stored value decoded once where the
    backend allows (`Checkpointer.preload`)."""
    keys = checkpointer.keys(thread_id)
    roots = [k.checkpoint_id for k in keys if k.ns == ""]
    if not roots:
        raise CheckpointerError(f"thread {thread_id!r} has no checkpoint of the root graph.")
    head = checkpoint_id or max(roots)
    target = target or f"thread {thread_id}"
    if newest is None and from_step is None:
        # the cache holds threads read to their newest checkpoint, whose ending reads the same each time
        return _read_whole(checkpointer, keys, thread_id, graph, head, target, cached=checkpoint_id is None)
    reader = ThreadReader(checkpointer, keys, thread_id, target)
    if from_step is not None:
        newest = _steps_since(reader, head, from_step)
    shown = "" if newest is None else f"#last{newest}"
    return _rebuilt(reader, graph, head, newest, _run_id(checkpointer, thread_id, head, shown))


def _read_whole(
    checkpointer: Checkpointer,
    keys: list[CheckpointKey],
    thread_id: str,
    graph: Any,
    head: str,
    target: str,
    *,
    cached: bool,
) -> Trace:
    """The whole thread: as saved (`cache.py`) when it has not changed; else the saved steps and the new
    checkpoints after them; else rebuilt from its first checkpoint, each stored value decoded once. Without
    `cached`, rebuilt and not saved."""
    run_id = _run_id(checkpointer, thread_id, head)
    cache = ThreadCache(checkpointer.label, thread_id, target, describe(graph) if cached else None, off=not cached)
    cached_run = cache.load()
    if cached_run is not None and cached_run.head == head and cached_run.trace.run_id == run_id:
        return cached_run.trace
    trace = None
    reader = ThreadReader(checkpointer, keys, thread_id, target)
    if cached_run is not None:
        after = reader.steps_after("", cached_run.head, head)
        if after:
            trace = splice(cached_run.trace, cached_run.head, _rebuilt(reader, graph, head, after, run_id))
    if trace is None:
        reader = ThreadReader(checkpointer, keys, thread_id, target, checkpointer.preload(thread_id, keys))
        trace = _rebuilt(reader, graph, head, None, run_id)
    cache.save(head, trace)
    return trace


def _run_id(checkpointer: Checkpointer, thread_id: str, head: str, shown: str = "") -> str:
    """The run id of a thread read up to `head` (the same each time it is read so)."""
    return uuid.uuid5(uuid.NAMESPACE_URL, f"{checkpointer.label}#{thread_id}#{head}{shown}").hex


def _rebuilt(reader: ThreadReader, graph: Any, head: str, newest: int | None, run_id: str) -> Trace:
    """The root run up to `head` (its `newest` steps only, when given), or one line on why it cannot be."""
    try:
        trace = reader.read_run((), graph, head, run_id=run_id, newest=newest)
    except CheckpointerError:
        raise
    except Exception as exc:  # langgraph refusing this graph on these checkpoints: name both, never a traceback
        raise CheckpointerError(
            f"thread {reader.thread_id!r} could not be rebuilt with this graph ({type(exc).__name__}: {exc}). Give "
            "the graph module of the app version that wrote the thread."
        ) from None
    assert isinstance(trace, Trace)
    return trace


def _steps_since(reader: ThreadReader, head: str, step: int) -> int | None:
    """How many of the newest steps reach back to `step`: the root steps are numbered one per checkpoint
    along the lineage, so the head's step says it (None, the whole thread, when the head cannot tell)."""
    saved = reader.saved("", head)
    if isinstance(saved, DamagedCheckpoint):
        return None
    return max(1, int(saved.metadata.get("step", -1)) - step + 1)
