"""`streamlit run debugger/app.py`: page config, navigation, and the URL each page reads. Glue only."""

from __future__ import annotations

import sys
from pathlib import Path

if __package__ in (None, ""):  # streamlit runs this file as a script
    # ... with this folder first on sys.path, where a module or package of ours could hide an installed
    # one of the same name (a `debugger/langgraph/` once hid langgraph itself)
    _here = Path(__file__).resolve().parent
    sys.path[:] = [p for p in sys.path if not p or Path(p).resolve() != _here]
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import streamlit as st

from debugger.i18n import _
from debugger.views import (
    compare,
    gallery,
    live,
    live_link,
    playground,
    runs,
    session,
    sidebar,
    step_through,
    stepper,
    widgets,
)


def main() -> None:
    st.set_page_config(page_title="StepScope", page_icon="🔎", layout="wide")
    try:  # also set by `stepscope app`; here for `streamlit run debugger/app.py` started by hand
        st.set_option("client.showErrorDetails", "none")
    except Exception:  # an option Streamlit refuses at run time: the command-line flag still applies
        pass
    session.apply_language()  # before any text: every sentence below is in the page's language
    widgets.page_style()
    step_page = st.Page(step_through.render, title=_("Step through"), icon="⏯️", url_path="step", default=True)
    live_page = st.Page(live.render, title=_("Live run"), icon="🔴", url_path="live")
    pages = st.navigation(
        [
            step_page,
            live_page,
            st.Page(gallery.render, title=_("Gallery"), icon="📚", url_path="gallery"),
            st.Page(playground.render, title=_("Reducer playground"), icon="🧪", url_path="playground"),
            st.Page(runs.render, title=_("Stored runs"), icon="🗂️", url_path="runs"),
            st.Page(compare.render, title=_("Compare"), icon="⚖️", url_path="compare"),
        ]
    )
    session.remember(session.STEP_PAGE, step_page)
    session.remember(session.SHOWN_PAGE, pages.url_path)  # what its URL names: page_url.py
    # the URL is the truth of what is on screen: each page reads it before drawing, and the Live run page has
    # its own (the live run's id) and its own sidebar; it never opens or shows the step-through run
    if pages.url_path == live_page.url_path:
        widgets.render_guarded(live_link.follow_url, _("the live run named in the link"))
        widgets.render_guarded(live_link.sidebar, _("the sidebar"))
    else:
        widgets.render_guarded(sidebar.follow_url, _("the run named in the link"))
        if pages.url_path == step_page.url_path and stepper.first_paint():  # the graph first, the forms after it
            widgets.render_guarded(step_through.first_paint_sidebar, _("the sidebar"))
        else:
            widgets.render_guarded(sidebar.render, _("the sidebar"))
    widgets.render_guarded(pages.run, _("this page"))


main()
