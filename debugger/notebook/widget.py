"""The notebook widget: the stepper of the page and the HTML file (`debugger/frontend/assets/stepper.js`, the same
module, no copy) as an anywidget, so JupyterLab, Notebook 7, VS Code and marimo show it, offline. Its `step`
is a trait: `w.step = 3` moves it, stepping in the browser sets it. A long run is sent in the page's
windows of steps (`stepper_windows`): a step outside the window the browser holds sends that window."""

from __future__ import annotations

from typing import Any

import anywidget
import traitlets

from debugger import i18n
from debugger.frontend import stepper_css, stepper_js
from debugger.i18n import _
from debugger.model import stepper_windows
from debugger.model.html_report import ReportError, drawing_svg, status_line
from debugger.model.report_data import plain
from debugger.model.trace_view import Scope, TraceView
from debugger.notebook.opening import Shown
from debugger.notebook.recorded_run import RecordedRun


class StepperWidget(anywidget.AnyWidget):
    """One recorded run, stepped through in the notebook; `run` is the same run for code."""

    _esm = stepper_js()
    _css = stepper_css()
    data = traitlets.Dict().tag(sync=True)
    """The stepper's model (`stepper_windows.model_for`): the drawing once, one window of steps."""
    step = traitlets.Int(0).tag(sync=True)
    """The superstep shown (-1: the input); set it to move the widget."""

    def __init__(self, shown: Shown, *, step: int | None = None, language: str | None = None) -> None:
        self._traced = TraceView(shown.trace, shown.graph)
        self._view = self._traced.view(Scope())
        self._shown = shown
        self._language = language or i18n.current()
        self._drawing_failed = ""
        start = self._view.clamp(step) if step is not None and self._view.steps else self._first_to_see()
        super().__init__(data=self._model(start), step=start if self._view.steps else 0)

    def _first_to_see(self) -> int:
        """Where the run went wrong (its failed step, else the first step with a finding), else its opening step."""
        if self._view.failed_step is not None:
            return self._view.failed_step
        found = sorted(f.step for f in self._traced.findings if f.step in self._view.by_step and not f.scope)
        return found[0] if found else self._view.opening_step

    @property
    def run(self) -> RecordedRun:
        """The run this widget shows: its steps, merges, states and findings, as Python values."""
        return RecordedRun(self._traced)

    @traitlets.validate("step")
    def _valid_step(self, proposal: dict[str, Any]) -> int:
        """A step the run has: a number past either end is its first or last step (as the slider's ends)."""
        value = proposal["value"]
        return self._view.clamp(value) if self._view.steps else 0

    @traitlets.observe("step")
    def _moved(self, change: dict[str, Any]) -> None:
        """A step outside the window the browser holds: send the window around it (the page does the same)."""
        window = self.data.get("window") or {}
        index = self._view.steps.index(change["new"]) if self._view.steps else 0
        offset, held = window.get("offset", 0), len(window.get("steps") or [])
        if not offset <= index < offset + held:
            self.data = self._model(change["new"])

    def _svg(self, dot: str) -> str:
        try:
            return drawing_svg(dot)
        except ReportError as exc:  # graphviz missing or failed: the steps still show, the line says why
            self._drawing_failed = str(exc)
            return ""

    def _model(self, step: int) -> dict[str, Any]:
        with i18n.using(self._language):
            model = stepper_windows.model_for(self._traced, Scope(), step, svg_of=self._svg)
            line = status_line(self._shown.trace)
            aside = [{"title": _("The lesson"), "text": plain(_(self._shown.lesson)), "caption": ""}]
        return {
            **model,
            "status_line": " · ".join(filter(None, [self._shown.title, line, self._drawing_failed])),
            "status_kind": "error" if self._shown.trace.error or self._drawing_failed else "",
            "aside": aside if self._shown.lesson else [],
        }

    def __repr__(self) -> str:
        return f"<StepScope {self._shown.title!r}: step {self.step} of {self.run!r}>"
