"""The per-superstep panels: tasks, merge (one reducer call at a time, with learn mode), state diff,
versions, subgraphs; the findings, errors, what-if and time travel tabs live in modules of their own.
Each renders one view-model answer; callbacks move the cursor."""

from __future__ import annotations

from dataclasses import replace

import pandas as pd
import streamlit as st

from debugger.diagnostics.value_text import short
from debugger.i18n import N_, _, ngettext
from debugger.model import learn, run_status, step_summary
from debugger.model.failures import is_interrupt
from debugger.model.run_view import RunView
from debugger.model.trace_view import Cursor
from debugger.views import analysis_tabs as findings
from debugger.views import exercise, page_url, session, time_travel, widgets
from debugger.views.session import LoadedRun

DIFF_MARKS = {"added": "＋ added", "removed": "－ removed", "changed": "✎ changed", "same": "＝ same"}


def render_tabs(run: LoadedRun, view: RunView, at: Cursor) -> None:
    hidden = step_summary.merge_hidden(view, at, session.learning())  # learn mode: no mark may hint
    errors = [] if hidden else view.errors(at.step)
    count = len(run.view.findings)
    names = [
        _("Merge"),
        _("Tasks"),
        _("State"),
        _("Versions"),
        _("Errors") + (" 🛑" if errors else ""),
        _("Findings ({count})").format(count=count)
        if count and not session.learning()
        else _("Findings") + (" ⏳" if run.view.findings_pending else ""),
        _("What-if"),
        _("Subgraphs"),
        _("Time travel"),
    ]
    if exercise.exercise_of(run) is not None:
        names.append(_("Exercise"))
    panels = [
        lambda: merge_panel(view, at),
        lambda: tasks_panel(view, at),
        lambda: state_panel(view, at),
        lambda: versions_panel(view, at),
        lambda: findings.errors_panel(view, at),
        lambda: findings.findings_panel(run, at),
        lambda: findings.what_if_panel(view, at),
        lambda: subgraphs_panel(view, at),
        lambda: time_travel.render(run, at),
        lambda: exercise.render(run),
    ]
    # Only the open tab is rendered (a tab switch reruns): the hidden tabs' tables and code blocks cost
    # the browser seconds of work on every page, which a new session paid before its first paint. The
    # open tab is remembered by its id (`page_url.TAB_IDS`): the labels carry counts that change between steps.
    ids = dict(zip(names, page_url.TAB_IDS))
    opened = session.recall(session.OPEN_TAB) or page_url.TAB_IDS[0]
    default = next((name for name, tab_id in ids.items() if tab_id == opened), names[0])
    session.show_tab(default)
    tabs = st.tabs(names, key=session.STEP_TABS, on_change=_on_tab, args=(ids,))
    for tab, name, panel in zip(tabs, names, panels):
        with tab:
            if tab.open:
                widgets.render_guarded(panel, _("the {tab} tab").format(tab=name.split()[0]))


def _on_tab(ids: dict[str, str]) -> None:
    session.open_tab(ids.get(str(session.widget_value(session.STEP_TABS)), page_url.TAB_IDS[0]))


# ---- tasks -----------------------------------------------------------------------------------------


