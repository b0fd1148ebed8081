"""Watching langgraph's own run: what the hooks in langgraph's loop (`patches.py`) record.

`LoopProbe` records one loop (the root run of a Trace, or a subgraph's run nested under the task that
started it, found by its checkpoint namespace): the state it starts from, the tasks each tick plans,
each step's barrier (every state key's `update` observed, `superstep.observe_update`, then the
committed state checked against the recorded calls), checkpoints, and the end (status, output,
error, interrupts). `watched.ObservedProc` wraps a task's runnable to see its raw return value, its
error and every failed attempt under a RetryPolicy, and holds what it saw. Every value is
langgraph's own object; nothing is re-implemented.

Which loop an `apply_writes` call belongs to is found by its `channels` mapping (one per loop), so
parallel subgraphs and async runs sharing a thread cannot be confused.
"""

from __future__ import annotations

import asyncio
import weakref
from contextvars import ContextVar
from itertools import chain
from typing import Any, Callable, Iterator, Mapping

from engine.codec import MISSING as ENGINE_MISSING
from engine.codec import encode
from engine.trace import (
    SAME_AS_WRITES,
    TaskRecord,
    TraceWriter,
    new_run,
    plain_config,
    same_as_writes,
    stepscope_error,
    utc_now,
)

from .calls import Appends, add_call, folds_of, lg_missing
from .names import DEFAULT_NAME, describe, state_keys
from .superstep import (
    _get,
    call_sink,
    observe_update,
    plan_task,
    reducer_name_of,
    single_plain_write,
    version_number,
    writes_by_channel,
)
from .watched import ObservedProc, _is_bubble_up

ACTIVE: ContextVar[Any] = ContextVar("stepscope_langgraph_session", default=None)
"""The recording session (`record.Session`) runs started in this context report to."""
_BY_CHANNELS: dict[int, "LoopProbe"] = {}
"""id(loop.channels) -> the probe of that loop, while it runs."""
_GRAPHS: dict[int, "weakref.ref[Any]"] = {}
"""id(pregel.nodes) -> the compiled graph, for the loops it starts (registered while recording)."""
_PROBE_ATTR = "_stepscope_probe"
_NOTHING: Mapping[str, Any] = {}
_INT = frozenset((int,))
_UNSEEN = object()


class UnsupportedLangGraph(Exception):
    """This langgraph cannot be watched (its internals are not the ones StepScope knows)."""


# ---- one loop (one run of one graph) -------------------------------------------------------------


