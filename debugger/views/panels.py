"""The per-superstep panels: tasks, merge (one reducer call at a time, with learn mode), state diff,
versions, what-if, errors, subgraphs. Each renders one view-model answer; callbacks move the cursor."""

from __future__ import annotations

from dataclasses import replace
from itertools import islice, permutations

import pandas as pd
import streamlit as st

from debugger import session
from debugger.model import Cursor, RunView, check_guess, parse_guess
from debugger.present import short
from debugger.replay import order_sensitivity, refold
from debugger.session import LoadedRun
from debugger.views import widgets
from engine.trace import VIEW

DIFF_MARKS = {"added": "＋ added", "removed": "－ removed", "changed": "✎ changed", "same": "＝ same"}


def render_tabs(run: LoadedRun, view: RunView, at: Cursor) -> None:
    report = view.error(at.step)
    names = ["Merge", "Tasks", "State", "Versions", "What-if", "Errors" + (" 🛑" if report else ""), "Subgraphs",
             "Time travel"]
    tabs = st.tabs(names)
    with tabs[0]:
        merge_panel(view, at)
    with tabs[1]:
        tasks_panel(view, at)
    with tabs[2]:
        state_panel(view, at)
    with tabs[3]:
        versions_panel(view, at)
    with tabs[4]:
        what_if_panel(run, view, at)
    with tabs[5]:
        errors_panel(view, at)
    with tabs[6]:
        subgraphs_panel(view, at)
    with tabs[7]:
        from debugger.views import time_travel

        time_travel.render(run, at)


# ---- tasks -----------------------------------------------------------------------------------------


def tasks_panel(view: RunView, at: Cursor) -> None:
    tasks = view.tasks(at.step)
    if not tasks:
        st.caption("No task ran in this step (the input was written).")
        return
    for task in tasks:
        mark = "✖ " if task.error else ""
        with st.expander(f"{mark}{widgets.md(task.name)}  ·  {task.duration * 1000:.2f} ms  ·  fired by {widgets.md(', '.join(task.fired))}",
                         expanded=len(tasks) <= 3):
            left, right = st.columns(2)
            with left:
                st.markdown("**Input**")
                if isinstance(task.input, dict) and VIEW in task.input:
                    st.caption(f"The state at the start of the step (keys: {', '.join(task.input[VIEW])}).")
                    state = view.state_before(at.step)
                    widgets.value({k: state.get(k) for k in task.input[VIEW] if k in state}, key=f"in-{task.id}")
                else:
                    widgets.value(task.input, key=f"in-{task.id}")
            with right:
                st.markdown("**Returned**")
                if task.result == {"$type": "same_as_writes"}:
                    st.caption("A dict: exactly its state writes below.")
                else:
                    widgets.value(task.result, key=f"out-{task.id}")
                st.markdown("**Writes** (in order)")
                rows = [{"channel": c, "value": widgets.inline(v, 120)} for c, v in task.writes]
                if rows:
                    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
                for router, chosen in task.routes:
                    st.markdown(f"Router `{router}` returned `{widgets.inline(chosen)}`")
            if task.error:
                st.error(widgets.md(f"{task.error['class']}: {task.error['message']}"))
                with st.expander("Traceback"):
                    st.code(task.error.get("traceback", ""), language="text")


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


