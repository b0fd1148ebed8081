"""`SegmentedRun`: the live run (the `DrivenRun` of `runtimes/driven.py`) of a runtime that owns its loop
and so is driven one segment at a time: langgraph (in this process, `langgraph/live.py`) and LangGraph.js
(in a node process, `langgraphjs/live.py`). Written once here; each runtime gives only its `Segments`:
how one segment runs and how its events are read, where the run stands between segments, an edit.

A superstep cannot be taken from inside such a loop, so each `step()` is one segment: the runtime's own
`stream` with a breakpoint before every node, which ends before the next superstep. Between segments the
runtime says where the run stands (`Standing`: the next nodes, any `interrupt()` question waiting); the
next segment goes on from there, or with the answer to the question (the node runs again from its top,
as a LangGraph resume does); an edit is the runtime's `update_state`, recorded here as a step of kind
`update`. The run goes on a fresh thread id, never one of the user's, and each segment gets what is left
of the user's recursion limit, so the whole live run keeps to it as one `invoke` would.

The runtime records each segment as a run of its own; `trace()` joins them into one (a resumed segment's
first step only reloads the checkpoint the previous one ended on, so it is left out). While a segment
runs, the runtime reads its events and tells `StepReports` when a task starts or ends and when a step
commits; `StepReports` turns that into the controller's progress calls and keeps the newest committed
superstep.
"""

from __future__ import annotations

import contextlib
import copy
import uuid
from dataclasses import dataclass
from typing import Any, Iterator, Protocol, Sequence

from debugger.i18n import N_, Later
from debugger.runtimes.driven import (
    NO_ANSWER,
    Boundary,
    EditError,
    LiveRunError,
    PlannedTask,
    RunProgress,
    TaskEnd,
    Upcoming,
    node_names,
)
from engine import START
from engine.trace import StepRecord, Trace, join_segments, update_step

ASKED = Later(N_("asked with interrupt(); runs again with your answer"))
"""Why a task that asks a question is among the next ones."""
HIDDEN_KEYS = ("__", "branch:")
"""Channels a runtime keeps for itself, never state keys an edit can write."""


class _NotGiven:
    def __repr__(self) -> str:
        return "NOT_GIVEN"


NOT_GIVEN: Any = _NotGiven()
"""A segment that neither writes the input nor answers a question: it goes on where the last one ended."""


@dataclass(frozen=True)
class Question:
    """An `interrupt()` that waits for its answer."""

    id: str | None
    """The interrupt's id: several waiting are answered by id."""
    value: Any
    """What it asks (encoded)."""


@dataclass(frozen=True)
class NextTask:
    """A task of the next superstep, as the runtime plans it."""

    id: str
    name: str
    sent: bool
    """A `Send` made it (else an edge did)."""
    asks: bool
    """Its `interrupt()` waits for an answer."""
    input: Any
    """What it receives (encoded): the state, or its `Send`'s argument."""


@dataclass(frozen=True)
class Standing:
    """Where the run stands after a segment or an edit, as the runtime's `get_state` says."""

    next: tuple[str, ...]
    """The nodes the next superstep runs (none: the run is over)."""
    questions: tuple[Question, ...] = ()
    failed: bool = False
    """The segment ended with an error of the runtime's that it recorded instead of raising."""


@dataclass(frozen=True)
class Edited:
    """What an edit left: the runtime's own account of it."""

    step: int | None
    """The step its checkpoint has (None: the one after the last)."""
    values: dict[str, Any]
    """The whole state after it (as values, not encoded)."""
    checkpoint: dict[str, Any]
    """The checkpoint it made (`configurable`: thread, checkpoint id)."""
    standing: Standing


