"""LangGraph.js checkpointer threads opened as recorded runs: `stepscope show app.mjs:graph --checkpointer
URL --thread ID` (and `diagnose`, `app`, time travel on the thread).

A thread written by `@langchain/langgraph-checkpoint-sqlite` or `-postgres` holds JavaScript values folded
by JavaScript reducers, so it is rebuilt in node, by LangGraph.js's own code (`thread_replay.mjs`: the
app's graph loaded, never run; the app's saver package opened read-only; each stored step planned and
its writes applied through the real channels), and the events come back as a recording's do
(`reader.py`), through the one trace writer. The trace has the shape a Python thread's has (both keep
`debugger/runtimes/threads_api.py`'s contract): the thread's id, a run id derived from the thread and
its newest checkpoint, a step per checkpoint, a mismatch where the rebuilt value is not the stored one.
It is read as much as it is shown, as a Python thread is (`reader.py` there): the app's first view only its
newest steps, `show --step N` only step N and the newest checkpoint; node then gets the thread's shape
(read here from the saver's table, nothing decoded) and decodes only the checkpoints that part needs.

Time travel on such a thread (`fork_js_thread`) copies it into a local SQLite file written by the app's
own `SqliteSaver` and runs on from the checkpoint there (`thread_fork.mjs`), never on the app's saver.
"""

from __future__ import annotations

import tempfile
import uuid
from pathlib import Path
from typing import Any

from debugger.runtimes.checkpointers.savers import open_checkpointer
from debugger.runtimes.threads_api import (
    CheckpointerError,
    CheckpointerHandle,
    ForkResult,
    ThreadFork,
    ThreadRead,
    with_ending,
)
from engine.trace import Trace, new_run, utc_now

from .process import JSAppError, NodeRun
from .reader import EventReader, _unknown_graph

THREAD_TIMEOUT = 300.0
"""Seconds node may take to load the app and rebuild one thread (a long thread takes a while)."""


def saver_address(checkpointer: CheckpointerHandle) -> dict[str, str]:
    """What node opens: the saver package's kind and the file or URL (the checkpointer Python opened)."""
    if checkpointer.kind == "sqlite":
        return {"kind": "sqlite", "url": str(checkpointer.path.resolve())}
    return {"kind": "postgres", "url": checkpointer.url}


def head_checkpoint(checkpointer: CheckpointerHandle, thread_id: str, checkpoint_id: str | None) -> str:
    """The root checkpoint the trace ends at: `checkpoint_id`, else the thread's newest (refused in words
    when the thread has none)."""
    roots = checkpointer.root_checkpoints(thread_id)
    if not roots:
        raise CheckpointerError(
            f"no thread {thread_id!r} in {checkpointer.label}; "
            f"`stepscope threads --checkpointer {checkpointer.label}` lists them."
        )
    if checkpoint_id and checkpoint_id not in roots:
        raise CheckpointerError(f"no checkpoint {checkpoint_id!r} in thread {thread_id!r}.")
    return checkpoint_id or max(roots)