def merge_panel(view: RunView, at: Cursor) -> None:
    merges = view.merge(at.step)
    if not merges:
        st.caption("Nothing was merged in this step: no task wrote a state key.")
        return
    total = len(merges)
    shown = total if at.call is None else at.call
    learn = st.toggle("Learn mode: predict each result before it is revealed", key="learn_mode")
    cols = st.columns([1, 1, 1, 4], vertical_alignment="center")
    cols[0].button("◀ call", key="call_prev", on_click=_on_call_prev, args=(total,), disabled=shown == 0, width="stretch")
    cols[1].button("call ▶", key="call_next", on_click=_on_call_next, args=(total,), disabled=at.call is None, width="stretch")
    cols[2].button("all", key="call_all", on_click=_on_call_all, disabled=at.call is None, width="stretch")
    cols[3].markdown(f"Showing **{shown} of {total}** reducer calls, in application order "
                     "(tasks by node name, then Sends; each task's writes in order).")
    if at.call is None and learn:
        st.info("Learn mode: step through the calls with **call ▶** from the start.")
        if st.button("Start from the first call", key="learn_start"):
            _set_call(0)
            st.rerun()
    for channel, items in view.merge_by_channel(at.step).items():
        st.markdown(f"#### `{channel}`  ·  reducer `{items[0].call.reducer}`")
        st.markdown(f"Before: `{widgets.inline(items[0].before, 140)}`")
        for item in items:
            call = item.call
            revealed = call.index < shown
            upcoming = call.index == shown and at.call is not None
            icon = "🛑" if call.error else ("✅" if revealed else "⏳")
            line = f"{icon} **#{call.index}** from **{widgets.md(call.writer_name)}** wrote `{widgets.inline(call.write, 120)}`"
            if revealed:
                st.markdown(f"{line} → `{widgets.inline(item.after, 140)}`  \n{widgets.md(item.sentence)}")
                if item.duplicated:
                    repeated = ", ".join(f"#{i} {widgets.inline(item.after[i], 40)}" for i in item.duplicated)
                    st.warning(f"Item{'s' if len(item.duplicated) > 1 else ''} {repeated} of the result "
                               f"{'repeat' if len(item.duplicated) > 1 else 'repeats'} what was already there: "
                               "this write carried the old value again.", icon="⚠️")
            else:
                st.markdown(line + " → *(not applied yet)*")
                if upcoming and learn:
                    _learn_box(view, at, channel, item)
        if shown >= total and len(items) > 1:
            st.markdown(f"After: `{widgets.inline(items[-1].after, 140)}`")


def _learn_box(view: RunView, at: Cursor, channel: str, item) -> None:
    with st.form(key=f"guess-{at.step}-{item.call.index}"):
        guess_text = st.text_input(f"What will `{channel}` be after call #{item.call.index}?",
                                   placeholder="JSON or a Python literal, e.g. ['a', 'b']")
        if st.form_submit_button("Check"):
            try:
                guess = parse_guess(guess_text)
            except ValueError as exc:
                st.warning(str(exc))
                return
            from engine.codec import decode

            actual = decode(item.after)
            if guess == actual:
                st.success(f"Right: {widgets.md(short(item.after, 120))}. {widgets.md(item.sentence)}.")
            else:
                final, _ = check_guess(view, at.step, channel, guess)
                st.error(f"Not quite: it is {widgets.md(short(item.after, 120))}. {widgets.md(item.sentence)}."
                         + (" You gave the value after the whole merge, not after this call." if final else ""))


# ---- state -----------------------------------------------------------------------------------------


def state_panel(view: RunView, at: Cursor) -> None:
    where = "after the step" if at.call is None else f"inside the merge, after {at.call} reducer call(s)"
    st.caption(f"The whole state {where}, compared with the state before the step.")
    entries = view.diff(at.step, at.call)
    if not entries:
        st.caption("The state is empty.")
        return
    rows = [{"key": e.key, "change": DIFF_MARKS[e.kind], "before": widgets.inline(e.before, 60) if e.kind != "added" else "",
             "after": widgets.inline(e.after, 60) if e.kind != "removed" else "",
             "new items": ", ".join(map(str, e.added_items))} for e in entries]
    st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")
    keys = [e.key for e in entries if e.kind != "removed"]
    if keys:
        key = st.selectbox("Look at a key, and where each of its items came from", keys, key="state_key")
        entry = next(e for e in entries if e.key == key)
        widgets.value(entry.after, key=f"state-{key}")
        if at.call is None:
            origins = view.provenance(at.step, key)
            if origins:
                items = entry.after if isinstance(entry.after, list) else [entry.after]
                rows = [{"item": i, "value": widgets.inline(v, 60), "put there by": o.describe()}
                        for i, (v, o) in enumerate(zip(items, origins))]
                st.dataframe(pd.DataFrame(rows), hide_index=True, width="stretch")


# ---- versions --------------------------------------------------------------------------------------


def versions_panel(view: RunView, at: Cursor) -> None:
    rows = view.versions(at.step)
    if not rows:
        st.caption("No versions recorded for this step.")
        return
    frame = pd.DataFrame(rows)
    frame["changed"] = frame["changed"].map({True: "● changed here", False: ""})
    st.caption("Channel versions after this step's barrier. Every channel changed at one barrier gets the same "
               "new version (one global clock); edges are channels too (`branch:to:X`).")
    st.dataframe(frame, hide_index=True, width="stretch")
    following = view.next_triggers(at.step)
    if following:
        st.markdown("**Why the next step's nodes run**")
        for trigger in following:
            st.markdown(f"- {widgets.md(trigger.sentence())}")


