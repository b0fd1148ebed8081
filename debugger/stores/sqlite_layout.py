"""The SQLite run store's layout (`debugger/stores/sqlite.py`): its tables, its version, and the migrations
from older layouts, as `postgres_layout.py` is the PostgreSQL store's.

The database says what it is: `PRAGMA application_id` is StepScope's and `PRAGMA user_version` the
layout's version (`VERSION`). `check_and_migrate` runs when a store opens, inside one write transaction
(so an unwritable file is found before a run, not after): an empty file gets the current layout, an
older StepScope layout is migrated in place (version 1 is the unversioned `runs` table of the first
releases), and a newer or foreign database is refused with a message, never written to.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

from debugger.stores.protocol import ENV_VAR, StoreError
from debugger.stores.rows import digest, split_trace_text
from debugger.stores.run_tables import child_tables, runs_table

APPLICATION_ID = 0x53745363  # "StSc"

VERSION = 5
"""Version 4 (issue 43): a `run_blobs` row may hold, instead of a value, a pointer to a channel's state after
the run's last step (`debugger.stores.final_state`), so a long run's output is not stored twice. Version 5: a
run's step rows may leave out what nearly every step repeats (`rows.leave_out_repeats`; the run's
`rows.ROW_FORM_KEY` blob row says so). The tables are version 3's; an older StepScope refuses such a
database by its version rather than misreading a run, and runs stored before read as they are."""


*_STEPS_AND_BLOBS, _SNAPSHOTS = child_tables("runs", "run_steps", "run_blobs", "run_snapshots")
"""A run's steps and blobs (version 2); version 3 adds `run_snapshots`, the kept states of long runs
(`debugger.diagnostics.snapshots`): the state after the step at `position` (0 is the run's first step), so
a long run opens at any step without folding it from its start. A cache of what the steps say: written
when a long run is stored, or first opened."""
_LAYOUT_V2 = (
    runs_table("runs", "run_id TEXT PRIMARY KEY NOT NULL CHECK (run_id <> '')"),
    "CREATE INDEX runs_by_graph ON runs (graph, started_at)",
    *_STEPS_AND_BLOBS,
)
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


def check_and_migrate(db: sqlite3.Connection, path: Path) -> None:
    """Gives an empty file the current layout and migrates an older one; refuses (`StoreError`, nothing
    changed) a foreign database or a newer StepScope's. Run inside the opening write transaction."""
    app_id = db.execute("PRAGMA application_id").fetchone()[0]
    version = db.execute("PRAGMA user_version").fetchone()[0]
    # every schema object but SQLite's own (exactly "sqlite_", case-sensitive: LIKE would ignore case and read
    # "_" as a wildcard, taking a table named SQLiteNotes for SQLite's), views, triggers and indices included
    objects = set(db.execute("SELECT type, name FROM sqlite_master WHERE substr(name, 1, 7) <> 'sqlite_'"))
    tables = {name for kind, name in objects if kind == "table"}
    if app_id not in (0, APPLICATION_ID) or (app_id == 0 and version != 0):
        raise StoreError(
            f"{path} is not a StepScope run database (it belongs to another application). "
            f"Pass --db PATH or set {ENV_VAR} to another file; it was not changed."
        )
    if app_id == 0:
        if not objects:
            _create(db)
            return
        if objects <= _OBJECTS_V1 and tables == {"runs"} and _columns(db) == _COLUMNS_V1:
            version = 1  # the first releases' layout, before the database said its version
        else:
            found = ", ".join(f"{kind} {name}" for kind, name in sorted(objects))
            raise StoreError(
                f"{path} is not a StepScope run database (it has {found}). "
                f"Pass --db PATH or set {ENV_VAR} to another file; it was not changed."
            )
    if version > VERSION:
        raise StoreError(
            f"{path} was written by a newer StepScope (database version {version}; this one "
            f"knows up to {VERSION}). Upgrade StepScope, or pass --db PATH to use another file."
        )
    if version == 1:
        _migrate_1_to_2(db)  # into the current layout
    elif _columns(db) != _COLUMNS_V2 or not (_TABLES_V2 if version == 2 else _TABLES_V3) <= tables:
        raise StoreError(
            f"{path} says it is a StepScope database (version {version}) but its runs table "
            "has another shape; it was not changed. Pass --db PATH to use another file."
        )
    elif version < VERSION:
        if version == 2:
            db.execute(_SNAPSHOTS)  # its long runs keep states when they are next opened
        _stamp(db)  # version 3's tables are version 5's; its runs read as they are


def prove_writable(db: sqlite3.Connection) -> None:
    """A real write, rolled back: `BEGIN IMMEDIATE` alone succeeds on a read-only disk, so without
    this a run would go ahead (with its side effects) and then fail to be stored."""
    db.execute("SAVEPOINT stepscope_probe")
    db.execute("INSERT INTO run_blobs VALUES ('', 'stepscope-probe', '')")
    db.execute("ROLLBACK TO stepscope_probe")
    db.execute("RELEASE stepscope_probe")


def _create(db: sqlite3.Connection) -> None:
    for statement in (*_LAYOUT_V2, _SNAPSHOTS):
        db.execute(statement)
    _stamp(db)


def _stamp(db: sqlite3.Connection) -> None:
    db.execute(f"PRAGMA application_id = {APPLICATION_ID}")
    db.execute(f"PRAGMA user_version = {VERSION}")


def _columns(db: sqlite3.Connection) -> list[str]:
    return [row[1] for row in db.execute("PRAGMA table_info(runs)")]


def _migrate_1_to_2(db: sqlite3.Connection) -> None:
    """Version 2 refuses empty ids (version 1 stored `run_id: null`, which then broke the run
    list) and keeps a digest of each trace, so an import can tell a copy from a different run.
    Rows without an id are kept under a new one, so they can be opened and deleted."""
    rows = db.execute(f"SELECT {', '.join(_COLUMNS_V1)} FROM runs").fetchall()
    db.execute("ALTER TABLE runs RENAME TO runs_v1")
    db.execute("DROP INDEX IF EXISTS runs_by_graph")
    _create(db)
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
