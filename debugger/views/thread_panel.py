"""The sidebar's thread panel for langgraph runs: the run's thread and config, the runs of the thread
in order (a conversation), and, for a run stopped by `interrupt()`, its question and a box to answer
it; the answer continues the thread as a new run, which opens."""

from __future__ import annotations

import json
from typing import Any

import streamlit as st

from debugger.i18n import N_, _
from debugger.model import run_status
from debugger.model.trace_view import Cursor, Scope
from debugger.model.turns import turn_at, turn_label
from debugger.runtimes.capabilities import Threads, capability
from debugger.runtimes.registry import find_runtime, loader_for, runtime_of_trace
from debugger.runtimes.run_options import RUN_OPTIONS
from debugger.sources import checkpointer_threads
from debugger.sources import runs as sources
from debugger.sources.recording import app_run_timeout
from debugger.stores.opening import thread_runs
from debugger.views import session, widgets
from debugger.views.session import LoadedRun


def _answer(run: LoadedRun) -> None:
    text = session.widget_value(session.THREAD_ANSWER) or ""
    if not text.strip():
        session.remember(session.OPEN_ERROR, (_("Type an answer first (JSON, or plain text)."), None, None))
        return
    try:
        trace = sources.answer_interrupt(
            run.trace,
            run.graph,
            text,
            config=run.config,
            db=None,
            timeout=app_run_timeout(),
            checkpointer=run.checkpointer,
        )
    except sources.OpenError as exc:
        session.remember(session.OPEN_ERROR, (str(exc), None, None))
        return
    opened = LoadedRun(
        trace, "file", run.label, run.graph, run.lesson, run.title, None, run.config, checkpointer=run.checkpointer
    )
    session.set_run(opened)
    session.remember(session.OPEN_ERROR, None)
    session.remember(session.STEP_SLIDER, session.cursor().step)


def _open_turn(run_id: str) -> None:
    run = session.loaded_run()
    try:
        opened = sources.open_stored(run_id)
    except sources.OpenError as exc:
        session.remember(session.OPEN_ERROR, (str(exc), None, None))
        return
    loaded = LoadedRun.of(opened)
    if run is not None and run.graph is not None:  # keep the code, so a later interrupt can be answered here
        loaded.graph, loaded.config, loaded.checkpointer = run.graph, run.config, run.checkpointer
    session.set_run(loaded)
    session.remember(session.STEP_SLIDER, session.cursor().step)


def _go_to_step(step: int) -> None:
    session.move(Cursor(Scope(), step))


def _turns_here(run: LoadedRun) -> None:
    """The turns inside this run (a thread read from its checkpointer holds them all), each a button to
    the step where it starts, listed with what it was given."""
    turns = run.view.view(Scope()).turns
    if len(turns) < 2:
        return
    st.markdown(_("**Turns of this thread**"))
    here = turn_at(turns, session.cursor().step)
    for turn in turns:
        st.button(
            widgets.md(turn_label(turn)) + (_(" (here)") if turn == here else ""),
            key=f"thread_turn_at_{turn.first_step}",
            on_click=_go_to_step,
            args=(turn.first_step,),
            width="stretch",
        )


def _read_older(run: LoadedRun) -> None:
    """Reopens the checkpointer thread with four times the steps read so far (the newest first)."""
    if run.origin is None:
        return
    target, url, thread_id = run.origin
    step = session.cursor().step
    try:
        opened = checkpointer_threads.open_for_app(target, thread_id, url, newest=4 * max(1, len(run.trace.steps) - 1))
    except sources.OpenError as exc:
        session.remember(session.OPEN_ERROR, (str(exc), None, None))
        return
    session.set_run(LoadedRun.of(opened), step=step)
    session.remember(session.OPEN_ERROR, None)
    session.remember(session.STEP_SLIDER, session.cursor().step)