class LoopProbe:
    """Records one langgraph loop: the root run of a Trace, or a subgraph's run nested in a task."""

    def __init__(self, session: Any, loop: Any) -> None:
        self.session = session
        self.ns = tuple(loop.checkpoint_ns)
        ref = _GRAPHS.get(id(loop.nodes))
        graph = ref() if ref is not None else None
        self.managed = tuple(getattr(loop, "managed", None) or ())
        keys = (
            state_keys(graph)
            if graph is not None
            else [k for k in loop.specs if k not in self.managed and not k.startswith(("__", "branch:", "join:"))]
        )
        self.keys = [k for k in keys if k in loop.specs]
        self.key_set = frozenset(self.keys)
        self.branch_names = _branch_names(graph)
        name = session.name_for(graph, self.ns)
        description = describe(graph, name) if graph is not None else _describe_loop(loop, name or DEFAULT_NAME)
        config = loop.config
        parent_task = None
        if self.ns:
            parent = session.loops.get(self.ns[:-1])
            parent_task = parent.task_records.get(self.ns[-1].rpartition(":")[2]) if parent else None
        record = new_run(
            ns=self.ns,
            graph=description,
            input=loop.input,
            config=plain_config(config, given_only=True),
            recursion_limit=int(config.get("recursion_limit") or 0),
            started_at=utc_now(),
            trace=parent_task is None,
            run_id=session.new_run_id() if parent_task is None else "",
            target=session.target if parent_task is None else "",
            thread_id=str((config.get("configurable") or {}).get("thread_id") or "") if parent_task is None else "",
        )
        if parent_task is None:
            self.run = TraceWriter(record, check_commits=True)
        else:
            with session.lock:
                self.run = parent.run.subrun(parent_task, record, check_commits=True)
        self.record = record
        self.is_trace = parent_task is None
        self.task_records: dict[str, TaskRecord] = {}
        self.task_probes: dict[str, ObservedProc] = {}
        self.first_step: int | None = None
        self.reducers: dict[str, tuple[Any, str]] = {}
        """Per state key: its channel and its reducer's name (`reducer_name_of`)."""
        self.shapes: dict[str, tuple[Any, Any, list[str], list[str]]] = {}
        """Per node: its task path and triggers as langgraph gives them, and their recorded lists."""
        self.folds = folds_of(loop.channels, self.keys)
        """The state keys whose reducer appends (`superstep.add_call`)."""
        self.appends = [(key, fold) for key, fold in self.folds.items() if isinstance(fold, Appends)]
        with session.lock:
            session.loops[self.ns] = self
        _BY_CHANNELS[id(loop.channels)] = self
        self.channels_id = id(loop.channels)

    # ---- tasks -------------------------------------------------------------------------------

    def planned(self, loop: Any) -> None:
        """Records the tasks a tick planned (once each) and wraps each one's runnable to watch it."""
        checkpoint = loop.checkpoint
        versions = checkpoint["channel_versions"]
        seen = checkpoint["versions_seen"]
        records = self.task_records
        run, step, managed = self.run, loop.step, self.managed
        for task_id, task in loop.tasks.items():
            if task_id in records:
                continue
            path = task.path
            if not managed and len(path) == 2 and path[0] == "__pregel_pull" and task.name != "__start__":
                record = records[task_id] = self._plan_pull(step, task, versions, seen.get(task.name, _NOTHING))
            else:
                record = records[task_id] = plan_task(run, step, task, versions, seen.get(task.name, _NOTHING), managed)
            if task.writes:  # finished before an interrupt: langgraph reapplies its saved writes
                continue
            # The task is this step's own (frozen) object: its runnable is swapped in place, which is
            # cheaper than a copy and keeps every reference langgraph holds to it valid.
            probe = self.task_probes[task_id] = ObservedProc(task.proc, record, self)
            object.__setattr__(task, "proc", probe)

    def _plan_pull(self, step: int, task: Any, versions: Mapping[str, Any], seen: Mapping[str, Any]) -> TaskRecord:
        """`superstep.plan_task` of a node's task (no managed values): a node's path and triggers are
        the same every step, so their recorded lists are found once per node (`shapes`), and a task
        whose every trigger fired shares its triggers' list, as `TraceWriter.interned` would give."""
        run = self.run
        path, triggers = task.path, task.triggers
        shape = self.shapes.get(task.name)
        if shape is None or shape[0] != path or shape[1] != triggers:
            shape = self.shapes[task.name] = (path, triggers, run.interned(path), run.interned(triggers))
        fired = []
        seen_versions = {}
        for channel in triggers:  # the triggers newer than what the node had seen, and their versions
            version = versions.get(channel, _UNSEEN)
            if version is not _UNSEEN and (channel not in seen or seen[channel] < version):
                fired.append(channel)
                seen_versions[channel] = version if type(version) is int else version_number(version)
        record = TaskRecord(
            task.id,
            task.name,
            shape[2],
            shape[3],
            shape[3] if len(fired) == len(triggers) else run.interned(fired),
            seen_versions,
            run.input_view(task.input),
        )
        return run.add_task(step, record)

    def settle(self, tasks: Any, committed: bool) -> None:
        """Fills in what each task of the step did (once per task)."""
        for task in tasks:
            task_id = getattr(task, "id", None)
            record = self.task_records.pop(task_id, None) if task_id else None
            if record is None:  # the step's input, or a task already settled
                continue
            probe = self.task_probes.get(task_id)
            if probe is not None and probe.error is None:
                del self.task_probes[task_id]  # keep only what `_interrupt` may need: raw results are not kept alive
                if probe.has_result and not probe.attempts:
                    self._returned(record, task.writes, probe)
                    continue
            writes = list(task.writes)
            if probe is None:  # writes restored from a checkpoint, or a task pushed mid-step
                self.run.task_done(record, writes=writes)
                continue
            error = probe.error
            result, has_result = probe.result, probe.has_result
            if error is not None and type(error).__name__ == "ParentCommand" and committed:
                # a subgraph's Command(graph=PARENT) addressed to this graph: it is this task's return value
                result, has_result, error = error.args[0], True, None
            attempts = list(probe.attempts)
            if error is not None and attempts and not _is_bubble_up(error):
                attempts = attempts[:-1]  # the last attempt's error is the task's error
            self.run.task_done(
                record,
                writes=writes,
                result=result,
                has_result=has_result,
                error=error,
                routes=probe.routes,
                duration=probe.duration,
                attempts=attempts,
            )

    def _returned(self, record: TaskRecord, writes: Any, probe: ObservedProc) -> None:
        """`TraceWriter.task_done` of a task that returned at its first attempt (the usual task), as the
        engine's events build one (`engine.trace_events.build_finished_flat`): writes that are a few
        scalars met before are one lookup; no error, no attempts."""
        run = self.run
        record.writes = run.flat_pairs(tuple(chain.from_iterable(writes)))
        result = probe.result
        if type(result) is dict and same_as_writes(result, writes):
            record.result = SAME_AS_WRITES
        else:
            record.result = run.encode(result)
        if probe.routes:
            record.routes = run.flat_pairs(tuple(chain.from_iterable(probe.routes)))
        record.duration = round(probe.duration, 6)

    # ---- the barrier -------------------------------------------------------------------------

    def barrier(
        self,
        apply: Callable[..., set[str]],
        checkpoint: Any,
        channels: Mapping[str, Any],
        tasks: Any,
        get_next_version: Any,
        trigger_to_nodes: Any,
        step: int,
    ) -> set[str]:
        """The step's barrier: langgraph's own `apply_writes`, every write to a state key recorded, then the commit."""
        tasks = list(tasks)
        args = (checkpoint, channels, tasks, get_next_version, trigger_to_nodes)
        if len(tasks) == 1:
            calls = self._lone_task(tasks[0], channels, step)
            if calls is not None:
                updated = self._single_writes(apply, args, calls, step)
                self.commit(step, channels, checkpoint["channel_versions"], updated)
                return updated
        self.settle(tasks, committed=True)
        grouped = writes_by_channel(tasks, self.key_set)
        single = True  # one plain write per key (a loop, not a generator: this runs every step)
        for key, pairs in grouped.items():
            if len(pairs) != 1 or not single_plain_write(channels[key], pairs[0][0]):
                single = False
                break
        if not grouped:
            self.run.open_step(step)
            updated = apply(*args)
        elif single:
            self.run.open_step(step)
            calls = [(key, channels[key], write, task, channels[key].value) for key, [(write, task)] in grouped.items()]
            updated = self._single_writes(apply, args, calls, step)
        else:
            observed = _ObservedChannels(channels, grouped, call_sink(self.run, step, self.folds))
            updated = apply(checkpoint, observed, tasks, get_next_version, trigger_to_nodes)
        self.commit(step, channels, checkpoint["channel_versions"], updated)
        return updated

    def commit(self, step: int, channels: Mapping[str, Any], versions: Mapping[str, Any], updated: Any) -> None:
        """The state keys' values langgraph committed after `step`, checked against the recorded calls
        (`superstep.commit`, with a plain key's value read from its channel without a `get()`)."""
        missing = lg_missing()
        values = {}
        for key in self.keys:
            channel = channels[key]
            if type(channel) in _PLAIN_CHANNELS or _is_plain_channel(channel):
                value = channel.value
                values[key] = ENGINE_MISSING if value is missing else value
            else:
                values[key] = _get(channel)
        for key, fold in self.appends:
            fold.committed(values[key])
        numbers = dict(versions)
        if not _INT.issuperset(map(type, numbers.values())):  # a saver's "0000…0042.0.123" strings
            numbers = {k: v if type(v) is int else version_number(v) for k, v in versions.items()}
        self.run.commit(step, values, numbers, frozenset(updated) if updated else ())

    def _lone_task(self, task: Any, channels: Mapping[str, Any], step: int) -> list[tuple[Any, ...]] | None:
        """The usual step of a loop, settled at once: one task, which returned at its first attempt, and
        wrote each state key at most once, plainly (`single_plain_write`). Its `_single_writes` calls
        (`(key, channel, write, task, value before)`, in the order of its writes, as `writes_by_channel` gives them),
        or None for any other step (`settle` and the rest of `barrier` then take it)."""
        task_id = getattr(task, "id", None)
        probe = self.task_probes.get(task_id) if task_id else None
        if probe is None or probe.error is not None or not probe.has_result or probe.attempts:
            return None
        key_set = self.key_set
        calls = []
        for key, write in task.writes:
            if key in key_set:
                channel = channels[key]
                if not single_plain_write(channel, write):
                    return None
                calls.append((key, channel, write, task, channel.value))
        if len(calls) > 1 and len({call[0] for call in calls}) != len(calls):
            return None  # a key written twice: its writes meet in one `update`
        record = self.task_records.pop(task_id, None)
        if record is None:
            return None
        del self.task_probes[task_id]
        self._returned(record, task.writes, probe)
        self.run.open_step(step)
        return calls

    def _single_writes(
        self, apply: Callable[..., set[str]], args: tuple[Any, ...], calls: list[tuple[Any, ...]], step: int
    ) -> set[str]:
        """The usual step: one plain write per key (`calls`: `(key, channel, write, task, value
        before)`), so each key's reducer runs once, on the value before and giving the value after;
        read around langgraph's own barrier, with no wrapper in its way. A reducer that raises is
        found in the traceback (the `update` frame of its channel)."""
        run, folds, reducers = self.run, self.folds, self.reducers
        try:
            updated = apply(*args)
        except Exception as exc:  # noqa: BLE001 - recorded, then raised again
            failed = _failed_channel(exc, {id(channel): key for key, channel, _, _, _ in calls})
            for key, channel, write, task, before in calls:
                refused = key == failed or failed is None
                writer = getattr(task, "id", None) or task.name
                after = ENGINE_MISSING if refused else channel.value
                add_call(
                    run, step, key, reducer_name_of(channel), writer, task.name, before, write, after,
                    exc if refused else None, folds,
                )  # fmt: skip
                if refused and failed is not None:
                    break
            raise
        for key, channel, write, task, before in calls:
            reducer = reducers.get(key)
            if reducer is None or reducer[0] is not channel:
                reducer = reducers[key] = (channel, reducer_name_of(channel))
            writer = getattr(task, "id", None) or task.name
            add_call(run, step, key, reducer[1], writer, task.name, before, write, channel.value, None, folds)
        return updated

    # ---- the end -----------------------------------------------------------------------------

    def finish(self, loop: Any, error: BaseException | None) -> None:
        """How the loop ended (status, output, error, interrupts), recorded once its last tasks are settled."""
        _BY_CHANNELS.pop(self.channels_id, None)
        if hasattr(loop, "tasks"):
            self.settle(loop.tasks.values(), committed=False)
        interrupts: list[dict[str, Any]] = []
        if (
            error is not None
            and type(error).__name__ == "GraphInterrupt"
            or loop.status in ("interrupt_before", "interrupt_after")
        ):
            status = "interrupted"
            found = tuple(error.args[0]) if error is not None and error.args else ()
            interrupts = [self._interrupt(i) for i in found]
            if not found:
                error = None  # a breakpoint: stopped, nothing failed
        elif isinstance(error, (GeneratorExit, asyncio.CancelledError)):
            status, error = "cancelled", self._stopped_reading(error)  # the caller's doing, not the graph's
        elif error is not None:
            status = "interrupted" if type(error).__name__ == "ParentCommand" and self.ns else "error"
        elif loop.status == "out_of_steps":
            status = "recursion_limit"
            error = _recursion_error(loop.config.get("recursion_limit"))
        else:
            status = "done"
        output = loop.output
        if output is None and self.run.committed_state:  # a failed run: the state its last barrier committed
            state = self.run.committed_state
            keys = loop.output_keys
            output = (
                state.get(keys)
                if isinstance(keys, str)
                else {k: state[k] for k in keys if k in state and state[k] is not ENGINE_MISSING}
            )
        self.run.finish(status, output, error, interrupts)
        with self.session.lock:
            if self.session.loops.get(self.ns) is self:
                del self.session.loops[self.ns]
        if self.is_trace:
            self.session.finished(self.record)

    def _stopped_reading(self, error: BaseException) -> dict[str, Any]:
        """The error record of a run its caller stopped: a `stream()` generator closed or dropped
        (`break`, an exception in the loop body) raises GeneratorExit into langgraph's loop, an
        abandoned or cancelled `astream()` CancelledError. Nothing in the graph failed."""
        steps = {r.step: r for r in self.record.steps}
        committed = [s for s, r in steps.items() if r.committed]
        last = max(committed, default=None)
        after = "before its first superstep" if last is None or last < 0 else f"after step {last}"
        unfinished = sorted(
            ((s, r) for s, r in steps.items() if not r.committed and (last is None or s > last) and r.tasks),
            key=lambda pair: pair[0],
        )
        left = (
            "; ".join(f"step {s} ({', '.join(t.name for t in r.tasks)}) did not complete" for s, r in unfinished)
            if unfinished
            else "nothing after it ran"
        )
        if isinstance(error, GeneratorExit):
            why = (
                f"The caller stopped reading the stream {after} (it left its loop over `stream()`, by `break` or "
                "an exception, or closed the generator), so langgraph ended the run there"
            )
        else:
            why = (
                f"The run was cancelled {after}: the caller stopped reading `astream()` (left its `async for` "
                "loop) or cancelled the asyncio task running it, so langgraph ended the run there"
            )
        return stepscope_error("RunCancelled", f"{why}; {left}. Nothing in the graph failed.")

    def _interrupt(self, interrupt: Any) -> dict[str, Any]:
        ident = getattr(interrupt, "id", "")
        node = task = ""
        for task_id, probe in self.task_probes.items():
            raised = probe.error
            if raised is not None and any(
                getattr(i, "id", None) == ident for i in (raised.args[0] if raised.args else ())
            ):
                node, task = probe.record.name, task_id
                break
        return {"id": ident, "value": encode(getattr(interrupt, "value", None)), "node": node, "task": task}


