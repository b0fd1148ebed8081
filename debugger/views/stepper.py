"""The Step-through page's stepper: the one front-end (`debugger/frontend/assets/stepper.js`) as a bidirectional
Streamlit component (`st.components.v2`). It steps in the browser from the model it holds and reports each
move back (`step`), so the URL's `step=`, the tabs below and a reload follow it; the server only builds a
model again when something new is asked of the run (another window of a long run, learn mode, a guess).

The model of a run is built once per window and kept with the run's `TraceView`: a rerun after a step
sends the same model, with the step the page is at.

A new browser session's first view of the page sends the stepper alone (`first_paint`): the browser's first
work is the graph, and the stepper says when it has drawn it (`drawn`), which reruns the page in full."""

from __future__ import annotations

from typing import Any, Callable

import streamlit as st

from debugger import frontend
from debugger.model import stepper_windows
from debugger.model.trace_view import Scope, TraceView
from debugger.views import session, widgets

_NAME = "stepscope.stepper"


def _serve_files() -> bool:
    """Makes the server serve debugger/frontend/assets/ as the stepper's asset folder (what a package's
    `[tool.streamlit.component]` `asset_dir` declares, said here so a checkout that is not installed works
    too), on the runtime running now: each rerun then sends the files' names, and the browser fetches them
    once a page load (the modules as they are, their imports from the same folder), where an inline module
    was 28 KB of every rerun's message. False where this Streamlit has no such registry (the component is
    then inline)."""
    try:
        from streamlit.components.v2.get_bidi_component_manager import get_bidi_component_manager
        from streamlit.components.v2.manifest_scanner import ComponentConfig, ComponentManifest

        manager = get_bidi_component_manager()
        if manager.get_component_asset_root(_NAME) is None:
            package, component = _NAME.split(".")
            manifest = ComponentManifest(package, "0", [ComponentConfig(component, asset_dir=".")])
            manager.register_from_manifest(manifest, frontend.FOLDER)
        return manager.get_component_asset_root(_NAME) is not None
    except Exception:  # another Streamlit's internals: the inline module still works, only larger
        return False


def _declared():
    files = _serve_files()
    js, css = (frontend.ENTRY, "stepper.css") if files else (frontend.stepper_js(), frontend.stepper_css())
    return st.components.v2.component(_NAME, js=js, css=css, isolate_styles=True), files


_component, _FILES = _declared()


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


def first_paint() -> bool:
    """Whether this run is a new browser session's first view of the open run's stepper, which is then sent
    alone: the tabs, the timeline, the sidebar's forms and a long run's findings follow once the stepper has
    drawn its graph (rendered in the same batch, they kept the browser's main thread from it for seconds on
    a loaded machine). Only a browser's stepper says it has drawn; a run with no browser behind it (AppTest)
    is the whole page at once."""
    if session.recall(session.STEPPER_DRAWN) or session.loaded_run() is None or not session.in_browser():
        return False
    if (session.widget_value(session.STEPPER) or {}).get("drawn"):  # said without its callback (a test)
        drawn()
        return False
    return True


def drawn() -> None:
    """Notes that this session's stepper has drawn: every later run of the page is whole at once."""
    session.remember(session.STEPPER_DRAWN, True)


def stepper(
    model: dict[str, Any], on_step: Callable[[int], None], key: str = session.STEPPER, *, report_drawn: bool = False
) -> Any:
    """Mounts the stepper; `on_step(step)` runs (as a callback, before the rerun) when the user moved. With
    `report_drawn` it says (its state `drawn`, a rerun) once the browser has painted its graph."""
    if _FILES:
        _serve_files()  # a new runtime (each AppTest has one) knows no asset folder yet
    return _component(
        key=key,
        data={**model, "report_drawn": True} if report_drawn else model,
        default={"move": None, "drawn": False},
        on_move_change=lambda: take_report(on_step, key),
        on_drawn_change=drawn,
    )
