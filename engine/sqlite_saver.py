"""`SqliteSaver`: checkpoints in a SQLite file (standard library `sqlite3`), so a thread outlives
the process that ran it.

Every checkpoint and every task's pending writes are committed as soon as they are saved, so a
process killed mid-run loses at most the superstep in progress: a new process opening the same file
resumes the thread from its last checkpoint with `invoke(None, config)`.

Values are stored with `pickle`. State values must therefore be picklable: classes (dataclasses,
pydantic models, message types) defined at module level, not inside a function; no open files, locks
or clients. An error raised by a node that cannot be pickled is stored as a `RuntimeError` with the
same text. `InMemorySaver` has no such limit.
"""

from __future__ import annotations

import os
import pickle
import sqlite3
import threading
from contextlib import contextmanager
from typing import Any, Callable, Iterator, Sequence

from .constants import ERROR
from .savers import (
    BaseCheckpointSaver,
    Checkpoint,
    CheckpointTuple,
    ListQuery,
    checkpoint_metadata,
    make_config,
    matches,
    thread_config,
    write_slots,
)

SCHEMA = """
CREATE TABLE IF NOT EXISTS checkpoints (
    thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL DEFAULT '', checkpoint_id TEXT NOT NULL,
    parent_checkpoint_id TEXT, checkpoint BLOB NOT NULL, metadata BLOB NOT NULL,
    PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id)
);
CREATE TABLE IF NOT EXISTS writes (
    thread_id TEXT NOT NULL, checkpoint_ns TEXT NOT NULL DEFAULT '', checkpoint_id TEXT NOT NULL,
    task_id TEXT NOT NULL, idx INTEGER NOT NULL, channel TEXT NOT NULL, value BLOB, task_path TEXT NOT NULL DEFAULT '',
    PRIMARY KEY (thread_id, checkpoint_ns, checkpoint_id, task_id, idx)
);
"""


