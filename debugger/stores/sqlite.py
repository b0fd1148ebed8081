"""Stored runs: an embedded SQLite database of traces (standard library `sqlite3`).

The database lives at `$STEPSCOPE_DB` if set, else `~/.local/share/stepscope/runs.sqlite3` (under
`$XDG_DATA_HOME` when that is set); every command takes `--db PATH` to use another file. Each row keeps
the summary the run list needs (graph, target, time, status, steps, error) and the trace itself as
JSON text, so a stored run opens with no engine and no graph code. Its layout and migrations are
`sqlite_layout.py`; the operations are the skeleton every row store shares (`row_store.RowStore`), over
`SqliteDialect`.

A run stored while it is recorded (`start_run`) holds an exclusive `flock` on a file of its own,
`<database>.recording/<run id>`, until `finish_run`: the kernel lets go of it when the recording
process dies, so a `running` run whose file nobody holds was cut off, and `list`/`load` say so
(`CUT_OFF`; the PostgreSQL store does the same with an advisory lock).
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

try:
    import fcntl
except ImportError:  # pragma: no cover - not on this platform: a cut-off run stays `running`, unmarked
    fcntl = None  # type: ignore[assignment]

from debugger.stores.protocol import CUT_OFF, ENV_VAR, StoreError, StoreFull
from debugger.stores.row_store import RowStore
from debugger.stores.sqlite_layout import APPLICATION_ID, VERSION, check_and_migrate, prove_writable
from engine.trace import Trace

__all__ = ["APPLICATION_ID", "CUT_OFF", "VERSION", "RunStore", "SqliteDialect", "default_db_path"]

_TABLES = {"runs": "runs", "steps": "run_steps", "blobs": "run_blobs", "snapshots": "run_snapshots"}
PAGE_SIZE = 8192
"""Bytes of a new database's pages. A long chat's step rows are about 700 bytes: five fit in SQLite's 4,096
(15% of each page left empty), eleven in 8,192; its 10,000-message database is 9.73 MB, not 10.45."""


def default_db_path() -> Path:
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR]).expanduser()
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "stepscope" / "runs.sqlite3"


class RunStore(RowStore):
    """Runs kept in one SQLite file. Cheap to open; each call is its own transaction."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else default_db_path()
        super().__init__(SqliteDialect(self.path))
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.dialect.transaction() as db:
                check_and_migrate(db, self.path)
                prove_writable(db)
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(
                f"cannot use the run database {self.path}: {_reason(exc)}. "
                f"Pass --db PATH or set {ENV_VAR} to a writable file."
            ) from None