LoopProbe.loop_step = 0  # set by each tick before its tasks run, read by that step's barrier


class _ObservedChannels(Mapping):
    """`loop.channels` as `apply_writes` sees it: the state keys that receive writes are watched."""

    def __init__(self, channels: Mapping[str, Any], grouped: dict[str, list[tuple[Any, Any]]], sink: Any) -> None:
        self.channels = channels
        self.grouped = grouped
        self.sink = sink

    def __getitem__(self, key: str) -> Any:
        channel = self.channels[key]
        return _ChannelProbe(channel, key, self) if key in self.grouped else channel

    def __iter__(self) -> Iterator[str]:
        return iter(self.channels)

    def __len__(self) -> int:
        return len(self.channels)

    def __contains__(self, key: object) -> bool:
        return key in self.channels


class _ChannelProbe:
    __slots__ = ("channel", "key", "owner")

    def __init__(self, channel: Any, key: str, owner: _ObservedChannels) -> None:
        self.channel = channel
        self.key = key
        self.owner = owner

    def update(self, values: Any) -> bool:
        pairs = self.owner.grouped.get(self.key)
        if not values or pairs is None or len(pairs) != len(values):
            return self.channel.update(values)
        writers = [(getattr(t, "id", None) or t.name, t.name) for _, t in pairs]
        return observe_update(self.channel, self.key, values, writers, self.owner.sink)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.channel, name)


