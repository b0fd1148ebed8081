"""Widgets shared by the pages: the graph chart, recorded values, errors shown as messages."""

from __future__ import annotations

import json
import re
from typing import Any

import streamlit as st

from debugger import session
from debugger.present import short

PREVIEW_CHARS = 4000
_MARKDOWN_SPECIALS = re.compile(r"([\\`*_\[\]<>#$~|])")


def md(text: Any) -> str:
    """Plain text (a node name, a sentence) escaped for `st.markdown`: `__start__` stays `__start__`
    instead of turning into a bold "start". Not for text inside backticks, where escapes show."""
    return _MARKDOWN_SPECIALS.sub(r"\\\1", str(text))


def graph_chart(dot: str, *, slot: int, large: bool = False) -> None:
    """Renders DOT in one of two alternating slots (the caller passes the step's position): a fresh
    chart for each neighbouring step, so the browser never diffs the old SVG against the new one (that
    diff costs seconds on large graphs). A small graph keeps its natural size; a large one fills the column."""
    slots = [st.empty(), st.empty()]
    slots[slot % 2].graphviz_chart(dot, width="stretch" if large else "content")


def code(text: Any) -> str:
    """Text for inside backticks: a backtick would end the code span."""
    return str(text).replace("`", "'")


def failure(message: str, detail: str = "") -> None:
    """A failure in one line, with the long detail (a traceback) folded away."""
    first = message.strip().splitlines()[0] if message.strip() else "Something failed."
    st.error(md(first), icon="🛑")
    if detail or first != message.strip():
        with st.expander("Details"):
            st.code(message + ("\n\n" + detail if detail else ""), language="text")


def action_error(where: str) -> None:
    """Shows, in place, the error of the last action made from here (see `session.report_action_error`)."""
    error = session.action_error()
    if error is not None and error[0] == where:
        failure(error[1], error[2])


def value(encoded: Any, *, key: str) -> None:
    """A recorded value as JSON; a huge one is cut, with a way to see it whole."""
    text = json.dumps(encoded, ensure_ascii=False, indent=1, default=str)
    if len(text) <= PREVIEW_CHARS:
        st.code(text, language="json")
        return
    st.code(text[:PREVIEW_CHARS] + "\n…", language="json")
    st.caption(f"Showing {PREVIEW_CHARS:,} of {len(text):,} characters.")
    with st.expander("Show the whole value"):
        st.json(encoded, expanded=False)


def inline(encoded: Any, limit: int = 90) -> str:
    return short(encoded, limit).replace("`", "'")


def open_error(message: str, file: str | None = None, line: int | None = None) -> None:
    where = f" ({file}, line {line})" if file and line else ""
    st.error(f"{message}{'' if where.strip(' ()') in message else where}", icon="🚫")
