"""Stored runs: an embedded SQLite database of traces (standard library `sqlite3`).

The database lives at `$STEPSCOPE_DB` if set, else `~/.local/share/stepscope/runs.sqlite3` (under
`$XDG_DATA_HOME` when that is set); every command takes `--db PATH` to use another file. Each row keeps
the summary the run list needs (graph, target, time, status, steps, error) and the trace itself as
JSON text, so a stored run opens with no engine and no graph code.

The database says what it is: `PRAGMA application_id` is StepScope's and `PRAGMA user_version` the
layout's version (`VERSION`). Opening checks both before anything else, inside one write transaction
(so an unwritable file is found before a run, not after): an empty file gets the current layout, an
older StepScope layout is migrated in place (version 1 is the unversioned `runs` table of the first
releases), and a newer or foreign database is refused with a message, never written to.

A run stored while it is recorded (`start_run`) holds an exclusive `flock` on a file of its own,
`<database>.recording/<run id>`, until `finish_run`: the kernel lets go of it when the recording
process dies, so a `running` run whose file nobody holds was cut off, and `list`/`load` say so
(`CUT_OFF`; the PostgreSQL store does the same with an advisory lock).

Run ids are matched exactly, or by a prefix of at least `MIN_PREFIX` characters that names one run;
never as a pattern. The operations (`save`, `list`, `load`, `delete`, `export`, `import_file`) are
the whole interface: another backend (PostgreSQL) implements the same ones.
"""

from __future__ import annotations

import hashlib
import os
import sqlite3
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Sequence

try:
    import fcntl
except ImportError:  # pragma: no cover - not on this platform: a cut-off run stays `running`, unmarked
    fcntl = None  # type: ignore[assignment]

from debugger.diagnostics.snapshots import SnapshotShelf
from debugger.sources.trace_stream import STREAM_MIN_BYTES
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
    RowSteps,
    SpooledRun,
    digest,
    packed_head,
    packed_steps,
    split_trace_text,
    step_layout,
    summary_row,
    supersteps,
)
from engine.blobs import PooledDecoder
from engine.trace import StepRecord, Trace
from engine.tracefile import TraceFileError, compose_json, to_json

APPLICATION_ID = 0x53745363  # "StSc"

VERSION = 3


def default_db_path() -> Path:
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR]).expanduser()
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "stepscope" / "runs.sqlite3"


_LAYOUT_V2 = (
    """CREATE TABLE runs (
        run_id TEXT PRIMARY KEY NOT NULL CHECK (run_id <> ''),
        graph TEXT NOT NULL,
        target TEXT NOT NULL,
        started_at TEXT NOT NULL,
        status TEXT NOT NULL,
        steps INTEGER NOT NULL,
        error TEXT NOT NULL,
        trace TEXT NOT NULL,
        digest TEXT NOT NULL
    )""",
    "CREATE INDEX runs_by_graph ON runs (graph, started_at)",
    """CREATE TABLE run_steps (
        run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
        seq INTEGER NOT NULL,
        step INTEGER NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (run_id, seq)
    )""",
    """CREATE TABLE run_blobs (
        run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
        key TEXT NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (run_id, key)
    )""",
)

_SNAPSHOTS = """CREATE TABLE run_snapshots (
        run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
        position INTEGER NOT NULL,
        data TEXT NOT NULL,
        PRIMARY KEY (run_id, position)
    )"""
"""Version 3 adds the kept states of long runs (`debugger.diagnostics.snapshots`): the state after the
step at `position` (0 is the run's first step), so a long run opens at any step without folding it
from its start. A cache of what the steps say: written when a long run is stored, or first opened."""
"""Version 2: `runs.trace` holds a trace's head (its file form without steps), `run_steps` one row
per superstep, `run_blobs` each large value once (`engine.blobs`). A run is written step by step as
it is recorded and read back as one trace file (`engine.tracefile.compose_json`). Statements, not
a script: `executescript` would commit the open transaction."""

_TABLES_V2 = {"runs", "run_steps", "run_blobs"}
_TABLES_V3 = {*_TABLES_V2, "run_snapshots"}

_COLUMNS_V1 = ["run_id", "graph", "target", "started_at", "status", "steps", "error", "trace"]

_COLUMNS_V2 = [*_COLUMNS_V1, "digest"]
_OBJECTS_V1 = {("table", "runs"), ("index", "runs_by_graph")}
"""What a version 1 database (unversioned, from the first releases) may hold."""