def tasks_panel(view: RunView, at: Cursor) -> None:
    tasks = view.tasks(at.step)
    if not tasks:
        st.caption(_("No task ran in this step (the input was written)."))
        return
    culprits = view.culprits(at.step)
    failed_step = not view.committed(at.step)
    asked = {t.id for t in tasks if t.error and is_interrupt(t.error)}  # it asked: the run paused, nothing failed
    for task in tasks:
        mark = "✖ " if task.id in culprits else "⏸ " if task.id in asked else ("○ " if failed_step else "")
        with st.expander(
            f"{mark}{widgets.md(view.label(task))}  ·  {task.duration * 1000:.2f} ms  ·  "
            + _("fired by {channels}").format(channels=widgets.md(", ".join(task.fired))),
            expanded=len(tasks) <= 3,
        ):
            if task.id in asked:
                st.caption(
                    _("It asked with `interrupt()`: the run paused here; the answer runs it again from its top.")
                )
            elif failed_step and asked and task.id not in culprits:
                st.caption(_("It finished; its writes wait with the checkpoint until the interrupt is answered."))
            elif failed_step and task.id not in culprits:
                st.caption(_("A bystander: it finished, but its writes were discarded with the failed step."))
            left, right = st.columns(2)
            with left:
                st.markdown(_("**Input**"))
                value, note = view.task_input(at.step, task)
                if note:
                    st.caption(widgets.md(note))  # names the state's keys
                widgets.value(value, key=f"in-{task.id}")
            with right:
                st.markdown(_("**Returned**"))
                value, note = view.task_result(task)
                if note:
                    st.caption(widgets.md(note))  # names the state's keys
                else:
                    widgets.value(value, key=f"out-{task.id}")
                st.markdown(_("**Writes** (in order)"))
                rows = [{"channel": c, "value": widgets.inline(v, 120)} for c, v in task.writes]
                if rows:
                    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
                for router, chosen in task.routes:
                    st.markdown(
                        _("Router `{router}` returned `{chosen}`").format(
                            router=widgets.code(router), chosen=widgets.inline(chosen)
                        )
                    )
            if task.error:
                widgets.failure(f"{task.error['class']}: {task.error['message']}", task.error.get("traceback", ""))


# ---- merge -----------------------------------------------------------------------------------------


def _set_call(call: int | None) -> None:
    session.move(replace(session.cursor(), call=call))


def _on_call_prev(total: int) -> None:
    at = session.cursor()
    _set_call(max(0, (at.call if at.call is not None else total) - 1))


def _on_call_next(total: int) -> None:
    at = session.cursor()
    current = at.call if at.call is not None else 0
    _set_call(None if current + 1 >= total else current + 1)


def _on_call_all() -> None:
    _set_call(None)


def _on_learn() -> None:
    """Turning learn mode on hides the step's results again: the merge restarts at its first call."""
    if session.learning():
        _set_call(0)


@widgets.guarded("learn", message=N_("Could not check the guess"))
def _on_guess(step: int, index: int, total: int, form_key: str) -> None:
    run = session.loaded_run()
    at = session.cursor()
    try:
        guess = learn.parse_guess(session.widget_value(form_key) or "")
    except ValueError as exc:
        session.report_action_error("learn", str(exc))
        return
    verdict = learn.check_call(run.view.view(at.scope), step, index, guess)
    session.record_guess(at.scope, step, index, verdict)
    _set_call(None if index + 1 >= total else index + 1)


def merge_panel(view: RunView, at: Cursor) -> None:
    """The Merge tab: the step's reducer calls key by key, revealed one call at a time or all at once."""
    merges = view.merge(at.step)
    discarded = view.discarded_writes(at.step)
    if not merges and discarded:  # a node raised: the barrier never ran, and its siblings' writes went with it
        st.error(
            _(
                "This step failed before its merge: no reducer ran, and **none** of these writes reached the "
                "state (see the Errors tab for why). The state after this step is the state before it."
            ),
            icon="🛑",
        )
        for writer, key, value in discarded:
            st.markdown(_("{writer} wrote {key}:").format(writer=widgets.code(writer), key=widgets.code(key)))
            st.code(short(value, 400), language="text")  # a code block shows text as it is
        return
    if not merges:
        st.caption(_("Nothing was merged in this step: no task wrote a state key."))
        return
    total = len(merges)
    shown = total if at.call is None else at.call
    learning = session.learning()
    st.toggle(_("Learn mode: predict each result before it is revealed"), key=session.LEARN, on_change=_on_learn)
    _call_stepper(at, shown, total, learning)
    applied = view.committed(at.step)
    if not applied:
        st.error(
            _(
                "This step failed: the calls below show what the reducers computed, but the barrier applied "
                "**none** of it. The state after this step is the state before it."
            ),
            icon="🛑",
        )
    for channel, items in view.merge_by_channel(at.step).items():
        # a heading without an anchor: Streamlit would make the key's text part of a link's address
        st.subheader(
            _("`{key}`  ·  reducer `{reducer}`").format(
                key=widgets.code(channel), reducer=widgets.code(items[0].call.reducer)
            ),
            anchor=False,
        )
        st.markdown(_("Before: `{value}`").format(value=widgets.inline(items[0].before, 140)))
        for item in items:
            _merge_call(view, at, item, shown, total, learning, applied)
        if shown >= total and len(items) > 1 and applied:
            st.markdown(_("After: `{value}`").format(value=widgets.inline(items[-1].after, 140)))


