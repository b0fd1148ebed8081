"""The Live run page's own URL and sidebar: `/live?run=<id>` names the live run on screen, a new browser
session opened on that link shows the same run (live runs are kept per server process, by id), and the
sidebar tells about that run, never about the Step-through page's.

A link to a run that is no longer live in this server (it ended and was stored, or the server restarted)
says so in one line and links the stored run on the Step-through page.
"""

from __future__ import annotations

import re
import threading

import streamlit as st

from debugger.i18n import N_, _, ngettext
from debugger.live import LiveRun
from debugger.model import run_status
from debugger.views import page_url, session, widgets
from debugger.views.sidebar import header

RUN_ID = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""What a run id looks like; anything else in a link is not put in a link back."""
LIVE_ICONS = {"starting": "⏳", "running": "⏳", "stopping": "⏳", "paused": "⏸️"}
"""A live run's states before it ends (an ended one has a stored run's status and icon)."""
LIVE_STATES = {"starting": N_("starting"), "running": N_("running"), "stopping": N_("stopping"), "paused": N_("paused")}
"""Those states in words (translated where shown)."""
KEPT_RUNS = 32
"""Live runs a server keeps reachable by link; the oldest finished ones are forgotten first."""


class _LiveRuns:
    """Every live run this server process started, by run id (shared by all browser sessions)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._runs: dict[str, LiveRun] = {}

    def add(self, run: LiveRun) -> None:
        with self._lock:
            self._runs[run.snapshot().run_id] = run
            finished = [rid for rid, r in self._runs.items() if r.snapshot().finished]
            while len(self._runs) > KEPT_RUNS and finished:
                self._runs.pop(finished.pop(0))

    def get(self, run_id: str) -> LiveRun | None:
        with self._lock:
            return self._runs.get(run_id)


@st.cache_resource(show_spinner=False)
def live_runs() -> _LiveRuns:
    """The server's one registry of live runs."""
    return _LiveRuns()


def show(run: LiveRun) -> None:
    """From a callback: `run` is the page's live run now; its id goes in the URL and the registry."""
    live_runs().add(run)
    session.remember(session.LIVE_MISSING, None)
    session.write_live_url(run.snapshot().run_id)


def follow_url() -> None:
    """On every run of the Live run page: the run the URL names is the one shown (a new session takes
    it from the registry); a URL naming none (a page switch cleared it) gets the shown run's id back."""
    named = page_url.url_request().get("run")
    run: LiveRun | None = session.recall(session.LIVE_RUN)
    shown = run.snapshot().run_id if run is not None else None
    if not named:
        session.write_live_url(shown)
        return
    if named == shown:
        return
    found = live_runs().get(named)
    session.remember(session.LIVE_RUN, found)
    session.remember(session.LIVE_MISSING, None if found is not None else named)
    step = page_url.url_request().get("step")
    if found is not None and step is not None and step.lstrip("-").isdigit():  # the link's step, not the newest
        session.remember(session.LIVE_SHOWN, int(step))
        session.remember(session.LIVE_FOLLOW, False)


def missing_note() -> None:
    """One line when the link names a run that is not live here, with the way to its stored record."""
    missing = session.recall(session.LIVE_MISSING)
    if not missing:
        return
    run = widgets.code(missing)
    if RUN_ID.fullmatch(missing):
        text = _(
            "Run `{run}` is not live in this server (it ended, or the server restarted): "
            "[open its stored record in Step through](/?run={link}), or start a run below."
        ).format(run=run, link=missing)
    else:
        text = _(
            "Run `{run}` is not live in this server (it ended, or the server restarted): open it from the Stored "
            "runs page, or start a run below."
        ).format(run=run)
    st.warning(text, icon="⏹️")


def sidebar() -> None:
    """The Live run page's sidebar: StepScope and the language switch, what is live, how it stands, its run id."""
    with st.sidebar:
        header(open_error=False)  # the Step-through page's opens are not this page's
        run: LiveRun | None = session.recall(session.LIVE_RUN)
        if run is None:
            st.caption(_("No live run on this page yet: start one on the page."))
            return
        snap = run.snapshot()
        icon = LIVE_ICONS.get(snap.status) or run_status.icon(snap.status)
        state = _(LIVE_STATES[snap.status]) if snap.status in LIVE_STATES else run_status.label(snap.status)
        count = len(snap.committed_steps)  # the supersteps, as the stepper counts them (not the input's step -1)
        st.markdown(
            _("**Live run of {target}**").format(target=widgets.md(run.target))
            + f"  \n{icon} `{widgets.code(state)}` · "
            + ngettext("{count} superstep · run `{run}`", "{count} supersteps · run `{run}`", count).format(
                count=count, run=widgets.code(snap.run_id[:8])
            )
        )
        st.caption(_("This page's link names this run: a new browser window opened on it shows it too."))