class RunStore(TraceFiles):
    """Runs kept in one SQLite file. Cheap to open; each call is its own transaction."""

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else default_db_path()
        self._recording: dict[str, int] = {}
        """Per run this process records (`start_run`), the file descriptor holding its lock."""
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._locks = Path(os.path.realpath(self.path) + ".recording")
            """Where recordings hold their locks: beside the real file, so a run opened through a
            symbolic link (or a relative path) finds the lock its recorder holds."""
            with self._transaction() as db:
                self._check_and_migrate(db)
                self._prove_writable(db)
        except (OSError, sqlite3.Error) as exc:
            raise StoreError(
                f"cannot use the run database {self.path}: {_reason(exc)}. "
                f"Pass --db PATH or set {ENV_VAR} to a writable file."
            ) from None

    # ---- layout ----------------------------------------------------------------------------------

    def _check_and_migrate(self, db: sqlite3.Connection) -> None:
        app_id = db.execute("PRAGMA application_id").fetchone()[0]
        version = db.execute("PRAGMA user_version").fetchone()[0]
        # every schema object but SQLite's own (exactly "sqlite_", case-sensitive: LIKE would ignore case and read
        # "_" as a wildcard, taking a table named SQLiteNotes for SQLite's), views, triggers and indices included
        objects = set(db.execute("SELECT type, name FROM sqlite_master WHERE substr(name, 1, 7) <> 'sqlite_'"))
        tables = {name for kind, name in objects if kind == "table"}
        if app_id not in (0, APPLICATION_ID) or (app_id == 0 and version != 0):
            raise StoreError(
                f"{self.path} is not a StepScope run database (it belongs to another application). "
                f"Pass --db PATH or set {ENV_VAR} to another file; it was not changed."
            )
        if app_id == 0:
            if not objects:
                self._create(db)
                return
            if objects <= _OBJECTS_V1 and tables == {"runs"} and self._columns(db) == _COLUMNS_V1:
                version = 1  # the first releases' layout, before the database said its version
            else:
                found = ", ".join(f"{kind} {name}" for kind, name in sorted(objects))
                raise StoreError(
                    f"{self.path} is not a StepScope run database (it has {found}). "
                    f"Pass --db PATH or set {ENV_VAR} to another file; it was not changed."
                )
        if version > VERSION:
            raise StoreError(
                f"{self.path} was written by a newer StepScope (database version {version}; this one "
                f"knows up to {VERSION}). Upgrade StepScope, or pass --db PATH to use another file."
            )
        if version == 1:
            self._migrate_1_to_2(db)  # into the current layout
        elif self._columns(db) != _COLUMNS_V2 or not (_TABLES_V2 if version == 2 else _TABLES_V3) <= tables:
            raise StoreError(
                f"{self.path} says it is a StepScope database (version {version}) but its runs table "
                "has another shape; it was not changed. Pass --db PATH to use another file."
            )
        elif version == 2:
            db.execute(_SNAPSHOTS)  # its long runs keep states when they are next opened
            self._stamp(db)

    @staticmethod
    def _prove_writable(db: sqlite3.Connection) -> None:
        """A real write, rolled back: `BEGIN IMMEDIATE` alone succeeds on a read-only disk, so without
        this a run would go ahead (with its side effects) and then fail to be stored."""
        db.execute("SAVEPOINT stepscope_probe")
        db.execute("INSERT INTO run_blobs VALUES ('', 'stepscope-probe', '')")
        db.execute("ROLLBACK TO stepscope_probe")
        db.execute("RELEASE stepscope_probe")

    def _create(self, db: sqlite3.Connection) -> None:
        for statement in (*_LAYOUT_V2, _SNAPSHOTS):
            db.execute(statement)
        self._stamp(db)

    def _stamp(self, db: sqlite3.Connection) -> None:
        db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
        db.execute(f"PRAGMA user_version = {VERSION}")

    @staticmethod
    def _columns(db: sqlite3.Connection) -> list[str]:
        return [row[1] for row in db.execute("PRAGMA table_info(runs)")]

    def _migrate_1_to_2(self, db: sqlite3.Connection) -> None:
        """Version 2 refuses empty ids (version 1 stored `run_id: null`, which then broke the run
        list) and keeps a digest of each trace, so an import can tell a copy from a different run.
        Rows without an id are kept under a new one, so they can be opened and deleted."""
        rows = db.execute(f"SELECT {', '.join(_COLUMNS_V1)} FROM runs").fetchall()
        db.execute("ALTER TABLE runs RENAME TO runs_v1")
        db.execute("DROP INDEX IF EXISTS runs_by_graph")
        self._create(db)
        for number, row in enumerate(rows):
            run_id, graph, target, started_at, status, steps, error, trace = row
            if not isinstance(run_id, str) or not run_id:
                run_id = f"unnamed-{number:04d}-{digest(str(trace))[:12]}"
            text = trace if isinstance(trace, str) else str(trace)
            head, parts = split_trace_text(text)
            db.execute(
                "INSERT OR REPLACE INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    run_id,
                    str(graph or ""),
                    str(target or ""),
                    str(started_at or ""),
                    str(status or ""),
                    steps if isinstance(steps, int) else 0,
                    str(error or ""),
                    head,
                    "",
                ),
            )
            db.executemany(
                "INSERT INTO run_steps VALUES (?, ?, ?, ?)",
                [(run_id, seq, number_of_step, data) for seq, (number_of_step, data) in enumerate(parts)],
            )
        db.execute("DROP TABLE runs_v1")

    # ---- connections -------------------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=10, isolation_level=None)

    @contextmanager
    def _transaction(self) -> Iterator[sqlite3.Connection]:
        """One write transaction, taken at once (`BEGIN IMMEDIATE`), so a read-only file fails here."""
        db = self._connect()
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
    def _reading(self) -> Iterator[sqlite3.Connection]:
        db = self._connect()
        try:
            yield db
        except sqlite3.Error as exc:
            raise StoreError(f"cannot read the run database {self.path}: {_reason(exc)}.") from None
        finally:
            db.close()

    # ---- operations --------------------------------------------------------------------------------

    def save(self, trace: Trace, *, replace: bool = True) -> str:
        """Stores a whole `trace` under its run id, in one transaction, one step at a time (`SpooledRun`:
        a long imported run is never held whole). With `replace=False`, an id already stored with other
        content is refused (`RunExistsError`); the same content again is a no-op."""
        run_id = checked_id(trace)
        try:
            with SpooledRun(trace) as run, self._transaction() as db:
                if not replace:
                    found = db.execute("SELECT digest FROM runs WHERE run_id = ?", (run_id,)).fetchone()
                    if (
                        found is not None
                        and found[0] != run.digest
                        and not self._same_run(self._text(db, run_id), to_json(trace))
                    ):
                        raise RunExistsError(
                            f"a different run with id {run_id} is already stored in {self.path}; "
                            "pass --replace to overwrite it, or `stepscope delete` it first."
                        )
                self._remove(db, run_id)
                db.execute(
                    "INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (*summary_row(trace, run.supersteps()), run.head, run.digest),
                )
                db.executemany(
                    "INSERT INTO run_steps VALUES (?, ?, ?, ?)",
                    ((run_id, seq, number, data) for seq, (number, data) in enumerate(run.rows())),
                )
                self._append(db, run_id, None, [], run.blobs)
                db.executemany("INSERT INTO run_snapshots VALUES (?, ?, ?)", [(run_id, *s) for s in run.snapshots])
        except sqlite3.Error as exc:
            raise StoreError(f"cannot store run {run_id} in {self.path}: {_reason(exc)}.") from None
        except OSError as exc:  # the spool file: no room for it
            raise StoreError(f"cannot store run {run_id}: {exc.strerror or exc}.") from None
        return run_id

    # ---- a run stored while it is recorded (engine.trace.Recorder's `sink`) -------------------------

    def start_run(self, trace: Trace) -> None:
        """Stores the head of a run that has just started (status `running`, no steps yet), with its
        large values: a run cut off before `finish_run` is read back with this head."""
        run_id = checked_id(trace)
        head, blobs = packed_head(trace)
        self._hold(run_id)  # before the row exists: a `running` row nobody holds is never a live run
        try:
            with self._transaction() as db:
                self._remove(db, run_id)
                db.execute("INSERT INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", (*summary_row(trace, 0), head, ""))
                self._append(db, run_id, None, [], blobs)
        except sqlite3.Error as exc:
            self._let_go(run_id)
            raise _failed(exc, f"cannot store run {run_id} in {self.path}: {_reason(exc)}.") from None

    def append_steps(self, run_id: str, steps: list[StepRecord]) -> None:
        """Adds finished supersteps to a started run, after those already stored."""
        rows, blobs = packed_steps(steps)
        try:
            with self._transaction() as db:
                self._still_there(db, run_id)
                # the next sequence number from the primary key's end, not by counting the rows: counting
                # read every stored step at every flush, so recording a long run cost time quadratic in it
                (count,) = db.execute(
                    "SELECT coalesce(max(seq) + 1, 0) FROM run_steps WHERE run_id = ?", (run_id,)
                ).fetchone()
                self._append(db, run_id, count, rows, blobs)
                db.execute("UPDATE runs SET steps = steps + ? WHERE run_id = ?", (supersteps(rows), run_id))
        except sqlite3.Error as exc:
            raise _failed(exc, f"cannot store the steps of run {run_id} in {self.path}: {_reason(exc)}.") from None

    def finish_run(self, trace: Trace) -> None:
        """Stores the final head of a started run (status, output, error); its steps stay as stored,
        and `trace.steps`, if any, are appended after them."""
        if trace.steps:
            self.append_steps(trace.run_id, trace.steps)
        head, blobs = packed_head(trace)
        summary = summary_row(trace, 0)
        try:
            with self._transaction() as db:
                self._still_there(db, trace.run_id)
                self._append(db, trace.run_id, None, [], blobs)
                db.execute(
                    "UPDATE runs SET graph = ?, target = ?, started_at = ?, status = ?, error = ?, trace = ? "
                    "WHERE run_id = ?",
                    (*summary[1:5], summary[6], head, trace.run_id),
                )
        except sqlite3.Error as exc:
            raise _failed(exc, f"cannot store run {trace.run_id} in {self.path}: {_reason(exc)}.") from None
        finally:
            self._let_go(trace.run_id)

    def mark_cut_off(self, run_id: str, message: str) -> None:
        """Says why a started run's recording stopped (`message`, one line) where its status is read: a
        one-row update, which a full disk still takes once the failed transaction has given its pages back."""
        try:
            with self._transaction() as db:
                db.execute("UPDATE runs SET error = ? WHERE run_id = ? AND status = 'running'", (message, run_id))
        except sqlite3.Error as exc:
            raise _failed(exc, f"cannot mark run {run_id} cut off in {self.path}: {_reason(exc)}.") from None
        finally:
            self._let_go(run_id)

    # ---- is a `running` run still being recorded? -------------------------------------------------

    def _lock_file(self, run_id: str) -> Path:
        return self._locks / hashlib.sha256(run_id.encode()).hexdigest()[:32]

    def _hold(self, run_id: str) -> None:
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
        self._recording[run_id] = fd

    def _let_go(self, run_id: str) -> None:
        fd = self._recording.pop(run_id, None)
        if fd is None:
            return
        try:
            self._lock_file(run_id).unlink(missing_ok=True)
        finally:
            os.close(fd)  # closing releases the lock

    def _cut_off(self, run_id: str) -> bool:
        """True for a run stored `running` that no process is recording any more."""
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

    @staticmethod
    def _append(
        db: sqlite3.Connection,
        run_id: str,
        first: int | None,
        steps: list[tuple[int, str]],
        blobs: list[tuple[str, str]],
    ) -> None:
        db.executemany("INSERT OR IGNORE INTO run_blobs VALUES (?, ?, ?)", [(run_id, k, v) for k, v in blobs])
        if steps:
            db.executemany(
                "INSERT INTO run_steps VALUES (?, ?, ?, ?)",
                [(run_id, first + i, number, data) for i, (number, data) in enumerate(steps)],
            )

    def _still_there(self, db: sqlite3.Connection, run_id: str) -> None:
        """Refuses to go on recording a run whose row is gone (deleted by hand, or the file replaced)."""
        if db.execute("SELECT 1 FROM runs WHERE run_id = ?", (run_id,)).fetchone() is None:
            raise StoreError(f"run {run_id} is no longer in {self.path} (it was deleted while it was recorded)")

    @staticmethod
    def _remove(db: sqlite3.Connection, run_id: str) -> None:
        for table in ("run_snapshots", "run_steps", "run_blobs", "runs"):
            db.execute(f"DELETE FROM {table} WHERE run_id = ?", (run_id,))

    @staticmethod
    def _text(db: sqlite3.Connection, run_id: str) -> str:
        """A stored run as one trace file's text."""
        (head,) = db.execute("SELECT trace FROM runs WHERE run_id = ?", (run_id,)).fetchone()
        steps = [data for (data,) in db.execute("SELECT data FROM run_steps WHERE run_id = ? ORDER BY seq", (run_id,))]
        blobs = list(db.execute("SELECT key, data FROM run_blobs WHERE run_id = ?", (run_id,)))
        return compose_json(head, steps, blobs)

    def list(self, *, graph: str | None = None, status: str | None = None, limit: int = 200) -> list[RunSummary]:
        """Newest first, optionally only one graph's or one status's runs."""
        query = "SELECT run_id, graph, target, started_at, status, steps, error FROM runs"
        where, args = [], []
        if graph:
            where.append("graph = ?")
            args.append(graph)
        if status:
            where.append("status = ?")
            args.append(status)
        if where:
            query += " WHERE " + " AND ".join(where)
        query += " ORDER BY started_at DESC, rowid DESC LIMIT ?"
        with self._reading() as db:
            rows = list(db.execute(query, (*args, limit)))
        cut = first_line(CUT_OFF)  # a cut-off run stays `running` (so `--status running` finds it)
        # a run whose store said why it stopped keeps those words (`mark_cut_off`)
        return [
            RunSummary(*row[:6], (row[6] or cut) if row[4] == "running" and self._cut_off(row[0]) else row[6])
            for row in rows
        ]

    def thread_runs(self, target: str, thread_id: str) -> list[tuple[str, str, str]]:
        """(run id, started at, status) of the stored runs of one thread of one target, oldest first."""
        with self._reading() as db:
            return [
                tuple(row)
                for row in db.execute(
                    "SELECT run_id, started_at, status FROM runs "
                    "WHERE target = ? AND json_extract(trace, '$.thread_id') = ? "
                    "ORDER BY started_at, rowid",
                    (target, thread_id),
                )
            ]

    def resolve(self, run_id: str) -> str:
        """The full id of a stored run: `run_id` itself, or the one run it is a prefix of."""
        with self._reading() as db:
            return self._resolve(db, run_id)

    def _resolve(self, db: sqlite3.Connection, run_id: str) -> str:
        if not isinstance(run_id, str) or not run_id.strip():
            raise StoreError("give a run id (`stepscope runs` lists them).")
        if db.execute("SELECT 1 FROM runs WHERE run_id = ?", (run_id,)).fetchone():
            return run_id
        if len(run_id) < MIN_PREFIX:
            raise StoreError(
                f"no stored run {run_id!r} in {self.path}; a shortened id needs at least "
                f"{MIN_PREFIX} characters (`stepscope runs` lists them)."
            )
        ids = [
            r[0]
            for r in db.execute("SELECT run_id FROM runs WHERE substr(run_id, 1, ?) = ? LIMIT 2", (len(run_id), run_id))
        ]
        if not ids:
            raise StoreError(f"no stored run {run_id!r} in {self.path}; `stepscope runs` lists them.")
        if len(ids) > 1:
            raise StoreError(f"{run_id!r} is the start of several run ids; give more of the id.")
        return ids[0]

    def load(self, run_id: str) -> Trace:
        """The stored run (a run still being recorded reads as its steps so far; one cut off mid-way
        has `CUT_OFF` as its error). Its steps are checked one at a time as they are read; a long run
        keeps them in the database, read back a step when asked for (`RowSteps`)."""
        with self._reading() as db:
            full = self._resolve(db, run_id)
            head, stored_digest, why = db.execute(
                "SELECT trace, digest, error FROM runs WHERE run_id = ?", (full,)
            ).fetchone()
            seqs, numbers = step_layout(
                db.execute(f"SELECT {LAYOUT_COLUMNS} FROM run_steps WHERE run_id = ?", (full,)).fetchone(),
                lambda: db.execute("SELECT seq, step FROM run_steps WHERE run_id = ? ORDER BY seq", (full,)),
            )
            long_run = self._long(db, full)
            blobs = list(db.execute("SELECT key, data FROM run_blobs WHERE run_id = ?", (full,)))
        name = f"run {full} in {self.path}"
        try:
            table = {key: PooledDecoder({}).decode(data) for key, data in blobs}
            head_data = PooledDecoder(table).decode(head)
            if isinstance(head_data, dict):
                head_data.pop("blobs", None)
            from debugger.sources.trace_check import checked_trace  # here: its schemas cost a run 0.2 s

            steps = RowSteps(lambda wanted: self._rows(full, wanted), seqs, numbers, table, name)
            if long_run:  # its steps are read later, outside this `except`: each damaged one says the fix itself
                steps.fix = f"(`stepscope delete {full}` removes it)"
                steps.identity = (name, stored_digest, len(seqs))
                steps.snapshots = self._shelf(full, stored_digest, len(seqs))
            trace = checked_trace(head_data, steps, name, keep_on_disk=long_run, checked_when_stored=True)
        except (ValueError, RecursionError) as exc:  # TraceFileError, or a row that is not JSON
            raise StoreError(
                f"{exc if isinstance(exc, TraceFileError) else f'{name} is damaged: {exc}.'} "
                f"(`stepscope delete {full}` removes it)"
            ) from None
        if trace.status == "running" and not trace.error and self._cut_off(full):
            trace.error = cut_off_error(why)
        return trace

    @staticmethod
    def _long(db: sqlite3.Connection, run_id: str) -> bool:
        """`STREAM_MIN_BYTES` of step rows or more; a run with kept states is long without summing them."""
        if db.execute("SELECT 1 FROM run_snapshots WHERE run_id = ? LIMIT 1", (run_id,)).fetchone() is not None:
            return True
        (size,) = db.execute(
            "SELECT coalesce(sum(length(CAST(data AS BLOB))), 0) FROM run_steps WHERE run_id = ?", (run_id,)
        ).fetchone()
        return size >= STREAM_MIN_BYTES

    def _shelf(self, run_id: str, stored_digest: str, count: int) -> SnapshotShelf:
        """The kept states of a long run (`run_snapshots`). New ones are written only while the run is the
        one read (same digest: not replaced meanwhile), and not at all where the file cannot be written:
        they are a cache, and the run opens without them."""

        def read(position: int) -> str | None:
            with self._reading() as db:
                row = db.execute(
                    "SELECT data FROM run_snapshots WHERE run_id = ? AND position = ?", (run_id, position)
                ).fetchone()
            return row[0] if row else None

        def write(rows: list[tuple[int, str]]) -> None:
            try:
                with self._transaction() as db:
                    found = db.execute("SELECT digest FROM runs WHERE run_id = ?", (run_id,)).fetchone()
                    if found is not None and found[0] == stored_digest:
                        db.executemany(
                            "INSERT OR IGNORE INTO run_snapshots VALUES (?, ?, ?)", [(run_id, *r) for r in rows]
                        )
            except sqlite3.Error:
                pass  # read-only, locked or full: the states are folded again next time

        with self._reading() as db:
            positions = [p for (p,) in db.execute("SELECT position FROM run_snapshots WHERE run_id = ?", (run_id,))]
        return SnapshotShelf(positions, read, write, count)

    def _is_long(self, run_id: str) -> bool:
        with self._reading() as db:
            return self._long(db, run_id)

    def _rows(self, run_id: str, seqs: Sequence[int]) -> list[str]:
        """The JSON of a run's step rows with sequence numbers `seqs` (ascending), in one short read."""
        if not len(seqs):
            return []
        with self._reading() as db:
            return [
                data
                for (data,) in db.execute(
                    "SELECT data FROM run_steps WHERE run_id = ? AND seq BETWEEN ? AND ? ORDER BY seq",
                    (run_id, seqs[0], seqs[-1]),
                )
            ]

    def delete(self, run_id: str) -> str:
        """Removes a stored run. A run another process is still recording is refused: its recorder
        would go on writing steps of a run nobody can see."""
        try:
            with self._transaction() as db:
                full = self._resolve(db, run_id)
                (status,) = db.execute("SELECT status FROM runs WHERE run_id = ?", (full,)).fetchone()
                if status == "running" and full not in self._recording and not self._cut_off(full):
                    raise StoreError(recording_now(full))
                self._remove(db, full)
        except sqlite3.Error as exc:
            raise StoreError(f"cannot delete run {run_id} from {self.path}: {_reason(exc)}.") from None
        if full not in self._recording:  # what a cut-off recording left behind
            self._lock_file(full).unlink(missing_ok=True)
        return full


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
