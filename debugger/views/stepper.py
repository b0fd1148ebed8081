"""The Step-through page's stepper: the one front-end (`debugger/frontend/stepper.js`) as a bidirectional
Streamlit component (`st.components.v2`). It steps in the browser from the model it holds and reports each
move back (`step`), so the URL's `step=`, the tabs below and a reload follow it; the server only builds a
model again when something new is asked of the run (another window of a long run, learn mode, a guess).

The model of a run is built once per window and kept with the run's `TraceView`: a rerun after a step
sends the same model, with the step the page is at."""

from __future__ import annotations

from typing import Any, Callable

import streamlit as st

from debugger.frontend import stepper_css, stepper_js
from debugger.model import stepper_windows
from debugger.model.trace_view import Scope, TraceView
from debugger.views import session, widgets

_component = st.components.v2.component("stepscope.stepper", js=stepper_js(), css=stepper_css(), isolate_styles=True)


def model_for(
    traced: TraceView, scope: Scope, step: int, *, collapsed: bool, learning: bool, guessed: set
) -> dict[str, Any]:
    """The stepper's model at `step` (`stepper_windows.model_for`, its window kept with the run), laid out by
    the page's cached graphviz call; the page's tabs show the tables, so the stepper shows none."""
    model = stepper_windows.model_for(
        traced,
        scope,
        step,
        collapsed=collapsed,
        learning=learning,
        guessed=guessed,
        svg_of=widgets.svg_or_failure,
        errors_tab=True,
    )
    return {**model, "panels": False}


def take_report(on_step: Callable[[int], None], key: str = session.STEPPER) -> None:
    """Moves the page to the step the stepper reported (`{"step", "seq"}`, a new `seq` each move), once per
    report: the component's callback does it before the rerun, and the page's render again in case a report
    came without one (a test's AppTest sets the component's state as the browser does). `key`: the
    stepper's, where a page has its own (the Live run page)."""
    move = (session.widget_value(key) or {}).get("move")
    seen = f"{key}_seen"  # session.STEPPER_SEEN for the Step-through page's
    if not isinstance(move, dict) or move.get("seq") == session.recall(seen):
        return
    session.remember(seen, move.get("seq"))
    if isinstance(move.get("step"), int) and not isinstance(move["step"], bool):
        on_step(move["step"])


def stepper(model: dict[str, Any], on_step: Callable[[int], None], key: str = session.STEPPER) -> Any:
    """Mounts the stepper; `on_step(step)` runs (as a callback, before the rerun) when the user moved."""
    return _component(key=key, data=model, default={"move": None}, on_move_change=lambda: take_report(on_step, key))
