"""Which run store a command uses: `open_store(db)`.

`db` is what the user gave with `--db` (None when they gave nothing, then `$STEPSCOPE_DB`): a
`postgresql://` URL opens the shared PostgreSQL store (`debugger/stores/postgres.py`); anything else
is a path to the SQLite file of `debugger/stores/sqlite.py`, the default. Both have the same operations.
"""

from __future__ import annotations

import os
from pathlib import Path

from debugger.stores.postgres import PostgresRunStore
from debugger.stores.protocol import ENV_VAR, RunStoreProtocol
from debugger.stores.sqlite import RunStore
from debugger.stores.urls import is_postgres_url


def open_store(db: str | Path | None = None) -> RunStoreProtocol:
    """The run store named by `db`, else by `$STEPSCOPE_DB`, else the default SQLite file."""
    chosen = db if db not in (None, "") else os.environ.get(ENV_VAR) or None
    if is_postgres_url(chosen):
        return PostgresRunStore(str(chosen))
    return RunStore(db)


def local_db_path(db: str | Path | None = None) -> Path:
    """Where files that must stay on this machine go (`<here>.parent/...`, e.g. saved langgraph threads):
    the SQLite file when the run store is one, else the default SQLite location."""
    chosen = db if db not in (None, "") else os.environ.get(ENV_VAR) or None
    if chosen is not None and not is_postgres_url(str(chosen)):
        return Path(chosen).expanduser()
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "stepscope" / "runs.sqlite3"