def _call_stepper(at: Cursor, shown: int, total: int, learning: bool) -> None:
    """◀ call, call ▶ and all, beside how many of the step's calls are shown."""
    cols = st.columns([1, 1, 1, 4], vertical_alignment="center")
    cols[0].button(
        _("◀ call"), key="call_prev", on_click=_on_call_prev, args=(total,), disabled=shown == 0, width="stretch"
    )
    cols[1].button(
        _("call ▶"),
        key="call_next",
        on_click=_on_call_next,
        args=(total,),
        disabled=at.call is None or learning,
        width="stretch",
    )
    cols[2].button(_("all"), key="call_all", on_click=_on_call_all, disabled=at.call is None, width="stretch")
    cols[3].markdown(
        ngettext(
            "Showing **{shown} of {total}** reducer call, in application order "
            "(tasks by node name, then Sends; each task's writes in order).",
            "Showing **{shown} of {total}** reducer calls, in application order "
            "(tasks by node name, then Sends; each task's writes in order).",
            total,
        ).format(shown=shown, total=total)
    )


def _merge_call(view: RunView, at: Cursor, item, shown: int, total: int, learning: bool, applied: bool) -> None:
    call = item.call
    revealed = call.index < shown
    if call.error:
        icon = "🛑"
    elif not applied:
        icon = "○"
    else:
        icon = "✅" if revealed else "⏳"
    line = f"{icon} " + _("**#{index}** from **{writer}** wrote `{write}`").format(
        index=call.index, writer=widgets.md(item.writer), write=widgets.inline(call.write, 120)
    )
    if revealed:
        result = (
            _("refused")
            if call.error
            else (
                f"`{widgets.inline(item.after, 140)}`"
                if applied
                else _("would give `{value}` (not applied)").format(value=widgets.inline(item.after, 140))
            )
        )
        st.markdown(f"{line} → {result}  \n{widgets.md(item.sentence)}")
        verdict = session.guess(at.scope, at.step, call.index)
        if verdict is not None:
            (st.success if verdict.right else st.warning)(widgets.md(verdict.text))
        if item.repeats:
            repeated = ", ".join(  # items numbered from 1, as a person counts them
                f"{r.index + 1} {widgets.inline(r.item, 40)} ({widgets.md(r.origin_words())})" for r in item.repeats
            )
            st.warning(
                ngettext(
                    "Item {items} of the result repeats what was already there: "
                    "this write carried the old value again.",
                    "Items {items} of the result repeat what was already there: "
                    "this write carried the old value again.",
                    len(item.repeats),
                ).format(items=repeated),
                icon="⚠️",
            )
        for finding in item.findings:
            st.warning(_("**{title}** (see Findings)").format(title=widgets.md(finding.title)), icon="🔎")
        return
    st.markdown(line + _(" → *(not applied yet)*"))
    if learning and call.index == shown:
        _learn_box(at, item, total)


def _learn_box(at: Cursor, item, total: int) -> None:
    form_key = f"guess-{at.step}-{item.call.index}"
    with st.form(key=f"form-{form_key}"):
        st.text_input(
            _("What will `{key}` be after call #{index}?").format(
                key=widgets.code(item.call.channel), index=item.call.index
            ),
            placeholder=_("JSON or a Python literal, e.g. ['a', 'b']"),
            key=form_key,
        )
        st.form_submit_button(_("Check"), on_click=_on_guess, args=(at.step, item.call.index, total, form_key))
    widgets.action_error("learn")


