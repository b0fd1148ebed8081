"""What one database gives the run store's skeleton (`debugger.stores.row_store.RowStore`): a small
object each for SQLite (`sqlite.py`) and PostgreSQL (`postgres.py`), as SQLAlchemy's `Dialect` is.

Four things differ between the databases, and only these: the SQL text (table names, the parameter mark,
the few expressions spelt differently), the connection (how a write transaction, a short read, a consistent
read and a recording's transaction are opened, and how a driver's error becomes one line naming the fix),
the upsert (an insert that skips a row already there) and the locking (who holds a run being recorded,
and how another process tells that it is still held).
"""

from __future__ import annotations

from contextlib import AbstractContextManager
from typing import Any, Protocol, Sequence

from engine.trace import Trace

RUN_COLUMNS = ("run_id", "graph", "target", "started_at", "status", "steps", "error", "trace", "digest")
"""The runs table's columns both stores have: `rows.summary_row`'s seven, the head and its digest."""


class Dialect(Protocol):
    """What one database gives `RowStore`. A cursor here is anything whose `execute(sql, args)` returns
    something with `fetchone`/`fetchall` (and that has `executemany`): an `sqlite3.Connection`, a psycopg cursor."""

    where: str
    """The database, for messages (a file's path, a URL without its password)."""
    Error: type[BaseException]
    """The driver's error class."""
    extra_columns: Sequence[str]
    """The runs table's columns beyond `RUN_COLUMNS`, each a field of the trace's head (`extra_values`)."""
    saved_order: str
    """The column that orders rows stored at the same `started_at` (newest last)."""
    thread_match: str
    """A WHERE condition on the runs table: the run's thread id is the parameter."""
    step_bytes: str
    """The size of a step row's `data`, as `STREAM_MIN_BYTES` counts it."""
    holds_text: str
    """A WHERE condition on a step row: its `data` holds the parameter's text."""
    for_update: str
    """What a SELECT ends with to lock the run's row until the transaction ends ('' where a write
    transaction already holds the whole database)."""

    def sql(self, text: str) -> str:
        """`text` (`?` parameters, `{runs}`-style tables) as this database's SQL."""

    def insert_ignoring(self, table: str, width: int) -> str:
        """An INSERT of `width` values into `table` that skips a row whose key is already there."""

    def extra_values(self, trace: Trace) -> tuple[Any, ...]:
        """A run's values for `extra_columns`."""

    def writing(self, what: str) -> AbstractContextManager[Any]:
        """One write transaction; a driver's error leaves as `StoreError` ("cannot {what} in ...")."""

    def reading(self, what: str) -> AbstractContextManager[Any]:
        """A cursor for short reads, each statement seeing the rows as they are."""

    def snapshot(self, what: str) -> AbstractContextManager[Any]:
        """A read transaction whose statements all see one state of the database."""

    def start_recording(self, run_id: str) -> None:
        """Takes what says, to other processes, that this one records `run_id` (before its row exists)."""

    def recording(self, run_id: str, what: str) -> AbstractContextManager[Any]:
        """One write transaction of the run this store records."""

    def claim(self, cur: Any, run_id: str) -> None:
        """Inside `start_recording`'s first transaction: what the recording holds there."""

    def lock_run(self, cur: Any, run_id: str) -> None:
        """Serialises whole-run writes of one id inside a transaction."""

    def stop_recording(self, run_id: str) -> None:
        """Lets go of a recording (nothing if this store is not recording `run_id`)."""

    def records(self, run_id: str) -> bool:
        """True while this store records `run_id`."""

    def cut_off_test(self) -> tuple[str, tuple[Any, ...]]:
        """A SQL expression over a runs row, and its parameters: true for a run that may be cut off
        (`running` and, as far as SQL can tell, nobody recording it); `nobody_records` confirms it."""

    def nobody_records(self, run_id: str) -> bool:
        """For a row `cut_off_test` marked: true when no process records the run any more."""

    def forget(self, run_id: str) -> None:
        """What a cut-off recording of a deleted run left outside the database, removed."""
