"""The whole recorded trace as the app walks it: `TraceView` hands out a `RunView` (`run_view.py`) for the
root run or a subgraph's run entered from a task (`Scope`), computes the run's findings once per language
(a long run's in the background, `debugger.model.background`), and keeps the `Cursor` (what the user is
looking at) within the trace. Imports no Streamlit."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field, replace
from typing import Any

from debugger import i18n
from debugger.diagnostics import Finding, diagnose
from debugger.diagnostics.facts import scope_label
from debugger.model import background as bg
from debugger.model.run_view import RunView
from engine.trace import RunRecord, Trace


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


class TraceView:
    """A Trace plus the scope the user has entered; hands out `RunView`s (cached). `graph` is the live
    compiled graph when the run came from code (it lends diagnose its static checks and reducers)."""

    def __init__(self, trace: Trace, graph: Any = None, *, background: bool = False) -> None:
        self.trace = trace
        self.graph = graph
        self._views: dict[Scope, RunView] = {}
        self.findings_by_language: dict[str, list[Finding]] = {}
        """`findings`, once computed, by the language they were written in."""
        self._drawn = threading.Event() if background else None
        """Set by the page once drawn (`drawn`): the threads wait for it before they compete with the page."""
        self._later: bg.Background[list[Finding]] | None = (
            bg.shared(
                getattr(trace.steps, "identity", None) if graph is None else None,  # a live graph is this session's
                lambda: bg.Background(self._diagnose, "stepscope-findings", after=self._drawn),
            )
            if background
            else None
        )
        """The app's view of a run (`background=True`) computes a long run's findings in a thread of their own
        (`debugger.model.background`); a report or a command wants them all, at once."""

    def drawn(self) -> None:
        """The page is drawn: work left for the background may start now (it waits `HEAD_START` at most)."""
        if self._drawn is not None:
            self._drawn.set()

    def _diagnose(self) -> list[Finding]:
        return diagnose(self.graph, self.trace)

    @property
    def findings(self) -> list[Finding]:
        """`stepscope diagnose`'s findings for this run: the same call, so the same words and fixes (in the
        current language; computed once for each). Empty while a long run's are still being computed."""
        found = self.findings_if_ready()
        return [] if found is None else found

    def findings_if_ready(self) -> list[Finding] | None:
        """The findings, or None while they are computed in the background: a long run's in the app (more
        than `bg.LONG_RUN_STEPS` steps; the first ask starts the thread and returns at once)."""
        language = i18n.current()
        if language not in self.findings_by_language:
            if self._later is None or len(self.trace.steps) <= bg.LONG_RUN_STEPS:
                self.findings_by_language[language] = self._diagnose()
            else:
                found = self._later.get(language)
                if found is None:
                    return None
                self.findings_by_language[language] = found
        return self.findings_by_language[language]

    @property
    def findings_pending(self) -> bool:
        """The findings are still being computed in the background (in the current language)."""
        return self.findings_if_ready() is None

    def run_at(self, scope: Scope) -> RunRecord:
        run: RunRecord = self.trace
        for step, task_id, index in scope.path:
            task = next((t for s in run.steps if s.step == step for t in s.tasks if t.id == task_id), None)
            if task is None or index >= len(task.subgraphs):
                raise KeyError(f"no subgraph run at step {step}, task {task_id}")
            run = task.subgraphs[index]
        return run

    def labels(self, scope: Scope) -> tuple[str, ...]:
        """The scope as diagnose names it (`("child@2",)`)."""
        run: RunRecord = self.trace
        labels = []
        for step, task_id, index in scope.path:
            task = next(t for s in run.steps if s.step == step for t in s.tasks if t.id == task_id)
            labels.append(scope_label(task.name, step, index))
            run = task.subgraphs[index]
        return tuple(labels)

    def scope_of(self, labels: tuple[str, ...]) -> Scope | None:
        """The app's scope for a finding's scope labels (None if the trace has no such run)."""
        scope, run = Scope(), self.trace
        for label in labels:
            found = next(
                (
                    (s.step, t, i)
                    for s in run.steps
                    for t in s.tasks
                    for i in range(len(t.subgraphs))
                    if scope_label(t.name, s.step, i) == label
                ),
                None,
            )
            if found is None:
                return None
            step, task, index = found
            scope, run = scope.enter(step, task.id, index), task.subgraphs[index]
        return scope

    def view(self, scope: Scope) -> RunView:
        if scope not in self._views:
            run = self.run_at(scope)
            labels = self.labels(scope)

            def mine() -> tuple[Finding, ...] | None:
                found = self.findings_if_ready()
                return None if found is None else tuple(f for f in found if f.scope == labels and f.step is not None)

            graph = self.graph if not scope.path else None
            self._views[scope] = RunView(run, graph=graph, findings=mine, background=self._drawn)
        return self._views[scope]

    def breadcrumbs(self, scope: Scope) -> list[str]:
        names = [self.trace.target or self.trace.graph.get("name") or "graph"]
        run: RunRecord = self.trace
        for step, task_id, index in scope.path:
            task = next(t for s in run.steps if s.step == step for t in s.tasks if t.id == task_id)
            names.append(i18n._("{node} (step {step})").format(node=task.name, step=step))
            run = task.subgraphs[index]
        return names

    def valid(self, cursor: Cursor) -> Cursor:
        """The nearest cursor that exists (a link may name a step or scope that is not there)."""
        try:
            view = self.view(cursor.scope)
        except KeyError:
            return Cursor(Scope(), self.view(Scope()).opening_step)
        step = view.clamp(cursor.step)
        calls = len(view.by_step[step].reducer_calls) if step in view.by_step else 0
        call = None if cursor.call is None else max(0, min(cursor.call, calls))
        return replace(cursor, step=step, call=call)
