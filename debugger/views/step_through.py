"""The main page: the graph at the selected superstep, the stepper, the timeline, and the step's panels."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import streamlit as st

from debugger import run_status, session, timetravel
from debugger.model import Cursor, RunView
from debugger.views import panels, widgets

TIMELINE_COLUMNS = 41
"""A longer run's timeline shows this many supersteps around the current one."""
TIMELINE_SHADED_COLUMNS, TIMELINE_SHADED_CELLS = 12, 400
"""Up to this size the current column is also shaded (its header always has ▶). pandas' Styler costs about
8 ms + 2.3 ms a column + 0.05 ms a cell on every rerun (100 ms for 41 columns, 300 ms for 200 x 23)."""
SUMMARY_TASKS = 4
"""The step summary explains this many tasks; the tabs list them all."""
LEGEND = (
    "▶ ran in this step · ▷ runs next · ✓ ran earlier · ✖ caused a failure · ⏹ never finished (the run "
    "stopped first) · bold edges: taken into this "
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
        st.info("Open a run from the sidebar.")
        return
    session.sync_url()
    at = session.cursor()
    view = run.view.view(at.scope)
    step = at.step

    crumbs = run.view.breadcrumbs(at.scope)
    st.title(widgets.md(run.title or run.label))
    if at.scope.path:
        left, right = st.columns([5, 1])
        left.markdown("Inside a subgraph: " + " › ".join(f"**{widgets.md(c)}**" for c in crumbs))
        right.button("⤴ Back out", key="leave_scope", on_click=_leave_scope, width="stretch")

    _stepper(view, step)

    failed_at = view.failed_step
    if failed_at is not None and step > failed_at:
        st.warning(f"The run failed at step {failed_at}; nothing after it ran.")

    graph_col, side_col = st.columns([3, 2], gap="medium")
    with graph_col:
        collapsed = bool(session.widget_value(session.COLLAPSE_SUBGRAPHS))
        height = widgets.graph_chart(view.dot(step, collapsed=collapsed), large=len(view.drawing.nodes) > 12)
        if view.has_subgraphs:
            st.toggle("Collapse subgraphs", key=session.COLLAPSE_SUBGRAPHS)
        st.caption(LEGEND)
    with side_col:
        # as tall as the drawing, scrolling inside: the tabs below stay in view on a 1280x800 screen
        with st.container(height=max(height, 260), border=False):
            if not at.scope.path and timetravel.fork_step_of(run.trace.target) == step:
                st.info("✎ Time travel edited a write of this step: the merge shows it going through the reducer.")
            _step_summary(view, at)
            if run.lesson and not at.scope.path:
                with st.expander("The lesson", expanded=True):
                    st.markdown(run.lesson)  # the sample's own text, written as Markdown
            if run.code and not at.scope.path:
                with st.expander(f"The code ({CODE_LANGUAGES.get(run.language, run.language)})"):
                    st.code(run.code, language=run.language, line_numbers=True)  # as the article writes it

    panels.render_tabs(run, view, at)
    _timeline(view, step)


CODE_LANGUAGES = {"python": "Python", "javascript": "JavaScript"}
"""A lesson's language as the code expander names it."""


def _stepper(view: RunView, step: int) -> None:
    cols = st.columns([1.8, 1.6, 3.8, 1.6, 1.8], vertical_alignment="bottom")
    cols[0].button(
        "⏮ First", key="first", on_click=_on_first, shortcut="Home", width="stretch", disabled=step == view.first
    )
    cols[1].button(
        "◀ Prev", key="prev", on_click=_on_prev, shortcut="Left", width="stretch", disabled=step == view.first
    )
    if len(view.steps) > 1:
        marked = {f.step for f in view.findings}
        cols[2].select_slider(
            "Superstep",
            options=view.steps,
            key=session.STEP_SLIDER,
            on_change=_on_slider,
            format_func=lambda s: ("input" if s < 0 else str(s)) + (" 🔎" if s in marked else ""),
        )
    else:
        cols[2].markdown(f"Superstep **{step}** (the only one)")
    cols[3].button(
        "Next ▶", key="next", on_click=_on_next, shortcut="Right", width="stretch", disabled=step == view.last
    )
    cols[4].button("Last ⏭", key="last", on_click=_on_last, shortcut="End", width="stretch", disabled=step == view.last)


def _step_summary(view: RunView, at: Cursor) -> None:
    step = at.step
    tasks = view.tasks(step)
    label = "the input" if step < 0 else f"step {step}"
    unfinished = view.unfinished(step)
    stopped = ", ".join(f"**{widgets.md(view.label(t))}**" for t in tasks if t.id in unfinished)
    tasks = [t for t in tasks if t.id not in unfinished]  # the ones that ran
    names = ", ".join(f"**{widgets.md(view.label(t))}**" for t in tasks) or "no task"
    st.subheader(f"Superstep {step}" if step >= 0 else "Input")
    record = view.by_step.get(step)
    if record is not None and record.kind == "update":  # an edit made at a pause of a live run
        writers = ", ".join(sorted({c.writer_name for c in record.reducer_calls}))
        st.markdown(
            f"In {label}, **a person edited the state** at a pause of a live run, as **{widgets.md(writers)}**: "
            "no node ran; the values went through the reducers as that node's write (`update_state`)."
        )
    elif stopped:
        ran = f"{names} ran" + (" (in parallel)" if len(tasks) > 1 else "") + "; " if tasks else ""
        st.markdown(f"In {label}, {ran}{stopped} never finished: the run stopped first, so the step never committed.")
    else:
        st.markdown(f"In {label}, {names} ran" + (" (in parallel)." if len(tasks) > 1 else "."))
    if any(t.name == "__start__" for t in tasks):
        st.caption(f"Step {step} is the hidden `__start__` task: it writes the graph input through the reducers.")
    elif not tasks and not stopped and step >= 0 and (record is None or record.kind != "update"):
        st.caption(
            f"No node ran in step {step}: it is a saved checkpoint (where a resumed run picked up its thread, or a "
            "state update), not a superstep of nodes."
        )
    triggers = [t for t in view.triggers(step) if t.task != "__start__"]
    for trigger in triggers[:SUMMARY_TASKS]:
        st.markdown(f"- {widgets.md(trigger.sentence())}")
    if len(triggers) > SUMMARY_TASKS:
        st.markdown(f"- … and {len(triggers) - SUMMARY_TASKS} more (see the Tasks tab)")
    merges = view.merge(step)
    committed = view.committed(step)
    if merges and committed:
        channels = sorted({m.call.channel for m in merges})
        st.markdown(
            f"The barrier applied **{len(merges)}** write{'s' if len(merges) != 1 else ''} to "
            + ", ".join(f"`{widgets.code(c)}`" for c in channels)
            + "."
        )
    elif merges:
        st.markdown(
            f"The barrier applied **none** of the {len(merges)} writes: the step failed, the state is unchanged."
        )
    hidden = session.learning() and at.call is not None
    duplicated = [m for m in merges if m.repeats]
    if duplicated and not hidden:
        st.warning(
            f"`{widgets.code(duplicated[0].call.channel)}` now holds items twice: "
            f"{widgets.md(duplicated[0].sentence)}.",
            icon="⚠️",
        )
    for report in view.errors(step):
        culprits = ", ".join(report.culprits)
        st.error(
            f"**{widgets.md(report.title)}**"
            + (f" (caused by {widgets.md(culprits)})" if culprits else "")
            + " — see the Errors tab.",
            icon="🛑",
        )
    others = [f for f in view.findings_at(step) if f.severity != "error"]
    if others and not hidden:
        st.warning("🔎 " + "; ".join(widgets.md(f.title) for f in others) + " — see the Findings tab.")
    following = view.next_triggers(step)
    if following:
        shown = "; ".join(widgets.md(t.sentence()) for t in following[:SUMMARY_TASKS])
        more = len(following) - SUMMARY_TASKS
        st.markdown("**Next:** " + shown + (f"; and {more} more (see the Versions tab)" if more > 0 else ""))
    elif step == view.last:
        ending = run_status.ending(view.run.status, view.run.error, after=f"step {step}")
        unknown = view.run.status == "running"  # the recording stops here: the run did not end
        st.markdown(f"**Next:** {'unknown' if unknown else 'nothing'}. {widgets.md(ending)}")


def _timeline(view: RunView, step: int) -> None:
    if not view.steps:
        return
    columns = [str(s) for s in view.steps]
    shown = ""
    if len(columns) > TIMELINE_COLUMNS:  # built from the window only: a 1,000-column frame costs 300 ms
        index = columns.index(str(step)) if str(step) in columns else 0
        first = max(0, min(index - TIMELINE_COLUMNS // 2, len(columns) - TIMELINE_COLUMNS))
        columns = columns[first : first + TIMELINE_COLUMNS]
        shown = f"; supersteps {columns[0]}–{columns[-1]} of {len(view.steps)}"
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

    with st.expander(
        "Timeline: nodes × supersteps (● ran, ●×n ran n times, ✖ caused a failure, ○ ran in a failed step, "
        f"⏹ never finished, ⏸ interrupted){shown}",
        expanded=len(view.steps) <= 40,
    ):
        small = len(columns) <= TIMELINE_SHADED_COLUMNS and frame.size <= TIMELINE_SHADED_CELLS
        data = frame.style.apply(style, axis=0) if small else frame
        st.dataframe(data, width="stretch", height=min(38 + 35 * len(frame), 420))
