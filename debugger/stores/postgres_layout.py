"""The PostgreSQL run store's tables (`debugger/stores/postgres.py`): their layout, its version, and the
migrations from older layouts.

`stepscope_meta` says what the tables are (`application = stepscope`) and the layout's version
(`VERSION`). Version 2 mirrors the SQLite store's version 2: `stepscope_runs` holds the run list's
columns and the trace's head (its file form without steps), `stepscope_steps` one row per superstep,
`stepscope_blobs` each large value once, so a run can be written step by step while it is recorded.
Version 1 kept each whole trace in `stepscope_runs.trace`; version 3 adds `stepscope_snapshots`, the kept
states of long runs (`debugger.diagnostics.snapshots`), as SQLite's version 3 does; version 4 lets a blob
stand for a channel's final state (`debugger.stores.final_state`), and version 5 lets step rows leave out
what nearly every step repeats (`rows.leave_out_repeats`), as SQLite's versions 4 and 5 do. `check_and_migrate`
runs when a store opens.
"""

from __future__ import annotations

import re
from typing import Any, Callable

from debugger.stores.protocol import ENV_VAR, StoreError
from debugger.stores.rows import BlobRows, StepRows, split_trace_text
from debugger.stores.run_tables import child_tables, runs_table

APPLICATION = "stepscope"
VERSION = 5
LAYOUT_LOCK = 0x5374536352756E73  # "StScRuns": serialises layout checks across processes
COLUMNS = ["run_id", "graph", "target", "started_at", "status", "steps", "error", "trace", "digest", "thread_id"]
_TABLES = ("stepscope_meta", "stepscope_runs", "stepscope_steps", "stepscope_blobs", "stepscope_snapshots")

_RUNS = (
    runs_table(
        "stepscope_runs",
        "run_id TEXT PRIMARY KEY CHECK (run_id <> '')",
        "thread_id TEXT NOT NULL DEFAULT ''",
        "saved BIGSERIAL NOT NULL",
    ),
    "CREATE INDEX stepscope_runs_by_graph ON stepscope_runs (graph, started_at)",
    "CREATE INDEX stepscope_runs_by_thread ON stepscope_runs (target, thread_id, started_at)",
    "CREATE INDEX stepscope_runs_by_time ON stepscope_runs (started_at, saved)",
)
*_STEPS_AND_BLOBS, _SNAPSHOTS = child_tables(
    "stepscope_runs", "stepscope_steps", "stepscope_blobs", "stepscope_snapshots"
)
"""A run's steps and blobs (version 2) and, from version 3, the state after the step at `position` (0 is the
run's first) of a long run: a cache of its steps."""
_LAYOUT = (
    "CREATE TABLE stepscope_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    *_RUNS,
    *_STEPS_AND_BLOBS,
    _SNAPSHOTS,
)


def _migrate_1_to_2(cur: Any) -> None:
    """Version 1 kept each run's whole trace in `stepscope_runs.trace`, written when the run ended, so
    a recording process that died lost every step. Version 2 keeps the head there and the steps in
    `stepscope_steps` (the large values stay pooled in the head's own `blobs`), so steps can be written
    one by one. Run by run, so a big store never sits in memory at once."""
    for statement in _STEPS_AND_BLOBS:
        cur.execute(statement)
    cur.execute("SELECT run_id FROM stepscope_runs ORDER BY saved")
    for (run_id,) in cur.fetchall():
        cur.execute("SELECT trace FROM stepscope_runs WHERE run_id = %s", (run_id,))
        head, steps = split_trace_text(cur.fetchone()[0])
        cur.execute("UPDATE stepscope_runs SET trace = %s WHERE run_id = %s", (head, run_id))
        insert_rows(cur, run_id, 0, steps, [])


def _migrate_2_to_3(cur: Any) -> None:
    """Version 3 keeps states of long runs; the runs stored before keep theirs when next opened."""
    cur.execute(_SNAPSHOTS)


def _migrate_3_to_4(cur: Any) -> None:
    """Version 4 lets a `stepscope_blobs` row stand for a channel's state after the run's last step
    (`debugger.stores.final_state`), as SQLite's version 4 does; the tables stay as they are, the runs
    stored before read as they are, and an older StepScope refuses the database by its version."""