# ---- what-if ---------------------------------------------------------------------------------------


def what_if_panel(run: LoadedRun, view: RunView, at: Cursor) -> None:
    by_channel = view.merge_by_channel(at.step)
    candidates = [c for c, items in by_channel.items() if items[0].call.reducer not in ("LastValue", "AnyValue")]
    if not by_channel:
        st.caption("Nothing was merged in this step.")
        return
    if run.graph is None or at.scope.path:
        st.info("What-if re-folds this step's recorded writes with the graph's live reducers, so it needs the graph's "
                "code: open the run from a sample or a graph file (stored and uploaded traces carry no code).")
        return
    if not candidates:
        st.caption("Only plain keys were written here; a plain key takes one write per step, so order cannot matter.")
        return
    channel = st.selectbox("Channel", candidates, key="whatif_channel")
    items = by_channel[channel]
    reducer = run.graph.builder.channels[channel].operator
    labels = [f"#{i} {m.call.writer_name}: {widgets.inline(m.call.write, 40)}" for i, m in enumerate(items)]
    orders = list(islice(permutations(range(len(items))), 120))  # 10 writes have 3.6M orders: take the first 120
    order = st.selectbox("Fold the writes in this order", orders, key="whatif_order",
                         format_func=lambda o: " → ".join(items[i].call.writer_name for i in o))
    skip = st.selectbox("…leaving out", [None, *range(len(items))], key="whatif_skip",
                        format_func=lambda i: "nothing" if i is None else labels[i])
    result = refold(view.replay, at.step, channel, reducer, order, skip=skip)
    if result.error:
        st.error(f"The reducer failed on these writes: {widgets.md(result.error)}")
    elif result.differs:
        st.warning(f"Different result: `{widgets.inline(result.value, 140)}` instead of "
                   f"`{widgets.inline(items[-1].after, 140)}`.", icon="🔀")
    else:
        st.success(f"Same result: `{widgets.inline(result.value, 140)}`.")
    sensitive = order_sensitivity(view.replay, at.step, channel, reducer)
    if len(items) > 1:
        st.markdown(f"**Order sensitivity:** {len(sensitive)} of {min(len(orders), 120) - 1} other orders change the "
                    "result." if sensitive else "**Order sensitivity:** every order gives the same result here.")


# ---- errors ----------------------------------------------------------------------------------------


def errors_panel(view: RunView, at: Cursor) -> None:
    report = view.error(at.step)
    failed_at = view.failed_step
    if report is None:
        if failed_at is not None:
            st.info(f"This step is fine; the run failed at step {failed_at}.")
        else:
            st.caption("No error in this step.")
        return
    st.error(f"**{widgets.md(report.title)}**")
    st.markdown(widgets.md(report.explanation))
    if report.writers:
        st.markdown(f"**Who wrote `{report.key}` in step {at.step}:**")
        for column, (writer, value) in zip(st.columns(len(report.writers)), report.writers):
            column.markdown(f"**{widgets.md(writer)}**")
            column.code(short(value, 200), language="text")
    for title, snippet in report.fixes:
        st.markdown(f"**Fix:** {widgets.md(title)}")
        st.code(snippet, language="python")
    st.code(report.message, language="text", wrap_lines=True)
    if report.traceback:
        with st.expander("Traceback"):
            st.code(report.traceback, language="text")


# ---- subgraphs -------------------------------------------------------------------------------------


def _enter(step: int, task_id: str, index: int) -> None:
    at = session.cursor()
    scope = at.scope.enter(step, task_id, index)
    run = session.loaded_run()
    first = run.view.view(scope).first
    session.move(Cursor(scope, first, None))
    session.remember("step_slider", session.cursor().step)


def subgraphs_panel(view: RunView, at: Cursor) -> None:
    runs = view.subgraph_runs(at.step)
    if not runs:
        st.caption("No subgraph ran in this step.")
        return
    for task, index, sub in runs:
        steps = len([s for s in sub.steps if s.step >= 0])
        st.markdown(f"**{widgets.md(task.name)}** ran a subgraph: {steps} supersteps, status `{sub.status}`, "
                    f"returned `{widgets.inline(sub.output, 120)}`.")
        st.button(f"⤵ Step into {task.name}", key=f"enter-{task.id}-{index}", on_click=_enter,
                  args=(at.step, task.id, index))