class StepReports:
    """The controller's progress calls for the segment running now, made from a runtime's events (task
    started or ended, step committed); it also keeps the newest superstep committed."""

    def __init__(self) -> None:
        self.progress: RunProgress | None = None
        """The controller, once the run has started (no calls before)."""
        self.last_step = -1
        """The newest superstep committed (-1: only the input, or nothing yet)."""
        self._open: int | None = None
        self._held: list[tuple[str, tuple[Any, ...]]] | None = None

    def task_started(self, task_id: str, name: str, step: int | None = None) -> None:
        """A task of superstep `step` (None: the one after the last committed) began."""
        step = self.last_step + 1 if step is None else step
        if self._open != step:
            self._open = step
            self._send("step_started", step)
        self._send("task_started", task_id, name)

    def task_ended(self, ended: TaskEnd) -> None:
        self._send("task_ended", ended)

    def committed(self, step: Any) -> None:
        """Superstep `step` committed (a step that is not a number only ends the open one)."""
        if isinstance(step, int):
            self.last_step = max(self.last_step, step)
        if self._open is not None:
            self._open = None
            self._send("step_committed")

    @contextlib.contextmanager
    def held(self) -> Iterator[None]:
        """The reports made inside are sent once it ends: for an event reader holding a lock that the
        controller's reads (`trace()`, made from inside its progress calls) take."""
        self._held = []
        try:
            yield
        finally:
            held, self._held = self._held, None
        for name, args in held:
            self._send(name, *args)

    def _send(self, name: str, *args: Any) -> None:
        if self._held is not None:
            self._held.append((name, args))
        elif self.progress is not None:
            getattr(self.progress, name)(*args)


@dataclass(frozen=True)
class LiveSetup:
    """What a runtime's `Segments` is made with."""

    graph: Any
    config: dict[str, Any]
    """The user's config on the run's fresh thread (the one the segments run with)."""
    target: str
    run_id: str
    reports: StepReports


class Segments(Protocol):
    """One runtime's side of a `SegmentedRun` (built as `Segments(setup: LiveSetup)`, raising
    `LiveRunError` in words for a graph it cannot run live)."""

    title: str
    """How the hooks refusal names the runtime's graphs ("a langgraph app")."""
    resume_hint: str
    """How to go on from a run an `interrupt()` ended (`DrivenRun.resume_hint`)."""
    limit_key: str
    """The config key of the user's recursion limit."""

    def open(self) -> None:
        """Prepares the run, on the controller's worker thread, before the first segment."""

    def segment(self, *, graph_input: Any, resume: Any, limit: int | None) -> Standing | None:
        """Runs one segment, telling the setup's `StepReports` as it goes: the first writes `graph_input`,
        one after a question answers it with `resume`, others go on (both `NOT_GIVEN`); `limit`: the
        supersteps it may take (None: the user's own limit). None when the run was stopped or is gone."""

    def pause_state(self) -> tuple[dict[str, Any], list[NextTask]]:
        """The whole state now (encoded) and the next superstep's tasks, for a pause."""

    def reducers(self) -> dict[str, str]:
        """Each channel's reducer name (`LastValue` for a plain key)."""

    def nodes(self) -> tuple[str, ...]:
        """The graph's nodes: what an edit can be made as."""

    def apply_edit(self, values: dict[str, Any], as_node: str) -> Edited:
        """The runtime's `update_state` on the run's thread; `EditError` in words when refused."""

    def recorded(self) -> list[Trace]:
        """The recorded segments, one run each, in order (the running one last)."""

    def asked(self, interrupt: dict[str, Any]) -> Any:
        """The question of a recorded interrupt, as asked."""

    def recursion_error(self, limit: Any) -> dict[str, Any]:
        """The encoded error of a run out of its recursion `limit`, in the runtime's own words."""

    def request_stop(self) -> None:
        """Stops the segment running now at its next chance, without waiting (any thread)."""

    def close(self) -> None:
        """Frees what the run holds."""


