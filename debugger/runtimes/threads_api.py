"""What the `Threads` capability speaks in (`runtime.py`): the types a checkpointer thread is read and forked
with, shared by every runtime whose runs live on checkpointer threads (langgraph, LangGraph.js) and by the
commands and pages that open them. They live beside the interface, never inside one runtime.

    CheckpointerHandle   a checkpointer database opened read-only (`checkpointers/savers.py` opens one)
    CheckpointKey        where a checkpoint sits in its thread, read without decoding it
    ThreadSummary        one row of `stepscope threads`
    ThreadRead           which part of a thread to read (whole, newest steps, one step)
    ThreadFork, ForkResult   time travel from a checkpoint, on a local copy, and what it gives back
    App                  the app's graph as a thread needs it (with the runtime that reads its threads)
    CheckpointerError    one line naming what is wrong with a checkpointer or thread, and the fix
    DamagedThread        the refusal for a thread whose stored bytes are damaged (`damaged_thread`, `damage_in`)

This module imports nothing heavy: the registry and `stepscope run` load it before any app.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from engine.trace import RunRecord, Trace


class CheckpointerError(Exception):
    """A checkpointer that cannot be opened or read; the message says what to do."""


class DamagedThread(CheckpointerError):
    """What was asked of a thread cannot be read: the checkpointer's stored bytes are damaged there."""


@dataclass(frozen=True)
class CheckpointKey:
    """Where one stored checkpoint sits in its thread, read without decoding it."""

    ns: str
    checkpoint_id: str
    parent_id: str | None


@dataclass(frozen=True)
class ThreadSummary:
    """One row of `stepscope threads`."""

    thread_id: str
    checkpoints: int
    """Checkpoints of the root graph (subgraph checkpoints are not counted)."""
    last_checkpoint_id: str
    updated_at: str
    """The `ts` of the newest checkpoint (UTC)."""
    step: int
    status: str
    """`done`, `interrupted` (waiting for `Command(resume=...)`), `error` (a node raised),
    `paused` (tasks planned and not run: a breakpoint, a recursion limit, or a process that stopped),
    `stopped in step N` (writes stored but no checkpoint after them: a merge that failed, or a crash)."""
    next: tuple[str, ...] = ()


class CheckpointerHandle(Protocol):
    """A checkpointer database opened read-only (`debugger.runtimes.checkpointers.savers.open_checkpointer`):
    what a runtime's `read_thread` is given. Nothing read through it can change the app's database."""

    kind: str
    """'sqlite' (then `path` is the file) or 'postgres' (then `url` is the server's)."""
    url: str
    path: Path | None
    """The SQLite file, resolved from `url` (None for PostgreSQL)."""
    label: str
    """The URL with any password masked: what every message names it by."""

    def keys(self, thread_id: str) -> list[CheckpointKey]:
        """Every checkpoint of a thread, oldest first, nothing decoded; `CheckpointerError` for no such thread."""
        ...

    def root_checkpoints(self, thread_id: str) -> list[str]:
        """The ids of the thread's root-graph checkpoints, oldest first, nothing decoded."""
        ...

    def threads(self, limit: int = 200) -> list[ThreadSummary]:
        """The threads, newest first."""
        ...

    def close(self) -> None:
        """Closes the connection."""
        ...


@dataclass(frozen=True)
class ThreadRead:
    """Which part of a checkpointer thread to read (`Threads.read_thread`): the whole thread by default,
    else its `newest` steps or its one `step`, so a view decodes only the checkpoints it shows. Build one,
    then `dataclasses.replace` what differs (the target a command names it by)."""

    thread_id: str
    checkpoint_id: str | None = None
    """The root checkpoint the trace ends at (None: the thread's newest)."""
    target: str = ""
    """What the trace is stored and shown under ('': `thread ID`)."""
    newest: int | None = None
    """Only the last `newest` steps and the state before them (the app's first view; older ones on demand)."""
    step: int | None = None
    """Only this root step (its checkpoint, its parent's, the writes between them) and the thread's newest
    checkpoint, which says how it ended (`show --step N`)."""

    def __post_init__(self) -> None:
        if self.newest is not None and self.step is not None:
            raise ValueError("a thread is read by its newest steps or by one step, not both")

    @property
    def whole(self) -> bool:
        """Every step of the thread is asked for."""
        return self.newest is None and self.step is None


