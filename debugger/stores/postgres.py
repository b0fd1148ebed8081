"""Stored runs in PostgreSQL: the run store a team shares (psycopg 3).

`STEPSCOPE_DB` (or `--db`) set to a `postgresql://` URL selects this store (`debugger.stores.opening.open_store`);
anything else is the SQLite file of `debugger/stores/sqlite.py`, which stays the default and needs no server.
The operations and their rules are the SQLite store's, written once in `row_store.RowStore` over
`PostgresDialect`: `save`, `list`, `load`, `resolve`, `delete`,
`export`, `import_file`; run ids matched exactly or by a prefix of at least `MIN_PREFIX` characters that
names one run (never a pattern); an import whose id is stored with other content is refused unless
`replace`.

Layout (`debugger/stores/postgres_layout.py`, `VERSION` 5, the SQLite store's design): tables named
`stepscope_*`, so the store may live in the same database as an app's checkpointer; the run list's
columns and each trace's head in `stepscope_runs`, one row per superstep in `stepscope_steps`, each
large value once in `stepscope_blobs`, a long run's kept states in `stepscope_snapshots`; a short run is
read back as one trace file (`compose_json`), a long one a batch of rows at a time. Opening
checks the layout in one transaction under an advisory lock (several processes may open a fresh
database at once): empty gets the current layout, an older one is migrated, a newer or foreign one is
refused with a message and left unchanged. Each operation is one short transaction, so any number of
processes on any number of hosts can record at once.

A run being recorded (`debugger.sources.recording.StoreSink`) is written as it goes, each call its own
committed transaction: `start_run` its head, `append_steps` each batch of finished steps, `finish_run`
what is left (status, output, error, the last steps). A process killed mid-run leaves every step it
handed over. The recording holds one connection with a session advisory lock on the run
(`_RECORDING`); the server drops the lock when that process dies or its connection is lost, so a
`running` run whose lock nobody holds was cut off, and `list`/`load` say so (`CUT_OFF`).
"""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Any, Iterator

from debugger.stores.postgres_layout import LAYOUT_LOCK, VERSION, check_and_migrate
from debugger.stores.protocol import CUT_OFF, ENV_VAR, RunExistsError, StoreError, StoreFull
from debugger.stores.row_store import RowStore
from debugger.stores.urls import BadURL, checked_postgres_url, masked
from engine.trace import Trace

__all__ = ["CUT_OFF", "VERSION", "PostgresRunStore", "RunExistsError"]

_RECORDING = 0x53745263  # "StRc": (this, run key) is held by the connection recording a run
_WRITING = 0x53745772  # "StWr": (this, run key) serialises whole-run writes of one id
_RUN_KEY = "hashtext(%s) & 2147483647"
"""The second half of a run's advisory lock keys (a collision only makes a cut-off run look alive)."""
_KEEPALIVES = {"keepalives_idle": 60, "keepalives_interval": 10, "keepalives_count": 6}
"""TCP keepalives of a recording's connection, on both ends (seconds, probes)."""
_TABLES = {name: f"stepscope_{name}" for name in ("runs", "steps", "blobs", "snapshots")}
_CUT_OFF_SQL = f"""(status = 'running' AND NOT EXISTS (
    SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.objsubid = 2 AND l.classid = ?::oid
    AND l.objid = ({_RUN_KEY.replace("%s", "run_id")})::oid
    AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())))"""
"""True for a `running` run whose recording connection is gone (takes `_RECORDING` as its parameter)."""


class PostgresRunStore(RowStore):
    """Runs kept in a PostgreSQL database. Each call is its own transaction, on its own connection
    except while a run is recorded (`start_run` .. `finish_run`), which keeps one."""

    def __init__(self, url: str) -> None:
        try:
            import psycopg
        except ImportError:
            raise StoreError(
                f"{ENV_VAR} is a PostgreSQL URL, which needs `pip install stepscope[postgres]` (psycopg 3)."
            ) from None
        try:
            self.url = checked_postgres_url(url, f"{ENV_VAR} (or --db)")
        except BadURL as exc:
            raise StoreError(str(exc)) from None
        self.path = masked(url)
        """Where the runs are, for messages (the URL without its password)."""
        super().__init__(PostgresDialect(psycopg, self.url, self.path))
        try:
            with self.dialect.transaction() as cur:
                cur.execute("SELECT pg_advisory_xact_lock(%s)", (LAYOUT_LOCK,))
                check_and_migrate(cur, self.path)
        except psycopg.Error as exc:
            raise StoreError(
                f"cannot use the run database {self.path}: {_reason(exc)}. "
                f"Check the URL and that the server is running, or set {ENV_VAR} to a file."
            ) from None


