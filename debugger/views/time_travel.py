"""The Time travel tab: fork the run at this step with an edited value, or resume an interrupted run;
the branch is shown beside the original, with the steps where they differ marked."""

from __future__ import annotations

import json
from typing import Any, Callable

import pandas as pd
import streamlit as st

from debugger.i18n import N_, _
from debugger.model import run_status
from debugger.model.trace_view import Cursor
from debugger.sources import forks as timetravel
from debugger.sources import runs as sources
from debugger.views import checkpointer_form as checkpointer_threads
from debugger.views import page_url, session, widgets
from debugger.views.session import LoadedRun

FORK = session.FORK_RESULT


@widgets.guarded("time-travel", message=N_("The fork failed"))
def _run_fork(run: LoadedRun, step: int) -> None:
    node = session.widget_value(session.TT_NODE)
    key = session.widget_value(session.TT_KEY)
    text = session.widget_value(session.TT_VALUE) or ""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        why = _("The new value is not valid JSON: {error} (line {line}).").format(error=exc.msg, line=exc.lineno)
        session.remember(FORK, (None, why))
        return
    request = timetravel.ForkRequest(run.graph, run.graph_input, run.config, run.trace, step, node, key, value)
    _remember_branch(lambda: timetravel.fork(request))


@widgets.guarded("time-travel", message=N_("The resume failed"))
def _run_resume(run: LoadedRun) -> None:
    text = session.widget_value(session.TT_ANSWER) or ""
    try:
        answer = json.loads(text)
    except json.JSONDecodeError:
        answer = text  # a plain string answer
    _remember_branch(lambda: timetravel.resume(run.graph, run.graph_input, run.config, run.trace, answer))


def _remember_branch(make: Callable[[], Any]) -> None:
    """Keeps the branch `make` runs for the page to show, or the one line that says why there is none."""
    try:
        branch = make()
    except timetravel.TimeTravelError as exc:
        session.remember(FORK, (None, str(exc)))
        return
    session.remember(FORK, (branch, None))


@widgets.guarded("time-travel", message=N_("Could not open the branch"))
def _open_branch(run: LoadedRun) -> None:
    branch, _error = session.recall(FORK, (None, None))
    if branch is None:
        return
    title = f"{_(run.title) or run.label} — {branch.trace.target.rsplit('(', 1)[-1].rstrip(')')}"
    opened = LoadedRun(
        branch.trace, "fork", branch.trace.run_id, run.graph, run.lesson, title, run.graph_input, run.config
    )
    sources.keep(branch.trace)  # a stored run: its URL (run=<id>) reopens it whole
    session.remember(session.FORK_PARENT, page_url.run_ref(run))
    session.set_run(opened, step=branch.step)


@widgets.guarded("time-travel", message=N_("Could not reopen the original run"))
def _back_to_original() -> None:
    parent = session.recall(session.FORK_PARENT)
    here = session.loaded_run()
    step = timetravel.fork_step_of(here.trace.target)
    try:
        if parent and parent.startswith("sample:"):
            opened = sources.open_lesson(*parent.removeprefix("sample:").partition(":")[::2])
        elif parent:
            opened = sources.open_stored(parent, with_code=True)
        else:
            return
    except sources.OpenError as exc:
        session.report_action_error("time-travel", str(exc))
        return
    session.remember(session.FORK_PARENT, None)
    session.set_run(LoadedRun.of(opened), step=step)


def render(run: LoadedRun, at: Cursor) -> None:
    """The Time travel tab, top to bottom as it appears: the resume form of an interrupted run, the fork
    form of this step, then the branch beside the original."""
    if _explained_why_not(run, at):
        return
    if run.trace.status == "interrupted":
        st.markdown(_("This run stopped at an `interrupt()`. Give the answer and resume it from its checkpoint."))
        st.text_input(_("Answer (JSON, or plain text)"), key=session.TT_ANSWER)
        st.button(_("Resume"), key="tt_resume", on_click=_run_resume, args=(run,))
    _fork_form(run, at)
    widgets.action_error("time-travel")
    branch, error = session.recall(FORK, (None, None))
    if error:
        widgets.failure(error)
    if branch is not None:
        _branch_beside_original(run, branch)


