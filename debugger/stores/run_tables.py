"""The tables both run stores keep, as SQL both SQLite and PostgreSQL read: the runs, and beside them a
run's steps, its blobs and its kept states, each row of those belonging to one run (deleted with it). Each
store names the tables its own way (`sqlite_layout.py`, `postgres_layout.py`); the columns are the same."""

from __future__ import annotations

_RUN_LIST = ("graph", "target", "started_at", "status")
"""The run list's text columns, after the run's id; then its step count, error, trace head and digest."""


def runs_table(table: str, run_id: str, *more: str) -> str:
    """The CREATE TABLE statement of the runs: `run_id` is the id column's definition (each database
    says "not empty" its own way), `more` the columns a store has beyond the shared ones."""
    shared = [f"{name} TEXT NOT NULL" for name in _RUN_LIST]
    shared += ["steps INTEGER NOT NULL", "error TEXT NOT NULL", "trace TEXT NOT NULL", "digest TEXT NOT NULL"]
    return _create(table, (run_id, *shared, *more))


def child_tables(runs: str, steps: str, blobs: str, snapshots: str) -> tuple[str, str, str]:
    """The CREATE TABLE statements of `steps` (one row per superstep, in order), `blobs` (each large value
    once, by its key) and `snapshots` (the state after the step at `position`, 0 the run's first)."""
    return (
        _keyed_by_run(steps, runs, ("seq INTEGER NOT NULL", "step INTEGER NOT NULL"), "seq"),
        _keyed_by_run(blobs, runs, ("key TEXT NOT NULL",), "key"),
        _keyed_by_run(snapshots, runs, ("position INTEGER NOT NULL",), "position"),
    )


def _keyed_by_run(table: str, runs: str, keys: tuple[str, ...], key: str) -> str:
    owner = f"run_id TEXT NOT NULL REFERENCES {runs} (run_id) ON DELETE CASCADE"
    return _create(table, (owner, *keys, "data TEXT NOT NULL", f"PRIMARY KEY (run_id, {key})"))


def _create(table: str, columns: tuple[str, ...]) -> str:
    return f"CREATE TABLE {table} (\n        " + ",\n        ".join(columns) + "\n    )"
