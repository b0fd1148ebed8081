"""Watching langgraph's own run: what the hooks in langgraph's loop (`patches.py`) record.

`LoopProbe` records one loop (the root run of a Trace, or a subgraph's run nested under the task that
started it, found by its checkpoint namespace): the state it starts from, the tasks each tick plans
(`probe_tasks.py`), each step's barrier (every state key's `update` observed, `superstep.observe_update`,
then the committed state checked against the recorded calls: `probe_barrier.py`), checkpoints, and the
end (status, output, error, interrupts: here). `watched.ObservedProc` wraps a task's runnable to see its
raw return value, its error and every failed attempt under a RetryPolicy, and holds what it saw. Every
value is langgraph's own object; nothing is re-implemented.

Which loop an `apply_writes` call belongs to is found by its `channels` mapping (one per loop), so
parallel subgraphs and async runs sharing a thread cannot be confused.
"""

from __future__ import annotations

import asyncio
import weakref
from contextvars import ContextVar
from typing import Any

from engine.codec import MISSING as ENGINE_MISSING
from engine.codec import encode
from engine.trace import TaskRecord, TraceWriter, new_run, plain_config, stepscope_error, utc_now

from .calls import Appends, folds_of
from .names import DEFAULT_NAME, describe, state_keys
from .probe_barrier import BarrierWatch
from .watched import ObservedProc

ACTIVE: ContextVar[Any] = ContextVar("stepscope_langgraph_session", default=None)
"""The recording session (`record.Session`) runs started in this context report to."""
_BY_CHANNELS: dict[int, "LoopProbe"] = {}
"""id(loop.channels) -> the probe of that loop, while it runs."""
_GRAPHS: dict[int, "weakref.ref[Any]"] = {}
"""id(pregel.nodes) -> the compiled graph, for the loops it starts (registered while recording)."""
_PROBE_ATTR = "_stepscope_probe"


class UnsupportedLangGraph(Exception):
    """This langgraph cannot be watched (its internals are not the ones StepScope knows)."""


# ---- one loop (one run of one graph) -------------------------------------------------------------


