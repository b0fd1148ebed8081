"""The main page: the graph at the selected superstep, the stepper, the timeline, and the step's panels."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import streamlit as st

from debugger import i18n
from debugger.i18n import N_, _
from debugger.model import learn, step_summary
from debugger.model.run_view import RunView
from debugger.model.trace_view import Cursor, Scope
from debugger.sources import forks as timetravel
from debugger.sources import runs as sources
from debugger.views import analysis_tabs, panels, session, widgets

TIMELINE_COLUMNS = 41
"""A longer run's timeline shows this many supersteps around the current one."""
TIMELINE_SHADED_COLUMNS, TIMELINE_SHADED_CELLS = 12, 400
"""Up to this size the current column is also shaded (its header always has ▶). pandas' Styler costs about
8 ms + 2.3 ms a column + 0.05 ms a cell on every rerun (100 ms for 41 columns, 300 ms for 200 x 23)."""
SLIDER_OPTIONS = 2_000
"""Up to this many steps the stepper is a select slider whose options carry the 🔎 marks; a longer run gets a
number slider (moved to the nearest step shown): each option, formatted, is sent to the browser on every
rerun (200,000 options cost 1.5 s of the server's time and megabytes to the browser)."""
FINDINGS_POLL = 1.0
"""How often (seconds) the page looks whether a long run's findings, computed in the background, are ready."""
LEGEND = N_(
    "▶ ran in this step · ▷ runs next · ✓ ran earlier · ✖ caused a failure · ⏸ asked (its interrupt() "
    "paused the run) · ⏹ never finished (the run stopped first) · bold edges: taken into this "
    "step · dashed edges: conditional · drag to pan, Ctrl+wheel or +/− to zoom"
)


def _go(step: int) -> None:
    """Moves to `step`; in learn mode its merge starts hidden, at the first call."""
    at = session.cursor()
    session.move(replace(at, step=step, call=0 if session.learning() else None))


def _on_first() -> None:
    _go(_view().first)


def _on_last() -> None:
    _go(_view().last)


def _on_prev() -> None:
    _go(_view().neighbour(session.cursor().step, -1))


def _on_next() -> None:
    _go(_view().neighbour(session.cursor().step, +1))


def _on_slider() -> None:
    _go(int(session.widget_value(session.STEP_SLIDER)))


def _view() -> RunView:
    run = session.loaded_run()
    return run.view.view(session.cursor().scope)


def _leave_scope() -> None:
    at = session.cursor()
    step = at.scope.path[-1][0]
    session.move(Cursor(at.scope.leave(), step, 0 if session.learning() else None))


def render() -> None:
    run = session.loaded_run()
    if run is None:
        st.info(_("Open a run from the sidebar."))
        return
    session.sync_url()
    error = session.recall(session.LINK_ERROR)
    if error:  # what a link named could not be opened: said where the eye is, not only in the sidebar
        widgets.open_error(*error)
    at = session.cursor()
    view = run.view.view(at.scope)
    step = at.step

    crumbs = run.view.breadcrumbs(at.scope)
    st.title(widgets.md(_(run.title) or run.label))
    if at.scope.path:
        left, right = st.columns([5, 1])
        left.markdown(_("Inside a subgraph: {path}").format(path=" › ".join(f"**{widgets.md(c)}**" for c in crumbs)))
        right.button(_("⤴ Back out"), key="leave_scope", on_click=_leave_scope, width="stretch")

    # the drawing is sent first and the stepper filled in above it right after: a new session sees its
    # graph without waiting for the stepper's findings marks (diagnose), and never grey buttons after it
    stepper = st.container()
    failed_at = view.failed_step
    if failed_at is not None and step > failed_at:
        st.warning(_("The run failed at step {step}; nothing after it ran.").format(step=failed_at))

    graph_col, side_col = st.columns([3, 2], gap="medium")
    with graph_col:
        collapsed = bool(session.widget_value(session.COLLAPSE_SUBGRAPHS))
        height = widgets.graph_chart(view.dot(step, collapsed=collapsed), large=len(view.drawing.nodes) > 12)
        if view.has_subgraphs:
            st.toggle(_("Collapse subgraphs"), key=session.COLLAPSE_SUBGRAPHS)
        st.caption(_(LEGEND))
    with stepper:
        _stepper(view, step)
        if view.findings_pending or view.visits_pending:  # a long run: its 🔎 and ✓ marks come later
            st.fragment(run_every=FINDINGS_POLL)(_findings_wait)(i18n.current())
    with side_col:
        # as tall as the drawing, scrolling inside: the tabs below stay in view on a 1280x800 screen
        with st.container(height=max(height, 260), border=False):
            if not at.scope.path and timetravel.fork_step_of(run.trace.target) == step:
                st.info(_("✎ Time travel edited a write of this step: the merge shows it going through the reducer."))
            _step_summary(view, at)
            if (run.lesson or run.code) and not at.scope.path:
                _lesson(run, view, at)

    panels.render_tabs(run, view, at)
    _timeline(view, step)
    run.view.drawn()  # a long run's findings start now: computed meanwhile, they would slow the page down