# ---- state -----------------------------------------------------------------------------------------


def state_panel(view: RunView, at: Cursor) -> None:
    where = (
        _("after the step")
        if at.call is None
        else ngettext(
            "inside the merge, after {count} reducer call", "inside the merge, after {count} reducer calls", at.call
        ).format(count=at.call)
    )
    st.caption(_("The whole state {where}, compared with the state before the step.").format(where=where))
    if not view.committed(at.step):
        st.caption(_("The step failed, so the state is unchanged: none of its writes were applied."))
    entries = view.diff(at.step, at.call)
    if not entries:
        st.caption(_("The state is empty."))
        return
    rows = [
        {
            "key": e.key,
            "change": DIFF_MARKS[e.kind],
            "before": widgets.inline(e.before, 60) if e.kind != "added" else "",
            "after": widgets.inline(e.after, 60) if e.kind != "removed" else "",
            "new items": ", ".join(str(i + 1) for i in e.added_items),  # numbered from 1, as people count
        }
        for e in entries
    ]
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    keys = [e.key for e in entries if e.kind != "removed"]
    if keys:
        key = st.selectbox(_("Look at a key, and where each of its items came from"), keys, key=session.STATE_KEY)
        entry = next(e for e in entries if e.key == key)
        widgets.value(entry.after, key=f"state-{key}")
        if at.call is None:
            origins = view.provenance(at.step, key)
            if origins:
                items = entry.after if isinstance(entry.after, list) else [entry.after]
                rows = [
                    {"item": i, "value": widgets.inline(v, 60), "put there by": o.describe()}
                    for i, (v, o) in enumerate(zip(items, origins), start=1)
                ]
                st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")


# ---- versions --------------------------------------------------------------------------------------


def versions_panel(view: RunView, at: Cursor) -> None:
    rows = view.versions(at.step)
    if not rows:
        st.caption(_("No versions recorded for this step."))
        return
    frame = pd.DataFrame(rows)
    frame["changed"] = frame["change"].map({"written": "● written here", "cleared": "○ cleared here", "": ""})
    st.caption(
        _(
            "Each channel's version after this step's barrier. A version is a counter LangGraph keeps per "
            "channel: it goes up when the barrier writes the channel, and a node runs when a channel it "
            "listens to has a newer version than the node last saw. Edges are channels too: an edge into "
            "`x` is a channel that the source writes and `x` listens to; once `x` has run, the barrier "
            "clears it, which also counts as a new version (○ cleared here)."
        )
    )
    st.dataframe(frame[["channel", "what", "version", "changed"]], hide_index=True, width="stretch")
    following = view.next_triggers(at.step)
    if following:
        st.markdown(_("**Why the next step's nodes run**"))
        for trigger in following:
            st.markdown(f"- {widgets.md(trigger.sentence())}")


# ---- subgraphs -------------------------------------------------------------------------------------


def _enter(step: int, task_id: str, index: int) -> None:
    at = session.cursor()
    scope = at.scope.enter(step, task_id, index)
    run = session.loaded_run()
    session.move(Cursor(scope, run.view.view(scope).opening_step, 0 if session.learning() else None))


def subgraphs_panel(view: RunView, at: Cursor) -> None:
    runs = view.subgraph_runs(at.step)
    if not runs:
        st.caption(_("No subgraph ran in this step."))
        return
    for task, index, sub in runs:
        steps = len([s for s in sub.steps if s.step >= 0])
        st.markdown(
            _("**{task}** ran a subgraph: {steps} supersteps, status `{status}`, returned `{output}`.").format(
                task=widgets.md(view.label(task)),
                steps=steps,
                status=widgets.code(run_status.label(sub.status, sub.error)),
                output=widgets.inline(sub.output, 120),
            )
        )
        st.button(
            _("⤵ Step into {task}").format(task=widgets.md(task.name)),
            key=f"enter-{task.id}-{index}",
            on_click=_enter,
            args=(at.step, task.id, index),
        )