class LoopProbe(BarrierWatch):
    """Records one langgraph loop: the root run of a Trace, or a subgraph's run nested in a task. Its
    tasks (`probe_tasks.TaskWatch`) and its barrier (`probe_barrier.BarrierWatch`) are roles of their own."""

    def __init__(self, session: Any, loop: Any) -> None:
        self.session = session
        self.ns = tuple(loop.checkpoint_ns)
        ref = _GRAPHS.get(id(loop.nodes))
        graph = ref() if ref is not None else None
        self.managed = tuple(getattr(loop, "managed", None) or ())
        self.keys = [k for k in _state_keys(graph, loop, self.managed) if k in loop.specs]
        self.key_set = frozenset(self.keys)
        self.branch_names = _branch_names(graph)
        name = session.name_for(graph, self.ns)
        description = describe(graph, name) if graph is not None else _describe_loop(loop, name or DEFAULT_NAME)
        parent = session.loops.get(self.ns[:-1]) if self.ns else None
        parent_task = parent.task_records.get(self.ns[-1].rpartition(":")[2]) if parent else None
        record = _run_record(session, loop, self.ns, description, is_trace=parent_task is None)
        if parent_task is None:
            self.run = TraceWriter(record, session.sink_for(record), check_commits=True)
        else:
            with session.lock:
                self.run = parent.run.subrun(parent_task, record, check_commits=True)
        self.record = record
        self.is_trace = parent_task is None
        self.task_records: dict[str, TaskRecord] = {}
        self.task_probes: dict[str, ObservedProc] = {}
        self.first_step: int | None = None
        self.last_committed: int | None = None
        """The last step whose barrier was recorded (a sink may have taken its record already)."""
        self.reducers: dict[str, tuple[Any, str]] = {}
        """Per state key: its channel and its reducer's name (`reducer_name_of`)."""
        self.shapes: dict[str, tuple[Any, Any, list[str], list[str]]] = {}
        """Per node: its task path and triggers as langgraph gives them, and their recorded lists."""
        self.folds = folds_of(loop.channels, self.keys)
        """The state keys whose reducer appends (`superstep.add_call`)."""
        self.appends = [(key, fold) for key, fold in self.folds.items() if isinstance(fold, Appends)]
        self.streamed: list[Any] = []
        """The `Interrupt`s langgraph streamed, in its order: what `invoke` returns as `__interrupt__`."""
        with session.lock:
            session.loops[self.ns] = self
        _BY_CHANNELS[id(loop.channels)] = self
        self.channels_id = id(loop.channels)

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
            interrupts = _in_state_order(loop, [self._interrupt(i) for i in found])
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
        if self.streamed and not self.ns:  # a root run: langgraph's invoke adds what it streamed
            from langgraph._internal._constants import INTERRUPT

            output = (
                {**output, INTERRUPT: list(self.streamed)}
                if isinstance(output, dict)
                else {INTERRUPT: list(self.streamed)}
            )
        self.run.finish(status, output, error, interrupts)
        with self.session.lock:
            if self.session.loops.get(self.ns) is self:
                del self.session.loops[self.ns]
        if self.is_trace:
            self.session.finished(self.record)

    def streamed_interrupts(self, loop: Any, task_id: str, writes: Any) -> None:
        """Keeps the interrupts of a task's writes that langgraph's `output_writes` streams (and `invoke`
        collects): not a hidden task's, nor a pushed call's, which its caller streams."""
        from langgraph._internal._constants import INTERRUPT, PUSH

        task = loop.tasks.get(task_id)
        if task is None or not writes or writes[0][0] != INTERRUPT:
            return
        if task.config is not None and "langsmith:hidden" in task.config.get("tags", ()):
            return
        if task.path[0] == PUSH and task.path[-1] is True:
            return
        for channel, value in writes:
            if channel == INTERRUPT:
                self.streamed.extend(value if isinstance(value, (list, tuple)) else (value,))

    def _stopped_reading(self, error: BaseException) -> dict[str, Any]:
        """The error record of a run its caller stopped: a `stream()` generator closed or dropped
        (`break`, an exception in the loop body) raises GeneratorExit into langgraph's loop, an
        abandoned or cancelled `astream()` CancelledError. Nothing in the graph failed."""
        steps = {r.step: r for r in self.record.steps}
        committed = [s for s, r in steps.items() if r.committed]
        last = max([*committed, *([] if self.last_committed is None else [self.last_committed])], default=None)
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


def _in_state_order(loop: Any, interrupts: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A GraphInterrupt lists its interrupts as the tasks stopped; `get_state().interrupts` lists them task
    by task, in the order langgraph planned the step's tasks (`loop.tasks`): the recorded run says them as
    the thread's state does."""
    planned = {task_id: rank for rank, task_id in enumerate(getattr(loop, "tasks", None) or ())}
    return sorted(interrupts, key=lambda item: planned.get(item["task"], len(planned)))


LoopProbe.loop_step = 0  # set by each tick before its tasks run, read by that step's barrier


# ---- helpers -------------------------------------------------------------------------------------


def _state_keys(graph: Any, loop: Any, managed: tuple[str, ...]) -> list[str]:
    """The graph's state keys; of a loop whose graph is not known, its channels that are no edge or branch."""
    if graph is not None:
        return state_keys(graph)
    return [k for k in loop.specs if k not in managed and not k.startswith(("__", "branch:", "join:"))]


def _run_record(session: Any, loop: Any, ns: tuple[str, ...], description: dict[str, Any], *, is_trace: bool) -> Any:
    """The loop's run record: a Trace of its own (`is_trace`, with the session's identity), or a subgraph's run."""
    config = loop.config
    return new_run(
        ns=ns,
        graph=description,
        input=loop.input,
        config=plain_config(config, given_only=True),
        recursion_limit=int(config.get("recursion_limit") or 0),
        started_at=utc_now(),
        trace=is_trace,
        run_id=session.new_run_id() if is_trace else "",
        target=session.target if is_trace else "",
        thread_id=str((config.get("configurable") or {}).get("thread_id") or "") if is_trace else "",
    )


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