def file_options(target: str, run: LoadedRun | None) -> None:
    """The Graph file form's run options, every one `stepscope run` takes but the input (its own box above),
    read as the command line reads them (`run_options.RunOptions.from_form`); `target` is the graph typed,
    whose runtime's config the Config field's example is written in."""
    examples = {
        "config": _config_example(target, run),
        "thread": _("empty: a new thread (graphs with a checkpointer)"),
        "timeout": f"{app_run_timeout():g}",
    }
    with st.expander(_("Run options (as `stepscope run` takes them)")):
        for option in RUN_OPTIONS:
            if option.name == "input":
                continue
            st.text_input(
                _(option.form),
                placeholder=examples.get(option.name, option.example),
                help=_(FIELD_HELP[option.name]) if option.name in FIELD_HELP else None,
                key=session.file_option(option.name),
            )


FIELD_HELP = {
    "thread": N_("Short for configurable.thread_id in the config, as in LangGraph; give one, or the same id in both."),
    "resume": N_("The answer to the interrupt the thread stopped at (JSON, or plain text): give the thread too."),
    "checkpointer": N_(
        "For an app compiled without a checkpointer: its thread is kept in this database, to resume it later."
    ),
}
"""What a field means where its label cannot say it all."""


def _config_example(target: str, run: LoadedRun | None) -> str:
    """A config for the Config field's placeholder, in the keys of the runtime of the graph typed (LangGraph.js
    reads `recursionLimit`), with a `configurable.thread_id` where the open run's graph has a checkpointer."""
    graph = run.graph if run is not None and run.graph is not None and run.label == target.strip() else None
    runtime = (find_runtime(graph) if graph is not None else None) or loader_for(target.strip())
    example: dict[str, Any] = {runtime.recursion_limit_key if runtime is not None else "recursion_limit": 50}
    if graph is not None and runtime is not None and runtime.checkpointer_class(graph) is not None:
        example["configurable"] = {"thread_id": "t-1"}
    return json.dumps(example)


def _interrupts(trace) -> list[str]:
    """Each interrupt of a run as text: where it was raised and its value."""
    return [
        (f"{item['node']}: " if item.get("node") else "")
        + json.dumps(item.get("value"), ensure_ascii=False, default=str)
        for item in trace.interrupts
    ]


def render(run: LoadedRun) -> None:
    """The thread panel, for runs of a runtime whose runs live on checkpointer threads."""
    trace = run.trace
    if capability(runtime_of_trace(trace), Threads) is None:
        return
    if trace.thread_id:
        st.markdown(_("**Thread** `{thread}`").format(thread=widgets.code(trace.thread_id)))
    if run.older_steps and trace.steps:
        st.caption(
            _("Steps {first}–{last} read: the newest, so it opened at once.").format(
                first=trace.steps[0].step + 1, last=trace.steps[-1].step
            )
        )
        st.button(_("Read older steps"), key="thread_read_older", on_click=_read_older, args=(run,), width="stretch")
    config = widgets.code(json.dumps(trace.config or {}, ensure_ascii=False, default=str))
    st.caption(_("Config: `{config}`").format(config=config))
    if trace.status == "interrupted" and trace.interrupts:
        st.markdown(_("**Waiting for an answer**"))
        for text in _interrupts(trace):
            st.code(text, language=None)
        if trace.thread_id:
            st.text_input(_("Answer (JSON, or plain text)"), key=session.THREAD_ANSWER)
            st.button(
                _("Answer and continue the thread"),
                key="thread_answer_go",
                on_click=_answer,
                args=(run,),
                type="primary",
            )
        else:
            st.caption(widgets.md(sources.no_thread_why(trace, run.graph)))
    _turns_here(run)
    turns = thread_runs(trace.thread_id, trace.target)
    if len(turns) > 1:
        st.markdown(_("**Runs of this thread**"))
        for index, turn in enumerate(turns, 1):
            current = turn.run_id == trace.run_id
            label = f"{index}. {widgets.md(run_status.label(turn.status))} · {widgets.md(turn.started_at[11:19])}" + (
                _(" (open)") if current else ""
            )
            st.button(
                label,
                key=f"thread_turn_{turn.run_id}",
                on_click=_open_turn,
                args=(turn.run_id,),
                disabled=current,
                width="stretch",
            )
