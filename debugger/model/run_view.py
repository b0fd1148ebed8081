"""The debugger's view-model: everything a page shows, computed from a Trace. Imports no Streamlit.

One analysis per run: `debugger.diagnostics.facts.RunFacts` indexes a recorded run (its steps, the
state each started from, why each task ran, who wrote what, repeated items with their provenance) over
one `debugger.diagnostics.replay.Replay`; `stepscope diagnose` and the app both read it, and the app's findings
and Errors tab are `debugger.diagnostics.diagnose`'s findings, word for word.

`RunView` wraps one recorded run (the root run of a Trace, or a subgraph's run nested in a task) and
answers, for a step: which tasks ran (Sends named with index and argument), which run next and why,
which edges were taken, the merge one reducer call at a time with a sentence each (and whether the
barrier applied it), the state and its diff, the channel versions, the findings and what went wrong.
What the drawing marks is `highlights.py`, the merge ready to show `merge_calls.py`, what a step changed
`step_changes.py`; `RunView` answers with them. Views render these; callbacks move the `Cursor`
(`trace_view.py`, with the `TraceView` that hands out `RunView`s). Nothing here mutates a record.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Callable, Mapping, Sequence

from debugger import i18n
from debugger.diagnostics import Finding
from debugger.diagnostics.facts import Reason, RunFacts
from debugger.diagnostics.replay import Origin, Positions
from debugger.diagnostics.validation import VALIDATION_ERRORS, last_write, rejected_fields
from debugger.i18n import _
from debugger.model.drawing import Highlight, to_dot
from debugger.model.failures import ErrorReport, cut_short, is_interrupt, is_stopped, step_errors
from debugger.model.highlights import Highlights
from debugger.model.merge_calls import LostUpdate, MergeCall, lost_updates, merge_calls
from debugger.model.step_changes import DiffEntry, channel_versions, state_diff
from debugger.model.turns import Turn, only_turn, turns_of
from engine import START
from engine.draw import DrawableGraph
from engine.trace import SAME_AS_WRITES, VIEW, ReducerCallRecord, RunRecord, StepRecord, TaskRecord


@dataclass(frozen=True)
class Trigger:
    """Why a task runs: the reasons `RunFacts.reasons` found (fired channels and their writers)."""

    task: str
    """The task as people read it (node name, or `name[index] argument` for a Send)."""
    reasons: tuple[Reason, ...]

    @property
    def writers(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(r.writer for r in self.reasons if r.writer))

    def sentence(self) -> str:
        because = i18n.join_sentences(dict.fromkeys(r.text for r in self.reasons)) or _(
            "it was due (no recorded reason)"
        )
        return _("{task} runs because {because}").format(task=self.task, because=because)


class RunView:
    """Derived views of one run. Cheap to build; heavy parts are computed once and cached."""

    def __init__(
        self,
        run: RunRecord,
        *,
        graph: Any = None,
        findings: tuple[Finding, ...] | Callable[[], tuple[Finding, ...] | None] = (),
        background: threading.Event | None = None,
    ) -> None:
        self.run = run
        self.background = background
        """In the app's view: what a long run needs of every step is computed in a thread (`_visited`), which
        waits for this event (the page drawn) before it competes with the page."""
        self.facts = RunFacts(run, (), graph)
        self.replay = self.facts.replay
        self.by_step: Mapping[int, StepRecord] = self.facts.steps
        self._findings = findings
        self._findings_by_language: dict[str, tuple[Finding, ...]] = {}
        self.steps: Sequence[int] = _worth_showing(self.replay.order, run)
        """The steps worth showing: step -1 (the input) only when it changed state (a Command input). Only the
        numbers are read: a long trace's steps stay on disk until shown."""
        self.positions = Positions(self.steps)
        """Where each shown step is in `steps` (arithmetic for a range)."""
        self._merges: dict[tuple[int, str], list[MergeCall]] = {}
        self.highlights = Highlights(self)
        """What the drawing marks, step by step."""

    @cached_property
    def turns(self) -> tuple[Turn, ...]:
        """The run's turns (`model/turns.py`): one per invoke or resume of its thread. A run on no thread
        is one turn, known from its step numbers alone: `turns_of` reads every step (the step summary asks
        at every step, so a long run would wait for all of them at its first paint)."""
        if getattr(self.run, "thread_id", "") or not self.replay.order:
            return turns_of(self.run)
        return (only_turn(self.run, min(self.replay.order), max(self.replay.order)),)

    @property
    def findings(self) -> tuple[Finding, ...]:
        """`diagnose`'s findings about this run (the ones of its scope), computed when first asked: the
        drawing and the stepper never wait for them (a new session's first paint). Kept per language: their
        words are written in the language of whoever asks (a linked sample's view is shared by sessions).
        Empty while a long run's are computed in the background (`findings_pending`)."""
        found = self._findings_if_ready()
        return () if found is None else found

    @property
    def findings_pending(self) -> bool:
        """The findings are still being computed in the background (a long run opened in the app)."""
        return self._findings_if_ready() is None

    def _findings_if_ready(self) -> tuple[Finding, ...] | None:
        language = i18n.current()
        if language not in self._findings_by_language:
            found = self._findings() if callable(self._findings) else self._findings
            if found is None:  # not ready: asked again on the next run of the page
                return None
            self._findings_by_language[language] = tuple(found)
        return self._findings_by_language[language]

    # ---- navigation ------------------------------------------------------------------------------

    @property
    def first(self) -> int:
        return self.steps[0] if self.steps else 0

    @property
    def last(self) -> int:
        return self.steps[-1] if self.steps else 0

    @property
    def opening_step(self) -> int:
        """Where a run opens: at its failure when it failed, at its last recorded step when it was stopped
        (a timeout opens on the step that hung), else at its first step."""
        if self.failed_step is not None:
            return self.failed_step
        return self.last if self.run.status in ("timeout", "cancelled") else self.first

    def clamp(self, step: int) -> int:
        if not self.steps:
            return 0
        if step in self.by_step and step in self.steps:
            return step
        return min(self.steps, key=lambda s: abs(s - step))

    def neighbour(self, step: int, offset: int) -> int:
        index = self.steps.index(self.clamp(step)) + offset
        return self.steps[max(0, min(index, len(self.steps) - 1))]

    # ---- tasks ------------------------------------------------------------------------------------

    def tasks(self, step: int) -> list[TaskRecord]:
        return self.facts.tasks(step)

    def label(self, task: TaskRecord) -> str:
        return self.facts.label(task)

    def task_input(self, step: int, task: TaskRecord) -> tuple[Any, str]:
        """(the encoded input, a note): a node that read the state gets the state's keys at the step's start."""
        if isinstance(task.input, dict) and VIEW in task.input:
            keys = list(task.input[VIEW])
            state = self.state_before(step)
            return (
                {k: state[k] for k in keys if k in state},
                f"The state at the start of the step (keys: {', '.join(keys)}).",
            )
        return task.input, ""

    def task_result(self, task: TaskRecord) -> tuple[Any, str]:
        """(the encoded return value, a note): a dict equal to its state writes is recorded once."""
        if task.result == SAME_AS_WRITES:
            return dict(self.facts.state_writes(task)), "A dict: exactly its state writes."
        return task.result, ""

    def culprits(self, step: int) -> set[str]:
        """Ids of the tasks that made `step` fail: raised, or wrote what the barrier refused. A task the
        run's stop cut short (`RunCancelled`) caused nothing."""
        record = self.by_step.get(step)
        if record is None:
            return set()
        ids = {t.id for t in record.tasks if t.error and not is_interrupt(t.error) and not is_stopped(t.error)}
        return ids | {c.writer for c in record.reducer_calls if c.error} | self._rejected_writers(step)

    def _rejected_writers(self, step: int) -> set[str]:
        """Ids of the tasks of `step` whose write the state schema rejected after the step (a pydantic
        ValidationError raised while the next input was built: in no task of its own)."""
        error = self.run.error or {}
        if self.run.status != "error" or error.get("class") not in VALIDATION_ERRORS:
            return set()
        found = set()
        for key, _reason in rejected_fields(error.get("message", "")):
            written = last_write(self.facts, key)
            if written is not None and written[0] == step:
                found |= {c.writer for c in self.by_step[step].reducer_calls if c.channel == key}
        return found

    def unfinished(self, step: int) -> set[str]:
        """Ids of the tasks of `step` that never finished because the run stopped first (cut off,
        cancelled, timed out, a stream its caller stopped reading): no result, no writes, no error of
        their own. Such a step never committed; its finished siblings ran, these did not."""
        record = self.by_step.get(step)
        if record is None or record.committed or self.run.status not in ("running", "cancelled", "timeout"):
            return set()
        return {t.id for t in record.tasks if cut_short(t) and t.name != START}

    # ---- the graph --------------------------------------------------------------------------------

    @cached_property
    def drawing(self) -> DrawableGraph:
        return DrawableGraph.from_dict(self.run.graph["drawing_flat"])

    @cached_property
    def node_names(self) -> list[str]:
        return [n["name"] for n in self.run.graph["nodes"]]

    def highlight(self, step: int) -> Highlight:
        """What the drawing marks at `step` (`highlights.Highlights.at`)."""
        return self.highlights.at(step)

    @property
    def visits_pending(self) -> bool:
        """A long run's index of the steps its nodes first ran in is still being made in the background."""
        return self.highlights.pending

    @cached_property
    def xray(self) -> DrawableGraph:
        """The drawing with each subgraph shown as a cluster of its own nodes (ids `child:inner`)."""
        saved = self.run.graph.get("drawing")
        return DrawableGraph.from_dict(saved) if saved else self.drawing

    def dot(self, step: int, *, collapsed: bool = False) -> str:
        """DOT for the step, subgraphs drawn as clusters (or, `collapsed`, as single nodes)."""
        drawable, highlight = self.drawn(step, collapsed=collapsed)
        return to_dot(drawable, highlight=highlight)

    def drawn(self, step: int, *, collapsed: bool = False) -> tuple[DrawableGraph, Highlight]:
        """The drawing `dot` draws and the step's highlight on its node ids (a subgraph's members for it)."""
        return self.highlights.drawn(step, collapsed=collapsed)

    @property
    def has_subgraphs(self) -> bool:
        return set(self.xray.nodes) != set(self.drawing.nodes)

    def triggers(self, step: int) -> list[Trigger]:
        """Why each task of `step` runs (`RunFacts.reasons`: the same words `diagnose` uses)."""
        return [Trigger(self.label(t), tuple(self.facts.reasons(step, t))) for t in self.tasks(step)]

    def next_triggers(self, step: int) -> list[Trigger]:
        if isinstance(self.steps, range):
            following = max(step + 1, self.steps.start)
            return self.triggers(following) if following in self.steps else []
        return next((self.triggers(s) for s in self.steps if s > step), [])

    # ---- timeline ---------------------------------------------------------------------------------

    @cached_property
    def timeline(self) -> list[dict[str, Any]]:
        """Rows of node x step: '' (idle), '●' (ran), '●×n' (ran n times, Sends), '✖' (caused a failure),
        '○' (ran in a failed step, its writes discarded), '⏹' (never finished: the run stopped first),
        '⏸' (interrupted)."""
        rows = []
        for name in [START, *self.node_names]:
            row: dict[str, Any] = {"node": name}
            for step in self.steps:
                tasks = [t for t in self.tasks(step) if t.name == name]
                culprits = self.culprits(step)
                unfinished = self.unfinished(step)
                if not tasks:
                    mark = ""
                elif all(t.id in unfinished for t in tasks):
                    mark = "⏹"
                elif any(t.error and is_interrupt(t.error) for t in tasks):
                    mark = "⏸"
                elif any(t.id in culprits for t in tasks):
                    mark = "✖"
                elif not self.by_step[step].committed:
                    mark = "○"
                else:
                    mark = "●" if len(tasks) == 1 else f"●×{len(tasks)}"
                row[str(step)] = mark
            rows.append(row)
        return rows

    # ---- merge ------------------------------------------------------------------------------------

    def merge(self, step: int) -> list[MergeCall]:
        """The step's reducer calls, ready to show; made once per step (the summary, the tabs and the HTML
        report each ask, and finding repeated items costs the list's length), in each language it is asked in:
        a view is shared by sessions that may speak different languages."""
        made = (step, i18n.current())
        if made not in self._merges:
            self._merges[made] = merge_calls(self, step)
        return self._merges[made]

    def discarded_writes(self, step: int) -> list[tuple[str, str, Any]]:
        """(writer, key, encoded value) of each state write made in a step that failed before its barrier
        merged anything (a node raised): no reducer call shows them, and they never reached the state."""
        record = self.by_step.get(step)
        if record is None or record.committed or record.reducer_calls:
            return []
        return [(self.label(t), key, value) for t in record.tasks for key, value in self.facts.state_writes(t)]

    def lost_updates(self, step: int) -> list[LostUpdate]:
        """Keys whose final write in `step` replaced the items other writers of the step added."""
        return lost_updates(self, step)

    def merge_by_channel(self, step: int) -> dict[str, list[MergeCall]]:
        grouped: dict[str, list[MergeCall]] = {}
        for item in self.merge(step):
            grouped.setdefault(item.call.channel, []).append(item)
        return grouped

    def writer_label(self, record: StepRecord, call: ReducerCallRecord) -> str:
        task = next((t for t in record.tasks if t.id == call.writer), None)
        return self.label(task) if task is not None else call.writer_name

    def committed(self, step: int) -> bool:
        record = self.by_step.get(step)
        return record is not None and record.committed

    # ---- state ------------------------------------------------------------------------------------

    def state(self, step: int, call: int | None = None) -> dict[str, Any]:
        if step not in self.by_step:
            return {}
        return self.replay.state_after(step) if call is None else self.replay.state_at_call(step, call)

    def state_before(self, step: int) -> dict[str, Any]:
        return self.replay.state_before(step) if step in self.by_step else {}

    def diff(self, step: int, call: int | None = None) -> list[DiffEntry]:
        return state_diff(self.state_before(step), self.state(step, call))

    def provenance(self, step: int, key: str) -> list[Origin]:
        return self.replay.provenance(step, key)

    # ---- versions ---------------------------------------------------------------------------------

    def versions(self, step: int) -> list[dict[str, Any]]:
        """Every channel's version after `step`'s barrier (`step_changes.channel_versions`)."""
        return channel_versions(self.run, self.facts, step)

    # ---- findings and errors ---------------------------------------------------------------------

    def findings_at(self, step: int) -> list[Finding]:
        return [f for f in self.findings if f.step == step]

    @property
    def failed_step(self) -> int | None:
        """The step where the run failed, if it did."""
        if self.run.status not in ("error", "recursion_limit"):
            return None
        for record in reversed(self.run.steps):
            if any(t.error for t in record.tasks) or any(c.error for c in record.reducer_calls) or not record.committed:
                return record.step
        return self.last

    def error(self, step: int) -> ErrorReport | None:
        reports = self.errors(step)
        return reports[0] if reports else None

    def errors(self, step: int) -> list[ErrorReport]:
        """What went wrong in `step`, in words (`debugger.model.failures`: diagnose's words where it has them)."""
        return step_errors(self, step)

    # ---- subgraphs --------------------------------------------------------------------------------

    def subgraph_runs(self, step: int) -> list[tuple[TaskRecord, int, RunRecord]]:
        return [(task, i, run) for task in self.tasks(step) for i, run in enumerate(task.subgraphs)]


def _worth_showing(order: Sequence[int], run: RunRecord) -> Sequence[int]:
    """`RunView.steps`: a range for a run numbered one after another (a 200,000-step run's numbers as a list
    took 8 MB, and each look-up in it a pass over them), reading at most the input step's record."""
    if isinstance(order, range) and order.step == 1 and order.start >= -1:
        if order.start == -1 and len(order) and not run.steps[0].reducer_calls:
            return range(0, order.stop)
        return order
    return [number for index, number in enumerate(order) if number >= 0 or run.steps[index].reducer_calls]
