"""The gallery page: every lesson, its title and summary, and a button to open it (in Python, or in
JavaScript for a lesson with a LangGraph.js twin: a switch on its card)."""

from __future__ import annotations

import streamlit as st

from debugger.i18n import _
from debugger.sources import runs as sources
from debugger.views import session
from debugger.views.sidebar import LANGUAGES, open_and_show
from sample_graphs.gallery import js_lesson_for, list_samples


def _open_sample(name: str) -> None:
    chosen = session.widget_value(f"gallery-lang-{name}") or "Python"
    open_and_show(lambda: sources.open_lesson(name, "js" if chosen == "JavaScript" else ""))


def render() -> None:
    session.follow_step_page_request()
    st.title(_("Gallery of lessons"))
    st.caption(
        _(
            "Each sample is a small graph that shows one thing about reducers and supersteps. Open one to step "
            "through it. Lessons from the articles' JavaScript examples open in Python or in JavaScript (LangGraph.js)."
        )
    )
    for info in list_samples():
        with st.container(border=True):
            left, switch, right = st.columns([3.4, 1.9, 1], vertical_alignment="center")
            left.markdown(f"**{_(info.title)}**  \n{_(info.summary)}")
            if js_lesson_for(info.name) is not None:
                switch.segmented_control(
                    _("Language of the code"),
                    LANGUAGES,
                    default="Python",
                    key=f"gallery-lang-{info.name}",
                    label_visibility="collapsed",
                )
            right.button(
                _("Open"), key=f"gallery-{info.name}", on_click=_open_sample, args=(info.name,), width="stretch"
            )