def _explained_why_not(run: LoadedRun, at: Cursor) -> bool:
    """Shows what stands in the tab's place when this run cannot be forked here (a branch already, a
    checkpointer thread, no code, a subgraph); True when it did."""
    if run.source == "fork":
        st.info(
            _(
                "You are looking at a branch made by time travel: the original's steps up to the fork, then the "
                "edited write going through the reducer, then what ran from there."
            )
        )
        if session.recall(session.FORK_PARENT):
            st.button(_("⤺ Back to the original run"), key="tt_back", on_click=_back_to_original)
        widgets.action_error("time-travel")
    elif run.source == "thread" and not at.scope.path:
        checkpointer_threads.render_time_travel(run, at.step)
    elif run.graph is None and run.no_code and not at.scope.path:
        st.warning(widgets.md(run.no_code), icon="⚠️")  # the run names its code, which did not come back
    elif run.graph is None or at.scope.path:
        st.info(
            _(
                "Time travel re-runs the graph, so it needs the graph's code: open the run from a sample or a "
                "graph file (stored and uploaded traces carry no code), at the top level (not inside a subgraph)."
            )
        )
    else:
        return False
    return True


def _fork_form(run: LoadedRun, at: Cursor) -> None:
    """As node, key and new value for a fork at this step, first filled with a node that ran in it."""
    st.markdown(
        _(
            "**Fork at step {step}:** replace what a node wrote in this step, then let the run go on "
            "from there. The new value goes through the reducers as that node's write."
        ).format(step=at.step)
    )
    view = run.view.view(at.scope)
    defaults = timetravel.fork_form(view, at.step)  # "As node": a node that ran in this step
    session.defaults_for(
        session.FORK_FORM_AT,
        (run.trace.run_id, at.step),
        {session.TT_NODE: defaults.node, session.TT_KEY: defaults.key},
    )
    form = timetravel.fork_form(
        view, at.step, session.widget_value(session.TT_NODE), session.widget_value(session.TT_KEY)
    )
    st.selectbox(_("As node"), form.nodes, key=session.TT_NODE)
    st.selectbox(_("Key"), form.keys, key=session.TT_KEY)
    st.text_area(_("New value (JSON)"), value=form.value_json, key=session.TT_VALUE, height=80)
    st.button(_("Run the fork"), key="tt_fork", on_click=_run_fork, args=(run, at.step), type="primary")


def _branch_beside_original(run: LoadedRun, branch: timetravel.Fork) -> None:
    """The branch's status and, step by step, its state beside the original's."""
    if not branch.replay_matches:
        st.warning(
            _(
                "Re-running the original did not reproduce the recorded state before the fork point (the graph "
                "is not deterministic), so the fork starts from the re-run's state."
            )
        )
    differing = branch.differing_steps
    status = widgets.code(run_status.label(branch.trace.status, branch.trace.error))
    st.markdown(
        _("**The branch** ({status}): differs from the original at {steps}.").format(
            status=status, steps=timetravel.ranges(differing)
        )
        if differing
        else _("**The branch** ({status}): ends in the same states as the original.").format(status=status)
    )
    rows = [
        {
            _("step"): c.step,
            _("differs"): _("✱ differs")
            if c.state_differs
            else (_("≈ same but ids") if c.ids_set_aside else _("= same")),
            _("original"): widgets.md(widgets.short(c.state_a, 70)) if c.state_a is not None else _("(no such step)"),
            _("branch"): widgets.md(widgets.short(c.state_b, 70)),
        }
        for c in branch.comparison
    ]
    # a table wraps its cells (the grid of st.dataframe cut the two states off at the column's width); it
    # reads them as Markdown, so each is escaped: a value's `![x](http://...)` stays text
    st.table(pd.DataFrame(rows).set_index(_("step")))
    st.button(_("Open the branch to step through it"), key="tt_open", on_click=_open_branch, args=(run,))