class SqliteDialect:
    """SQLite's part of the row store (`dialect.Dialect`): one connection per operation, a write
    transaction taken at once (`BEGIN IMMEDIATE`, which also serialises whole-run writes), and a
    recording held by a `flock` on a file beside the database."""

    Error = sqlite3.Error
    extra_columns: tuple[str, ...] = ()
    saved_order = "rowid"
    thread_match = "json_extract(trace, '$.thread_id') = ?"
    step_bytes = "length(CAST(data AS BLOB))"
    holds_text = "instr(data, ?) > 0"
    for_update = ""

    def __init__(self, path: Path) -> None:
        self.path = path
        self.where = str(path)
        self.locks = Path(os.path.realpath(path) + ".recording")
        """Where recordings hold their locks: beside the real file, so a run opened through a
        symbolic link (or a relative path) finds the lock its recorder holds."""
        self.held: dict[str, int] = {}
        """Per run this process records (`start_recording`), the file descriptor holding its lock."""

    # ---- SQL text and upsert ------------------------------------------------------------------------

    def sql(self, text: str) -> str:
        return text.format(**_TABLES)

    def insert_ignoring(self, table: str, width: int) -> str:
        return f"INSERT OR IGNORE INTO {_TABLES[table]} VALUES ({', '.join('?' * width)})"

    def extra_values(self, trace: Trace) -> tuple[Any, ...]:
        return ()

    # ---- connections -------------------------------------------------------------------------------

    def connect(self) -> sqlite3.Connection:
        db = sqlite3.connect(self.path, timeout=10, isolation_level=None)
        db.execute(f"PRAGMA page_size = {PAGE_SIZE}")  # a new file's pages; a file that has pages keeps its own
        return db

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, taken at once (`BEGIN IMMEDIATE`), so a read-only file fails here."""
        db = self.connect()
        try:
            db.execute("BEGIN IMMEDIATE")
            try:
                yield db
            except BaseException:
                if db.in_transaction:  # SQLite has rolled back itself on a full disk: the error is that one
                    db.execute("ROLLBACK")
                raise
            db.execute("COMMIT")
        finally:
            db.close()

    @contextmanager
    def writing(self, what: str) -> Iterator[sqlite3.Connection]:
        try:
            with self.transaction() as db:
                yield db
        except sqlite3.Error as exc:
            raise _failed(exc, f"cannot {what} in {self.path}: {_reason(exc)}.") from None

    @contextmanager
    def reading(self, what: str) -> Iterator[sqlite3.Connection]:
        db = self.connect()
        try:
            yield db
        except sqlite3.Error as exc:
            raise StoreError(f"cannot {what} in {self.path}: {_reason(exc)}.") from None
        finally:
            db.close()

    @contextmanager
    def snapshot(self, what: str) -> Iterator[sqlite3.Connection]:
        """A deferred transaction: its reads share one state, and a read-only file still opens."""
        with self.reading(what) as db:
            db.execute("BEGIN")
            yield db

    # ---- locking: is a `running` run still being recorded? ----------------------------------------

    def recording(self, run_id: str, what: str) -> Any:
        return self.writing(what)  # the whole file is locked by each write transaction

    def claim(self, cur: Any, run_id: str) -> None:
        """Nothing: the `flock` is taken by `start_recording`, before the transaction."""

    def lock_run(self, cur: Any, run_id: str) -> None:
        """Nothing: `BEGIN IMMEDIATE` already holds the database for the transaction."""

    def _lock_file(self, run_id: str) -> Path:
        return self.locks / hashlib.sha256(run_id.encode()).hexdigest()[:32]

    def start_recording(self, run_id: str) -> None:
        """Takes the run's recording lock (nothing to take where `flock` does not exist)."""
        if fcntl is None:
            return
        try:
            path = self._lock_file(run_id)
            path.parent.mkdir(exist_ok=True)
            fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o644)
        except OSError:  # an unwritable folder: the run is recorded, only not known to be live
            return
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:  # another process records a run with this id: leave its lock alone
            os.close(fd)
            return
        self.held[run_id] = fd

    def stop_recording(self, run_id: str) -> None:
        fd = self.held.pop(run_id, None)
        if fd is None:
            return
        try:
            self._lock_file(run_id).unlink(missing_ok=True)
        finally:
            os.close(fd)  # closing releases the lock

    def records(self, run_id: str) -> bool:
        return run_id in self.held

    def cut_off_test(self) -> tuple[str, tuple[Any, ...]]:
        return "status = 'running'", ()  # SQL cannot see a flock: `nobody_records` asks the kernel

    def nobody_records(self, run_id: str) -> bool:
        """True when no process holds the run's lock file."""
        if fcntl is None:
            return False
        try:
            fd = os.open(self._lock_file(run_id), os.O_RDONLY)
        except FileNotFoundError:  # never held, or by a StepScope that did not take one: nobody records it
            return True
        except OSError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)
        except OSError:  # held: being recorded
            return False
        finally:
            os.close(fd)
        return True

    def forget(self, run_id: str) -> None:
        self._lock_file(run_id).unlink(missing_ok=True)


def _failed(exc: sqlite3.Error, message: str) -> StoreError:
    """The store's error for `exc`: `StoreFull` where the file could not grow (SQLite's "database or disk
    is full"; "disk I/O error" on a write, which is what a file-size limit gives)."""
    name = getattr(exc, "sqlite_errorname", "")
    if name not in ("SQLITE_FULL", "SQLITE_IOERR_WRITE") and "database or disk is full" not in str(exc):
        return StoreError(message)
    error = StoreFull(message)
    error.reason = _reason(exc)
    return error


def _reason(exc: BaseException) -> str:
    if isinstance(exc, OSError):
        return exc.strerror or str(exc)
    text = str(exc)
    if "file is not a database" in text:
        return "the file is not an SQLite database"
    if "readonly" in text or "read-only" in text:
        return "the file is read-only"
    return text
