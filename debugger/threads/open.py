"""Opening a checkpointer thread from the CLI and the app: the app's graph, the thread, the trace.

    stepscope threads --checkpointer URL                               the threads, newest first
    stepscope show my_app.py:graph --checkpointer URL --thread ID      every merge of the thread
    stepscope diagnose my_app.py:graph --checkpointer URL --thread ID  its findings
    stepscope app my_app.py:graph --checkpointer URL --thread ID       the debugger, on that thread

The graph (`file.py[:attribute]` or `module[:attribute]`) lends its reducers, edges and subgraphs; it
is imported, never run. The app's own checkpointer, if the module compiles one in, is not used: the
thread is read from `--checkpointer` only. `CHECKPOINTER_ENV` passes the URL to the app's server so a
postgresql:// URL with a password never appears in a browser address.
"""

from __future__ import annotations

import argparse
from dataclasses import dataclass
from typing import Any

from engine.trace import Trace

from .savers import CheckpointerError, ThreadSummary, open_checkpointer

CHECKPOINTER_ENV = "STEPSCOPE_CHECKPOINTER"


@dataclass
class App:
    """The app's graph as the thread needs it."""

    target: str
    graph: Any
    """The langgraph compiled graph: its channels, reducers and nodes rebuild the steps."""
    view: Any = None
    """Its static view for the diagnostics that need no run (`debugger/langgraph_recorder/static_view.py`), or None."""
    skipped: str | None = None
    """Why the checks before running cannot look at this graph, when they cannot."""


def load_app(target: str) -> App:
    """Imports `target` and picks its compiled langgraph graph (a checkpointer compiled in is ignored)."""
    from debugger.langgraph_recorder.static_view import StaticViewError, static_view
    from debugger.targets import TargetError, load_target

    loaded = load_target(target)
    if not getattr(loaded, "is_langgraph", False):
        raise TargetError(
            f"{target} is a StepScope graph; a checkpointer thread is read with the langgraph app "
            "that wrote it (a graph compiled by langgraph)."
        )
    try:
        view, skipped = static_view(loaded.graph), None
    except StaticViewError as exc:
        view, skipped = None, str(exc)
    return App(target, loaded.graph, view, skipped)


def list_threads(url: str, limit: int = 200) -> list[ThreadSummary]:
    with open_checkpointer(url) as checkpointer:
        return checkpointer.threads(limit)


def open_thread(url: str, thread_id: str, app: App, checkpoint_id: str | None = None) -> Trace:
    from .rebuild import read_thread

    with open_checkpointer(url) as checkpointer:
        return read_thread(
            checkpointer, thread_id, app.graph, checkpoint_id=checkpoint_id, target=f"{app.target} thread {thread_id}"
        )


# ---- CLI -----------------------------------------------------------------------------------------


def add_arguments(parser: argparse.ArgumentParser, *, thread: bool = True, checkpoint: bool = True) -> None:
    parser.add_argument(
        "--checkpointer",
        metavar="URL",
        help="a langgraph checkpointer: the SQLite file of SqliteSaver, or a postgresql:// URL",
    )
    if thread:
        parser.add_argument("--thread", metavar="ID", help="with --checkpointer: the thread to open")
    if thread and checkpoint:
        parser.add_argument(
            "--checkpoint", metavar="ID", help="with --thread: stop at this checkpoint (default: the newest)"
        )


def trace_from_args(args: argparse.Namespace, target: str) -> tuple[Trace, App] | None:
    """The thread named by `--checkpointer/--thread`, with `target` as the app's graph; None without them."""
    url = getattr(args, "checkpointer", None)
    if not url:
        return None
    if not getattr(args, "thread", None):
        raise CheckpointerError("--checkpointer needs --thread ID; `stepscope threads --checkpointer URL` lists them.")
    app = load_app(target)
    return open_thread(url, args.thread, app, getattr(args, "checkpoint", None)), app


