"""The debugger's view-model: everything a page shows, computed from a Trace. Imports no Streamlit.

`RunView` wraps one recorded run (the root run of a Trace, or a subgraph's run nested in a task) and
answers, for a step: which nodes ran, which run next and why, which edges were taken, the merge one
reducer call at a time with a sentence each, the state and its diff, the channel versions, and what
went wrong. Views render these; callbacks move the `Cursor`. Nothing here mutates a record.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from debugger.present import explain_call, short
from debugger.replay import Origin, Replay
from engine.codec import decode
from engine.constants import END, START
from engine.draw import DrawableGraph, Highlight, to_dot
from engine.trace import ReducerCallRecord, RunRecord, StepRecord, TaskRecord, Trace

PUSH = "__pregel_push"


@dataclass(frozen=True)
class Scope:
    """Where in the nesting we are: the root run, or a subgraph run entered from a task."""

    path: tuple[tuple[int, str, int], ...] = ()
    """(step, task id, index of the run among that task's subgraph runs), from the root down."""

    def enter(self, step: int, task_id: str, index: int = 0) -> "Scope":
        return Scope((*self.path, (step, task_id, index)))

    def leave(self) -> "Scope":
        return Scope(self.path[:-1])


@dataclass(frozen=True)
class Cursor:
    """What the user is looking at. Changed only by callbacks, never while rendering."""

    scope: Scope = field(default_factory=Scope)
    step: int = 0
    call: int | None = None
    """Within the step's merge: after this many reducer calls; None shows the whole step."""


@dataclass(frozen=True)
class MergeCall:
    """One reducer call, ready to show."""

    call: ReducerCallRecord
    before: Any
    after: Any
    sentence: str
    duplicated: tuple[int, ...] = ()
    """Indexes of items in `after` that repeat items already in `before` (the subgraph trap)."""


@dataclass(frozen=True)
class DiffEntry:
    """One state key compared with the previous step."""

    key: str
    kind: str
    """`added`, `removed`, `changed` or `same`."""
    before: Any
    after: Any
    added_items: tuple[int, ...] = ()
    """For lists that grew: the indexes of the new items in `after`."""


@dataclass(frozen=True)
class Trigger:
    """Why a task runs: the trigger channels that changed, and who wrote them."""

    task: str
    channels: tuple[str, ...]
    writers: tuple[str, ...]

    def sentence(self) -> str:
        if self.channels == (PUSH,):
            return f"{self.task} runs for a Send from {', '.join(self.writers) or 'a router'}"
        via = ", ".join(self.channels)
        who = ", ".join(self.writers) if self.writers else "the input"
        return f"{self.task} runs because {via} changed (written by {who})"


@dataclass(frozen=True)
class ErrorReport:
    """A failing step, in plain words, with the fixes."""

    title: str
    message: str
    explanation: str
    key: str | None = None
    writers: tuple[tuple[str, Any], ...] = ()
    """For a concurrent update: (node, value) of every write to the key in that step."""
    fixes: tuple[tuple[str, str], ...] = ()
    """(what to do, code snippet)."""
    traceback: str = ""


class RunView:
    """Derived views of one run. Cheap to build; heavy parts are computed once and cached."""

    def __init__(self, run: RunRecord) -> None:
        self.run = run
        self.replay = Replay(run)
        self.by_step: dict[int, StepRecord] = {s.step: s for s in run.steps}
        self.steps: list[int] = [s.step for s in run.steps if s.step >= 0 or s.reducer_calls]
        """The steps worth showing: step -1 (the input) only when it changed state (a Command input)."""

    # ---- navigation ------------------------------------------------------------------------------

    @property
    def first(self) -> int:
        return self.steps[0] if self.steps else 0

    @property
    def last(self) -> int:
        return self.steps[-1] if self.steps else 0

    def clamp(self, step: int) -> int:
        if not self.steps:
            return 0
        if step in self.by_step and step in self.steps:
            return step
        return min(self.steps, key=lambda s: abs(s - step))

    def neighbour(self, step: int, offset: int) -> int:
        index = self.steps.index(self.clamp(step)) + offset
        return self.steps[max(0, min(index, len(self.steps) - 1))]

    # ---- the graph --------------------------------------------------------------------------------

    @cached_property
    def drawing(self) -> DrawableGraph:
        return DrawableGraph.from_dict(self.run.graph["drawing_flat"])

    @cached_property
    def node_names(self) -> list[str]:
        return [n["name"] for n in self.run.graph["nodes"]]

    def tasks(self, step: int) -> list[TaskRecord]:
        record = self.by_step.get(step)
        return list(record.tasks) if record else []

    def highlight(self, step: int) -> Highlight:
        """Ran (this step), next (the following step), visited (before), failed, edges taken into this step."""
        index = self.steps.index(self.clamp(step)) if self.steps else 0
        ran = {t.name for t in self.tasks(step)}
        following = self.steps[index + 1] if index + 1 < len(self.steps) else None
        next_nodes = {t.name for t in self.tasks(following)} if following is not None else set()
        if following is None and self.run.status == "done" and ran:
            next_nodes = {END}
        visited = {t.name for s in self.steps[:index] for t in self.tasks(s)} - ran
        failed = {t.name for t in self.tasks(step) if t.error and not _is_interrupt(t.error)}
        record = self.by_step.get(step)
        if record is not None and any(c.error for c in record.reducer_calls):
            failed |= {c.writer_name for c in record.reducer_calls if c.error}
        edges = {(writer, trigger.task) for trigger in self.triggers(step) for writer in trigger.writers}
        if following is None and self.run.status == "done":
            edges |= {(name, END) for name in ran if self._ends_here(name)}
        return Highlight(ran=ran, next=next_nodes, visited=visited, failed=failed, edges_taken=edges)

    def _ends_here(self, name: str) -> bool:
        return any(e.source == name and e.target == END for e in self.drawing.edges)

    @cached_property
    def xray(self) -> DrawableGraph:
        """The drawing with each subgraph shown as a cluster of its own nodes (ids `child:inner`)."""
        saved = self.run.graph.get("drawing")
        return DrawableGraph.from_dict(saved) if saved else self.drawing

    def _drawn_ids(self, name: str) -> set[str]:
        """The drawn nodes that stand for `name`: itself, or the members of its subgraph cluster."""
        if name in self.xray.nodes:
            return {name}
        return {node for node in self.xray.nodes if node.startswith(f"{name}:")}

    def dot(self, step: int) -> str:
        """DOT for the step, subgraphs drawn as clusters: a subgraph node that ran marks its cluster."""
        flat = self.highlight(step)
        if self.xray is self.drawing or set(self.xray.nodes) == set(self.drawing.nodes):
            return to_dot(self.drawing, highlight=flat)

        def ids(names: set[str]) -> set[str]:
            return {drawn for name in names for drawn in self._drawn_ids(name)}

        edges = {(e.source, e.target) for e in self.xray.edges
                 for a, b in flat.edges_taken if e.source in self._drawn_ids(a) and e.target in self._drawn_ids(b)}
        return to_dot(self.xray, highlight=Highlight(ran=ids(flat.ran), next=ids(flat.next), visited=ids(flat.visited),
                                                     failed=ids(flat.failed), edges_taken=edges))

    def triggers(self, step: int) -> list[Trigger]:
        """Why each task of `step` runs: its fired channels and the tasks of the step before that wrote them."""
        index = self.steps.index(self.clamp(step)) if step in self.steps else None
        previous = self.by_step.get(self.steps[index - 1]) if index else self.by_step.get(step - 1)
        out = []
        for task in self.tasks(step):
            writers: list[str] = []
            if previous is not None:
                for earlier in previous.tasks:
                    channels = {c for c, _ in earlier.writes}
                    if task.fired == [PUSH]:
                        hit = "__pregel_tasks" in channels
                    else:
                        hit = bool(channels & set(task.fired))
                    if hit and earlier.name not in writers:
                        writers.append(earlier.name)
            out.append(Trigger(task.name, tuple(task.fired), tuple(writers)))
        return out

    def next_triggers(self, step: int) -> list[Trigger]:
        following = [s for s in self.steps if s > step]
        return self.triggers(following[0]) if following else []

    # ---- timeline ---------------------------------------------------------------------------------

    @cached_property
    def timeline(self) -> list[dict[str, Any]]:
        """Rows of node x step: '' (idle), '●' (ran), '●×n' (ran n times, Sends), '✖' (failed), '⏸' (interrupted)."""
        rows = []
        names = [START, *self.node_names]
        for name in names:
            row: dict[str, Any] = {"node": name}
            for step in self.steps:
                tasks = [t for t in self.tasks(step) if t.name == name]
                refused = {c.writer for c in self.by_step[step].reducer_calls if c.error}
                if not tasks:
                    mark = ""
                elif any(t.error and _is_interrupt(t.error) for t in tasks):
                    mark = "⏸"
                elif any(t.error or t.id in refused for t in tasks):
                    mark = "✖"
                else:
                    mark = "●" if len(tasks) == 1 else f"●×{len(tasks)}"
                row[str(step)] = mark
            rows.append(row)
        return rows

    # ---- merge ------------------------------------------------------------------------------------

    def merge(self, step: int) -> list[MergeCall]:
        if step not in self.by_step:
            return []
        calls = []
        for call, before, after in self.replay.call_values(step):
            duplicated: tuple[int, ...] = ()
            if isinstance(before, list) and isinstance(after, list) and len(after) > len(before):
                seen = [json.dumps(item, sort_keys=True) for item in before]
                duplicated = tuple(
                    len(before) + i for i, item in enumerate(after[len(before):])
                    if json.dumps(item, sort_keys=True) in seen
                )
            calls.append(MergeCall(call, before, after, explain_call(call, before, after), duplicated))
        return calls

    def merge_by_channel(self, step: int) -> dict[str, list[MergeCall]]:
        grouped: dict[str, list[MergeCall]] = {}
        for item in self.merge(step):
            grouped.setdefault(item.call.channel, []).append(item)
        return grouped

    # ---- state ------------------------------------------------------------------------------------

    def state(self, step: int, call: int | None = None) -> dict[str, Any]:
        if step not in self.by_step:
            return {}
        return self.replay.state_after(step) if call is None else self.replay.state_at_call(step, call)

    def state_before(self, step: int) -> dict[str, Any]:
        return self.replay.state_before(step) if step in self.by_step else {}

    def diff(self, step: int, call: int | None = None) -> list[DiffEntry]:
        before = self.state_before(step)
        after = self.state(step, call)
        entries = []
        for key in [*before, *(k for k in after if k not in before)]:
            if key not in after:
                entries.append(DiffEntry(key, "removed", before[key], None))
            elif key not in before:
                entries.append(DiffEntry(key, "added", None, after[key]))
            elif before[key] == after[key]:
                entries.append(DiffEntry(key, "same", before[key], after[key]))
            else:
                old, new = before[key], after[key]
                grown = ()
                if isinstance(old, list) and isinstance(new, list) and new[: len(old)] == old:
                    grown = tuple(range(len(old), len(new)))
                entries.append(DiffEntry(key, "changed", old, new, grown))
        return entries

    def provenance(self, step: int, key: str) -> list[Origin]:
        return self.replay.provenance(step, key)

    # ---- versions ---------------------------------------------------------------------------------

    def versions(self, step: int) -> list[dict[str, Any]]:
        """Every channel's version after `step`, with whether it changed at that barrier."""
        current: dict[str, int] = {}
        for record in self.run.steps:
            current.update(record.versions)
            if record.step == step:
                changed = record.versions
                return [
                    {"channel": ch, "version": v, "changed": ch in changed, "kind": _channel_kind(ch)}
                    for ch, v in sorted(current.items(), key=lambda kv: (_channel_kind(kv[0]) != "state", kv[0]))
                ]
        return []

    # ---- errors -----------------------------------------------------------------------------------

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
        record = self.by_step.get(step)
        if record is None:
            return None
        refused = [c for c in record.reducer_calls if c.error]
        if refused:
            return _concurrent_update_report(record, refused)
        failed = [t for t in record.tasks if t.error and not _is_interrupt(t.error)]
        if failed:
            task = failed[0]
            return ErrorReport(
                title=f"{task.name} raised {task.error['class']}",
                message=task.error["message"],
                explanation=f"The node {task.name!r} raised an exception in step {step}, so the step's writes were "
                            f"never applied: the state stays as it was after the previous step. Writes of the other "
                            f"tasks of this step are kept in the trace but not merged.",
                traceback=task.error.get("traceback", ""),
            )
        if step == self.failed_step and self.run.error:
            error = self.run.error
            explanation = ""
            if error["class"] == "GraphRecursionError":
                explanation = (f"The run was stopped after {self.run.recursion_limit} supersteps without reaching END. "
                               "A loop whose exit condition never becomes true runs until the recursion limit.")
                fixes = (("Make the loop's router return END when it is done", 'return END if done(state) else "again"'),
                         ("Or allow more supersteps if the loop is meant to be long",
                          'graph.invoke(inp, {"recursion_limit": 100})'))
                return ErrorReport(error["class"], error["message"], explanation, fixes=fixes)
            return ErrorReport(error["class"], error["message"], explanation, traceback=error.get("traceback", ""))
        return None

    # ---- subgraphs --------------------------------------------------------------------------------

    def subgraph_runs(self, step: int) -> list[tuple[TaskRecord, int, RunRecord]]:
        return [(task, i, run) for task in self.tasks(step) for i, run in enumerate(task.subgraphs)]


def _channel_kind(channel: str) -> str:
    if channel.startswith("branch:to:"):
        return "edge"
    if channel.startswith("join:"):
        return "waiting edge"
    if channel.startswith("__"):
        return "internal"
    return "state"


def _is_interrupt(error: dict[str, Any]) -> bool:
    return error.get("class") in ("GraphInterrupt", "NodeInterrupt")


def _concurrent_update_report(record: StepRecord, refused: list[ReducerCallRecord]) -> ErrorReport:
    key = refused[0].channel
    writers = tuple((c.writer_name, c.write) for c in refused)
    names = [w for w, _ in writers]
    message = refused[0].error["message"] if refused[0].error else ""
    if refused[0].reducer != "LastValue":
        return ErrorReport(f"{refused[0].reducer} refused a write to {key!r}", message,
                           f"The reducer of {key!r} raised while merging step {record.step}.", key, writers)
    explanation = (
        f"{' and '.join(repr(n) for n in names)} ran in the same superstep (step {record.step}) and both returned "
        f"{key!r}. {key!r} has no reducer, so it can hold one value per step, and the engine will not guess which "
        f"write wins: the whole step fails and none of its writes are applied."
    )
    fixes = (
        (f"Give {key!r} a reducer, so parallel writes are merged",
         f"{key}: Annotated[list, operator.add]   # or any (old, new) -> merged function"),
        (f"Let only one node write {key!r} (the others write their own keys)",
         f"def {names[-1]}(state):\n    return {{\"{key}_{names[-1]}\": ...}}"),
        ("Or make one write win explicitly with Overwrite (on a key that has a reducer)",
         f"return {{\"{key}\": Overwrite(value)}}"),
    )
    return ErrorReport("Two nodes wrote the same plain key in one superstep", message, explanation, key, writers, fixes)


# ---- the whole trace ------------------------------------------------------------------------------


class TraceView:
    """A Trace plus the scope the user has entered; hands out `RunView`s (cached)."""

    def __init__(self, trace: Trace) -> None:
        self.trace = trace
        self._views: dict[Scope, RunView] = {}

    def run_at(self, scope: Scope) -> RunRecord:
        run: RunRecord = self.trace
        for step, task_id, index in scope.path:
            task = next((t for s in run.steps if s.step == step for t in s.tasks if t.id == task_id), None)
            if task is None or index >= len(task.subgraphs):
                raise KeyError(f"no subgraph run at step {step}, task {task_id}")
            run = task.subgraphs[index]
        return run

    def view(self, scope: Scope) -> RunView:
        if scope not in self._views:
            self._views[scope] = RunView(self.run_at(scope))
        return self._views[scope]

    def breadcrumbs(self, scope: Scope) -> list[str]:
        names = [self.trace.target or self.trace.graph.get("name") or "graph"]
        run: RunRecord = self.trace
        for step, task_id, index in scope.path:
            task = next(t for s in run.steps if s.step == step for t in s.tasks if t.id == task_id)
            names.append(f"{task.name} (step {step})")
            run = task.subgraphs[index]
        return names

    def valid(self, cursor: Cursor) -> Cursor:
        """The nearest cursor that exists (a link may name a step or scope that is not there)."""
        try:
            view = self.view(cursor.scope)
        except KeyError:
            return Cursor(Scope(), self.view(Scope()).first)
        step = view.clamp(cursor.step)
        calls = len(view.by_step[step].reducer_calls) if step in view.by_step else 0
        call = None if cursor.call is None else max(0, min(cursor.call, calls))
        return replace(cursor, step=step, call=call)


def parse_guess(text: str) -> Any:
    """A learner's predicted value, as JSON or a Python literal; raises ValueError with a hint."""
    import ast

    text = text.strip()
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        raise ValueError("Write the value as JSON or a Python literal, e.g. ['a', 'b'] or 3 or 'text'.") from None


def _sets_item(item: MergeCall, index: int) -> bool:
    """Whether this reducer call put (or changed) the list item at `index`."""
    before, after = item.before, item.after
    if not isinstance(after, list) or index >= len(after):
        return False
    return not isinstance(before, list) or index >= len(before) or before[index] != after[index]


def check_guess(view: RunView, step: int, channel: str, guess: Any) -> tuple[bool, str]:
    """Whether the learner's guess equals the value after the merge; if not, which call made the difference."""
    calls = view.merge_by_channel(step).get(channel, [])
    if not calls:
        return False, f"{channel!r} was not written in step {step}."
    actual = decode(calls[-1].after)
    plain_actual = [short(x) for x in actual] if isinstance(actual, list) and actual and not isinstance(actual[0], (str, int, float)) else actual
    if guess == actual or guess == plain_actual:
        return True, f"Right: {channel!r} is {short(calls[-1].after, 120)} after the merge."
    culprit = calls[-1]
    if isinstance(actual, list) and isinstance(guess, list):
        index = next((i for i, (a, g) in enumerate(zip(actual, guess)) if a != g), min(len(actual), len(guess)))
        culprit = next((item for item in calls if _sets_item(item, index)), culprit)
    return False, (f"Not quite: {channel!r} is {short(calls[-1].after, 120)}. The difference comes from reducer call "
                   f"#{culprit.call.index} by {culprit.call.writer_name}: {culprit.sentence}.")
