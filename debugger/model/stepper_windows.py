"""The stepper's model of a run as its hosts send it: one window of steps around the step shown, built once
per window and kept with the run's `TraceView`. The Step-through page (`views/stepper.py`) and the notebook
widget (`debugger/notebook/`) both ask here, so a long run arrives in the same windows everywhere, and moving
within a window sends the same model again (the host builds nothing)."""

from __future__ import annotations

import weakref
from collections import OrderedDict
from typing import Any, Callable

from debugger import i18n
from debugger.model import stepper_data
from debugger.model.stepper_data import drawing_of, stepper_model
from debugger.model.trace_view import Scope, TraceView

KEPT_MODELS = 8
"""Models kept per run (windows, languages, learn mode): each is built in about 2 ms a step."""

_models: weakref.WeakKeyDictionary[TraceView, OrderedDict] = weakref.WeakKeyDictionary()


def window_start(index: int, count: int, window: int) -> int:
    """The first index of the window shown around step `index`: windows start on half-window boundaries,
    so moving within one sends the same model and the server builds nothing."""
    if count <= window:
        return 0
    half = window // 2
    return max(0, min((index // half) * half - half // 2, count - window))


def model_for(
    traced: TraceView,
    scope: Scope,
    step: int,
    *,
    collapsed: bool = False,
    learning: bool = False,
    guessed: set | frozenset = frozenset(),
    svg_of: Callable[[str], str] | None = None,
    errors_tab: bool = False,
) -> dict[str, Any]:
    """The stepper's model at `step`, its window built once and kept with the run. `svg_of` lays the drawing
    out (the page's cached graphviz call; default `html_report.drawing_svg`); a drawing it could not make
    ('') is tried again next time. `errors_tab`: the host is the page, whose Errors tab a failure points to."""
    view = traced.view(scope)
    count = len(view.steps)
    step = view.clamp(step) if count else 0
    index = view.steps.index(step) if count else 0
    window = stepper_data.WINDOW
    start = window_start(index, count, window)
    anchor = view.steps[start + window // 2] if count > window else step
    pending = view.findings_pending or view.visits_pending  # the model is built again once they are ready
    guesses = frozenset(guessed) if learning else frozenset()
    key = (scope, collapsed, learning, guesses, i18n.current(), start, pending, errors_tab)
    kept = _models.setdefault(traced, OrderedDict())
    model = kept.get(key)
    if model is None:
        drawing_key = ("drawing", scope, collapsed)
        drawing = kept.get(drawing_key) or drawing_of(view, collapsed=collapsed, svg_of=svg_of)
        if drawing[0]:
            kept[drawing_key] = drawing
        shown = {"collapsed": collapsed, "learning": learning, "guessed": guessed, "errors_tab": errors_tab}
        model = stepper_model(traced, scope, anchor, window=window, drawing=drawing, **shown)
        kept[key] = model
        while len(kept) > KEPT_MODELS:
            kept.popitem(last=False)
    kept.move_to_end(key)
    return {**model, "at": index, "at_step": step}
