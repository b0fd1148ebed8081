"""Opening an app's checkpointer read-only: a SQLite file written by `langgraph-checkpoint-sqlite`, or a
PostgreSQL database used by `langgraph-checkpoint-postgres`.

Checkpoints are read with langgraph's own saver classes' serializers (`SqliteSaver`, `PostgresSaver`), so
the values come back exactly as the app's graph would load them. The connection is read-only at the
database level, never by convention: SQLite is opened with `mode=ro`, PostgreSQL sessions with
`default_transaction_read_only=on`. The savers' `setup()` (which creates tables and migrates) is never
called; instead the schema is checked, and a database that is not a checkpointer's gets a clear refusal.

Listing threads is one aggregate query (the savers have no "list threads" call), and so is a thread's
index (`keys`: every checkpoint's namespace, id and parent, nothing decoded), so a reader decodes only the
checkpoints it shows (`read`, `read_many`). Those, and a whole thread (`preload`), are read with our own
read-only queries of the savers' tables (`tables.py`, checked against the layout they were written for),
each stored value decoded once. A checkpoint whose bytes cannot be decoded comes back as a
`DamagedCheckpoint`, never a traceback.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from types import SimpleNamespace
from typing import Any, Iterator
from urllib.parse import quote

from debugger.runtimes.threads_api import CheckpointerError, CheckpointKey, ThreadSummary
from debugger.stores.urls import BadURL, checked_postgres_url, is_postgres_url, masked

from .status import tuple_status
from .tables import (
    DECODE_ERRORS,
    SharedDecoder,
    checkpoint_config,
    damaged,
    damaged_at,
    decoded_by_key,
    postgres_checkpoints,
    postgres_layout_problem,
    postgres_missing_columns,
    sqlite_checkpoint,
    sqlite_layout_problem,
    sqlite_thread,
)


class Checkpointer:
    """A read-only view of one checkpointer database. Use as a context manager, or call `close()`."""

    kind: str = ""
    saver: Any = None
    path: Path | None = None
    conn: Any = None

    def __init__(self, url: str) -> None:
        self.url = url
        self.label = masked(url)

    def __enter__(self) -> "Checkpointer":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def _refused(self, why: str) -> CheckpointerError:
        """The error to raise for a database this class cannot read, with the connection opened to look at
        it closed first."""
        self.conn.close()
        return CheckpointerError(why)

    def close(self) -> None:
        raise NotImplementedError

    def _thread_rows(self, limit: int) -> list[tuple[str, int, str]]:
        raise NotImplementedError

    def _key_rows(self, thread_id: str) -> list[tuple[str, str, str | None]]:
        """(namespace, checkpoint id, parent id) of every checkpoint of a thread, oldest first."""
        raise NotImplementedError

    def _checkpoint_keys(self, thread_id: str) -> list[tuple[str, str]]:
        """(namespace, checkpoint id) of every checkpoint of a thread, oldest first, read without decoding."""
        return [(ns, checkpoint_id) for ns, checkpoint_id, _ in self._key_rows(thread_id)]

    def keys(self, thread_id: str) -> list[CheckpointKey]:
        """Every checkpoint of a thread (all namespaces), oldest first, nothing decoded; refused in one line
        for a thread that does not exist."""
        keys = [CheckpointKey(ns, checkpoint_id, parent) for ns, checkpoint_id, parent in self._key_rows(thread_id)]
        if not keys:
            raise CheckpointerError(
                f"no thread {thread_id!r} in {self.label}; `stepscope threads --checkpointer {self.label}` lists them."
            )
        return keys

    def _decode(self, thread_id: str, key: CheckpointKey) -> Any:
        """One checkpoint tuple (None when it is not there); decoding errors raise."""
        return self.saver.get_tuple(checkpoint_config(thread_id, key.checkpoint_id, key.ns))

    def read(self, thread_id: str, key: CheckpointKey) -> Any:
        """One checkpoint tuple, or a `DamagedCheckpoint` when its bytes cannot be decoded."""
        try:
            saved = self._decode(thread_id, key)
        except DECODE_ERRORS as exc:
            return damaged_at(thread_id, key, damaged(exc))
        if saved is None:  # deleted since the index was read
            return damaged_at(thread_id, key, "damaged checkpoint: it is gone from the checkpointer")
        return saved

    def read_many(self, thread_id: str, keys: list[CheckpointKey]) -> dict[tuple[str, str], Any]:
        """`read` of each of `keys`, by (ns, id) (a backend may read them together for less)."""
        return {(key.ns, key.checkpoint_id): self.read(thread_id, key) for key in keys}

    def preload(self, thread_id: str, keys: list[CheckpointKey]) -> dict[tuple[str, str], Any]:
        """The checkpoints of `keys` (by (ns, id); a `DamagedCheckpoint` where one cannot be decoded) that
        reading the whole thread at once decodes for less than `read` one at a time; {} where it costs
        the same (SQLite stores each checkpoint whole, so there `read` decodes each once, when needed)."""
        return {}

    def root_checkpoints(self, thread_id: str) -> list[str]:
        """The ids of a thread's checkpoints of the root graph, oldest first, read without decoding them."""
        return [checkpoint_id for ns, checkpoint_id in self._checkpoint_keys(thread_id) if ns == ""]

    def threads(self, limit: int = 200) -> list[ThreadSummary]:
        """Threads, newest first, with their root checkpoint count and last status; a thread whose newest
        checkpoint cannot be decoded is listed as damaged, with the rest."""
        out = []
        for thread_id, count, last_id in self._thread_rows(limit):
            try:
                latest = self.saver.get_tuple(checkpoint_config(thread_id, last_id))
                if latest is None:
                    continue
                status, pending = tuple_status(latest)
            except DECODE_ERRORS as exc:
                out.append(ThreadSummary(str(thread_id), int(count), last_id, "", -1, damaged(exc)))
                continue
            out.append(
                ThreadSummary(
                    str(thread_id),
                    int(count),
                    last_id,
                    str(latest.checkpoint.get("ts", "")),
                    int(latest.metadata.get("step", -1)),
                    status,
                    pending,
                )
            )
        return out

    def history(self, thread_id: str) -> list[Any]:
        """Every checkpoint tuple of a thread, all namespaces (subgraphs too), oldest first. A checkpoint
        that cannot be decoded is named in one line (`CheckpointerError`), never a traceback."""
        if self.saver is None:
            raise CheckpointerError(
                f"{self.label} holds LangGraph.js's PostgresSaver tables (schema migration {JS_POSTGRES_MIGRATION}): "
                "open its threads with the JavaScript app that wrote them (`stepscope show app.mjs:graph "
                "--checkpointer URL --thread ID`)."
            )
        try:
            tuples = list(self.saver.list({"configurable": {"thread_id": thread_id}}))
        except DECODE_ERRORS as exc:
            raise CheckpointerError(self._damage(thread_id, exc)) from None
        if not tuples:
            raise CheckpointerError(
                f"no thread {thread_id!r} in {self.label}; `stepscope threads --checkpointer {self.label}` lists them."
            )
        tuples.reverse()
        return tuples

    def _damage(self, thread_id: str, exc: BaseException) -> str:
        """Which checkpoint of the thread is damaged, found by decoding them one at a time."""
        for ns, checkpoint_id in self._checkpoint_keys(thread_id):
            try:
                self.saver.get_tuple(checkpoint_config(thread_id, checkpoint_id, ns))
            except DECODE_ERRORS as found:
                where = f" (subgraph {ns})" if ns else ""
                return (
                    f"thread {thread_id!r} in {self.label}: checkpoint {checkpoint_id}{where} is damaged data, "
                    f"not an app bug ({damaged(found)}); the bytes the saver stored cannot be decoded, so the "
                    "thread cannot be replayed. `stepscope threads` lists the other threads."
                )
        return f"thread {thread_id!r} in {self.label} has damaged data ({damaged(exc)}): it cannot be replayed."


