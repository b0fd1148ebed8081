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


def graph_chart(dot: str, *, large: bool = False) -> None:
    """Renders DOT in one of two alternating slots: a fresh chart each time, so the browser never
    diffs the old SVG against the new one (that diff costs seconds on large graphs). A small graph
    keeps its natural size, so the panels below stay in view; a large one fills the column."""
    slots = [st.empty(), st.empty()]
    slot = slots[session.bump("graph_renders") % 2]
    slot.graphviz_chart(dot, width="stretch" if large else "content")


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
