"""The main page: the graph at the selected superstep, the stepper, the timeline, and the step's panels."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import streamlit as st

from debugger import i18n
from debugger.i18n import _
from debugger.model import learn
from debugger.model.report_data import plain
from debugger.model.run_view import RunView
from debugger.model.trace_view import Cursor, Scope
from debugger.sources import forks as timetravel
from debugger.sources import runs as sources
from debugger.views import analysis_tabs, panels, session, sidebar, stepper, widgets
from sample_graphs.gallery import JS_LESSONS, SAMPLES, sample_info

TIMELINE_COLUMNS = 41
"""A longer run's timeline shows this many supersteps around the current one."""
TIMELINE_SHADED_COLUMNS, TIMELINE_SHADED_CELLS = 12, 400
"""Up to this size the current column is also shaded (its header always has ▶). pandas' Styler costs about
8 ms + 2.3 ms a column + 0.05 ms a cell on every rerun (100 ms for 41 columns, 300 ms for 200 x 23)."""
FINDINGS_POLL = 1.0
"""How often (seconds) the page looks whether a long run's findings, computed in the background, are ready."""
DRAWN_WAIT = 3.0
"""After this many seconds a new session's page is shown in full even if its stepper never said it had drawn."""


def _go(step: int) -> None:
    """Moves to `step`; in learn mode its merge starts hidden, at the first call."""
    at = session.cursor()
    session.move(replace(at, step=step, call=0 if session.learning() else None))


def _view() -> RunView:
    run = session.loaded_run()
    return run.view.view(session.cursor().scope)


def _leave_scope() -> None:
    at = session.cursor()
    step = at.scope.path[-1][0]
    session.move(Cursor(at.scope.leave(), step, 0 if session.learning() else None))


def _unopened_lesson(name: str) -> None:
    """A JavaScript lesson's page where it cannot run: its title, what to install (the link error) and its
    Python twin one click away; the URL stays the lesson's, so a reload opens it once it is installed."""
    twin = JS_LESSONS.get(name) or name  # a Python sample named with runtime=js: itself
    if twin in SAMPLES:
        st.title(widgets.md(_(sample_info(twin).title)) + " · JavaScript")
    error = session.recall(session.LINK_ERROR)
    if error:
        widgets.open_error(*error)
    if twin in SAMPLES:
        st.button(
            _("Open the Python lesson instead"),
            key="open_python_twin",
            on_click=sidebar.open_and_show,
            args=(lambda: sources.open_lesson(twin, ""),),
        )


def render() -> None:
    run = session.loaded_run()
    if run is None:
        unopened = session.recall(session.UNOPENED_LESSON)
        if unopened:
            _unopened_lesson(unopened[1])
        else:
            st.info(_("Open a run from the sidebar."))
        return
    stepper.take_report(_go)
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

    failed_at = view.failed_step
    if failed_at is not None and step > failed_at:
        st.warning(_("The run failed at step {step}; nothing after it ran.").format(step=failed_at))
    first_paint = stepper.first_paint()
    stepper.stepper(_stepper_model(run, view, at), _go, report_drawn=first_paint)
    if first_paint:  # the rest follows the stepper's word that its graph is on screen
        return
    if view.has_subgraphs:
        st.toggle(_("Collapse subgraphs"), key=session.COLLAPSE_SUBGRAPHS)
    if view.findings_pending or view.visits_pending:  # a long run: its findings and ✓ marks come later
        st.fragment(run_every=FINDINGS_POLL)(_findings_wait)(i18n.current())
    if not at.scope.path and timetravel.fork_step_of(run.trace.target) == step:
        st.info(_("✎ Time travel edited a write of this step: the merge shows it going through the reducer."))
    if not at.scope.path:
        _code(run)

    panels.render_tabs(run, view, at)
    _timeline(view, step)
    run.view.drawn()  # a long run's findings start now: computed meanwhile, they would slow the page down


def _stepper_model(run, view: RunView, at: Cursor) -> dict:
    """The stepper's model at the cursor, with the lesson beside it; in learn mode without the 🔎 marks."""
    learning = session.learning()
    model = stepper.model_for(
        run.view,
        at.scope,
        at.step,
        collapsed=bool(session.widget_value(session.COLLAPSE_SUBGRAPHS)),
        learning=learning,
        guessed=session.guessed_calls(at.scope) if learning else set(),
    )
    model = {**model, "aside": _lesson_aside(run, view, at)}
    if learning:  # a 🔎 would tell which step goes wrong before the learner has guessed it
        model = {**model, "findings": [], "marked": []}
    return model


def _lesson_aside(run, view: RunView, at: Cursor) -> list[dict[str, str]]:
    """The sample's lesson, for the stepper to show beside the step's summary; in learn mode it is kept
    back until every merge has been guessed (it tells the answers), its set-up shown instead."""
    if at.scope.path:
        return []
    if session.learning():
        guessed, total = learn.lesson_progress(view, session.guessed_calls(at.scope))
        if guessed < total:
            caption = _("{guessed} of {total} reducer calls guessed; the lesson appears once all are.")
            return [
                {
                    "title": _("The lesson (kept back in learn mode)"),
                    "text": plain(learn.prompt(sources.origin_target(run.trace.target) or run.label)),
                    "caption": caption.format(guessed=guessed, total=total),
                }
            ]
    # the sample's own text, written as Markdown (its catalog's, in Chinese): the stepper shows its words
    return [{"title": _("The lesson"), "text": plain(_(run.lesson)), "caption": ""}] if run.lesson else []


def _code(run) -> None:
    """The lesson's code, folded; in learn mode kept back with the lesson (the code holds its text)."""
    if not run.code or session.loaded_run() is None:
        return
    at = session.cursor()
    if session.learning():
        guessed, total = learn.lesson_progress(run.view.view(at.scope), session.guessed_calls(at.scope))
        if guessed < total:
            return
    language = CODE_LANGUAGES.get(run.language, run.language)
    code = st.expander(_("The code ({language})").format(language=language), key=session.CODE_OPEN, on_change="rerun")
    if not code.open:  # folded, it is not built: highlighting it cost the browser 0.3-0.6 s of a new page's first paint
        return
    with code:
        st.code(run.code, language=run.language, line_numbers=True)  # as the article writes it


CODE_LANGUAGES = {"python": "Python", "javascript": "JavaScript"}
"""A lesson's language as the code expander names it."""


def first_paint_sidebar() -> None:
    """The sidebar of a new session's first paint (`stepper.first_paint`): the pages' links only (the sidebar
    is there, so the page does not narrow when its forms come), and the wait for the stepper's word."""
    with st.sidebar:
        st.fragment(run_every=DRAWN_WAIT)(_drawn_wait)()


def _drawn_wait() -> None:
    """A fragment of the first paint that, on its first tick after `DRAWN_WAIT` seconds, shows the whole page
    (a stepper that never says it has drawn, its script failing in the browser, must not hide the tabs)."""
    if session.recall(session.DRAWN_WAITED):
        stepper.drawn()
        st.rerun(scope="app")
    session.remember(session.DRAWN_WAITED, True)


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