def _lesson(run, view: RunView, at: Cursor) -> None:
    """The sample's lesson and its code; in learn mode both are kept back until every merge has been
    guessed (they tell the answers: the code holds the lesson's text), its set-up shown instead."""
    if session.learning():
        guessed, total = learn.lesson_progress(view, session.guessed_calls(at.scope))
        if guessed < total:
            with st.expander(_("The lesson (kept back in learn mode)"), expanded=True):
                st.markdown(learn.prompt(sources.origin_target(run.trace.target) or run.label))
                st.caption(
                    _("{guessed} of {total} reducer calls guessed; the lesson appears once all are.").format(
                        guessed=guessed, total=total
                    )
                )
            return
    if run.lesson:
        with st.expander(_("The lesson"), expanded=True):
            st.markdown(_(run.lesson))  # the sample's own text, written as Markdown (its catalog's, in Chinese)
    if run.code:
        with st.expander(_("The code ({language})").format(language=CODE_LANGUAGES.get(run.language, run.language))):
            st.code(run.code, language=run.language, line_numbers=True)  # as the article writes it


CODE_LANGUAGES = {"python": "Python", "javascript": "JavaScript"}
"""A lesson's language as the code expander names it."""


def _stepper(view: RunView, step: int) -> None:
    cols = st.columns([1.8, 1.6, 3.8, 1.6, 1.8], vertical_alignment="bottom")
    cols[0].button(
        _("⏮ First"), key="first", on_click=_on_first, shortcut="Home", width="stretch", disabled=step == view.first
    )
    cols[1].button(
        _("◀ Prev"), key="prev", on_click=_on_prev, shortcut="Left", width="stretch", disabled=step == view.first
    )
    cols[3].button(
        _("Next ▶"), key="next", on_click=_on_next, shortcut="Right", width="stretch", disabled=step == view.last
    )
    cols[4].button(
        _("Last ⏭"), key="last", on_click=_on_last, shortcut="End", width="stretch", disabled=step == view.last
    )
    if len(view.steps) > SLIDER_OPTIONS:  # a number slider: every option of a select slider goes to the browser
        cols[2].slider(
            _("Superstep (🔎 marks: the Findings tab)"),
            min_value=view.first,
            max_value=view.last,
            key=session.STEP_SLIDER,
            on_change=_on_slider,
        )
    elif len(view.steps) > 1:  # after the buttons: its 🔎 marks wait for the findings, the buttons do not
        # in learn mode a 🔎 would tell which step goes wrong before the learner has guessed it
        marked = set() if session.learning() else {f.step for f in view.findings}
        input_label = _("input")  # here, not in the lambda: Streamlit may format the options in another thread
        cols[2].select_slider(
            _("Superstep"),
            options=view.steps,
            key=session.STEP_SLIDER,
            on_change=_on_slider,
            format_func=lambda s: (input_label if s < 0 else str(s)) + (" 🔎" if s in marked else ""),
        )
    else:
        cols[2].markdown(_("Superstep **{step}** (the only one)").format(step=step))


