"""The Live run page: start a sample or a graph file in the background and watch it; breakpoints,
step mode, Pause / Step / Continue / Stop, the state at a pause and an edit box.

The run itself is a `debugger.live.LiveRun` kept in the session; this page only reads its snapshots and
sends it commands from callbacks. Its steps are drawn by the one front-end stepper (`views/stepper.py`, the
Step-through page's), from the model `debugger/model/live_stepper.py` builds of the steps recorded so far:
it steps in the browser and grows as steps arrive. What a pause shows (why, the next tasks, the state, the
edit and answer boxes) is `live_pause.py`'s server widgets. The part that changes while a run goes is a
fragment that reruns on its own every `POLL` seconds, so the rest of the page does not.
"""

from __future__ import annotations

from typing import Any

import streamlit as st

from debugger import i18n
from debugger.i18n import N_, _
from debugger.live import Breakpoints, LiveRun, LiveRunError, start_live_run
from debugger.model import live_page as live_view
from debugger.model.live_stepper import LiveModels
from debugger.runtimes.run_options import FORM, read_json_option
from debugger.runtimes.runtime import RunSetupError
from debugger.runtimes.targets import TargetError, load_target
from debugger.sources.runs import Opened
from debugger.views import live_link, live_pause, session, stepper, widgets
from debugger.views.session import LoadedRun
from debugger.views.sidebar import sample_titles
from sample_graphs.gallery import SAMPLES

POLL = 0.4
"""Seconds between two looks at a running run."""
SHOWN, ERROR = session.LIVE_SHOWN, "live_error"
FOLLOW, EDIT_NOTE = session.LIVE_FOLLOW, session.LIVE_EDIT_NOTE
RUN = session.LIVE_RUN
STEPPER, MODELS, NEWEST = "live_stepper", "live_models", "live_newest"
"""The page's stepper (its component's key), its models (`LiveModels`, one run's) and the newest step it has."""
DEFAULT_SAMPLE = "slow_research"


# ---- starting a run ------------------------------------------------------------------------------


def _target_name() -> str:
    if session.widget_value("live_source", "Sample") == "Sample":
        return session.widget_value("live_sample") or DEFAULT_SAMPLE
    return (session.widget_value("live_file") or "").strip()


def _loaded(target: str) -> Any:
    """The target's LoadedTarget, loaded once per session and name (a file is re-read on Start)."""
    cache = session.recall("live_targets") or {}
    if target not in cache:
        cache[target] = load_target(target)
        session.remember("live_targets", cache)
    return cache[target]


def _breakpoints() -> Breakpoints:
    return Breakpoints.of(
        session.widget_value("live_before") or (),
        session.widget_value("live_after") or (),
        bool(session.widget_value("live_step_mode")),
    )


def _on_breakpoints() -> None:
    run: LiveRun | None = session.recall(RUN)
    if run is not None and not run.snapshot().finished:
        run.set_breakpoints(_breakpoints())


def _on_start() -> None:
    target = _target_name()
    session.remember(ERROR, None)
    if not target:
        session.remember(ERROR, _("Name a graph file first: path/to/file.py[:attribute]."))
        return
    try:
        cache = session.recall("live_targets") or {}
        cache.pop(target, None) if target.partition(":")[0].endswith(".py") else None
        session.remember("live_targets", cache)
        loaded = _loaded(target)
    except TargetError as exc:
        session.remember(ERROR, str(exc))
        return
    text = (session.widget_value("live_input") or "").strip()
    try:  # read as every form and command reads a run's input (run_options)
        graph_input = read_json_option(text, FORM.input, files=False) if text else loaded.example_input
    except RunSetupError as exc:
        session.remember(ERROR, str(exc))
        return
    try:
        run = start_live_run(
            loaded.graph, graph_input, loaded.example_config, target=target, breakpoints=_breakpoints()
        )
    except LiveRunError as exc:
        session.remember(ERROR, str(exc))
        return
    previous: LiveRun | None = session.recall(RUN)
    if previous is not None and not previous.snapshot().finished:
        previous.stop()  # one live run per page: the one it showed is stopped and stored
    session.remember(RUN, run)
    live_link.show(run)
    session.remember(FOLLOW, True)
    session.remember(SHOWN, None)
    session.remember(EDIT_NOTE, None)


