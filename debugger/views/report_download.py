"""The run as one HTML page to download (`stepscope export --html`): a button of the sidebar's run summary,
so the step page's own layout (the summary, the graph and the tabs on one screen) stays as it is."""

from __future__ import annotations

import html

import streamlit as st

from debugger.i18n import _
from debugger.model import html_report
from debugger.views import session
from debugger.views.session import LoadedRun


def download_button(run: LoadedRun) -> None:
    """The run as one HTML page to keep or send (`stepscope export --html`), made only when clicked; not in
    learn mode, as the page tells every merge's answer."""
    if session.learning():
        return

    def page() -> str:
        try:
            return html_report.html_report(run.trace, run.graph)
        except html_report.ReportError as exc:  # made after the click, where no error line can show
            return f"<!DOCTYPE html><meta charset=utf-8><p>{html.escape(str(exc))}</p>"

    st.download_button(
        _("⬇ Download as one HTML page"),
        data=page,
        file_name=f"stepscope-{(run.trace.run_id or 'run')[:12]}.html",
        mime="text/html",
        key="download_html",
        disabled=not html_report.dot_installed(),
        help=_("A self-contained page (drawing, every step's merge, state and findings) that opens in any browser")
        + ("" if html_report.dot_installed() else _("; needs graphviz's `dot` program (apt install graphviz)")),
    )
