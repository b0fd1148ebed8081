"""Stored runs in PostgreSQL: the run store a team shares (psycopg 3).

`STEPSCOPE_DB` (or `--db`) set to a `postgresql://` URL selects this store (`debugger.stores.open_store`);
anything else is the SQLite file of `debugger/store.py`, which stays the default and needs no server.
The operations and their rules are the SQLite store's: `save`, `list`, `load`, `resolve`, `delete`,
`export`, `import_file`; run ids matched exactly or by a prefix of at least `MIN_PREFIX` characters that
names one run (never a pattern); an import whose id is stored with other content is refused unless
`replace`.

Layout: two tables named `stepscope_*`, so the store may live in the same database as an app's
checkpointer. `stepscope_meta` says what the tables are (`application = stepscope`) and the layout's
version (`VERSION`). Opening checks them in one transaction under an advisory lock (several processes
may open a fresh database at once): empty gets the current layout, an older layout is migrated, a newer
or foreign one is refused with a message and left unchanged. Each operation is one short transaction on
its own connection, so any number of processes on any number of hosts can record at once.
"""

from __future__ import annotations

import dataclasses
from contextlib import contextmanager
from typing import Any, Iterator

from debugger.store import ENV_VAR, MIN_PREFIX, RunExistsError, RunSummary, StoreError, TraceFiles, digest
from debugger.tracecheck import TraceFileError, parse_trace
from engine.trace import Trace
from engine.tracefile import to_json

__all__ = ["PostgresRunStore", "RunExistsError", "is_postgres_url"]

APPLICATION = "stepscope"
VERSION = 1
_LOCK_KEY = 0x5374536352756E73  # "StScRuns": serialises layout checks across processes
_COLUMNS = ["run_id", "graph", "target", "started_at", "status", "steps", "error", "trace", "digest", "thread_id"]

_LAYOUT_V1 = (
    "CREATE TABLE stepscope_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)",
    """CREATE TABLE stepscope_runs (
        run_id TEXT PRIMARY KEY CHECK (run_id <> ''),
        graph TEXT NOT NULL,
        target TEXT NOT NULL,
        started_at TEXT NOT NULL,
        status TEXT NOT NULL,
        steps INTEGER NOT NULL,
        error TEXT NOT NULL,
        trace TEXT NOT NULL,
        digest TEXT NOT NULL,
        thread_id TEXT NOT NULL DEFAULT '',
        saved BIGSERIAL NOT NULL
    )""",
    "CREATE INDEX stepscope_runs_by_graph ON stepscope_runs (graph, started_at)",
    "CREATE INDEX stepscope_runs_by_thread ON stepscope_runs (target, thread_id, started_at)",
    "CREATE INDEX stepscope_runs_by_time ON stepscope_runs (started_at, saved)",
)
MIGRATIONS: dict[int, tuple[str, ...]] = {}
"""`MIGRATIONS[n]`: the statements that take layout n-1 to n (none yet: version 1 is the first)."""


def is_postgres_url(value: Any) -> bool:
    return isinstance(value, str) and value.startswith(("postgresql://", "postgres://"))


def _redact(url: str) -> str:
    from debugger.threads.savers import redact

    return redact(url)


