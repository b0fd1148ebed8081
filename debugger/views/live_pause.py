"""What a paused live run shows beside its graph: why it paused, the tasks about to run and the state
they will read, and the box that edits the state as a node; or, when an `interrupt()` asks, the
question and the box that answers it. The commands go to the `LiveRun` from callbacks (the page
itself, `live.py`, only renders)."""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

from debugger import i18n
from debugger.i18n import _
from debugger.live import EditError, LiveRun
from debugger.model import live_page as live_view
from debugger.views import session, widgets

__all__ = ["render"]


def render(snap) -> None:
    """The side panel of a paused run."""
    pause = snap.pause
    if pause.interrupts:
        _question_panel(pause)
        return
    st.subheader(_("Paused before step {step}").format(step=pause.step))
    st.markdown(_("Why: {reasons}.").format(reasons=widgets.md(i18n.say(list(pause.reasons)))))
    if pause.tasks:
        st.markdown(_("**About to run:**"))
        for task in pause.tasks:
            line = _("- **{node}**: {why}")  # one sentence per language: Chinese writes a full-width colon
            st.markdown(line.format(node=widgets.md(task.name), why=widgets.md(i18n.say(task.why))))
    else:
        st.markdown(_("**Nothing left to run:** Continue ends the run."))
    with st.expander(_("The state the next tasks will read"), expanded=True):
        widgets.value(pause.state, key="live_pause_state")
        for task in pause.tasks:
            if task.input != pause.state:
                st.caption(_("{node} receives:").format(node=widgets.md(task.name)))
                widgets.value(task.input, key=f"live_input_{task.id}")
    _edit_box(pause)


# ---- an interrupt() asks ---------------------------------------------------------------------------


def _question_panel(pause) -> None:
    task = pause.tasks[0]
    st.subheader(_("{node} asks, in step {step}").format(node=widgets.md(task.name), step=pause.step))
    st.markdown(_("`interrupt()` in **{node}** asks:").format(node=widgets.md(task.name)))
    widgets.value(pause.interrupts[0], key="live_question")
    st.text_area(_("Your answer (JSON; text that is not JSON is taken as a string)"), key="live_answer", height=80)
    st.button(
        _("Answer and continue"),
        key="live_answer_button",
        on_click=_on_answer,
        type="primary",
        help=_(
            "{node} runs again from its top and its interrupt() returns your answer (LangGraph's Command(resume=...))."
        ).format(node=widgets.md(task.name)),
    )
    with st.expander(_("The state now")):
        widgets.value(pause.state, key="live_question_state")
    _note()


def _on_answer() -> None:
    run: LiveRun | None = session.recall(session.LIVE_RUN)
    if run is None:
        return
    value = live_view.parse_value(session.widget_value("live_answer") or "")
    try:
        run.answer(value)
    except EditError as exc:
        why = i18n.say(exc.args[0] if exc.args else exc)
        session.remember(session.LIVE_EDIT_NOTE, ("error", _("The answer was not taken: {why}").format(why=why)))
    else:
        session.remember(session.LIVE_EDIT_NOTE, None)
        session.remember(session.LIVE_FOLLOW, True)


# ---- an edit at a pause ----------------------------------------------------------------------------


def _edit_box(pause) -> None:
    keys = list(pause.channels)
    with st.expander(_("✎ Edit the state, then continue"), expanded=False):
        if session.recall("live_edit_key") not in keys:
            session.remember("live_edit_key", keys[0])
            session.remember("live_edit_value", live_view.value_text(pause.state.get(keys[0])))
        key = st.selectbox(_("Key"), keys, key="live_edit_key", on_change=_on_edit_key, args=(pause.state,))
        options = list(pause.edit_as)
        default = options.index(pause.default_as) if pause.default_as in options else 0
        as_node = st.selectbox(
            _("As node"),
            options,
            index=default,
            key="live_edit_as",
            help=_(
                "The edit is that node's write: it goes through the key's reducer and "
                "that node's edges decide what runs next (LangGraph's update_state)."
            ),
        )
        st.caption(live_view.edit_hint(key, pause.channels.get(key, "LastValue"), as_node))
        st.text_area(_("Value (JSON; text that is not JSON is taken as a string)"), key="live_edit_value", height=90)
        st.button(_("Apply edit"), key="live_edit_apply", on_click=_on_edit)
    _note()


def _on_edit_key(state: dict[str, Any]) -> None:
    key = session.widget_value("live_edit_key")
    session.remember("live_edit_value", live_view.value_text(state.get(key)))


def _on_edit() -> None:
    run: LiveRun | None = session.recall(session.LIVE_RUN)
    if run is None:
        return
    key, as_node = session.widget_value("live_edit_key"), session.widget_value("live_edit_as")
    value = live_view.parse_value(session.widget_value("live_edit_value") or "")
    try:
        run.edit({key: value}, as_node=as_node)
    except EditError as exc:
        why = i18n.say(exc.args[0] if exc.args else exc)
        session.remember(session.LIVE_EDIT_NOTE, ("error", _("The edit was not applied: {why}").format(why=why)))
    else:
        shown = json.dumps(value, ensure_ascii=False, default=str)[:200]
        note = _("Applied {key} = {value} as {node}; it is recorded as its own step.")
        session.remember(session.LIVE_EDIT_NOTE, ("ok", note.format(key=key, value=shown, node=as_node)))


def _note() -> None:
    """How the last edit or answer went (an edit that failed says why)."""
    note = session.recall(session.LIVE_EDIT_NOTE)
    if note:
        (st.success if note[0] == "ok" else st.error)(widgets.md(note[1]))