def command_threads(args: argparse.Namespace) -> int:
    if not args.checkpointer:
        raise CheckpointerError("give --checkpointer URL: your app's SqliteSaver file or its postgresql:// URL.")
    threads = list_threads(args.checkpointer, args.limit)
    if not threads:
        print("no threads in this checkpointer yet.")
        return 0
    rows = [
        [
            t.thread_id,
            t.updated_at[:19],
            str(t.checkpoints),
            str(t.step),
            t.status + (f" (next: {', '.join(t.next)})" if t.next else ""),
        ]
        for t in threads
    ]
    widths = [
        max(len(x) for x in column)
        for column in zip(["thread", "updated (UTC)", "checkpoints", "step", "status"], *rows)
    ]
    for row in [["thread", "updated (UTC)", "checkpoints", "step", "status"], ["-" * w for w in widths], *rows]:
        print("  ".join(c.ljust(w) for c, w in zip(row, widths)).rstrip())
    return 0


# ---- the app -------------------------------------------------------------------------------------


def checkpointer_url(given: str | None = None) -> str:
    """The checkpointer the app reads: what the user typed, else `$STEPSCOPE_CHECKPOINTER`."""
    import os

    return (given or "").strip() or os.environ.get(CHECKPOINTER_ENV, "")


def open_for_app(target: str, thread_id: str, url: str | None = None, *, db: str | None = None) -> Any:
    """The thread as the app opens a run (`sources.Opened`), kept in the run store so a link to it
    reopens it. Every failure is an `OpenError` with the fix."""
    from debugger import sources
    from debugger.targets import TargetError

    url = checkpointer_url(url)
    if not url:
        raise sources.OpenError(
            "Name the checkpointer: your app's SqliteSaver file or its postgresql:// URL "
            f"(or start the app with `stepscope app --checkpointer URL`, which sets {CHECKPOINTER_ENV})."
        )
    if not (target or "").strip():
        raise sources.OpenError(
            "Name the app's graph (path/to/my_app.py:graph): its reducers and edges rebuild the steps."
        )
    if not (thread_id or "").strip():
        raise sources.OpenError("Choose a thread.")
    try:
        app = load_app(target.strip())
        trace = open_thread(url, thread_id, app)
    except TargetError as exc:
        raise sources.OpenError(str(exc), file=exc.file, line=exc.line) from None
    except CheckpointerError as exc:
        raise sources.OpenError(str(exc)) from None
    except Exception as exc:  # langgraph refusing this graph/thread pair: say what, keep the page working
        raise sources.OpenError(
            f"thread {thread_id!r} could not be rebuilt with {target}: {type(exc).__name__}: {exc}"
        ) from None
    sources.keep(trace, db)
    remember_origin(trace.run_id, target.strip(), url, thread_id)
    shown = target.strip().rpartition("/")[2]
    return sources.Opened(trace, "thread", trace.run_id, None, "", f"{shown} · thread {thread_id}")


def threads_for_app(url: str | None) -> list[ThreadSummary]:
    from debugger import sources

    url = checkpointer_url(url)
    if not url:
        return []
    try:
        return list_threads(url, 100)
    except CheckpointerError as exc:
        raise sources.OpenError(str(exc)) from None


