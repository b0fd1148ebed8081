"""Opening a checkpointer thread: the app's graph, the thread, its trace; time travel on it from the CLI.

    stepscope threads --checkpointer URL                               the threads, newest first
    stepscope show my_app.py:graph --checkpointer URL --thread ID      every merge of the thread
    stepscope diagnose my_app.py:graph --checkpointer URL --thread ID  its findings
    stepscope app my_app.py:graph --checkpointer URL --thread ID       the debugger, on that thread

The graph (`file.py[:attribute]` or `module[:attribute]`) lends its reducers, edges and subgraphs; it
is imported, never run. The app's own checkpointer, if the module compiles one in, is not used: the
thread is read from `--checkpointer` only. `CHECKPOINTER_ENV` passes the URL to the app's server so a
postgresql:// URL with a password never appears in a browser address. The commands are in
`debugger/commands/threads.py` and `fork.py`, the app's side in `debugger/sources/runs/runs.py`.
"""

from __future__ import annotations

import json
import os
from dataclasses import replace
from typing import Any

from debugger.runtimes.capabilities import Threads, capability, need, static_view_of
from debugger.runtimes.targets import TargetError, load_target
from debugger.runtimes.threads_api import App, CheckpointerError, ForkResult, ThreadFork, ThreadRead, ThreadSummary
from debugger.stores.urls import masked
from engine.trace import Trace

from .savers import open_checkpointer

CHECKPOINTER_ENV = "STEPSCOPE_CHECKPOINTER"


def load_app(target: str) -> App:
    """Imports `target` and picks its compiled graph, which must run on a runtime with checkpointer
    threads (a checkpointer compiled in is ignored)."""
    loaded = load_target(target)
    if capability(loaded.runtime, Threads) is None:
        raise TargetError(
            f"{target} is a {loaded.runtime.title} graph; a checkpointer thread is read with the langgraph app "
            "that wrote it (a graph compiled by langgraph)."
        )
    view, skipped = static_view_of(loaded.runtime, loaded.graph)
    return App(target, loaded.graph, view, skipped, loaded.runtime)


def list_threads(url: str, limit: int = 200) -> list[ThreadSummary]:
    """The threads of the checkpointer at `url`, newest first."""
    with open_checkpointer(url) as checkpointer:
        return checkpointer.threads(limit)


FIRST_VIEW_STEPS = 20
"""The newest steps a thread opens with in the app; older ones are read when asked for, so a long
thread's first view costs what these steps cost, whatever its length."""


def open_thread(url: str, app: App, read: ThreadRead) -> Trace:
    """The part of a thread of the checkpointer at `url` that `read` asks for, as a recorded run (named after
    the app and the thread unless `read.target` names it)."""
    target = read.target or f"{app.target} thread {read.thread_id}"
    with open_checkpointer(url) as checkpointer:
        return need(app.runtime, Threads, app.target).read_thread(checkpointer, app.graph, replace(read, target=target))


def thread_from_options(
    target: str,
    url: str | None,
    thread_id: str | None,
    checkpoint_id: str | None = None,
    *,
    step: int | None = None,
) -> Any:
    """(trace, App) of the thread `--checkpointer URL --thread ID` names, with `target` as the app's graph
    (its one step `step` and its ending when given, else whole); None without `--checkpointer`."""
    if not url:
        return None
    if not thread_id:
        raise CheckpointerError("--checkpointer needs --thread ID; `stepscope threads --checkpointer URL` lists them.")
    app = load_app(target)
    return open_thread(url, app, ThreadRead(thread_id, checkpoint_id, step=step)), app


def checkpointer_url(given: str | None = None) -> str:
    """The checkpointer the app reads: what the user typed, else `$STEPSCOPE_CHECKPOINTER`."""
    return (given or "").strip() or os.environ.get(CHECKPOINTER_ENV, "")


def fork_from_options(
    target: str,
    url: str | None,
    thread_id: str | None,
    checkpoint_id: str | None = None,
    *,
    update_json: str | None = None,
    as_node: str | None = None,
    resume_json: str | None = None,
    local: str | None = None,
) -> tuple[ForkResult, str]:
    """`stepscope fork`: the app run from a checkpoint of the thread (default: its newest) on a local copy,
    with the checkpoint edited first (`update_json` as `as_node`) or the interrupt answered. Returns the
    fork and the checkpoint it started from."""
    if not url or not thread_id:
        raise CheckpointerError(
            "give --checkpointer URL and --thread ID (`stepscope threads --checkpointer URL` lists them)."
        )
    app = load_app(target)
    if not checkpoint_id:
        found = [t for t in list_threads(url, 10_000) if t.thread_id == thread_id]
        if not found:
            raise CheckpointerError(f"no thread {thread_id!r} in {masked(url)}.")
        checkpoint_id = found[0].last_checkpoint_id
    try:
        values = json.loads(update_json) if update_json is not None else None
        resume = json.loads(resume_json) if resume_json is not None else None
    except json.JSONDecodeError as exc:
        raise CheckpointerError(f"--update and --resume take JSON: {exc}") from None
    result = need(app.runtime, Threads, app.target).fork_thread(
        ThreadFork(url, thread_id, app, checkpoint_id, values, as_node, resume, local)
    )
    return result, checkpoint_id