JS_POSTGRES_MIGRATION = 4
"""The last schema migration of LangGraph.js's `@langchain/langgraph-checkpoint-postgres` (1.x; langgraph's
Python saver is further on): such tables are listed here with SQL alone, and their threads are read by the
JavaScript app's own saver in node (`debugger/runtimes/langgraphjs/threads.py`)."""

# ---- SQLite --------------------------------------------------------------------------------------


class SqliteCheckpointer(Checkpointer):
    kind = "sqlite"

    def __init__(self, url: str) -> None:
        super().__init__(url)
        path = Path(url.removeprefix("sqlite:///").removeprefix("sqlite://")).expanduser()
        if not path.is_file():
            raise CheckpointerError(
                f"{path} does not exist: give the SQLite file your app's SqliteSaver writes, or a postgresql:// URL."
            )
        self.path = path
        try:
            # mode=ro: SQLite itself refuses every write, so opening a thread can never change the app's file
            self.conn = sqlite3.connect(f"file:{quote(str(path.resolve()))}?mode=ro", uri=True, check_same_thread=False)
            tables = {r[0] for r in self.conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        except sqlite3.DatabaseError as exc:
            raise CheckpointerError(f"{path} is not a SQLite database ({exc}).") from None
        if not {"checkpoints", "writes"} <= tables:
            raise self._refused(
                f"{path} is not a langgraph SqliteSaver database (it has no `checkpoints` and "
                "`writes` tables). Point --checkpointer at the file your app passes to SqliteSaver."
            )
        from langgraph.checkpoint.sqlite import SqliteSaver

        saver = SqliteSaver(self.conn)
        saver.is_setup = True  # never run setup(): it creates tables and switches the journal mode
        columns = {r[1] for r in self.conn.execute("PRAGMA table_info(writes)")}
        saver._has_task_path = "task_path" in columns
        self.saver = saver
        layout = sqlite_layout_problem(self.conn)
        if layout and _engine_saver_tables(self.conn):
            raise self._refused(
                f"{path} holds the tables of StepScope's engine SqliteSaver (engine/sqlite_saver.py: no `type` "
                "columns), not langgraph's. Point --checkpointer at the file your langgraph app's SqliteSaver writes."
            )
        if layout:
            raise self._refused(
                f"{path} is a SqliteSaver database of a layout StepScope does not read ({layout}). Install the "
                "langgraph-checkpoint-sqlite version StepScope names in its requirements."
            )
        self.decoder = SharedDecoder(saver.serde)

    def close(self) -> None:
        self.conn.close()

    def _decode(self, thread_id: str, key: CheckpointKey) -> Any:
        return sqlite_checkpoint(
            self.conn, self.decoder, self.saver._has_task_path, thread_id, key.ns, key.checkpoint_id
        )

    def preload(self, thread_id: str, keys: list[CheckpointKey]) -> dict[tuple[str, str], Any]:
        """The whole thread in two read-only queries, oldest first, each checkpoint decoded once with what
        earlier ones stored shared (`tables.SharedDecoder`)."""
        found = sqlite_thread(self.conn, self.decoder, self.saver._has_task_path, thread_id, DECODE_ERRORS)
        return decoded_by_key(thread_id, keys, found, self.read)

    def _key_rows(self, thread_id: str) -> list[tuple[str, str, str | None]]:
        return list(
            self.conn.execute(
                "SELECT checkpoint_ns, checkpoint_id, parent_checkpoint_id FROM checkpoints WHERE thread_id = ? "
                "ORDER BY checkpoint_id",
                (thread_id,),
            )
        )

    def _thread_rows(self, limit: int) -> list[tuple[str, int, str]]:
        return list(
            self.conn.execute(
                "SELECT thread_id, COUNT(*), MAX(checkpoint_id) FROM checkpoints WHERE checkpoint_ns = '' "
                "GROUP BY thread_id ORDER BY MAX(checkpoint_id) DESC LIMIT ?",
                (limit,),
            )
        )


# ---- PostgreSQL ----------------------------------------------------------------------------------


class PostgresCheckpointer(Checkpointer):
    kind = "postgres"

    def __init__(self, url: str) -> None:
        super().__init__(url)
        self.conn = read_only_postgres(url, self.label)
        version = self._migration()
        from langgraph.checkpoint.postgres import PostgresSaver

        expected = len(PostgresSaver.MIGRATIONS) - 1
        if version == JS_POSTGRES_MIGRATION and version != expected:
            self.saver = None  # LangGraph.js's tables: listed with SQL here, read by the JS app's saver in node
            return
        if version != expected:
            raise self._refused(
                f"{self.label}'s checkpointer schema is at migration {version}; this langgraph-checkpoint-postgres "
                f"reads migration {expected}. Install the langgraph-checkpoint-postgres version your app uses."
            )
        missing = postgres_missing_columns(self.conn)
        if missing:
            raise self._refused(
                f"{self.label} is a PostgresSaver database of a layout StepScope does not read ({missing}). "
                "Install the langgraph-checkpoint-postgres version StepScope names in its requirements."
            )
        self.layout = postgres_layout_problem(version)
        """Why our own queries of the saver's tables cannot run here (`tables.py`), or None."""
        self.saver = PostgresSaver(self.conn)
        self.decoder = SharedDecoder(self.saver.serde)

    def _migration(self) -> int:
        """The last migration the saver's tables went through; refused when they are not a PostgresSaver's."""
        row = self.conn.execute(
            "SELECT to_regclass('checkpoints') AS c, to_regclass('checkpoint_writes') AS w, "
            "to_regclass('checkpoint_migrations') AS m"
        ).fetchone()
        if not (row["c"] and row["w"] and row["m"]):
            raise self._refused(
                f"{self.label} has no langgraph PostgresSaver tables (checkpoints, checkpoint_writes, "
                "checkpoint_migrations): point --checkpointer at the database your app's PostgresSaver uses."
            )
        return self.conn.execute("SELECT max(v) AS v FROM checkpoint_migrations").fetchone()["v"]

    def close(self) -> None:
        self.conn.close()

    def threads(self, limit: int = 200) -> list[ThreadSummary]:
        """As `Checkpointer.threads`; LangGraph.js's tables (no Python saver reads them) from SQL alone: the
        newest checkpoint's metadata and the channels its pending writes went to."""
        if self.saver is not None:
            return super().threads(limit)
        out = []
        for thread_id, count, last_id in self._thread_rows(limit):
            row = self.conn.execute(
                "SELECT checkpoint, metadata FROM checkpoints WHERE thread_id = %s AND checkpoint_ns = '' "
                "AND checkpoint_id = %s",
                (thread_id, last_id),
            ).fetchone()
            writes = self.conn.execute(
                "SELECT task_id, channel FROM checkpoint_writes WHERE thread_id = %s AND checkpoint_ns = '' "
                "AND checkpoint_id = %s",
                (thread_id, last_id),
            ).fetchall()
            checkpoint, metadata = dict(row["checkpoint"] or {}), dict(row["metadata"] or {})
            saved = SimpleNamespace(
                checkpoint={**checkpoint, "channel_values": {}},
                metadata=metadata,
                pending_writes=[(w["task_id"], w["channel"], None) for w in writes],
            )
            status, pending = tuple_status(saved)
            step = int(metadata.get("step", -1))
            out.append(
                ThreadSummary(str(thread_id), int(count), last_id, str(checkpoint.get("ts", "")), step, status, pending)
            )
        return out

    def _thread_rows(self, limit: int) -> list[tuple[str, int, str]]:
        return self._rows(
            "SELECT thread_id, COUNT(*) AS n, MAX(checkpoint_id) AS last FROM checkpoints WHERE checkpoint_ns = '' "
            "GROUP BY thread_id ORDER BY MAX(checkpoint_id) DESC LIMIT %s",
            (limit,),
            ("thread_id", "n", "last"),
        )

    def _key_rows(self, thread_id: str) -> list[tuple[str, str, str | None]]:
        return self._rows(
            "SELECT checkpoint_ns, checkpoint_id, parent_checkpoint_id FROM checkpoints WHERE thread_id = %s "
            "ORDER BY checkpoint_id",
            (thread_id,),
            ("checkpoint_ns", "checkpoint_id", "parent_checkpoint_id"),
        )

    def _rows(self, sql: str, params: tuple[Any, ...], columns: tuple[str, ...]) -> list[tuple[Any, ...]]:
        """The rows of a query as tuples of `columns`, in that order, as SQLite's cursor gives them."""
        return [tuple(row[c] for c in columns) for row in self.conn.execute(sql, params).fetchall()]

    def _decode(self, thread_id: str, key: CheckpointKey) -> Any:
        """One checkpoint in three read-only queries of the saver's tables (through the saver where their
        layout is not one `tables.py` knows, or for a checkpoint of an older format)."""
        if not self.layout:
            found = postgres_checkpoints(self.conn, self.decoder, thread_id, (), (key.ns, [key.checkpoint_id]))
            saved = found.get((key.ns, key.checkpoint_id))
            if saved is not None:
                return saved
        return super()._decode(thread_id, key)

    def read_many(self, thread_id: str, keys: list[CheckpointKey]) -> dict[tuple[str, str], Any]:
        """Checkpoints of one namespace in three queries, each blob version they name decoded once."""
        namespaces = {key.ns for key in keys}
        if self.layout or len(namespaces) != 1 or len(keys) < 2:
            return super().read_many(thread_id, keys)
        found = postgres_checkpoints(
            self.conn, self.decoder, thread_id, DECODE_ERRORS, (namespaces.pop(), [k.checkpoint_id for k in keys])
        )
        return decoded_by_key(thread_id, keys, found, self.read)

    def preload(self, thread_id: str, keys: list[CheckpointKey]) -> dict[tuple[str, str], Any]:
        """The whole thread in three read-only queries of the saver's tables, each blob and write decoded once;
        a layout those queries were not written for is refused by name."""
        if self.layout:
            raise CheckpointerError(
                f"{self.label} cannot be read whole: {self.layout}. Install the langgraph-checkpoint-postgres "
                "version StepScope names in its requirements, or open the thread's newest steps only."
            )
        found = postgres_checkpoints(self.conn, self.decoder, thread_id, DECODE_ERRORS)
        return decoded_by_key(thread_id, keys, found, self.read)


def read_only_postgres(url: str, label: str) -> Any:
    """A connection to the checkpointer's database in which every transaction is read-only: the server
    refuses any write. A CheckpointerError of one line when the packages, the URL or the server fail."""
    try:
        import psycopg
        from langgraph.checkpoint.postgres import PostgresSaver  # noqa: F401 (needed to read; said here, once)
        from psycopg.rows import dict_row
    except ImportError as exc:
        raise CheckpointerError(
            f"reading a PostgreSQL checkpointer needs `pip install stepscope[postgres]` "
            f"and langgraph-checkpoint-postgres ({exc})."
        ) from None
    try:
        checked_postgres_url(url, "the checkpointer URL")
    except BadURL as exc:
        raise CheckpointerError(str(exc)) from None
    try:
        return psycopg.connect(
            url,
            autocommit=True,
            prepare_threshold=0,
            row_factory=dict_row,
            options="-c default_transaction_read_only=on",
            connect_timeout=10,
        )
    except psycopg.Error as exc:
        raise CheckpointerError(f"cannot connect to {label}: {masked(str(exc).strip())}") from None


def open_checkpointer(url: str) -> Checkpointer:
    """A read-only view of the checkpointer at `url` (a SQLite file path or a postgresql:// URL)."""
    try:
        if is_postgres_url(url):
            return PostgresCheckpointer(url)
        return SqliteCheckpointer(url)
    except ImportError as exc:
        raise CheckpointerError(f"reading checkpointers needs `pip install stepscope[langgraph]` ({exc}).") from None


def iter_namespaces(tuples: list[Any]) -> Iterator[str]:
    seen = set()
    for saved in tuples:
        ns = saved.config["configurable"].get("checkpoint_ns", "")
        if ns not in seen:
            seen.add(ns)
            yield ns


def _engine_saver_tables(conn: sqlite3.Connection) -> bool:
    """Whether a file's checkpoint tables are exactly those the engine's SqliteSaver creates (its values are
    the engine's codec, never langgraph's serde: no `type` column in either table)."""
    from engine import SqliteSaver

    engine = SqliteSaver(":memory:")  # creates its tables, and nothing else
    try:
        return all(_columns(engine.conn, table) == _columns(conn, table) for table in ("checkpoints", "writes"))
    finally:
        engine.conn.close()


def _columns(conn: sqlite3.Connection, table: str) -> list[str]:
    return [row[1] for row in conn.execute(f"PRAGMA table_info({table})")]
