"""Widgets shared by the pages: the drawing's layout, recorded values, errors shown as messages.

Trace data is text, never markup: a key, value, node name or message comes from other people's code
and files, and Streamlit reads Markdown (links, images, GFM autolinks, colour directives) in
`st.markdown`, captions, alerts, headers and every widget label. Every piece of trace data that meets
one of those goes through `md` (prose) or `code`/`inline` (inside a code span, where Markdown is inert);
values go to `st.code`/`st.json`/`st.dataframe`, which read none. A trace can then never make the page
show an image, follow a link or fetch anything."""

from __future__ import annotations

import functools
import json
import traceback
from typing import Any

import graphviz
import streamlit as st

from debugger.code_access import code_allowed
from debugger.i18n import N_, _
from debugger.model.present import code, md, readable, short  # noqa: F401 - md, code: the pages escape text with them
from debugger.views import session

PREVIEW_CHARS = 4000


@st.cache_data(max_entries=512, show_spinner=False)
def _svg(dot: str) -> str:
    """Graphviz's layout of `dot` as SVG (Debian's `dot`, through the `graphviz` package), cached: the
    browser gets a finished drawing and does no layout of its own."""
    svg = graphviz.Source(dot).pipe(format="svg", encoding="utf-8")
    return svg[svg.index("<svg") :]


def svg_or_failure(dot: str) -> str:
    """Graphviz's SVG of `dot`; where graphviz cannot draw it, one line on the page and no drawing."""
    try:
        return _svg(dot)
    except (graphviz.ExecutableNotFound, graphviz.CalledProcessError) as exc:
        failure(f"Graphviz could not draw this graph: {exc}", dot)
        return ""


PAGE_STYLE = """<style>
[data-testid="stMainBlockContainer"] { padding-top: 3.2rem; padding-bottom: 2rem; }
[data-testid="stMainBlockContainer"] h1 { font-size: 1.6rem; padding: 0.25rem 0 0.5rem 0; }
</style>"""
"""A denser page than Streamlit's default, so a step fits a 1280x800 screen."""


def page_style() -> None:
    st.html(PAGE_STYLE)


def failure(message: str, detail: str = "") -> None:
    """A failure in one line, with the long detail (a traceback) folded away."""
    first = message.strip().splitlines()[0] if message.strip() else "Something failed."
    st.error(md(first), icon="🛑")
    if detail or first != message.strip():
        with st.expander(_("Details")):
            st.code(message + ("\n\n" + detail if detail else ""), language="text")


def guarded(where: str, *, message: str = N_("That did not work")):
    """For a callback: any exception becomes a one-line message shown in place by `action_error(where)`,
    with the traceback folded away; the page keeps working (no raw traceback ever reaches it). `message`
    is marked with `N_` where it is written, and said in the page's language."""

    def wrap(callback):
        @functools.wraps(callback)
        def run(*args, **kwargs):
            try:
                return callback(*args, **kwargs)
            except Exception as exc:  # the user's code or data failing: told in one line, in place
                said = f"{_(message)}: {type(exc).__name__}: {exc}"
                session.report_action_error(where, said, traceback.format_exc())

        return run

    return wrap


def typed_code_off() -> bool:
    """True, after saying so in one sentence, when this server runs no typed code (`debugger/code_access.py`)."""
    if code_allowed():
        return False
    st.info(
        _(
            "Running typed code is off: this app listens beyond its computer; restart it with "
            "`stepscope app --allow-code` to turn it on, or with `--host 127.0.0.1`."
        ),
        icon="🔒",
    )
    return True


def render_guarded(render, what: str) -> None:
    """Renders a page or panel; if it fails, one line and the detail instead of Streamlit's traceback."""
    try:
        render()
    except Exception as exc:  # a bug or a record we cannot show: the rest of the page stays usable
        failure(f"Could not show {what}: {type(exc).__name__}: {exc}", traceback.format_exc())


def action_error(where: str) -> None:
    """Shows, in place, the error of the last action made from here (see `session.report_action_error`)."""
    error = session.action_error()
    if error is not None and error[0] == where:
        failure(error[1], error[2])


def value(encoded: Any, *, key: str) -> None:
    """A recorded value as JSON (`present.readable`: messages as messages); a huge one is cut, with a
    way to see it whole."""
    encoded = readable(encoded)
    text = json.dumps(encoded, ensure_ascii=False, indent=1, default=str)
    if len(text) <= PREVIEW_CHARS:
        st.code(text, language="json")
        return
    st.code(text[:PREVIEW_CHARS] + "\n…", language="json")
    st.caption(f"Showing {PREVIEW_CHARS:,} of {len(text):,} characters.")
    with st.expander("Show the whole value"):
        st.json(encoded, expanded=False)


def inline(encoded: Any, limit: int = 90) -> str:
    """A recorded value, shortened, for inside a code span (see `code`)."""
    return code(short(encoded, limit))


def open_error(message: str, file: str | None = None, line: int | None = None) -> None:
    """Why a run could not be opened, in one line with where (the message may quote the file's data)."""
    where = f" ({file}, line {line})" if file and line else ""
    st.error(md(f"{message}{'' if where.strip(' ()') in message else where}"), icon="🚫")
