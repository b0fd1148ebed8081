"""The stored runs page: the runs in the SQLite database, to open, export or delete."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from debugger.i18n import _
from debugger.model import run_status
from debugger.sources import runs as sources
from debugger.stores.opening import open_store
from debugger.stores.protocol import RunStoreProtocol, RunSummary, StoreError
from debugger.views import session, widgets
from debugger.views.sidebar import open_and_show


def _open_run(run_id: str) -> None:
    open_and_show(lambda: sources.open_stored(run_id))


def _delete(run_id: str) -> None:
    try:
        open_store().delete(run_id)
    except StoreError as exc:
        session.remember(session.OPEN_ERROR, (str(exc), None, None))


def render() -> None:
    """The stored runs page: the database's runs as a table, then one of them to open, export or delete."""
    session.follow_step_page_request()
    st.title(_("Stored runs"))
    try:
        store = open_store()
        runs = store.list(limit=500)
    except StoreError as exc:
        st.error(widgets.md(exc))
        return
    st.caption(
        _("Database: `{path}` (set `STEPSCOPE_DB` or pass `--db` to use another).").format(
            path=widgets.code(store.path)
        )
    )
    if not runs:
        st.info(_("No stored runs yet. Every run you open from a sample or a graph file is stored here."))
        return
    st.dataframe(_runs_table(runs), hide_index=True, width="stretch")
    _run_actions(store, runs)


def _runs_table(runs: list[RunSummary]) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "run": r.run_id[:12],
                "graph": r.graph,
                "target": r.target,
                "started (UTC)": r.started_at[:19],
                "status": run_status.label(r.status, r.error),
                "steps": r.steps,
                "error": run_status.note(r.status, r.error, after=f"{r.steps} supersteps"),
            }
            for r in runs
        ]
    )


def _run_actions(store: RunStoreProtocol, runs: list[RunSummary]) -> None:
    """A run picked from the list, with its Open, Export JSON and Delete buttons."""
    choice = st.selectbox(
        _("Run"),
        [r.run_id for r in runs],
        key="runs_page_choice",
        format_func=lambda i: next(
            f"{r.run_id[:12]} · {r.target or r.graph} · {run_status.label(r.status, r.error)}"
            for r in runs
            if r.run_id == i
        ),
    )
    left, middle, right = st.columns(3)
    left.button(_("Open"), key="runs_open", on_click=_open_run, args=(choice,), width="stretch")
    middle.download_button(
        _("Export JSON"),
        store.export_text(choice),
        file_name=f"stepscope-{choice[:12]}.json",
        mime="application/json",
        key="runs_export",
        width="stretch",
    )
    right.button(_("Delete"), key="runs_delete", on_click=_delete, args=(choice,), width="stretch")
