"""Which run store a command uses: `open_store(db)`.

`db` is what the user gave with `--db` (None when they gave nothing, then `$STEPSCOPE_DB`): a
`postgresql://` URL opens the shared PostgreSQL store (`debugger/stores/postgres.py`); anything else
is a path to the SQLite file of `debugger/stores/sqlite.py`, the default. Both have the same operations.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from debugger.stores.postgres import PostgresRunStore
from debugger.stores.protocol import ENV_VAR, RunStoreProtocol, StoreError
from debugger.stores.sqlite import RunStore
from debugger.stores.urls import is_postgres_url
from engine.trace import Trace


def open_store(db: str | Path | None = None) -> RunStoreProtocol:
    """The run store named by `db`, else by `$STEPSCOPE_DB`, else the default SQLite file."""
    chosen = db if db not in (None, "") else os.environ.get(ENV_VAR) or None
    if is_postgres_url(chosen):
        return PostgresRunStore(str(chosen))
    return RunStore(db)


def load_trace(ref: str, db: str | Path | None = None) -> Trace:
    """The trace `ref` names: a `.json` trace file (or any existing file), else a stored run id (a unique
    prefix is enough) in the run store `db`."""
    path = Path(ref)
    if path.suffix == ".json" or path.is_file():
        from debugger.sources.trace_check import read_trace_file  # here: its schemas cost a run 0.2 s

        return read_trace_file(path)
    return open_store(db).load(ref)


def local_db_path(db: str | Path | None = None) -> Path:
    """Where files that must stay on this machine go (`<here>.parent/...`, e.g. saved langgraph threads):
    the SQLite file when the run store is one, else the default SQLite location."""
    chosen = db if db not in (None, "") else os.environ.get(ENV_VAR) or None
    if chosen is not None and not is_postgres_url(str(chosen)):
        return Path(chosen).expanduser()
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "stepscope" / "runs.sqlite3"


@dataclass(frozen=True)
class ThreadTurn:
    """One stored run of a checkpointer thread: a turn of the conversation."""

    run_id: str
    started_at: str
    status: str


def thread_runs(thread_id: str, target: str, db: str | None = None) -> list[ThreadTurn]:
    """The stored runs of one thread of one target, oldest first: the turns of a conversation; [] when the
    database cannot be read (the run itself is still shown)."""
    if not thread_id:
        return []
    try:
        return [ThreadTurn(*row) for row in open_store(db).thread_runs(target, thread_id)]
    except StoreError:
        return []
