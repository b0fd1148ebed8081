"""Stored runs in PostgreSQL: the run store a team shares (psycopg 3).

`STEPSCOPE_DB` (or `--db`) set to a `postgresql://` URL selects this store (`debugger.stores.opening.open_store`);
anything else is the SQLite file of `debugger/stores/sqlite.py`, which stays the default and needs no server.
The operations and their rules are the SQLite store's: `save`, `list`, `load`, `resolve`, `delete`,
`export`, `import_file`; run ids matched exactly or by a prefix of at least `MIN_PREFIX` characters that
names one run (never a pattern); an import whose id is stored with other content is refused unless
`replace`.

Layout (`debugger/stores/postgres_layout.py`, `VERSION` 3, the SQLite store's design): tables named
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
from typing import Any, Iterator, Sequence

from debugger.diagnostics.snapshots import SnapshotShelf
from debugger.sources.trace_stream import STREAM_MIN_BYTES
from debugger.stores.postgres_layout import COLUMNS, LAYOUT_LOCK, VERSION, check_and_migrate, insert_rows
from debugger.stores.protocol import (
    CUT_OFF,
    ENV_VAR,
    MIN_PREFIX,
    RunExistsError,
    RunSummary,
    StoreError,
    StoreFull,
    TraceFiles,
    checked_id,
    cut_off_error,
    first_line,
    recording_now,
)
from debugger.stores.rows import (
    LAYOUT_COLUMNS,
    BlobRows,
    RowSteps,
    SpooledRun,
    StepRows,
    packed_head,
    packed_steps,
    step_layout,
    summary_row,
    supersteps,
)
from debugger.stores.urls import BadURL, checked_postgres_url, masked
from engine.blobs import PooledDecoder
from engine.trace import StepRecord, Trace
from engine.tracefile import TraceFileError, compose_json, to_json

__all__ = ["CUT_OFF", "VERSION", "PostgresRunStore", "RunExistsError"]

_RECORDING = 0x53745263  # "StRc": (this, run key) is held by the connection recording a run
_WRITING = 0x53745772  # "StWr": (this, run key) serialises whole-run writes of one id
_RUN_KEY = "hashtext(%s) & 2147483647"
"""The second half of a run's advisory lock keys (a collision only makes a cut-off run look alive)."""
_SAVE_BATCH = 1000
"""Step rows sent to the server at a time when a whole run is saved: an import holds no more than these."""
_KEEPALIVES = {"keepalives_idle": 60, "keepalives_interval": 10, "keepalives_count": 6}
"""TCP keepalives of a recording's connection, on both ends (seconds, probes)."""