class SqliteSaver(BaseCheckpointSaver):
    """Checkpoints in SQLite: `SqliteSaver("run.db")`, `SqliteSaver(sqlite3.connect(...))` (switched
    to autocommit; open it with `check_same_thread=False` if subgraphs run in parallel), or
    `with SqliteSaver.from_conn_string("run.db") as saver: ...` (closes the connection after)."""

    def __init__(
        self,
        conn: str | os.PathLike[str] | sqlite3.Connection,
        *,
        ids: Callable[[int], str] | None = None,
        clock: Callable[[], str] | None = None,
    ) -> None:
        super().__init__(ids=ids, clock=clock)
        if isinstance(conn, sqlite3.Connection):
            self.conn = conn
            self.conn.commit()
            self.conn.isolation_level = None  # autocommit: every save is durable at once
        else:
            self.conn = sqlite3.connect(os.fspath(conn), check_same_thread=False, isolation_level=None)
            if os.fspath(conn) != ":memory:":
                self.conn.execute("PRAGMA journal_mode=WAL")
        self.lock = threading.RLock()
        with self.lock:
            self.conn.executescript(SCHEMA)

    @classmethod
    @contextmanager
    def from_conn_string(cls, conn_string: str) -> Iterator["SqliteSaver"]:
        """A saver on the database file `conn_string` (or `":memory:"`), closed when the block ends."""
        saver = cls(conn_string)
        try:
            yield saver
        finally:
            saver.close()

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> "SqliteSaver":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    # ---- reading ---------------------------------------------------------------------------------

    def get_tuple(self, config: dict[str, Any]) -> CheckpointTuple | None:
        thread_id, ns, checkpoint_id = thread_config(config)
        query = (
            "SELECT checkpoint_id, parent_checkpoint_id, checkpoint, metadata FROM checkpoints "
            "WHERE thread_id = ? AND checkpoint_ns = ?"
        )
        if checkpoint_id is not None:
            rows = self._fetch(query + " AND checkpoint_id = ?", (thread_id, ns, checkpoint_id))
        else:
            rows = self._fetch(query + " ORDER BY checkpoint_id DESC LIMIT 1", (thread_id, ns))
        return self._tuple(thread_id, ns, rows[0]) if rows else None

    def _listed(self, wanted: ListQuery, filter: dict[str, Any] | None, limit: int | None) -> list[CheckpointTuple]:
        where, args = [], []
        for column, value in (
            ("thread_id", wanted.thread_id),
            ("checkpoint_ns", wanted.checkpoint_ns),
            ("checkpoint_id", wanted.checkpoint_id),
        ):
            if value is not None:
                where.append(f"{column} = ?")
                args.append(str(value))
        if wanted.before_id:
            where.append("checkpoint_id < ?")
            args.append(wanted.before_id)
        query = (
            "SELECT thread_id, checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata "
            "FROM checkpoints"
        )
        if where:
            query += " WHERE " + " AND ".join(where)
        rows = self._fetch(query + " ORDER BY checkpoint_id DESC", tuple(args))
        found = []
        for thread_id, ns, *row in rows:
            if limit is not None and len(found) >= limit:
                break
            if matches(_loads(row[3]), filter):
                found.append(self._tuple(thread_id, ns, row))
        return found

    def _tuple(self, thread_id: str, ns: str, row: Sequence[Any]) -> CheckpointTuple:
        checkpoint_id, parent, checkpoint, metadata = row
        writes = self._fetch(
            "SELECT task_id, channel, value FROM writes "
            "WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ? "
            "ORDER BY task_path, task_id, idx",
            (thread_id, ns, checkpoint_id),
        )
        return CheckpointTuple(
            make_config(thread_id, ns, checkpoint_id),
            _loads(checkpoint),
            _loads(metadata),
            make_config(thread_id, ns, parent) if parent else None,
            [(task_id, channel, _loads(value)) for task_id, channel, value in writes],
        )

    def _fetch(self, query: str, args: tuple[Any, ...]) -> list[tuple[Any, ...]]:
        with self.lock:
            return self.conn.execute(query, args).fetchall()

    # ---- writing ---------------------------------------------------------------------------------

    def put(
        self, config: dict[str, Any], checkpoint: Checkpoint, metadata: dict[str, Any], new_versions: dict[str, Any]
    ) -> dict[str, Any]:
        thread_id, ns, parent = thread_config(config)
        row = (
            thread_id,
            ns,
            checkpoint["id"],
            parent,
            _dumps(checkpoint, "the checkpoint"),
            _dumps(checkpoint_metadata(config, metadata), "the checkpoint metadata"),
        )
        with self.lock:
            self.conn.execute("INSERT OR REPLACE INTO checkpoints VALUES (?, ?, ?, ?, ?, ?)", row)
        return make_config(thread_id, ns, checkpoint["id"])

    def put_writes(
        self, config: dict[str, Any], writes: Sequence[tuple[str, Any]], task_id: str, task_path: str = ""
    ) -> None:
        thread_id, ns, checkpoint_id = thread_config(config)
        rows = []
        for slot, channel, value in write_slots(writes):
            if channel == ERROR:
                value = _picklable_error(value)
            verb = "REPLACE" if slot < 0 else "IGNORE"  # control writes replace; others are stored once
            rows.append(
                (
                    verb,
                    (
                        thread_id,
                        ns,
                        checkpoint_id or "",
                        task_id,
                        slot,
                        channel,
                        _dumps(value, f"the write to {channel!r} by task {task_id}"),
                        task_path,
                    ),
                )
            )
        with self.lock:
            self.conn.execute("BEGIN")  # a task's writes are stored all together or not at all
            try:
                for verb, row in rows:
                    self.conn.execute(f"INSERT OR {verb} INTO writes VALUES (?, ?, ?, ?, ?, ?, ?, ?)", row)
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            self.conn.execute("COMMIT")

    def delete_thread(self, thread_id: str) -> None:
        with self.lock:
            self.conn.execute("DELETE FROM checkpoints WHERE thread_id = ?", (str(thread_id),))
            self.conn.execute("DELETE FROM writes WHERE thread_id = ?", (str(thread_id),))


def _dumps(value: Any, what: str) -> bytes:
    try:
        return pickle.dumps(value, protocol=pickle.HIGHEST_PROTOCOL)
    except Exception as exc:
        raise TypeError(
            f"SqliteSaver cannot store {what}: {exc}. State values must be picklable: define their classes "
            "at module level (not inside a function) and keep open files, locks and clients out of the "
            "state; or use InMemorySaver, which has no such limit."
        ) from exc


def _loads(data: bytes) -> Any:
    return pickle.loads(data)


def _picklable_error(error: Any) -> Any:
    try:
        pickle.loads(pickle.dumps(error))
        return error
    except Exception:  # noqa: BLE001 - e.g. an exception class defined in a function
        return RuntimeError(f"{type(error).__name__}: {error}")
