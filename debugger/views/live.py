"""The Live run page: start a sample or a graph file in the background and watch it; breakpoints,
step mode, Pause / Step / Continue / Stop, the state at a pause and an edit box.

The run itself is a `debugger.live.LiveRun` kept in the session; this page only reads its snapshots
(`debugger/model/live_page.py` turns them into what is shown) and sends it commands from callbacks; what a
pause shows (the next tasks, the state, the edit and answer boxes) is `live_pause.py`'s. The part that
changes while a run goes is a fragment that reruns on its own every `POLL` seconds, so the rest of the
page does not; a step click reruns only that fragment too.
"""

from __future__ import annotations

from typing import Any

import pandas as pd
import streamlit as st

from debugger import i18n
from debugger.diagnostics.replay import Replay
from debugger.i18n import N_, _
from debugger.live import Breakpoints, LiveRun, LiveRunError, start_live_run
from debugger.model import live_page as live_view
from debugger.runtimes.run_options import FORM, read_json_option
from debugger.runtimes.runtime import RunSetupError
from debugger.runtimes.targets import TargetError, load_target
from debugger.sources.runs import Opened
from debugger.views import live_link, live_pause, session, widgets
from debugger.views.session import LoadedRun
from debugger.views.sidebar import sample_titles
from sample_graphs.gallery import SAMPLES

POLL = 0.4
"""Seconds between two looks at a running run."""
SHOWN, ERROR = "live_shown", "live_error"
FOLLOW, EDIT_NOTE = session.LIVE_FOLLOW, session.LIVE_EDIT_NOTE
RUN = session.LIVE_RUN
DEFAULT_SAMPLE = "slow_research"
LEGEND = N_(
    "⏳ running · ▶ done (or ran in this step) · ⏸ asked (its interrupt() waits for an answer) · ✖ failed · "
    "⏹ never finished (stopped) · ▷ runs next · "
    "✓ ran before · double purple border: breakpoint"
)


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
        session.remember(ERROR, "Name a graph file first: path/to/file.py[:attribute].")
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
                placeholder="path/to/file.py[:attribute] or package.module[:attribute]",
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
    elif name == "step":
        run.step()
        session.remember(FOLLOW, True)
    elif name == "continue":
        run.resume()
        session.remember(FOLLOW, True)


def _on_pick(steps: list[int]) -> None:
    wanted = session.widget_value("live_goto")
    session.remember(SHOWN, min(steps, key=lambda s: abs(s - wanted)) if steps and wanted is not None else None)
    session.remember(FOLLOW, False)


def _on_move(steps: list[int], offset: int) -> None:
    shown = session.recall(SHOWN)
    index = steps.index(shown) if shown in steps else len(steps) - 1
    session.remember(SHOWN, steps[max(0, min(index + offset, len(steps) - 1))])
    session.remember(FOLLOW, False)


def _on_follow() -> None:
    session.remember(FOLLOW, True)


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
    steps = live_view.timeline(snap.trace)
    step_ids = [s.step for s in steps]
    follow = session.recall(FOLLOW, True)
    shown = step_ids[-1] if step_ids and (follow or session.recall(SHOWN) not in step_ids) else session.recall(SHOWN)

    graph_col, side_col = st.columns([3, 2], gap="medium")
    with graph_col:
        drawing = live_view.drawing_of(snap.trace, None)
        if drawing is not None:
            light = live_view.highlight(snap, None if follow and _moving(snap) else shown)  # over: its last step
            widgets.graph_chart(live_view.live_dot(drawing, light, snap.breakpoints), large=len(drawing.nodes) > 12)
            st.caption(_(LEGEND))
    with side_col:
        if snap.pause is not None:
            live_pause.render(snap)
        elif snap.finished:
            _finished_panel(snap)
    _timeline(snap, steps, step_ids, shown, follow)


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


def _replay(snap) -> Replay:
    key = (snap.run_id, len(snap.trace.steps), snap.status)
    cached = session.recall("live_replay")
    if cached is None or cached[0] != key:
        cached = (key, Replay(snap.trace))
        session.remember("live_replay", cached)
    return cached[1]


def _timeline(snap, steps, step_ids: list[int], shown: int | None, follow: bool) -> None:
    if not steps:
        st.caption(_("No superstep has committed yet."))
        return
    labels = {s.step: live_view.step_label(s) for s in steps}
    # Buttons and a box the server never writes to: a widget whose value the page sets while the
    # fragment polls sends stale values back (a spurious change that stops following).
    cols = st.columns([1, 1.2, 3.4, 1, 1.6], vertical_alignment="bottom")
    cols[0].button(
        _("◀ Prev"),
        key="live_prev",
        on_click=_on_move,
        args=(step_ids, -1),
        width="stretch",
        disabled=shown == step_ids[0],
    )
    cols[1].number_input(_("Go to step"), key="live_goto", step=1, value=None, on_change=_on_pick, args=(step_ids,))
    cols[2].markdown(
        _("Superstep **{step}** · {count} so far").format(step=widgets.md(labels[shown]), count=len(step_ids))
    )
    cols[3].button(
        _("Next ▶"),
        key="live_next",
        on_click=_on_move,
        args=(step_ids, 1),
        width="stretch",
        disabled=shown == step_ids[-1],
    )
    if follow:
        cols[4].markdown(_("⏩ following the newest step"))
    else:
        cols[4].button(_("⏩ Follow the run"), key="live_follow_button", on_click=_on_follow, width="stretch")
    record = next(s for s in steps if s.step == shown)
    detail = live_view.step_detail(_replay(snap), record)
    what = _("a person's edit") if detail.kind == "update" else labels[shown].split(" ", 1)[1]
    title = _("Step {step}: {what}").format(step=detail.step, what=what)
    st.markdown(
        f"**{widgets.md(title)}**"
        + ("" if detail.committed else _(" — never committed: its writes never reached the state"))
    )
    if detail.tasks:
        st.dataframe(pd.DataFrame(detail.tasks), hide_index=True, width="stretch")
    if detail.calls:
        st.dataframe(pd.DataFrame([c.__dict__ for c in detail.calls]), hide_index=True, width="stretch")
    if detail.committed:
        with st.expander(_("State after this step")):
            widgets.value(detail.state_after, key=f"live_state_{detail.step}")
