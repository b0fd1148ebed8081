"""Time travel on a production thread, on a local copy: never on the app's checkpointer.

`fork_thread` copies the thread's checkpoints up to the chosen one (every namespace, with the writes
stored on each; not the writes of the chosen checkpoint itself, so its next step runs again) from the
app's checkpointer, read-only, into a local SQLite file written by langgraph's own `SqliteSaver`. Then
it runs the app's graph there with langgraph's time travel: optionally `update_state(values, as_node)`
on the chosen checkpoint, then `invoke(None)` (or `Command(resume=...)` for a thread waiting at an
interrupt). The result is read back like any thread (`reader.read_thread`): the history up to the
fork, then the new steps.

The nodes run for real (the app's own code: a model call is made again). The local file is kept, so
the fork can be opened again (`stepscope show ... --checkpointer LOCAL --thread ID`).
"""

from __future__ import annotations

import contextlib
import os
import sqlite3
import tempfile
from pathlib import Path
from typing import Any

from debugger.runtimes.checkpointers.savers import open_checkpointer
from debugger.runtimes.threads_api import CheckpointerError, ForkResult, ThreadRead

from .reader import read_thread


def copy_thread(url: str, thread_id: str, checkpoint_id: str, local: Path) -> None:
    """The thread's checkpoints up to `checkpoint_id` (root namespace id, time order for the others)
    into a fresh SqliteSaver file at `local`, written beside it and renamed into place once whole."""
    with open_checkpointer(url) as production:
        tuples = production.history(thread_id)
    roots = {
        t.config["configurable"]["checkpoint_id"] for t in tuples if t.config["configurable"]["checkpoint_ns"] == ""
    }
    if checkpoint_id not in roots:
        raise CheckpointerError(
            f"thread {thread_id!r} has no checkpoint {checkpoint_id!r} of the root graph; "
            "`stepscope show ... --thread ID` prints each step's checkpoint."
        )
    if local.exists():
        raise CheckpointerError(f"{local} exists already: choose a new file for the fork.")
    from debugger.commands.files import beside  # the copy is whole or not there, as every file at a user's path

    local.parent.mkdir(parents=True, exist_ok=True)
    temporary = beside(local)
    try:
        _copy_into(temporary, tuples, thread_id, checkpoint_id)
        os.replace(temporary, local)
    except (sqlite3.Error, OSError) as exc:
        with contextlib.suppress(OSError):
            os.unlink(temporary)
        raise CheckpointerError(f"cannot write the fork's copy {local}: {exc}; nothing was left there.") from None


def _copy_into(path: Path, tuples: list[Any], thread_id: str, checkpoint_id: str) -> None:
    """The checkpoints of `tuples` up to `checkpoint_id` into a fresh SqliteSaver file at `path`."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    conn = sqlite3.connect(path, check_same_thread=False)
    try:
        saver = SqliteSaver(conn)
        saver.setup()
        for saved in tuples:
            conf = saved.config["configurable"]
            if conf["checkpoint_id"] > checkpoint_id:
                continue
            parent = (saved.parent_config or {}).get("configurable", {}).get("checkpoint_id")
            target = {
                "configurable": {
                    "thread_id": thread_id,
                    "checkpoint_ns": conf["checkpoint_ns"],
                    "checkpoint_id": parent,
                }
            }
            stored = saver.put(target, saved.checkpoint, saved.metadata, saved.checkpoint.get("channel_versions", {}))
            if conf["checkpoint_id"] == checkpoint_id:
                continue  # the step after the chosen checkpoint runs again: its old writes stay behind
            by_task: dict[str, list[tuple[str, Any]]] = {}
            for task_id, channel, value in saved.pending_writes or []:
                by_task.setdefault(task_id, []).append((channel, value))
            for task_id, writes in by_task.items():
                saver.put_writes(stored, writes, task_id)
    finally:
        conn.close()


def fork_thread(
    url: str,
    thread_id: str,
    app: Any,
    checkpoint_id: str,
    *,
    values: Any = None,
    as_node: str | None = None,
    resume: Any = None,
    local: str | Path | None = None,
) -> ForkResult:
    """Runs `app` (an `open.App`) from checkpoint `checkpoint_id` of the thread on a local copy."""
    from langgraph.checkpoint.sqlite import SqliteSaver
    from langgraph.types import Command

    path = Path(local) if local else Path(tempfile.mkdtemp(prefix="stepscope-fork-")) / f"{_safe(thread_id)}.sqlite"
    copy_thread(url, thread_id, checkpoint_id, path)
    conn = sqlite3.connect(path, check_same_thread=False)
    error: BaseException | None = None
    try:
        forked = app.graph.copy(update={"checkpointer": SqliteSaver(conn)})
        config: Any = {"configurable": {"thread_id": thread_id, "checkpoint_ns": "", "checkpoint_id": checkpoint_id}}
        if values is not None:
            config = forked.update_state(config, values, as_node=as_node)
        try:
            forked.invoke(Command(resume=resume) if resume is not None else None, config)
        except Exception as exc:  # the fork's own failure is part of what it shows
            error = exc
    finally:
        conn.close()
    with open_checkpointer(str(path)) as copy:
        target = f"{app.target} thread {thread_id} (fork at {checkpoint_id[-8:]})"
        trace = read_thread(copy, app.graph, ThreadRead(thread_id, target=target))
    return ForkResult(trace, path, error)


def _safe(name: str) -> str:
    return "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:80] or "thread"