def _migrate_4_to_5(cur: Any) -> None:
    """Version 5 lets a run's step rows leave out what nearly every step repeats (`rows.leave_out_repeats`),
    as SQLite's version 5 does; the tables stay as they are and the runs stored before read as they are."""


MIGRATIONS: dict[int, Callable[[Any], None]] = {
    2: _migrate_1_to_2,
    3: _migrate_2_to_3,
    4: _migrate_3_to_4,
    5: _migrate_4_to_5,
}
"""`MIGRATIONS[n]` takes layout n-1 to n, inside the opening transaction."""


def layout_version(text: Any, where: str) -> int:
    """The layout version a store's `stepscope_meta` names: a whole number from 1 written in ASCII
    digits (what every StepScope wrote); anything else (`'0'`, `'²'`, `''`, `'2.0'`) is refused by name."""
    value = str(text) if text is not None else ""
    if re.fullmatch(r"[1-9][0-9]{0,8}", value) is None:
        raise StoreError(
            f"{where}'s stepscope_meta says its layout version is {value!r}, which no StepScope wrote; its "
            f"tables were not changed. Use another database for {ENV_VAR}, or drop its stepscope_* tables."
        )
    return int(value)


def check_and_migrate(cur: Any, where: str) -> None:
    """Gives an empty database the current layout and migrates an older one; refuses (`StoreError`,
    nothing changed) tables of another application or of a newer StepScope. `where` names the database
    in messages. Run inside the opening transaction, under `LAYOUT_LOCK`."""
    cur.execute("SELECT to_regclass('stepscope_meta') IS NOT NULL, to_regclass('stepscope_runs') IS NOT NULL")
    has_meta, has_runs = cur.fetchone()
    if not has_meta and not has_runs:
        for statement in _LAYOUT:
            cur.execute(statement)
        cur.execute(
            "INSERT INTO stepscope_meta VALUES ('application', %s), ('version', %s)", (APPLICATION, str(VERSION))
        )
        return
    if not has_meta or not has_runs:
        raise StoreError(
            f"{where} has a table named stepscope_{'runs' if has_runs else 'meta'} that StepScope "
            f"did not make; it was not changed. Use another database for {ENV_VAR}."
        )
    cur.execute("SELECT key, value FROM stepscope_meta")
    meta = dict(cur.fetchall())
    if meta.get("application") != APPLICATION:
        raise StoreError(
            f"{where}'s stepscope_* tables belong to another application; they were not changed. "
            f"Use another database for {ENV_VAR}."
        )
    version = layout_version(meta.get("version"), where)
    if version > VERSION:
        raise StoreError(
            f"{where} was written by a newer StepScope (run store version {version}; this one "
            f"knows up to {VERSION}). Upgrade StepScope, or use another database."
        )
    for target in range(version + 1, VERSION + 1):
        MIGRATIONS[target](cur)
        cur.execute("UPDATE stepscope_meta SET value = %s WHERE key = 'version'", (str(target),))
    cur.execute(
        "SELECT column_name FROM information_schema.columns WHERE table_name = 'stepscope_runs' "
        "AND table_schema = current_schema()"
    )
    columns = {row[0] for row in cur.fetchall()}
    cur.execute("SELECT " + ", ".join(f"to_regclass('{table}') IS NOT NULL" for table in _TABLES))
    if not set(COLUMNS) <= columns or not all(cur.fetchone()):
        raise StoreError(
            f"{where}'s stepscope_* tables have another shape than version {VERSION}'s; they were "
            "not changed. Use another database."
        )


def insert_rows(cur: Any, run_id: str, first: int | None, steps: StepRows, blobs: BlobRows) -> None:
    """Adds steps (numbered from `first`) and large values (each once) to a stored run."""
    if blobs:
        cur.executemany(
            "INSERT INTO stepscope_blobs VALUES (%s, %s, %s) ON CONFLICT DO NOTHING",
            [(run_id, key, data) for key, data in blobs],
        )
    if steps:
        cur.executemany(
            "INSERT INTO stepscope_steps VALUES (%s, %s, %s, %s)",
            [(run_id, first + i, number, data) for i, (number, data) in enumerate(steps)],
        )