def read_js_thread(checkpointer: CheckpointerHandle, graph: Any, read: ThreadRead) -> Trace:
    """The part of thread `read.thread_id` of `checkpointer` that `read` asks for, rebuilt by node with the
    app's `graph` (a `JSGraph`), up to `read.checkpoint_id` (default: its newest). A whole thread is listed
    and decoded by node in one pass; for its `newest` steps or its one `step`, node is given the thread's
    shape (every checkpoint's namespace, id and parent, read here without decoding anything) and decodes
    only the checkpoints that part needs. `CheckpointerError` (one line) when it cannot be."""
    thread_id = read.thread_id
    head = head_checkpoint(checkpointer, thread_id, read.checkpoint_id)
    shown = "" if read.whole else f"#last{read.newest}" if read.step is None else f"#step{read.step}"
    run_id = uuid.uuid5(uuid.NAMESPACE_URL, f"{checkpointer.label}#{thread_id}#{head}{shown}").hex
    target = read.target or f"thread {thread_id}"
    reader = EventReader(target=target, run_id=run_id)
    request: dict[str, Any] = {
        "app": str(graph.app),
        "export": graph.export,
        "mode": "thread",
        "checkpointer": saver_address(checkpointer),
        "label": checkpointer.label,
        "thread_id": thread_id,
        "checkpoint_id": head,
    }
    if not read.whole:
        request["index"] = [[k.ns, k.checkpoint_id, k.parent_id] for k in checkpointer.keys(thread_id)]
        request["newest" if read.step is None else "step"] = read.newest if read.step is None else read.step
    run, stopped = _run_in_node(request, reader, graph)
    if stopped is not None or reader.root is None or reader.result is None:
        why = (
            f"it took longer than {THREAD_TIMEOUT:g} s"
            if stopped == "timeout"
            else run.stderr_line() or f"node exited with status {run.process.returncode}"
        )
        raise CheckpointerError(f"thread {thread_id!r} could not be rebuilt by LangGraph.js: {why}")

    def empty_run() -> Trace:  # never used: the thread's root run came (checked above)
        return new_run(ns=[], graph=_unknown_graph([]), input=None, config={}, started_at=utc_now(), trace=True)

    trace = reader.close(empty_run=empty_run)
    trace.thread_id = thread_id
    if read.step is not None and reader.outside:  # the thread's ending, read apart from the step shown
        return with_ending(trace, reader.outside[-1])
    return trace


def _run_in_node(request: dict[str, Any], reader: EventReader, graph: Any) -> tuple[NodeRun, str | None]:
    """Runs a thread request of `graph`'s app in node for up to THREAD_TIMEOUT: (the run, how it was stopped,
    or None). A CheckpointerError of one line when node cannot start it or the app says why it cannot."""
    try:
        run = NodeRun(request, reader)
    except JSAppError as exc:
        raise CheckpointerError(str(exc)) from None
    stopped = run.wait(THREAD_TIMEOUT)
    if reader.fatal is not None:
        raise CheckpointerError(f"thread {request['thread_id']!r} of {graph.app.name}: {reader.fatal}")
    return run, stopped


class _ForkReader(EventReader):
    """Reads the one `forked` answer of a fork request."""

    forked: dict[str, Any] | None = None

    def _on_forked(self, event: dict[str, Any]) -> None:
        self.forked = event


def fork_js_thread(fork: ThreadFork) -> ForkResult:
    """Time travel from checkpoint `fork.checkpoint_id` of a LangGraph.js thread, on a local SQLite copy made
    and run by node (`thread_fork.mjs`), read back as any thread. `CheckpointerError` (one line) when it
    cannot be made; the fork's own failure is in `ForkResult.error` and its trace."""
    app, thread_id = fork.app, fork.thread_id
    local = (
        Path(fork.local)
        if fork.local
        else Path(tempfile.mkdtemp(prefix="stepscope-fork-")) / f"{_safe(thread_id)}.sqlite"
    )
    with open_checkpointer(fork.url) as production:
        address = saver_address(production)
        label = production.label
    reader = _ForkReader(target=app.target, run_id=uuid.uuid4().hex)
    request = {
        "app": str(app.graph.app),
        "export": app.graph.export,
        "mode": "thread",
        "fork": True,
        "checkpointer": address,
        "label": label,
        "thread_id": thread_id,
        "checkpoint_id": fork.checkpoint_id,
        "local": str(local),
        "values": fork.values,
        "as_node": fork.as_node,
        "resume": fork.resume,
    }
    run, stopped = _run_in_node(request, reader, app.graph)
    if reader.forked is None:
        why = f"it took longer than {THREAD_TIMEOUT:g} s" if stopped else run.stderr_line() or "node gave no answer"
        raise CheckpointerError(f"the fork of thread {thread_id!r} could not run: {why}")
    failure = reader.forked.get("error")
    error = JSForkError(failure.get("class", "Error"), failure.get("message", "")) if failure else None
    with open_checkpointer(str(local)) as copy:
        target = f"{app.target} thread {thread_id} (fork at {fork.checkpoint_id[-8:]})"
        trace = read_js_thread(copy, app.graph, ThreadRead(thread_id, target=target))
    return ForkResult(trace, local, error)


class JSForkError(Exception):
    """What a forked LangGraph.js run threw: its class name and message, uncut."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(f"{name}: {message}")
        self.js_name = name


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:80] or "thread"