def _start_panel(run: LiveRun | None) -> None:
    with st.expander(_("Start a live run"), expanded=run is None or run.snapshot().finished):
        source = st.radio(
            _("Run"),
            [N_("Sample"), N_("Graph file")],
            format_func=i18n.translator(),
            key="live_source",
            horizontal=True,
        )
        if source == "Sample":
            st.selectbox(
                _("Sample"),
                SAMPLES,
                key="live_sample",
                format_func=sample_titles(),
                index=SAMPLES.index(DEFAULT_SAMPLE) if DEFAULT_SAMPLE in SAMPLES else 0,
            )
        elif not widgets.typed_code_off():  # a graph file is code: off beyond loopback without --allow-code
            st.text_input(
                _("Path to the graph"),
                key="live_file",
                placeholder=_("path/to/file.py[:attribute] or package.module[:attribute]"),
            )
        st.text_area(_("Input (JSON; empty: the module's example_input)"), key="live_input", height=80)
        nodes: list[str] = []
        target = _target_name()
        if target:
            try:
                nodes = [n for n in _loaded(target).graph.nodes if n != "__start__"]
            except TargetError as exc:
                widgets.open_error(str(exc), exc.file, exc.line)
            else:
                names = i18n.join_names(f"`{widgets.code(n)}`" for n in nodes)
                st.caption(_("`{target}`: nodes {nodes}").format(target=widgets.code(target), nodes=names))
        cols = st.columns([2, 2, 1.2, 1], vertical_alignment="bottom")
        cols[0].multiselect(_("Pause before"), nodes, key="live_before", on_change=_on_breakpoints)
        cols[1].multiselect(_("Pause after"), nodes, key="live_after", on_change=_on_breakpoints)
        cols[2].checkbox(_("Step mode (pause before every superstep)"), key="live_step_mode", on_change=_on_breakpoints)
        cols[3].button(_("▶ Start"), key="live_start", on_click=_on_start, type="primary", width="stretch")
        if session.recall(ERROR):
            widgets.open_error(session.recall(ERROR))


# ---- commands ------------------------------------------------------------------------------------


def _command(name: str) -> None:
    run: LiveRun | None = session.recall(RUN)
    if run is None:
        return
    session.remember(EDIT_NOTE, None)
    if name == "stop":
        run.stop()
    elif name == "pause":
        run.pause()
    elif name == "step":  # the step shown stays (the newest, if that is where the user was), as the stepper's
        run.step()
    elif name == "continue":
        run.resume()


def _on_step(step: int) -> None:
    """The stepper moved to `step` (a callback): the page shows it, following the run while it is the newest."""
    session.remember(SHOWN, step)
    session.remember(FOLLOW, step == session.recall(NEWEST))


def _on_open_step_page() -> None:
    run: LiveRun | None = session.recall(RUN)
    snap = run.snapshot() if run is not None else None
    if snap is None or snap.trace is None:
        return
    opened = Opened(
        snap.trace, "stored", snap.run_id, run.graph, "", snap.trace.target or run.target, run.graph_input, run.config
    )
    session.set_run(LoadedRun.of(opened))
    session.request_step_page()


# ---- the live part -------------------------------------------------------------------------------


def render() -> None:
    session.follow_step_page_request()
    st.title(_("Live run"))
    live_link.missing_note()
    run: LiveRun | None = session.recall(RUN)
    _start_panel(run)
    if run is None:
        st.info(
            _(
                "Start a run above: it goes on in the background while this page follows it. "
                "Set breakpoints or step mode to pause it, look at the state the next nodes will read, "
                "edit it and continue."
            )
        )
        return
    polling = _moving(run.snapshot())
    session.remember("live_polling", polling)
    st.fragment(run_every=POLL if polling else None)(_live_panel)()