class PostgresRunStore(TraceFiles):
    """Runs kept in a PostgreSQL database. Each call opens its own connection and transaction."""

    def __init__(self, url: str) -> None:
        try:
            import psycopg
        except ImportError:
            raise StoreError(
                f"{ENV_VAR} is a PostgreSQL URL, which needs `pip install stepscope[postgres]` (psycopg 3)."
            ) from None
        self._psycopg = psycopg
        self.url = url
        self._streamed: dict[str, list[Any]] = {}
        """Steps of runs being recorded (`start_run` .. `finish_run`), by run id."""
        self.path = _redact(url)
        """Where the runs are, for messages (the URL without its password)."""
        try:
            with self._transaction() as cur:
                cur.execute("SELECT pg_advisory_xact_lock(%s)", (_LOCK_KEY,))
                self._check_and_migrate(cur)
        except psycopg.Error as exc:
            raise StoreError(
                f"cannot use the run database {self.path}: {_reason(exc)}. "
                f"Check the URL and that the server is running, or set {ENV_VAR} to a file."
            ) from None

    # ---- layout ----------------------------------------------------------------------------------

    def _check_and_migrate(self, cur: Any) -> None:
        cur.execute("SELECT to_regclass('stepscope_meta') IS NOT NULL, to_regclass('stepscope_runs') IS NOT NULL")
        has_meta, has_runs = cur.fetchone()
        if not has_meta and not has_runs:
            for statement in _LAYOUT_V1:
                cur.execute(statement)
            cur.execute(
                "INSERT INTO stepscope_meta VALUES ('application', %s), ('version', %s)", (APPLICATION, str(VERSION))
            )
            return
        if not has_meta or not has_runs:
            raise StoreError(
                f"{self.path} has a table named stepscope_{'runs' if has_runs else 'meta'} that StepScope "
                f"did not make; it was not changed. Use another database for {ENV_VAR}."
            )
        cur.execute("SELECT key, value FROM stepscope_meta")
        meta = dict(cur.fetchall())
        if meta.get("application") != APPLICATION or not str(meta.get("version", "")).isdigit():
            raise StoreError(
                f"{self.path}'s stepscope_* tables belong to another application; they were not changed. "
                f"Use another database for {ENV_VAR}."
            )
        version = int(meta["version"])
        if version > VERSION:
            raise StoreError(
                f"{self.path} was written by a newer StepScope (run store version {version}; this one "
                f"knows up to {VERSION}). Upgrade StepScope, or use another database."
            )
        for target in range(version + 1, VERSION + 1):
            for statement in MIGRATIONS[target]:
                cur.execute(statement)
            cur.execute("UPDATE stepscope_meta SET value = %s WHERE key = 'version'", (str(target),))
        cur.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'stepscope_runs' "
            "AND table_schema = current_schema()"
        )
        columns = {row[0] for row in cur.fetchall()}
        if not set(_COLUMNS) <= columns:
            raise StoreError(
                f"{self.path}'s stepscope_runs table has another shape than version {VERSION}'s; it was "
                "not changed. Use another database."
            )

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
            raise StoreError(f"cannot {what} in {self.path}: {_reason(exc)}.") from None

    # ---- operations --------------------------------------------------------------------------------

    def save(self, trace: Trace, *, replace: bool = True) -> str:
        """Stores `trace` under its run id. With `replace=False` an id stored with other content is
        refused (`RunExistsError`); the same content again is a no-op."""
        run_id = trace.run_id
        if not isinstance(run_id, str) or not run_id.strip():
            raise StoreError("the trace has no run id; it cannot be stored (re-export it with `stepscope export`).")
        text = to_json(trace)
        error = str((trace.error or {}).get("message", "")).splitlines()[:1]
        row = (
            run_id,
            str(trace.graph.get("name", "")),
            trace.target,
            trace.started_at,
            trace.status,
            len([s for s in trace.steps if s.step >= 0]),
            error[0] if error else "",
            text,
            digest(text),
            str(getattr(trace, "thread_id", "") or ""),
        )
        columns = ", ".join(_COLUMNS)
        upsert = (
            f"INSERT INTO stepscope_runs ({columns}) VALUES ({', '.join(['%s'] * len(_COLUMNS))}) "
            "ON CONFLICT (run_id) DO UPDATE SET "
            + ", ".join(f"{c} = EXCLUDED.{c}" for c in _COLUMNS[1:])
            + ", saved = DEFAULT"
        )
        with self._operation(f"store run {run_id}") as cur:
            if not replace:
                cur.execute("SELECT digest FROM stepscope_runs WHERE run_id = %s FOR UPDATE", (run_id,))
                found = cur.fetchone()
                if found is not None:
                    if found[0] == row[8]:
                        return run_id
                    raise RunExistsError(
                        f"a different run with id {run_id} is already stored in {self.path}; "
                        "pass --replace to overwrite it, or `stepscope delete` it first."
                    )
            cur.execute(upsert, row)
        return run_id

    # Recording as a run goes (`debugger.recording.StoreSink`). The SQLite store writes each superstep as it
    # finishes; here the run's head is written when it starts (a run cut off shows as `running`) and the
    # whole run when it finishes, its steps held in memory meanwhile.

    def start_run(self, trace: Trace) -> None:
        """Stores the head of a run that has just started (status `running`, no steps yet)."""
        self._streamed[trace.run_id] = []
        self.save(_without_steps(trace))

    def append_steps(self, run_id: str, steps: list[Any]) -> None:
        """Keeps finished supersteps of a started run until `finish_run` stores them with it."""
        self._streamed.setdefault(run_id, []).extend(steps)

    def finish_run(self, trace: Trace) -> None:
        """Stores a started run whole: the steps handed over so far, then `trace.steps`."""
        whole = _without_steps(trace)
        whole.steps = [*self._streamed.pop(trace.run_id, []), *trace.steps]
        self.save(whole)

    def list(self, *, graph: str | None = None, status: str | None = None, limit: int = 200) -> list[RunSummary]:
        """Newest first, optionally only one graph's or one status's runs."""
        query = "SELECT run_id, graph, target, started_at, status, steps, error FROM stepscope_runs"
        where, args = [], []
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
            return [RunSummary(*row) for row in cur.fetchall()]

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

    def load(self, run_id: str) -> Trace:
        with self._operation("read a run") as cur:
            full = self._resolve(cur, run_id)
            cur.execute("SELECT trace FROM stepscope_runs WHERE run_id = %s", (full,))
            found = cur.fetchone()
        if found is None:  # deleted between the two statements by another process
            raise StoreError(f"no stored run {run_id!r} in {self.path}; `stepscope runs` lists them.")
        try:
            return parse_trace(found[0], source=f"run {full} in {self.path}")
        except TraceFileError as exc:
            raise StoreError(f"{exc} (`stepscope delete {full}` removes it)") from None

    def delete(self, run_id: str) -> str:
        with self._operation(f"delete run {run_id}") as cur:
            full = self._resolve(cur, run_id)
            cur.execute("DELETE FROM stepscope_runs WHERE run_id = %s", (full,))
        return full


def _reason(exc: BaseException) -> str:
    text = str(exc).strip().splitlines()
    return text[0] if text else type(exc).__name__


def _without_steps(trace: Trace) -> Trace:
    return dataclasses.replace(trace, steps=[])