class SegmentedRun:
    """Drives a graph of a runtime that owns its loop, one segment (one superstep) at a time: the
    `DrivenRun` the controller steps (see the module doc)."""

    def __init__(
        self,
        segments: type[Segments],
        graph: Any,
        graph_input: Any,
        config: dict[str, Any] | None,
        *,
        target: str,
        hooks: Any,
    ) -> None:
        """`segments` makes the runtime's side of the run (`LangGraphSegments`); the rest as `DrivenRun`."""
        name = target or getattr(graph, "name", "graph")
        if hooks is not None:
            raise LiveRunError(f"{name}: engine hooks cannot watch {segments.title}'s run; leave `hooks` out.")
        self.graph, self.graph_input, self.target = graph, graph_input, name
        self.thread_id = f"stepscope-live-{uuid.uuid4().hex[:12]}"
        """A fresh thread: the run never reads or writes a thread of the user's."""
        self.config = copy.deepcopy(dict(config or {}))
        self.config["configurable"] = {**(self.config.get("configurable") or {}), "thread_id": self.thread_id}
        self.run_id = uuid.uuid4().hex
        self.interrupt_before = node_names(graph.interrupt_before_nodes, graph)
        self.interrupt_after = node_names(graph.interrupt_after_nodes, graph)
        self.reports = StepReports()
        self.segments = segments(LiveSetup(graph, self.config, name, self.run_id, self.reports))
        self.resume_hint = self.segments.resume_hint
        self._asks = False
        self._standing: Standing | None = None
        """Where the run stands (None before the first segment ran)."""
        self._edits: list[StepRecord] = []
        self._ended = self._out_of_steps = self._stopping = False

    # ---- driving --------------------------------------------------------------------------------

    def start(self, progress: RunProgress, *, ask: bool) -> None:
        """Connects the progress reports and prepares the run."""
        self.reports.progress, self._asks = progress, ask
        self.segments.open()

    def preview(self) -> Upcoming:
        """The runtime's next nodes at this boundary, and the nodes of the last loop step recorded."""
        if self._standing is None:
            return Upcoming.of()
        return Upcoming.of(self._standing.next, self._ran_last())

    def step(self) -> bool:
        """One segment (the input's, first); again with the answer while an `interrupt()` asks."""
        if self._ended:
            return False  # its last segment has the status and output
        graph_input, resume = (self.graph_input if self._standing is None else NOT_GIVEN), NOT_GIVEN
        while not self._stopping:
            limit = self._limit_left()
            if limit == 0:
                self._out_of_steps = True  # the whole run has used the user's recursion limit
                return False
            standing = self.segments.segment(graph_input=graph_input, resume=resume, limit=limit)
            if standing is None:
                return False
            self._standing = standing
            if standing.failed:
                self._ended = True
                return False  # the segment's own failure is in its recorded run
            if not standing.questions:
                self._ended = not standing.next
                return not self._ended
            if not self._asks:
                return False  # `--follow`: an interrupt ends the run, as `invoke` does
            answer = self._ask(standing.questions[0])  # one question at a time
            if answer is NO_ANSWER:
                return False
            graph_input, resume = NOT_GIVEN, _resume(standing.questions, answer)
        return False

    def _ask(self, question: Question) -> Any:
        boundary = self._boundary([question])
        return self.reports.progress.ask_user(boundary, [t for t in boundary.tasks if t.why == ASKED])

    def _limit_left(self) -> int | None:
        """The supersteps the next segment may take (0: none left); None for the first: the user's own.
        The runtimes count the limit per invocation, from the checkpoint it resumes (steps up to `limit`
        may run in a fresh one); a segment gets what is left of the user's limit."""
        last = self.reports.last_step
        if last < 0:
            return None
        allowed = int(self._user_limit()) - last  # supersteps still allowed: last + 1 .. limit
        # the smallest limit (1) lets two supersteps run; a segment runs one anyway
        return 0 if allowed <= 0 else max(allowed - 2, 1)

    def _user_limit(self) -> Any:
        return self.config.get(self.segments.limit_key) or 25

    def boundary(self) -> Boundary:
        """The pause the runtime's state shows at this boundary."""
        return self._boundary([])

    def questions(self) -> tuple[Any, ...]:
        """The questions the last segment ended on."""
        segments = self.segments.recorded()
        return tuple(self.segments.asked(i) for i in segments[-1].interrupts) if segments else ()

    def request_stop(self) -> None:
        """The segment running now stops at its next chance (the runtime says how)."""
        self._stopping = True
        self.segments.request_stop()

    def close(self) -> None:
        self.segments.close()

    # ---- what a pause shows, and an edit ----------------------------------------------------------

    def _boundary(self, questions: Sequence[Question]) -> Boundary:
        values, next_tasks = self.segments.pause_state()
        ran = self._ran_last()
        after = tuple(ran) or Later(N_("the input"))
        reducers = self.segments.reducers()
        return Boundary(
            step=self.reports.last_step + 1,
            tasks=tuple(PlannedTask(t.id, t.name, _why(t, after), t.input) for t in next_tasks),
            state=values,
            channels={k: reducers[k] for k in values if k in reducers},
            edit_as=() if questions else tuple(n for n in self.segments.nodes() if n != START),
            default_as=ran[0] if len(ran) == 1 else None,
            interrupts=tuple(q.value for q in questions),
        )

    def _ran_last(self) -> list[str]:
        last = self._last_loop_step()
        return sorted({t.name for t in last.tasks if t.name != START}) if last is not None else []

    def update_state(self, values: Any, as_node: str | None) -> str:
        """The runtime's `update_state` on the run's thread, recorded as a step of kind `update`."""
        reducers = self.segments.reducers()
        if not isinstance(values, dict) or not values:
            raise EditError("An edit is a non-empty {key: value} update.")
        unknown = [k for k in values if k not in reducers or k.startswith(HIDDEN_KEYS)]
        if unknown:
            raise EditError(f"{', '.join(map(repr, unknown))} is not a state key of this graph.")
        if as_node is None:
            ran = self._ran_last()
            if len(ran) != 1:
                raise EditError("Ambiguous update, specify as_node: pick the node to edit as.")
            as_node = ran[0]
        edited = self.segments.apply_edit(values, as_node)
        step = edited.step if isinstance(edited.step, int) else self.reports.last_step + 1
        calls = [(key, reducers[key], value) for key, value in values.items()]
        self._edits.append(update_step(step, as_node, calls, edited.values, edited.checkpoint))
        self.reports.last_step = step
        self._standing = edited.standing
        self._ended = False  # the next segment runs on from the edit (or ends the run with its output)
        return as_node

    # ---- the recording --------------------------------------------------------------------------

    def _last_loop_step(self) -> StepRecord | None:
        trace = self.trace()
        steps = [s for s in trace.steps if s.kind == "loop" and s.step >= 0] if trace is not None else []
        return steps[-1] if steps else None

    def trace(self, *, final: bool = False) -> Trace | None:
        """The segments joined into one trace (shallow copies sharing the committed StepRecords),
        with the edits in their places; the running step is left out, except, at the end of a run
        that failed, the step that failed (a node that raised, writes the barrier refused): it is what
        the Errors tab, the ✖ marks and `diagnose` are about."""
        segments = self.segments.recorded()
        if not segments:
            return None
        view = join_segments(segments, list(self._edits), final=final, run_id=self.run_id, target=self.target)
        if final and (self._out_of_steps or segments[-1].status == "recursion_limit"):
            view.status = "recursion_limit"  # in the words of the user's limit, not the segment's share of it
            view.error = self.segments.recursion_error(self._user_limit())
        return view

    def open_step(self) -> StepRecord | None:
        """The last segment's newest step, while it has not committed."""
        segments = self.segments.recorded()
        steps = segments[-1].steps if segments else []
        return steps[-1] if steps and not steps[-1].committed else None


def _why(task: NextTask, after: tuple[str, ...] | Later) -> Later:
    """Why `task` runs next, in words."""
    if task.asks:
        return ASKED
    return Later(N_("a Send from {nodes}"), nodes=after) if task.sent else Later(N_("edge from {who}"), who=after)


def _resume(questions: Sequence[Question], answer: Any) -> Any:
    """The resume value for `answer` to the first question: by its interrupt's id when several wait."""
    first = questions[0]
    return {first.id: answer} if len(questions) > 1 and first.id else answer
