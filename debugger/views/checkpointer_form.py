"""The sidebar's "Checkpointer thread" form: a langgraph app's checkpointer, its threads, the app's graph.

The checkpointer URL may hold a password: it stays in this session (or comes from
`$STEPSCOPE_CHECKPOINTER`, set by `stepscope app --checkpointer URL`) and never goes into the page URL.
"""

from __future__ import annotations

import streamlit as st

from debugger.i18n import _
from debugger.model.trace_view import Scope
from debugger.runtimes.checkpointers.open import checkpointer_url
from debugger.sources import checkpointer_threads
from debugger.sources import runs as sources
from debugger.views import page_url, session, widgets
from debugger.views.session import LoadedRun


def _on_list() -> None:
    try:
        found = checkpointer_threads.threads_for_app(session.widget_value(session.THREAD_CHECKPOINTER))
        session.remember(
            session.THREAD_LIST,
            [
                (
                    t.thread_id,
                    _("{thread} · {status} · {count} checkpoints · {updated}").format(
                        thread=t.thread_id, status=t.status, count=t.checkpoints, updated=t.updated_at[:19]
                    ),
                )
                for t in found
            ],
        )
        none = (_("No threads in this checkpointer yet."), None, None)
        session.remember(session.OPEN_ERROR, None if found else none)
    except sources.OpenError as exc:
        session.remember(session.THREAD_LIST, [])
        session.remember(session.OPEN_ERROR, (str(exc), exc.file, exc.line))


def render(open_action) -> None:
    st.text_input(
        _("Checkpointer"),
        value=checkpointer_url(),
        placeholder=_("checkpoints.sqlite or postgresql://…"),
        key=session.THREAD_CHECKPOINTER,
        type="password" if checkpointer_url().startswith("postgres") else "default",
    )
    st.text_input(_("App graph"), placeholder="path/to/my_app.py:graph", key=session.THREAD_GRAPH)
    st.button(_("List threads"), key="list_threads", on_click=_on_list)
    listed = session.recall(session.THREAD_LIST) or []
    if listed:
        labels = dict(listed)
        st.selectbox(_("Thread"), list(labels), format_func=labels.get, key=session.THREAD_CHOICE)
        st.button(
            _("Open thread"),
            key="open_thread",
            on_click=lambda: open_action(
                lambda: checkpointer_threads.open_for_app(
                    session.widget_value(session.THREAD_GRAPH) or "",
                    session.widget_value(session.THREAD_CHOICE) or "",
                    session.widget_value(session.THREAD_CHECKPOINTER),
                )
            ),
        )
    st.caption(_("Read only: StepScope never writes to the app's checkpointer."))


# ---- time travel on a thread (the Time travel tab) ------------------------------------------------


def _travel(run, step: int, resume: bool) -> None:
    try:
        opened = checkpointer_threads.fork_for_app(
            session.thread_origin(run.trace.run_id),
            run.trace.run_id,
            step,
            node=session.widget_value(session.TT_THREAD_NODE),
            key=session.widget_value(session.TT_THREAD_KEY),
            value_json=session.widget_value(session.TT_THREAD_VALUE) or "",
            answer=sources.answer_value(session.widget_value(session.TT_THREAD_ANSWER) or ""),
            resume=resume,
        )
    except sources.OpenError as exc:
        session.report_action_error("thread-time-travel", str(exc))
        return
    session.remember(session.FORK_PARENT, page_url.run_ref(run))
    session.set_run(LoadedRun.of(opened))


def render_time_travel(run, step: int) -> None:
    """Time travel on a checkpointer thread: always on a local copy of the thread."""
    st.markdown(
        _(
            "**Time travel on a local copy.** The thread up to this step's checkpoint is copied into a "
            "local SQLite file and your app's graph runs there (its nodes run for real); the app's own "
            "checkpointer is never written."
        )
    )
    widgets.action_error("thread-time-travel")
    if run.trace.status == "interrupted":
        last = max(s.step for s in run.trace.steps if s.checkpoint)
        st.text_input(_("Answer to the interrupt (JSON, or plain text)"), key=session.TT_THREAD_ANSWER)
        st.button(_("Resume on a local copy"), key="tt_thread_resume", on_click=_travel, args=(run, last, True))
    nodes = [n["name"] for n in run.trace.graph.get("nodes", []) if not n["name"].startswith("__")]
    keys = list(run.trace.graph.get("channels", {}))
    if not nodes or not keys:
        return
    st.markdown(
        _(
            "**Edit the state after step {step}** as if a node had returned the new value, and let the "
            "thread go on from there."
        ).format(step=step)
    )
    tasks = run.view.view(Scope()).tasks(step)
    ran = [t.name for t in tasks if t.name in nodes]
    written = [c for t in tasks if t.name in ran[:1] for c, _value in t.writes if c in keys]
    session.defaults_for(  # as update_state does: as the node that ran in this step, a key it wrote
        session.THREAD_FORK_FORM_AT,
        (run.trace.run_id, step),
        {session.TT_THREAD_NODE: (ran or nodes)[0], session.TT_THREAD_KEY: (written or keys)[0]},
    )
    st.selectbox(_("As node"), nodes, key=session.TT_THREAD_NODE)
    st.selectbox(_("Key"), keys, key=session.TT_THREAD_KEY)
    st.text_area(_("New value (JSON)"), key=session.TT_THREAD_VALUE, height=80)
    st.button(
        _("Edit and continue on a local copy"),
        key="tt_thread_fork",
        on_click=_travel,
        args=(run, step, False),
        type="primary",
    )