@dataclass
class App:
    """The app's graph as the thread needs it."""

    target: str
    graph: Any
    """The compiled graph: its channels, reducers and nodes rebuild the steps."""
    view: Any = None
    """Its static view for the diagnostics that need no run (`StaticChecks.static_view`), or None."""
    skipped: str | None = None
    """Why the checks before running cannot look at this graph, when they cannot."""
    runtime: Any = None
    """The graph's runtime, whose `Threads` capability reads and forks its threads."""


@dataclass(frozen=True)
class ThreadFork:
    """Time travel on a checkpointer thread (`Threads.fork_thread`): from which checkpoint, with what."""

    url: str
    """The app's checkpointer (a SQLite file or a postgresql:// URL), read only."""
    thread_id: str
    app: App
    """The app whose graph runs the fork."""
    checkpoint_id: str
    values: Any = None
    """An edit applied as `as_node` at the checkpoint before running on, or None."""
    as_node: str | None = None
    resume: Any = None
    """The answer to the interrupt the checkpoint waits at, or None."""
    local: Any = None
    """The local copy's file (None: a fresh one beside the run store)."""


@dataclass
class ForkResult:
    """What `Threads.fork_thread` gives back."""

    trace: Trace
    """The local thread after the fork: the copied history, then the steps the fork ran."""
    local: Path
    """The local SQLite checkpointer holding the copy and the fork."""
    error: BaseException | None
    """What the forked run raised, if it failed (its trace says so too)."""


def with_ending(shown: Trace, ending: RunRecord) -> Trace:
    """One step of a thread (`shown`, read up to that step) and how the thread ended (`ending`, read from
    its newest checkpoint alone) as one trace: the ending's steps after the shown ones, its status, output,
    error and interrupts the trace's. This is what `ThreadRead.step` promises, whichever runtime reads."""
    shown.steps.extend(ending.steps)
    shown.status, shown.output, shown.error, shown.interrupts = (
        ending.status,
        ending.output,
        ending.error,
        ending.interrupts,
    )
    return shown


def damaged_thread(label: str, thread_id: str, where: str, more: int = 0) -> DamagedThread:
    """The refusal for thread `thread_id` of the checkpointer `label`, damaged at `where` (which names the
    checkpoint and what its decoder said), with `more` other damaged steps read; says how to fix it."""
    others = f" ({more} more damaged in what was read)" if more else ""
    return DamagedThread(
        f"the checkpointer {label} is damaged: thread {thread_id!r}, {where}{others}. Restore the file (or "
        f"database) from a backup, or delete the thread (the app's saver.delete_thread({thread_id!r})); "
        f"`stepscope threads --checkpointer {label}` lists the other threads."
    )


def damage_in(trace: Any) -> tuple[str, int] | None:
    """The first damaged step of a rebuilt thread (`trace`, its subgraphs' runs too) in words, and how many
    more there are; None when everything read decoded."""
    found = [
        f"step {step.step}: {m['damaged']}" for step in _steps_of(trace) for m in step.mismatches if m.get("damaged")
    ]
    return (found[0], len(found) - 1) if found else None


def _steps_of(run: Any) -> Any:
    for step in run.steps:
        yield step
        for task in step.tasks:
            for sub in task.subgraphs:
                yield from _steps_of(sub)


def thread_file(db_path: Path, target: str, thread_id: str) -> Path:
    """Where a run's in-memory saver keeps thread `thread_id` of `target` between processes, beside the run
    database: one place for every runtime with threads (the folder keeps its first name so older runs'
    threads are still found)."""
    digest = hashlib.sha1(target.encode()).hexdigest()[:10]
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", thread_id)[:80]
    return db_path.parent / "langgraph-threads" / f"{digest}-{safe}.json"