class PostgresDialect:
    """PostgreSQL's part of the row store (`dialect.Dialect`): a connection per operation, one kept for
    reading a long run's rows, one kept per run being recorded, which holds the run's session advisory
    lock (`_RECORDING`) until the run ends; the server drops it when that process dies or its connection
    is lost, so SQL itself can tell a cut-off run (`_CUT_OFF_SQL`)."""

    extra_columns = ("thread_id",)
    saved_order = "saved"
    thread_match = "thread_id = ?"
    step_bytes = "length(data)"
    holds_text = "strpos(data, ?) > 0"
    for_update = " FOR UPDATE"

    def __init__(self, psycopg: Any, url: str, where: str) -> None:
        self.psycopg = psycopg
        self.Error = psycopg.Error
        self.url = url
        self.where = where
        self.held: dict[str, Any] = {}
        """The connection of each run being recorded, by run id; it holds the run's `_RECORDING` lock."""
        self._reader: Any = None
        self._reader_lock = threading.Lock()
        """Guards `_reader`: the app reads a long run's steps from the threads of several sessions."""
        self._sql: dict[str, str] = {}

    # ---- SQL text and upsert ------------------------------------------------------------------------

    def sql(self, text: str) -> str:
        found = self._sql.get(text)
        if found is None:
            found = self._sql[text] = text.format(**_TABLES).replace("?", "%s")
        return found

    def insert_ignoring(self, table: str, width: int) -> str:
        return f"INSERT INTO {_TABLES[table]} VALUES ({', '.join(['%s'] * width)}) ON CONFLICT DO NOTHING"

    def extra_values(self, trace: Trace) -> tuple[Any, ...]:
        return (str(getattr(trace, "thread_id", "") or ""),)

    # ---- connections -------------------------------------------------------------------------------

    @contextmanager
    def transaction(self) -> Iterator[Any]:
        with self.psycopg.connect(self.url, connect_timeout=10) as conn:  # commits on success, rolls back on error
            with conn.cursor() as cur:
                yield cur

    @contextmanager
    def writing(self, what: str) -> Iterator[Any]:
        try:
            with self.transaction() as cur:
                yield cur
        except self.psycopg.Error as exc:
            raise _failed(exc, f"cannot {what} in {self.where}: {_reason(exc)}.") from None

    @contextmanager
    def snapshot(self, what: str) -> Iterator[Any]:
        with self.writing(what) as cur:
            cur.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            yield cur

    @contextmanager
    def reading(self, what: str) -> Iterator[Any]:
        """A cursor on this store's one reading connection (autocommit: each statement sees the rows as
        they are), opened when first needed: a long run read a batch of rows at a time does not open a
        connection per batch. A connection the server dropped is dropped here too, and the next read
        opens a new one."""
        with self._reader_lock:
            try:
                if self._reader is None or self._reader.closed:
                    self._reader = self.psycopg.connect(self.url, connect_timeout=10, autocommit=True)
                with self._reader.cursor() as cur:
                    yield cur
            except self.psycopg.Error as exc:
                if isinstance(exc, self.psycopg.OperationalError):
                    self._reader = None
                raise StoreError(f"cannot {what} in {self.where}: {_reason(exc)}.") from None

    # ---- locking: is a `running` run still being recorded? ----------------------------------------

    def start_recording(self, run_id: str) -> None:
        """Opens the connection kept for the run; `claim` takes its lock in the first transaction."""
        try:
            # the connection may idle while a node works for minutes: keepalives hold it open through NATs
            # and firewalls, and let the server notice a recording host that lost power within minutes (the
            # run then reads as cut off), not after the system's default two hours
            conn = self.psycopg.connect(self.url, connect_timeout=10, autocommit=True, **_KEEPALIVES)
            for name, value in _KEEPALIVES.items():
                conn.execute(f"SET tcp_{name} = {value}")
        except self.psycopg.Error as exc:
            raise StoreError(f"cannot store run {run_id} in {self.where}: {_reason(exc)}.") from None
        self.held[run_id] = conn

    @contextmanager
    def recording(self, run_id: str, what: str) -> Iterator[Any]:
        """One transaction on the connection recording `run_id` (a fresh one if this store is not
        recording it). A database error ends the recording connection: the caller keeps what is left."""
        conn = self.held.get(run_id)
        if conn is None:
            with self.writing(what) as cur:
                yield cur
            return
        try:
            with conn.transaction(), conn.cursor() as cur:
                yield cur
        except self.psycopg.Error as exc:
            self.stop_recording(run_id)
            raise _failed(exc, f"cannot {what} in {self.where}: {_reason(exc)}.") from None
        except BaseException:
            self.stop_recording(run_id)
            raise

    def claim(self, cur: Any, run_id: str) -> None:
        cur.execute(f"SELECT pg_try_advisory_lock(%s, {_RUN_KEY})", (_RECORDING, run_id))  # held past the commit

    def lock_run(self, cur: Any, run_id: str) -> None:
        cur.execute(f"SELECT pg_advisory_xact_lock(%s, {_RUN_KEY})", (_WRITING, run_id))

    def stop_recording(self, run_id: str) -> None:
        conn = self.held.pop(run_id, None)
        if conn is not None:
            try:
                conn.close()  # the server drops the run's lock with the session
            except self.psycopg.Error:
                pass

    def records(self, run_id: str) -> bool:
        return run_id in self.held

    def cut_off_test(self) -> tuple[str, tuple[Any, ...]]:
        return _CUT_OFF_SQL, (_RECORDING,)

    def nobody_records(self, run_id: str) -> bool:
        return True  # `_CUT_OFF_SQL` has asked the server's lock table already

    def forget(self, run_id: str) -> None:
        """Nothing: an advisory lock leaves nothing behind."""


def _failed(exc: BaseException, message: str) -> StoreError:
    """The store's error for `exc`: `StoreFull` for the server's disk full (SQLSTATE 53100)."""
    if getattr(exc, "sqlstate", None) != "53100":
        return StoreError(message)
    error = StoreFull(message)
    error.reason = _reason(exc)
    return error


def _reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return masked(text[0]) if text else type(exc).__name__
