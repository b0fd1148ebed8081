"""The gallery page: every lesson, its title and summary, and a button to open it."""

from __future__ import annotations

import streamlit as st

from debugger.sources import runs as sources
from debugger.views import session
from debugger.views.sidebar import open_and_show
from sample_graphs.gallery import list_samples


def _open_sample(name: str) -> None:
    open_and_show(lambda: sources.open_sample(name))


def render() -> None:
    session.follow_step_page_request()
    st.title("Gallery of lessons")
    st.caption(
        "Each sample is a small graph that shows one thing about reducers and supersteps. Open one to step through it."
    )
    for info in list_samples():
        with st.container(border=True):
            left, right = st.columns([5, 1], vertical_alignment="center")
            left.markdown(f"**{info.title}**  \n{info.summary}")
            right.button("Open", key=f"gallery-{info.name}", on_click=_open_sample, args=(info.name,), width="stretch")