def _findings_wait(language: str) -> None:
    """Says that the run is still being checked; once its findings (and the nodes that ran before each step)
    are ready, reruns the page, which then shows them (marks, tab, summary). A fragment that reruns every
    `FINDINGS_POLL` seconds on its own: the rest of the page is not redrawn meanwhile. It speaks the page's
    language, given by the run that started it."""
    with i18n.using(language):
        run = session.loaded_run()
        view = None if run is None else run.view.view(session.cursor().scope)
        if view is None or not (view.findings_pending or view.visits_pending):
            st.rerun(scope="app")  # the whole page, so every part that shows them has them
        if view.findings_pending:
            st.caption("⏳ " + analysis_tabs.pending_line(len(run.view.view(Scope()).steps)))


def _step_summary(view: RunView, at: Cursor) -> None:
    """`debugger.model.step_summary`'s lines, each as the element its kind names."""
    for line in step_summary.summary(view, at, learning=session.learning()):
        if line.kind == "heading":
            st.subheader(line.text)
        elif line.kind == "caption":
            st.caption(line.text)
        elif line.kind == "bullet":
            st.markdown(f"- {line.text}")
        elif line.kind == "info":
            st.info(line.text)
        elif line.kind in ("warning", "lost"):
            st.warning(line.text, icon="⚠️")
        elif line.kind == "error":
            st.error(line.text, icon="🛑")
        elif line.kind == "finding":
            st.warning(line.text)
        else:
            st.markdown(line.text)


def _timeline(view: RunView, step: int) -> None:
    if not view.steps:
        return
    columns = [str(s) for s in view.steps]
    shown = ""
    if len(columns) > TIMELINE_COLUMNS:  # built from the window only: a 1,000-column frame costs 300 ms
        index = columns.index(str(step)) if str(step) in columns else 0
        first = max(0, min(index - TIMELINE_COLUMNS // 2, len(columns) - TIMELINE_COLUMNS))
        columns = columns[first : first + TIMELINE_COLUMNS]
        shown = _("; supersteps {first}–{last} of {count}").format(
            first=columns[0], last=columns[-1], count=len(view.steps)
        )
    timeline = st.expander(
        _(
            "Timeline: nodes × supersteps (● ran, ●×n ran n times, ✖ caused a failure, ○ ran in a failed step, "
            "⏹ never finished, ⏸ interrupted)"
        )
        + shown,
        key=session.TIMELINE_OPEN,
        on_change="rerun",
    )
    if not timeline.open:  # folded, its table is not built: a table costs the browser a second's work to show
        return
    rows = view.timeline
    frame = pd.DataFrame(
        [[row[c] for c in columns] for row in rows],
        columns=columns,
        index=pd.Index([row["node"] for row in rows], name="node"),
    )
    current = "input" if step < 0 else str(step)
    frame.columns = [("▶ " if c == str(step) else "") + ("input" if c == "-1" else c) for c in columns]
    failed_at = view.failed_step

    def style(column: pd.Series) -> list[str]:
        name = column.name.removeprefix("▶ ")
        if name == current:
            return ["background-color: #fff3b0; font-weight: bold"] * len(column)
        if failed_at is not None and name not in ("input",) and int(name) > failed_at:
            return ["color: #bbb"] * len(column)
        return [""] * len(column)

    with timeline:
        small = len(columns) <= TIMELINE_SHADED_COLUMNS and frame.size <= TIMELINE_SHADED_CELLS
        data = frame.style.apply(style, axis=0) if small else frame
        st.dataframe(data, width="stretch", height=min(38 + 35 * len(frame), 420))