class PostgresRunStore(TraceFiles):
    """Runs kept in a PostgreSQL database. Each call is its own transaction, on its own connection
    except while a run is recorded (`start_run` .. `finish_run`), which keeps one."""

    def __init__(self, url: str) -> None:
        try:
            import psycopg
        except ImportError:
            raise StoreError(
                f"{ENV_VAR} is a PostgreSQL URL, which needs `pip install stepscope[postgres]` (psycopg 3)."
            ) from None
        self._psycopg = psycopg
        try:
            self.url = checked_postgres_url(url, f"{ENV_VAR} (or --db)")
        except BadURL as exc:
            raise StoreError(str(exc)) from None
        self._recording: dict[str, Any] = {}
        """The connection of each run being recorded, by run id; it holds the run's `_RECORDING` lock."""
        self._reading: Any = None
        self._reader_lock = threading.Lock()
        """Guards `_reading`: the app reads a long run's steps from the threads of several sessions."""
        self.path = masked(url)
        """Where the runs are, for messages (the URL without its password)."""
        try:
            with self._transaction() as cur:
                cur.execute("SELECT pg_advisory_xact_lock(%s)", (LAYOUT_LOCK,))
                check_and_migrate(cur, self.path)
        except psycopg.Error as exc:
            raise StoreError(
                f"cannot use the run database {self.path}: {_reason(exc)}. "
                f"Check the URL and that the server is running, or set {ENV_VAR} to a file."
            ) from None

    # ---- connections -------------------------------------------------------------------------------

    @contextmanager
    def _transaction(self) -> Iterator[Any]:
        with self._psycopg.connect(self.url, connect_timeout=10) as conn:  # commits on success, rolls back on error
            with conn.cursor() as cur:
                yield cur

    @contextmanager
    def _operation(self, what: str) -> Iterator[Any]:
        try:
            with self._transaction() as cur:
                yield cur
        except self._psycopg.Error as exc:
            raise _failed(exc, f"cannot {what} in {self.path}: {_reason(exc)}.") from None

    @contextmanager
    def _recording_transaction(self, run_id: str, what: str) -> Iterator[Any]:
        """One transaction on the connection recording `run_id` (a fresh one if this store is not
        recording it). A database error ends the recording connection: the caller keeps what is left."""
        conn = self._recording.get(run_id)
        if conn is None:
            with self._operation(what) as cur:
                yield cur
            return
        try:
            with conn.transaction(), conn.cursor() as cur:
                yield cur
        except self._psycopg.Error as exc:
            self._stop_recording(run_id)
            raise _failed(exc, f"cannot {what} in {self.path}: {_reason(exc)}.") from None
        except BaseException:
            self._stop_recording(run_id)
            raise

    def _stop_recording(self, run_id: str) -> None:
        conn = self._recording.pop(run_id, None)
        if conn is not None:
            try:
                conn.close()  # the server drops the run's lock with the session
            except self._psycopg.Error:
                pass

    # ---- operations --------------------------------------------------------------------------------

    def save(self, trace: Trace, *, replace: bool = True) -> str:
        """Stores a whole `trace` under its run id, in one transaction, one step at a time (`SpooledRun`: a
        long imported run is never held whole), with its kept states. With `replace=False` an id stored
        with other content is refused (`RunExistsError`); the same content again is a no-op."""
        run_id = checked_id(trace)
        try:
            spooled = SpooledRun(trace)
        except OSError as exc:  # the spool file: no room for it
            raise StoreError(f"cannot store run {run_id}: {exc.strerror or exc}.") from None
        with spooled as run, self._operation(f"store run {run_id}") as cur:
            cur.execute(f"SELECT pg_advisory_xact_lock(%s, {_RUN_KEY})", (_WRITING, run_id))
            if not replace:
                cur.execute("SELECT digest FROM stepscope_runs WHERE run_id = %s", (run_id,))
                found = cur.fetchone()
                if found is not None:
                    if found[0] == run.digest or self._same_run(self._text(cur, run_id), to_json(trace)):
                        return run_id
                    raise RunExistsError(
                        f"a different run with id {run_id} is already stored in {self.path}; "
                        "pass --replace to overwrite it, or `stepscope delete` it first."
                    )
            cur.execute("DELETE FROM stepscope_runs WHERE run_id = %s", (run_id,))  # its steps and blobs go too
            self._insert_run(cur, trace, run.supersteps(), run.head, run.digest)
            insert_rows(cur, run_id, None, [], run.blobs)
            batch: StepRows = []
            first = 0
            for row in run.rows():
                batch.append(row)
                if len(batch) == _SAVE_BATCH:
                    insert_rows(cur, run_id, first, batch, [])
                    first, batch = first + len(batch), []
            insert_rows(cur, run_id, first, batch, [])
            if run.snapshots:
                cur.executemany(
                    "INSERT INTO stepscope_snapshots VALUES (%s, %s, %s)", [(run_id, *kept) for kept in run.snapshots]
                )
        return run_id

    def _insert_run(self, cur: Any, trace: Trace, steps: int, head: str, text_digest: str) -> None:
        row = (*summary_row(trace, steps), head, text_digest, str(getattr(trace, "thread_id", "") or ""))
        cur.execute(
            f"INSERT INTO stepscope_runs ({', '.join(COLUMNS)}) VALUES ({', '.join(['%s'] * len(COLUMNS))})", row
        )

    # ---- a run stored while it is recorded (debugger.sources.recording.StoreSink) ---------------------------

    def start_run(self, trace: Trace) -> None:
        """Stores the head of a run that has just started (status `running`, no steps yet) and its large
        values, on a connection kept for the run that holds its `_RECORDING` lock until `finish_run`."""
        run_id = checked_id(trace)
        head, blobs = packed_head(trace)
        self._stop_recording(run_id)
        try:
            # the connection may idle while a node works for minutes: keepalives hold it open through NATs
            # and firewalls, and let the server notice a recording host that lost power within minutes (the
            # run then reads as cut off), not after the system's default two hours
            conn = self._psycopg.connect(self.url, connect_timeout=10, autocommit=True, **_KEEPALIVES)
            for name, value in _KEEPALIVES.items():
                conn.execute(f"SET tcp_{name} = {value}")
        except self._psycopg.Error as exc:
            raise StoreError(f"cannot store run {run_id} in {self.path}: {_reason(exc)}.") from None
        self._recording[run_id] = conn
        with self._recording_transaction(run_id, f"store run {run_id}") as cur:
            cur.execute(f"SELECT pg_try_advisory_lock(%s, {_RUN_KEY})", (_RECORDING, run_id))  # held past the commit
            cur.execute(f"SELECT pg_advisory_xact_lock(%s, {_RUN_KEY})", (_WRITING, run_id))
            cur.execute("DELETE FROM stepscope_runs WHERE run_id = %s", (run_id,))
            self._insert_run(cur, trace, 0, head, "")
            insert_rows(cur, run_id, None, [], blobs)

    def append_steps(self, run_id: str, steps: list[StepRecord]) -> None:
        """Adds finished supersteps to a started run, after those already stored, in one transaction."""
        rows, blobs = packed_steps(steps)
        with self._recording_transaction(run_id, f"store the steps of run {run_id}") as cur:
            self._append(cur, run_id, rows, blobs)

    def finish_run(self, trace: Trace) -> None:
        """Stores what is left of a started run in one transaction: its final head (status, output,
        duration, error), and `trace.steps`, if any, after the steps already stored (never rewritten).
        Ends the recording connection."""
        run_id = trace.run_id
        rows, step_blobs = packed_steps(trace.steps)
        head, blobs = packed_head(trace)
        summary = summary_row(trace, 0)
        try:
            with self._recording_transaction(run_id, f"store run {run_id}") as cur:
                self._append(cur, run_id, rows, [*step_blobs, *blobs])
                cur.execute(
                    "UPDATE stepscope_runs SET graph = %s, target = %s, started_at = %s, status = %s, error = %s, "
                    "trace = %s, thread_id = %s WHERE run_id = %s",
                    (*summary[1:5], summary[6], head, str(getattr(trace, "thread_id", "") or ""), run_id),
                )
        finally:
            self._stop_recording(run_id)

    def mark_cut_off(self, run_id: str, message: str) -> None:
        """Says why a started run's recording stopped (`message`, one line) where its status is read."""
        self._stop_recording(run_id)
        with self._operation(f"mark run {run_id} cut off") as cur:
            cur.execute(
                "UPDATE stepscope_runs SET error = %s WHERE run_id = %s AND status = 'running'", (message, run_id)
            )

    def _append(self, cur: Any, run_id: str, rows: StepRows, blobs: BlobRows) -> None:
        cur.execute("SELECT steps FROM stepscope_runs WHERE run_id = %s FOR UPDATE", (run_id,))
        if cur.fetchone() is None:
            raise StoreError(
                f"run {run_id} is no longer in {self.path} (deleted while it was recorded?); "
                "what is left of it was not stored."
            )
        cur.execute("SELECT coalesce(max(seq) + 1, 0) FROM stepscope_steps WHERE run_id = %s", (run_id,))
        insert_rows(cur, run_id, cur.fetchone()[0], rows, blobs)
        if rows:
            cur.execute("UPDATE stepscope_runs SET steps = steps + %s WHERE run_id = %s", (supersteps(rows), run_id))

    def _text(self, cur: Any, run_id: str) -> str | None:
        """A stored run as one trace file's text (None if it is not there)."""
        cur.execute("SELECT trace FROM stepscope_runs WHERE run_id = %s", (run_id,))
        found = cur.fetchone()
        if found is None:
            return None
        cur.execute("SELECT data FROM stepscope_steps WHERE run_id = %s ORDER BY seq", (run_id,))
        steps = [data for (data,) in cur.fetchall()]
        cur.execute("SELECT key, data FROM stepscope_blobs WHERE run_id = %s ORDER BY key", (run_id,))
        return compose_json(found[0], steps, [tuple(row) for row in cur.fetchall()])

    def list(self, *, graph: str | None = None, status: str | None = None, limit: int = 200) -> list[RunSummary]:
        """Newest first, optionally only one graph's or one status's runs. A run cut off mid-way stays
        `running` (so `--status running` finds it) with `CUT_OFF` as its error."""
        query = f"SELECT run_id, graph, target, started_at, status, steps, error, {_CUT_OFF_SQL} FROM stepscope_runs"
        where, args = [], [_RECORDING]
        if graph:
            where.append("graph = %s")
            args.append(graph)
        if status:
            where.append("status = %s")
            args.append(status)
        if where:
            query += " WHERE " + " AND ".join(where)
        query += " ORDER BY started_at DESC, saved DESC LIMIT %s"
        with self._operation("list runs") as cur:
            cur.execute(query, (*args, limit))
            # a run whose store said why it stopped keeps those words (`mark_cut_off`)
            return [
                RunSummary(*row[:6], (row[6] or first_line(CUT_OFF)) if row[7] else row[6]) for row in cur.fetchall()
            ]

    def thread_runs(self, target: str, thread_id: str) -> list[tuple[str, str, str]]:
        """(run id, started at, status) of the stored runs of one thread of one target, oldest first."""
        with self._operation("list a thread's runs") as cur:
            cur.execute(
                "SELECT run_id, started_at, status FROM stepscope_runs WHERE target = %s AND thread_id = %s "
                "ORDER BY started_at, saved",
                (target, thread_id),
            )
            return [tuple(row) for row in cur.fetchall()]

    def resolve(self, run_id: str) -> str:
        """The full id of a stored run: `run_id` itself, or the one run it is a prefix of."""
        with self._operation("find a run") as cur:
            return self._resolve(cur, run_id)

    def _resolve(self, cur: Any, run_id: str) -> str:
        if not isinstance(run_id, str) or not run_id.strip():
            raise StoreError("give a run id (`stepscope runs` lists them).")
        cur.execute("SELECT 1 FROM stepscope_runs WHERE run_id = %s", (run_id,))
        if cur.fetchone():
            return run_id
        if len(run_id) < MIN_PREFIX:
            raise StoreError(
                f"no stored run {run_id!r} in {self.path}; a shortened id needs at least "
                f"{MIN_PREFIX} characters (`stepscope runs` lists them)."
            )
        cur.execute(
            "SELECT run_id FROM stepscope_runs WHERE left(run_id, %s) = %s ORDER BY run_id LIMIT 2",
            (len(run_id), run_id),
        )
        ids = [row[0] for row in cur.fetchall()]
        if not ids:
            raise StoreError(f"no stored run {run_id!r} in {self.path}; `stepscope runs` lists them.")
        if len(ids) > 1:
            raise StoreError(f"{run_id!r} is the start of several run ids; give more of the id.")
        return ids[0]

    @staticmethod
    def _step_layout(cur: Any, run_id: str) -> tuple[Sequence[int], Sequence[int]]:
        cur.execute(f"SELECT {LAYOUT_COLUMNS} FROM stepscope_steps WHERE run_id = %s", (run_id,))
        aggregate = cur.fetchone()

        def rows() -> Any:
            cur.execute("SELECT seq, step FROM stepscope_steps WHERE run_id = %s ORDER BY seq", (run_id,))
            return cur

        return step_layout(aggregate, rows)

    @staticmethod
    def _sum_of_lengths(cur: Any, run_id: str) -> int:
        cur.execute("SELECT coalesce(sum(length(data)), 0) FROM stepscope_steps WHERE run_id = %s", (run_id,))
        return cur.fetchone()[0]

    def _is_long(self, run_id: str) -> bool:
        with self._operation("read a run") as cur:
            return self._sum_of_lengths(cur, run_id) >= STREAM_MIN_BYTES

    def load(self, run_id: str) -> Trace:
        """The stored run (a run still being recorded reads as its steps so far). A run cut off mid-way
        gets `CUT_OFF` as its error. A short run is read whole in one snapshot; a long one (its steps
        `STREAM_MIN_BYTES` or more) keeps its steps in the database, read a few hundred rows at a time
        when asked for (`RowSteps`), with its kept states (`debugger.diagnostics.snapshots`)."""
        with self._operation("read a run") as cur:
            cur.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ")
            full = self._resolve(cur, run_id)
            long_run = self._sum_of_lengths(cur, full) >= STREAM_MIN_BYTES
            text = None if long_run else self._text(cur, full)
            if long_run:
                cur.execute("SELECT trace, digest FROM stepscope_runs WHERE run_id = %s", (full,))
                head, stored_digest = cur.fetchone() or (None, None)
                seqs, numbers = self._step_layout(cur, full)
                cur.execute("SELECT key, data FROM stepscope_blobs WHERE run_id = %s", (full,))
                blobs = cur.fetchall()
            cur.execute(f"SELECT {_CUT_OFF_SQL}, error FROM stepscope_runs WHERE run_id = %s", (_RECORDING, full))
            cut_off, why = cur.fetchone() or (False, "")
        from debugger.sources.trace_check import parse_trace  # here: its schemas cost a run 0.2 s

        name = f"run {full} in {self.path}"
        try:
            if not long_run:
                if text is None:  # deleted between the two statements by another process
                    raise StoreError(f"no stored run {run_id!r} in {self.path}; `stepscope runs` lists them.")
                trace = parse_trace(text, source=name)
            else:
                trace = self._long_trace(full, head, stored_digest, seqs, numbers, blobs, name)
        except TraceFileError as exc:
            raise StoreError(f"{exc} (`stepscope delete {full}` removes it)") from None
        except (ValueError, RecursionError) as exc:  # a row that is not JSON
            raise StoreError(f"{name} is damaged: {exc}. (`stepscope delete {full}` removes it)") from None
        if cut_off and not trace.error:
            trace.error = cut_off_error(why)
        return trace

    def _long_trace(
        self,
        run_id: str,
        head: str | None,
        stored_digest: str,
        seqs: Sequence[int],
        numbers: Sequence[int],
        blobs: list[tuple[str, str]],
        name: str,
    ) -> Trace:
        """A long stored run whose steps stay in `stepscope_steps` (see `load`)."""
        from debugger.sources.trace_check import checked_trace  # as parse_trace in `load`

        if head is None:
            raise StoreError(f"no stored run {run_id!r} in {self.path}; `stepscope runs` lists them.")
        table = {key: PooledDecoder({}).decode(data) for key, data in blobs}
        head_data = PooledDecoder(table).decode(head)
        if isinstance(head_data, dict):
            head_data.pop("blobs", None)
        steps = RowSteps(lambda wanted: self._rows(run_id, wanted), seqs, numbers, table, name)
        steps.fix = f"(`stepscope delete {run_id}` removes it)"
        steps.identity = (name, stored_digest, len(seqs))
        steps.snapshots = self._shelf(run_id, stored_digest, len(seqs))
        return checked_trace(head_data, steps, name, keep_on_disk=True, checked_when_stored=True)

    @contextmanager
    def _reader(self) -> Iterator[Any]:
        """A cursor on this store's one reading connection (autocommit: each statement sees the rows as
        they are), opened when first needed: a long run read a batch of rows at a time does not open a
        connection per batch. A connection the server dropped is opened again once."""
        with self._reader_lock:
            for attempt in (1, 2):
                try:
                    if self._reading is None or self._reading.closed:
                        self._reading = self._psycopg.connect(self.url, connect_timeout=10, autocommit=True)
                    with self._reading.cursor() as cur:
                        yield cur
                    return
                except self._psycopg.OperationalError as exc:
                    self._reading = None
                    if attempt == 2:
                        raise StoreError(f"cannot read a run in {self.path}: {_reason(exc)}.") from None
                except self._psycopg.Error as exc:
                    raise StoreError(f"cannot read a run in {self.path}: {_reason(exc)}.") from None

    def _rows(self, run_id: str, seqs: Any) -> list[str]:
        """The JSON of a run's step rows with sequence numbers `seqs` (ascending), in one statement."""
        if not len(seqs):
            return []
        with self._reader() as cur:
            cur.execute(
                "SELECT data FROM stepscope_steps WHERE run_id = %s AND seq BETWEEN %s AND %s ORDER BY seq",
                (run_id, seqs[0], seqs[-1]),
            )
            return [data for (data,) in cur.fetchall()]

    def _shelf(self, run_id: str, stored_digest: str, count: int) -> SnapshotShelf:
        """The kept states of a long run; new ones are written only while the run is the one read (same
        digest) and dropped where the role may not write: they are a cache."""

        def read(position: int) -> str | None:
            with self._reader() as cur:
                cur.execute(
                    "SELECT data FROM stepscope_snapshots WHERE run_id = %s AND position = %s", (run_id, position)
                )
                row = cur.fetchone()
            return row[0] if row else None

        def write(rows: list[tuple[int, str]]) -> None:
            try:
                with self._transaction() as cur:
                    cur.execute("SELECT digest FROM stepscope_runs WHERE run_id = %s", (run_id,))
                    found = cur.fetchone()
                    if found is not None and found[0] == stored_digest:
                        cur.executemany(
                            "INSERT INTO stepscope_snapshots VALUES (%s, %s, %s) ON CONFLICT DO NOTHING",
                            [(run_id, *row) for row in rows],
                        )
            except self._psycopg.Error:
                pass  # no INSERT right, or the server is gone: the states are folded again next time

        with self._reader() as cur:
            cur.execute("SELECT position FROM stepscope_snapshots WHERE run_id = %s", (run_id,))
            positions = [position for (position,) in cur.fetchall()]
        return SnapshotShelf(positions, read, write, count)

    def delete(self, run_id: str) -> str:
        """Removes a stored run. A run another connection is still recording is refused: its recorder
        would go on writing steps of a run nobody can see."""
        with self._operation(f"delete run {run_id}") as cur:
            full = self._resolve(cur, run_id)
            cur.execute(
                f"SELECT status = 'running' AND NOT {_CUT_OFF_SQL} FROM stepscope_runs WHERE run_id = %s",
                (_RECORDING, full),
            )
            if cur.fetchone()[0] and full not in self._recording:
                raise StoreError(recording_now(full))
            cur.execute("DELETE FROM stepscope_runs WHERE run_id = %s", (full,))  # its steps and blobs go too
        return full


_CUT_OFF_SQL = f"""(status = 'running' AND NOT EXISTS (
    SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.objsubid = 2 AND l.classid = %s::oid
    AND l.objid = ({_RUN_KEY.replace("%s", "run_id")})::oid
    AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())))"""
"""True for a `running` run whose recording connection is gone (takes `_RECORDING` as its parameter)."""


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