def command_fork(args: argparse.Namespace) -> int:
    """`stepscope fork my_app.py:graph --checkpointer URL --thread ID [--checkpoint ID] [--update JSON
    --as-node NODE] [--resume JSON] [--out FILE]`: runs the app from that checkpoint on a local copy."""
    import json

    from debugger.stores.opening import open_store

    from .fork import fork_thread

    if not args.checkpointer or not args.thread:
        raise CheckpointerError(
            "give --checkpointer URL and --thread ID (`stepscope threads --checkpointer URL` lists them)."
        )
    app = load_app(args.target)
    checkpoint = args.checkpoint
    if not checkpoint:
        found = [t for t in list_threads(args.checkpointer, 10_000) if t.thread_id == args.thread]
        if not found:
            raise CheckpointerError(f"no thread {args.thread!r} in {args.checkpointer}.")
        checkpoint = found[0].last_checkpoint_id
    try:
        values = json.loads(args.update) if args.update is not None else None
        resume = json.loads(args.resume) if args.resume is not None else None
    except json.JSONDecodeError as exc:
        raise CheckpointerError(f"--update and --resume take JSON: {exc}") from None
    result = fork_thread(
        args.checkpointer,
        args.thread,
        app,
        checkpoint,
        values=values,
        as_node=args.as_node,
        resume=resume,
        local=args.out,
    )
    run_id = open_store(args.db).save(result.trace)
    print(f"forked thread {args.thread} at checkpoint {checkpoint} on a local copy: {result.local}")
    print(f"status: {result.trace.status}   run: {run_id}   (the app's checkpointer was not written)")
    if result.error is not None:
        print(f"error: {type(result.error).__name__}: {result.error}")
        return 1
    return 0


def remember_origin(run_id: str, target: str, url: str, thread_id: str) -> None:
    """Notes where an opened thread came from, for time travel on it (in the session: the URL never
    reaches the page address). Outside the app there is no session to note it in."""
    try:
        from debugger import session

        origins = dict(session.recall(session.THREAD_ORIGINS) or {})
        origins[run_id] = (target, url, thread_id)
        session.remember(session.THREAD_ORIGINS, origins)
    except Exception:  # no Streamlit session (a script or a test calling open_for_app): nothing to note
        pass


def fork_for_app(
    run_id: str,
    step: int,
    *,
    node: str | None = None,
    key: str | None = None,
    value_json: str = "",
    answer: Any = None,
    resume: bool = False,
) -> Any:
    """Time travel from the app on a thread opened in this session: edit `key` as `node` at the checkpoint
    after `step` and continue, or answer the interrupt. Returns the fork as `sources.Opened`; every failure
    is an `OpenError` naming the fix."""
    import json

    from debugger import session, sources
    from debugger.targets import TargetError
    from debugger.tracecheck import TraceFileError

    from .fork import fork_thread

    origin = (session.recall(session.THREAD_ORIGINS) or {}).get(run_id)
    if origin is None:
        raise sources.OpenError(
            "Open this thread from the sidebar's Checkpointer thread form first: time travel "
            "needs the app's graph and its checkpointer."
        )
    target, url, thread_id = origin
    trace = sources.open_stored(run_id).trace  # kept when the thread was opened
    steps = {s.step: s for s in trace.steps}
    record = steps.get(step)
    config = (record.checkpoint or {}).get("configurable", {}) if record is not None else {}
    checkpoint_id = config.get("checkpoint_id")
    if not checkpoint_id:
        raise sources.OpenError(f"Step {step} has no stored checkpoint to travel from (it did not finish).")
    values = None
    if not resume:
        try:
            values = {key: json.loads(value_json)}
        except json.JSONDecodeError as exc:
            raise sources.OpenError(f"The new value is not valid JSON: {exc.msg} (line {exc.lineno}).") from None
    try:
        result = fork_thread(
            url,
            thread_id,
            load_app(target),
            checkpoint_id,
            values=values,
            as_node=node,
            resume=answer if resume else None,
        )
    except (TargetError, CheckpointerError, TraceFileError) as exc:
        raise sources.OpenError(str(exc)) from None
    except Exception as exc:  # langgraph refusing the edit (e.g. an unknown node): say so in place
        raise sources.OpenError(f"The fork could not run: {type(exc).__name__}: {exc}") from None
    sources.keep(result.trace)
    remember_origin(result.trace.run_id, target, str(result.local), thread_id)
    title = f"{target.rpartition('/')[2]} · thread {thread_id} · fork at step {step} (local copy)"
    return sources.Opened(result.trace, "fork", result.trace.run_id, None, "", title)
