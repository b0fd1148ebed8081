"""Which run store a command uses: `open_store(db)`.

`db` is what the user gave with `--db` (None when they gave nothing, then `$STEPSCOPE_DB`): a
`postgresql://` URL opens the shared PostgreSQL store (`debugger/store_postgres.py`); anything else
is a path to the SQLite file of `debugger/store.py`, the default. Both have the same operations.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Iterator, Protocol

from debugger.store import ENV_VAR, RunStore, RunSummary
from debugger.store_postgres import PostgresRunStore, is_postgres_url
from engine.trace import StepRecord, Trace


class RunStoreProtocol(Protocol):
    """What every run store does (SQLite `RunStore`, PostgreSQL `PostgresRunStore`). Each method is
    one transaction; every failure is a `StoreError` whose message says what to do."""

    def save(self, trace: Trace, *, replace: bool = True) -> str:
        """Stores a whole run; returns its id. A different run under the same id needs `replace`."""

    def start_run(self, trace: Trace) -> None:
        """Opens a run that is being recorded (status `running`, holding the recording lock)."""

    def append_steps(self, run_id: str, steps: list[StepRecord]) -> None:
        """Adds the supersteps just committed to a run opened with `start_run`."""

    def finish_run(self, trace: Trace) -> None:
        """Closes a recorded run with its final status, output and error."""

    def list(self, *, graph: str | None = None, status: str | None = None, limit: int = 200) -> list[RunSummary]:
        """The stored runs, newest first, optionally of one graph or one status."""

    def thread_runs(self, target: str, thread_id: str) -> list[tuple[str, str, str]]:
        """(run id, started at, status) of one checkpointer thread's runs of `target`, oldest first."""

    def resolve(self, run_id: str) -> str:
        """The full id of `run_id` or of the one run it is a prefix of (at least 4 characters)."""

    def load(self, run_id: str) -> Trace:
        """A stored run as a Trace (a run whose recorder died reads as cut off)."""

    def delete(self, run_id: str) -> str:
        """Removes a run; returns its full id."""

    def export_text(self, run_id: str) -> str:
        """A stored run as the text of a trace file."""

    def export(self, run_id: str, path: str | Path) -> Path:
        """Writes a stored run to a trace file."""

    def import_file(self, path: str | Path, *, replace: bool = False) -> str:
        """Stores a trace file, checked first; returns its run id."""

    def __iter__(self) -> Iterator[RunSummary]:
        """The stored runs, as `list()` gives them."""


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