# ---- helpers -------------------------------------------------------------------------------------

_PLAIN_CHANNELS: set[type] = set()
"""Channel classes whose `get()` is their `value`, or langgraph's empty marker raised as EmptyChannelError."""


def _is_plain_channel(channel: Any) -> bool:
    if type(channel).__name__ in ("LastValue", "BinaryOperatorAggregate") and type(channel).__module__.startswith(
        "langgraph.channels."
    ):
        _PLAIN_CHANNELS.add(type(channel))
        return True
    return False


def _failed_channel(error: BaseException, watched: dict[int, str]) -> str | None:
    """The state key whose channel's `update` raised `error` (from the traceback's frames)."""
    tb = error.__traceback__
    while tb is not None:
        frame = tb.tb_frame
        if frame.f_code.co_name == "update":
            key = watched.get(id(frame.f_locals.get("self")))
            if key is not None:
                return key
        tb = tb.tb_next
    return None


def _recursion_error(limit: Any) -> BaseException:
    from langgraph.errors import ErrorCode, GraphRecursionError, create_error_message

    return GraphRecursionError(
        create_error_message(
            message=(
                f"Recursion limit of {limit} reached without hitting a stop condition. You can increase the "
                "limit by setting the `recursion_limit` config key."
            ),
            error_code=ErrorCode.GRAPH_RECURSION_LIMIT,
        )
    )


def _branch_names(graph: Any) -> dict[int, str]:
    builder = getattr(graph, "builder", None)
    branches = getattr(builder, "branches", None) or {}
    return {id(spec): name for by_name in branches.values() for name, spec in by_name.items()}


def _describe_loop(loop: Any, name: str) -> dict[str, Any]:
    """A loop whose compiled graph is not known (built outside the recorded call): its nodes and keys."""
    keys = [k for k in loop.specs if not k.startswith(("__", "branch:", "join:"))]
    return {
        "name": name,
        "nodes": [{"name": n, "subgraph": False, "defer": False, "metadata": {}} for n in loop.nodes],
        "edges": [],
        "waiting_edges": [],
        "branches": [],
        "channels": {k: {"kind": type(loop.specs[k]).__name__, "reducer": type(loop.specs[k]).__name__} for k in keys},
        "managed": {},
        "input_keys": [],
        "output_keys": [],
        "drawing": {"nodes": [], "edges": []},
        "drawing_flat": {"nodes": [], "edges": []},
        "source": "langgraph",
    }
