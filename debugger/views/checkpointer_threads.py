"""The sidebar's "Checkpointer thread" form: a langgraph app's checkpointer, its threads, the app's graph.

The checkpointer URL may hold a password: it stays in this session (or comes from
`$STEPSCOPE_CHECKPOINTER`, set by `stepscope app --checkpointer URL`) and never goes into the page URL.
"""

from __future__ import annotations

import streamlit as st

from debugger import session, sources
from debugger.threads import open as threads


def _on_list() -> None:
    try:
        found = threads.threads_for_app(session.widget_value(session.THREAD_CHECKPOINTER))
        session.remember(session.THREAD_LIST, [(t.thread_id, f"{t.thread_id} · {t.status} · {t.checkpoints} checkpoints · "
                                                      f"{t.updated_at[:19]}") for t in found])
        session.remember(session.OPEN_ERROR, None if found else ("No threads in this checkpointer yet.", None, None))
    except sources.OpenError as exc:
        session.remember(session.THREAD_LIST, [])
        session.remember(session.OPEN_ERROR, (str(exc), exc.file, exc.line))


def render(open_action) -> None:
    st.text_input("Checkpointer", value=threads.checkpointer_url(), placeholder="checkpoints.sqlite or postgresql://…",
                  key=session.THREAD_CHECKPOINTER, type="password" if threads.checkpointer_url().startswith("postgres") else "default")
    st.text_input("App graph", placeholder="path/to/my_app.py:graph", key=session.THREAD_GRAPH)
    st.button("List threads", key="list_threads", on_click=_on_list)
    listed = session.recall(session.THREAD_LIST) or []
    if listed:
        labels = dict(listed)
        st.selectbox("Thread", list(labels), format_func=labels.get, key=session.THREAD_CHOICE)
        st.button("Open thread", key="open_thread", on_click=lambda: open_action(lambda: threads.open_for_app(
            session.widget_value(session.THREAD_GRAPH) or "", session.widget_value(session.THREAD_CHOICE) or "",
            session.widget_value(session.THREAD_CHECKPOINTER))))
    st.caption("Read only: StepScope never writes to the app's checkpointer.")
