"""The Step-through page's stepper: the one front-end (`debugger/frontend/stepper.js`) as a bidirectional
Streamlit component (`st.components.v2`). It steps in the browser from the model it holds and reports each
move back (`step`), so the URL's `step=`, the tabs below and a reload follow it; the server only builds a
model again when something new is asked of the run (another window of a long run, learn mode, a guess).

The model of a run is built once per window and kept with the run's `TraceView`: a rerun after a step
sends the same model, with the step the page is at."""

from __future__ import annotations

import weakref
from collections import OrderedDict
from typing import Any, Callable

import streamlit as st

from debugger import i18n
from debugger.frontend import stepper_css, stepper_js
from debugger.model import stepper_data
from debugger.model.stepper_data import drawing_of, stepper_model
from debugger.model.trace_view import Scope, TraceView
from debugger.views import session, widgets

KEPT_MODELS = 8
"""Models kept per run (windows, languages, learn mode): each is built in about 2 ms a step."""

_component = st.components.v2.component("stepscope.stepper", js=stepper_js(), css=stepper_css(), isolate_styles=True)
_models: weakref.WeakKeyDictionary[TraceView, OrderedDict] = weakref.WeakKeyDictionary()


def window_start(index: int, count: int, window: int) -> int:
    """The first index of the window shown around step `index`: windows start on half-window boundaries,
    so moving within one sends the same model and the server builds nothing."""
    if count <= window:
        return 0
    half = window // 2
    return max(0, min((index // half) * half - half // 2, count - window))


def model_for(
    traced: TraceView, scope: Scope, step: int, *, collapsed: bool, learning: bool, guessed: set
) -> dict[str, Any]:
    """The stepper's model at `step`, its window built once and kept with the run."""
    view = traced.view(scope)
    count = len(view.steps)
    step = view.clamp(step) if count else 0
    index = view.steps.index(step) if count else 0
    window = stepper_data.WINDOW
    start = window_start(index, count, window)
    anchor = view.steps[start + window // 2] if count > window else step
    pending = view.findings_pending or view.visits_pending  # the model is built again once they are ready
    guesses = frozenset(guessed) if learning else frozenset()
    key = (scope, collapsed, learning, guesses, i18n.current(), start, pending)
    kept = _models.setdefault(traced, OrderedDict())
    model = kept.get(key)
    if model is None:
        drawing_key = ("drawing", scope, collapsed)
        drawing = kept.get(drawing_key) or drawing_of(view, collapsed=collapsed, svg_of=widgets.svg_or_failure)
        if drawing[0]:  # a drawing graphviz failed is tried again (and said again) on the next rerun
            kept[drawing_key] = drawing
        model = stepper_model(
            traced,
            scope,
            anchor,
            collapsed=collapsed,
            learning=learning,
            guessed=guessed,
            window=window,
            drawing=drawing,
        )
        kept[key] = model
        while len(kept) > KEPT_MODELS:
            kept.popitem(last=False)
    kept.move_to_end(key)
    return {**model, "at": index, "at_step": step, "panels": False}


def take_report(on_step: Callable[[int], None]) -> None:
    """Moves the page to the step the stepper reported (`{"step", "seq"}`, a new `seq` each move), once per
    report: the component's callback does it before the rerun, and the page's render again in case a report
    came without one (a test's AppTest sets the component's state as the browser does)."""
    move = (session.widget_value(session.STEPPER) or {}).get("move")
    if not isinstance(move, dict) or move.get("seq") == session.recall(session.STEPPER_SEEN):
        return
    session.remember(session.STEPPER_SEEN, move.get("seq"))
    if isinstance(move.get("step"), int) and not isinstance(move["step"], bool):
        on_step(move["step"])


def stepper(model: dict[str, Any], on_step: Callable[[int], None]) -> Any:
    """Mounts the stepper; `on_step(step)` runs (as a callback, before the rerun) when the user moved."""
    return _component(
        key=session.STEPPER, data=model, default={"move": None}, on_move_change=lambda: take_report(on_step)
    )
