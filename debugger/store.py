"""Stored runs: an embedded SQLite database of traces (standard library `sqlite3`).

The database lives at `$STEPSCOPE_DB` if set, else `~/.local/share/stepscope/runs.sqlite3` (under
`$XDG_DATA_HOME` when that is set); every command takes `--db PATH` to use another file. Each row keeps
the summary the run list needs (graph, target, time, status, steps, error) and the trace itself as
JSON text, so a stored run opens with no engine and no graph code.
"""

from __future__ import annotations

import os
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

from engine.trace import Trace
from engine.tracefile import TraceFileError, from_json, read_file, to_json

ENV_VAR = "STEPSCOPE_DB"


def default_db_path() -> Path:
    if os.environ.get(ENV_VAR):
        return Path(os.environ[ENV_VAR]).expanduser()
    base = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    return base / "stepscope" / "runs.sqlite3"


@dataclass(frozen=True)
class RunSummary:
    """One row of the run list."""

    run_id: str
    graph: str
    target: str
    started_at: str
    status: str
    steps: int
    error: str
    """The first line of the run's error, or ''."""


class StoreError(Exception):
    """A database that cannot be used or a run that is not there; the message says what to do."""


class RunStore:
    """Runs kept in one SQLite file. Cheap to open; each call is its own transaction."""

    SCHEMA = """
        CREATE TABLE IF NOT EXISTS runs (
            run_id TEXT PRIMARY KEY,
            graph TEXT NOT NULL,
            target TEXT NOT NULL,
            started_at TEXT NOT NULL,
            status TEXT NOT NULL,
            steps INTEGER NOT NULL,
            error TEXT NOT NULL,
            trace TEXT NOT NULL
        );
        CREATE INDEX IF NOT EXISTS runs_by_graph ON runs (graph, started_at);
    """

    def __init__(self, path: str | Path | None = None) -> None:
        self.path = Path(path) if path is not None else default_db_path()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self._connect() as db:
                db.executescript(self.SCHEMA)
        except (OSError, sqlite3.DatabaseError) as exc:
            raise StoreError(f"cannot use the run database {self.path}: {exc}. "
                             f"Pass --db PATH or set {ENV_VAR} to a writable file.") from None

    def _connect(self) -> sqlite3.Connection:
        return sqlite3.connect(self.path, timeout=10)

    def save(self, trace: Trace) -> str:
        error = (trace.error or {}).get("message", "").splitlines()[:1]
        row = (trace.run_id, trace.graph.get("name", ""), trace.target, trace.started_at, trace.status,
               len([s for s in trace.steps if s.step >= 0]), error[0] if error else "", to_json(trace))
        with self._connect() as db:
            db.execute("INSERT OR REPLACE INTO runs VALUES (?, ?, ?, ?, ?, ?, ?, ?)", row)
        return trace.run_id

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
        with self._connect() as db:
            return [RunSummary(*row) for row in db.execute(query, (*args, limit))]

    def _resolve(self, db: sqlite3.Connection, run_id: str) -> str:
        """A full id, or a unique prefix of one (as git accepts short hashes)."""
        ids = [r[0] for r in db.execute("SELECT run_id FROM runs WHERE run_id LIKE ? LIMIT 2", (run_id + "%",))]
        if not ids:
            raise StoreError(f"no stored run {run_id!r} in {self.path}; `stepscope runs` lists them.")
        if len(ids) > 1 and run_id not in ids:
            raise StoreError(f"{run_id!r} matches several runs; give more of the id.")
        return run_id if run_id in ids else ids[0]

    def load(self, run_id: str) -> Trace:
        with self._connect() as db:
            full = self._resolve(db, run_id)
            (text,) = db.execute("SELECT trace FROM runs WHERE run_id = ?", (full,)).fetchone()
        try:
            return from_json(text, source=f"run {full} in {self.path}")
        except TraceFileError as exc:
            raise StoreError(str(exc)) from None

    def delete(self, run_id: str) -> str:
        with self._connect() as db:
            full = self._resolve(db, run_id)
            db.execute("DELETE FROM runs WHERE run_id = ?", (full,))
        return full

    def export(self, run_id: str, path: str | Path) -> Path:
        trace = self.load(run_id)
        Path(path).write_text(to_json(trace, indent=1), encoding="utf-8")
        return Path(path)

    def import_file(self, path: str | Path) -> str:
        try:
            trace = read_file(path)
        except TraceFileError as exc:
            raise StoreError(str(exc)) from None
        return self.save(trace)

    def __iter__(self) -> Iterator[RunSummary]:
        return iter(self.list())