def _moving(snap) -> bool:
    """Whether the page has to look again by itself: not at a pause (nothing changes until the user
    acts, and an edit box must not be rerun under the user's typing) and not once the run is over."""
    return snap.status in ("starting", "running", "stopping")


def _live_panel() -> None:
    # its buttons (Open in Step through) rerun only this fragment, never render() and its check
    session.follow_step_page_request()
    run: LiveRun = session.recall(RUN)
    snap = run.snapshot()
    if _moving(snap) != session.recall("live_polling"):
        st.rerun(scope="app")  # start or stop polling: the run paused, went on or ended

    _status(snap)
    _controls(snap)
    stepper.take_report(_on_step, STEPPER)
    model = _model(run, snap)
    graph_col, side_col = st.columns([3, 2], gap="medium")
    with graph_col:
        if model is None:
            st.caption(_("No superstep has committed yet."))
        else:
            stepper.stepper(model, _on_step, STEPPER)
    with side_col.container(key="live_side"):  # the pause panel, or how the run ended
        if snap.pause is not None:
            live_pause.render(snap)
        elif snap.finished:
            _finished_panel(snap)
    session.write_live_url(snap.run_id, model["at_step"] if model is not None else None)


def _model(run: LiveRun, snap) -> dict | None:
    """The stepper's model of the run at the step shown (the newest while following), built once a step."""
    models: LiveModels | None = session.recall(MODELS)
    if models is None or models.run_id != snap.run_id:
        models = LiveModels(snap.run_id)
        session.remember(MODELS, models)
    follow = session.recall(FOLLOW, True)
    model = models.model(snap, run.graph, None if follow else session.recall(SHOWN), svg_of=widgets.svg_or_failure)
    if model is not None:
        session.remember(NEWEST, model["numbers"][-1])
    return model


def _status(snap) -> None:
    line = widgets.md(live_view.status_line(snap))  # starts with its own symbol; holds node names
    if snap.status in ("error", "recursion_limit", "timeout"):
        st.error(line)
    elif snap.status == "paused":
        st.warning(line)
    elif snap.status == "done":
        st.success(line)
    else:
        st.info(line)


def _controls(snap) -> None:
    finished = snap.finished
    paused = snap.status == "paused" and not (
        snap.pause is not None and snap.pause.interrupts
    )  # a question needs an answer
    buttons = (  # label, command, disabled, help
        (_("⏸ Pause"), "pause", finished or snap.status == "paused", None),
        (_("⏭ Step"), "step", not paused, _("Run exactly one superstep, then pause again.")),
        (_("▶ Continue"), "continue", not paused, _("Run to the next breakpoint or the end.")),
        (_("⏹ Stop"), "stop", finished, _("End the run now; what was recorded is kept and stored.")),
    )
    for column, (label, command, disabled, help_text) in zip(st.columns(len(buttons)), buttons):
        column.button(
            label,
            key=f"live_{command}",
            on_click=_command,
            args=(command,),
            width="stretch",
            disabled=disabled,
            help=help_text,
        )


def _finished_panel(snap) -> None:
    st.subheader(_("The run is over"))  # how it ended is in the status line above
    if snap.stored:
        st.caption(
            _("Stored as run {run} in {store}: the Stored runs page reopens it.").format(
                run=widgets.md(snap.run_id[:12]), store=widgets.md(snap.stored)
            )
        )
    st.button(_("Open in Step through"), key="live_open", on_click=_on_open_step_page, type="primary")
    if snap.trace is not None and snap.status != "cancelled":
        with st.expander(_("Final state"), expanded=True):
            widgets.value(snap.trace.output, key="live_final_state")
