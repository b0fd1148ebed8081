"""A checkpointer thread opened as a run, as the app opens one: its newest steps, the threads of a
checkpointer, and time travel on a local copy of one (`debugger/runtimes/checkpointers/`). Plain functions
(no Streamlit) returning an `Opened` run or raising `OpenError` with the fix, as `runs.py` does.
"""

from __future__ import annotations

import json
from typing import Any

from debugger.i18n import _
from debugger.runtimes.capabilities import Threads, need
from debugger.runtimes.checkpointers import open as threads
from debugger.runtimes.targets import TargetError
from debugger.runtimes.threads_api import CheckpointerError, ThreadFork, ThreadRead, ThreadSummary
from debugger.sources.runs import Opened, OpenError, keep, open_stored
from engine.tracefile import TraceFileError


def open_for_app(
    target: str,
    thread_id: str,
    url: str | None = None,
    *,
    db: str | None = None,
    newest: int | None = threads.FIRST_VIEW_STEPS,
) -> Opened:
    """A checkpointer thread as the app opens a run (its `newest` steps only, so a long thread is on screen
    at once; None: all of it), kept in the run store so a link to it reopens it; its `origin` lets time
    travel find the thread again. Every failure is an `OpenError` with the fix."""
    url = threads.checkpointer_url(url)
    if not url:
        raise OpenError(
            "Name the checkpointer: your app's SqliteSaver file or its postgresql:// URL "
            f"(or start the app with `stepscope app --checkpointer URL`, which sets {threads.CHECKPOINTER_ENV})."
        )
    if not (target or "").strip():
        raise OpenError("Name the app's graph (path/to/my_app.py:graph): its reducers and edges rebuild the steps.")
    if not (thread_id or "").strip():
        raise OpenError("Choose a thread.")
    try:
        trace = threads.open_thread(url, threads.load_app(target.strip()), ThreadRead(thread_id, newest=newest))
    except TargetError as exc:
        raise OpenError(str(exc), file=exc.file, line=exc.line) from None
    except CheckpointerError as exc:
        raise OpenError(str(exc)) from None
    except Exception as exc:  # langgraph refusing this graph/thread pair: say what, keep the page working
        raise OpenError(
            f"thread {thread_id!r} could not be rebuilt with {target}: {type(exc).__name__}: {exc}"
        ) from None
    keep(trace, db)
    shown = target.strip().rpartition("/")[2]
    return Opened(
        trace,
        "thread",
        trace.run_id,
        None,
        "",
        _("{app} · thread {thread}").format(app=shown, thread=thread_id),
        origin=(target.strip(), url, thread_id),
        older_steps=newest is not None and bool(trace.steps) and trace.steps[0].step > -1,
    )


def threads_for_app(url: str | None) -> list[ThreadSummary]:
    """The threads of the checkpointer the app names (typed, else `$STEPSCOPE_CHECKPOINTER`); [] for none."""
    url = threads.checkpointer_url(url)
    if not url:
        return []
    try:
        return threads.list_threads(url, 100)
    except CheckpointerError as exc:
        raise OpenError(str(exc)) from None


def fork_for_app(
    origin: tuple[str, str, str] | None,
    run_id: str,
    step: int,
    *,
    node: str | None = None,
    key: str | None = None,
    value_json: str = "",
    answer: Any = None,
    resume: bool = False,
) -> Opened:
    """Time travel from the app on a thread opened from `origin` (`Opened.origin`): edit `key` as `node`
    at the checkpoint after `step` and continue, or answer the interrupt. Returns the fork; every failure
    is an `OpenError` naming the fix."""
    if origin is None:
        raise OpenError(
            "Open this thread from the sidebar's Checkpointer thread form first: time travel "
            "needs the app's graph and its checkpointer."
        )
    target, url, thread_id = origin
    trace = open_stored(run_id).trace  # kept when the thread was opened
    record_at = next((s for s in trace.steps if s.step == step), None)
    checkpoint_id = ((record_at.checkpoint or {}).get("configurable", {}) if record_at is not None else {}).get(
        "checkpoint_id"
    )
    if not checkpoint_id:
        raise OpenError(f"Step {step} has no stored checkpoint to travel from (it did not finish).")
    values = None
    if not resume:
        try:
            values = {key: json.loads(value_json)}
        except json.JSONDecodeError as exc:
            raise OpenError(f"The new value is not valid JSON: {exc.msg} (line {exc.lineno}).") from None
    try:
        app = threads.load_app(target)
        fork = ThreadFork(url, thread_id, app, checkpoint_id, values, node, answer if resume else None)
        result = need(app.runtime, Threads, target).fork_thread(fork)
    except (TargetError, CheckpointerError, TraceFileError) as exc:
        raise OpenError(str(exc)) from None
    except Exception as exc:  # langgraph refusing the edit (e.g. an unknown node): say so in place
        raise OpenError(f"The fork could not run: {type(exc).__name__}: {exc}") from None
    keep(result.trace)
    title = _("{app} · thread {thread} · fork at step {step} (local copy)").format(
        app=target.rpartition("/")[2], thread=thread_id, step=step
    )
    return Opened(
        result.trace, "fork", result.trace.run_id, None, "", title, origin=(target, str(result.local), thread_id)
    )
