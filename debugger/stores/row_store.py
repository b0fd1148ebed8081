"""One run store over four tables of rows, written once for every database (SQLAlchemy's `Dialect` shape).

`RowStore` holds everything the SQLite store (`sqlite.py`) and the PostgreSQL store (`postgres.py`) do the
same way: a run's head in the runs table, one row per superstep, each large value once, a long run's kept
states; ids matched exactly or by a prefix of at least `MIN_PREFIX` characters; a run written step by step
while it is recorded; a `running` run nobody records any more read as cut off (`CUT_OFF`). What differs
between databases is a small `Dialect` object each: the SQL text (table names, the parameter mark, the
few expressions that are spelt differently), the connection (how a transaction, a consistent read and a
recording's connection are opened, and how a driver's error becomes one line), the upsert (an insert
that skips a row already there) and the locking (who holds a run being recorded, and how another process
tells that it is still held).

SQL in this module is written with `?` for parameters and `{runs}`, `{steps}`, `{blobs}`, `{snapshots}` for
the tables; `Dialect.sql` turns it into its database's text.
"""

from __future__ import annotations

from typing import Any, Sequence

from debugger.diagnostics.snapshots import SnapshotShelf
from debugger.sources.trace_stream import STREAM_MIN_BYTES
from debugger.stores.dialect import RUN_COLUMNS, Dialect
from debugger.stores.final_state import STATE_POINTER, final_values, output_pointers, pointed_channels
from debugger.stores.protocol import (
    CUT_OFF,
    MIN_PREFIX,
    RunExistsError,
    RunSummary,
    StoreError,
    TraceFiles,
    checked_id,
    cut_off_error,
    first_line,
    recording_now,
)
from debugger.stores.rows import (
    LAYOUT_COLUMNS,
    ROW_FORM,
    ROW_FORM_KEY,
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
from engine.blobs import PooledDecoder
from engine.trace import StepRecord, Trace
from engine.tracefile import TraceFileError, compose_json, to_json

_SAVE_BATCH = 1000
"""Step rows sent to the database at a time when a whole run is saved: an import holds no more than these."""
_HEAD_COLUMNS = ("graph", "target", "started_at", "status", "error", "trace")
"""What `finish_run` rewrites of a run's row (with the dialect's `extra_columns`): all but its id and counts."""


class RowStore(TraceFiles):
    """The run store's operations over `dialect`'s database (see the module docstring)."""

    def __init__(self, dialect: Dialect) -> None:
        self.dialect = dialect

    def _sql(self, text: str) -> str:
        return self.dialect.sql(text)

    # ---- writing --------------------------------------------------------------------------------------

    def save(self, trace: Trace, *, replace: bool = True) -> str:
        """Stores a whole `trace` under its run id, in one transaction, one step at a time (`SpooledRun`: a
        long imported run is never held whole), with its kept states. With `replace=False` an id stored
        with other content is refused (`RunExistsError`); the same content again is a no-op."""
        run_id = checked_id(trace)
        try:
            spooled = SpooledRun(trace)
        except OSError as exc:  # the spool file: no room for it
            raise StoreError(f"cannot store run {run_id}: {exc.strerror or exc}.") from None
        with spooled as run, self.dialect.writing(f"store run {run_id}") as cur:
            self.dialect.lock_run(cur, run_id)
            if not replace and self._stored_already(cur, run_id, run.digest, trace):
                return run_id
            self._remove(cur, run_id)
            self._insert_run(cur, trace, run.supersteps(), run.head, run.digest)
            self._insert_rows(cur, run_id, None, [], run.blobs)
            batch: StepRows = []
            first = 0
            for row in run.rows():
                batch.append(row)
                if len(batch) == _SAVE_BATCH:
                    self._insert_rows(cur, run_id, first, batch, [])
                    first, batch = first + len(batch), []
            self._insert_rows(cur, run_id, first, batch, [])
            if run.snapshots:
                cur.executemany(
                    self._sql("INSERT INTO {snapshots} VALUES (?, ?, ?)"), [(run_id, *s) for s in run.snapshots]
                )
                self._point_at_state(cur, run_id, output_pointers(trace.output, run.final))
        return run_id

    def _keep_states(self, run_id: str, kept: list[tuple[int, str]]) -> None:
        with self.dialect.writing("keep a run's states") as cur:
            cur.executemany(self.dialect.insert_ignoring("snapshots", 3), [(run_id, *row) for row in kept])

    def _output_as_state(self, run_id: str, output: Any, final: dict[str, Any]) -> None:
        pointers = output_pointers(output, final)
        if not pointers:
            return
        with self.dialect.writing(f"store run {run_id}") as cur:
            query = "SELECT 1 FROM {runs} WHERE run_id = ? AND status <> 'running'" + self.dialect.for_update
            if cur.execute(self._sql(query), (run_id,)).fetchone() is not None:  # not recorded again meanwhile
                self._point_at_state(cur, run_id, pointers)

    def _point_at_state(self, cur: Any, run_id: str, pointers: dict[str, str]) -> None:
        """Stores the run's large values that are a channel's value after its last step, and that no step
        row points at, as pointers to it (`final_state`): its output is then not stored a second time."""
        query = (
            "UPDATE {blobs} SET data = ? WHERE run_id = ? AND key = ? "
            f"AND NOT EXISTS (SELECT 1 FROM {{steps}} WHERE run_id = ? AND {self.dialect.holds_text})"
        )
        for key, pointer in pointers.items():
            cur.execute(self._sql(query), (pointer, run_id, key, run_id, key))

    def _stored_already(self, cur: Any, run_id: str, text_digest: str, trace: Trace) -> bool:
        """True when `run_id` is stored with the content of `trace`; `RunExistsError` when with other content."""
        found = cur.execute(self._sql("SELECT digest FROM {runs} WHERE run_id = ?"), (run_id,)).fetchone()
        if found is None:
            return False
        if found[0] == text_digest or self._same_run(self._text(cur, run_id) or "", to_json(trace)):
            return True
        raise RunExistsError(
            f"a different run with id {run_id} is already stored in {self.dialect.where}; "
            "pass --replace to overwrite it, or `stepscope delete` it first."
        )

    def _insert_run(self, cur: Any, trace: Trace, steps: int, head: str, text_digest: str) -> None:
        columns = (*RUN_COLUMNS, *self.dialect.extra_columns)
        cur.execute(
            self._sql(f"INSERT INTO {{runs}} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"),
            (*summary_row(trace, steps), head, text_digest, *self.dialect.extra_values(trace)),
        )

    def _insert_rows(self, cur: Any, run_id: str, first: int | None, steps: StepRows, blobs: BlobRows) -> None:
        """Adds steps (numbered from `first`) and large values (each once) to a stored run."""
        if blobs:
            cur.executemany(self.dialect.insert_ignoring("blobs", 3), [(run_id, key, data) for key, data in blobs])
        if steps:
            cur.executemany(
                self._sql("INSERT INTO {steps} VALUES (?, ?, ?, ?)"),
                [(run_id, first + i, number, data) for i, (number, data) in enumerate(steps)],
            )

    def _remove(self, cur: Any, run_id: str) -> None:
        for table in ("snapshots", "steps", "blobs", "runs"):  # the rows that name the run first
            cur.execute(self._sql(f"DELETE FROM {{{table}}} WHERE run_id = ?"), (run_id,))

    # ---- a run stored while it is recorded (debugger.sources.recording.StoreSink) ----------------------

    def start_run(self, trace: Trace) -> None:
        """Stores the head of a run that has just started (status `running`, no steps yet), with its
        large values: a run cut off before `finish_run` is read back with this head. The recording is
        held (`Dialect.start_recording`) before the row exists: a `running` row nobody holds is never live."""
        run_id = checked_id(trace)
        head, blobs = packed_head(trace)
        self.dialect.stop_recording(run_id)
        self.dialect.start_recording(run_id)
        try:
            with self.dialect.recording(run_id, f"store run {run_id}") as cur:
                self.dialect.claim(cur, run_id)
                self.dialect.lock_run(cur, run_id)
                self._remove(cur, run_id)
                self._insert_run(cur, trace, 0, head, "")
                self._insert_rows(cur, run_id, None, [], [*blobs, (ROW_FORM_KEY, str(ROW_FORM))])
        except BaseException:
            self.dialect.stop_recording(run_id)
            raise

    def append_steps(self, run_id: str, steps: list[StepRecord]) -> None:
        """Adds finished supersteps to a started run, after those already stored, in one transaction."""
        rows, blobs = packed_steps(steps)
        with self.dialect.recording(run_id, f"store the steps of run {run_id}") as cur:
            self._append(cur, run_id, rows, blobs)

    def finish_run(self, trace: Trace) -> None:
        """Stores what is left of a started run in one transaction: its final head (status, output,
        duration, error), and `trace.steps`, if any, after the steps already stored (never rewritten).
        Ends the recording."""
        run_id = trace.run_id
        rows, step_blobs = packed_steps(trace.steps)
        head, blobs = packed_head(trace)
        summary = summary_row(trace, 0)
        changed = (*_HEAD_COLUMNS, *self.dialect.extra_columns)
        try:
            with self.dialect.recording(run_id, f"store run {run_id}") as cur:
                self._append(cur, run_id, rows, [*step_blobs, *blobs])
                cur.execute(
                    self._sql(f"UPDATE {{runs}} SET {', '.join(f'{c} = ?' for c in changed)} WHERE run_id = ?"),
                    (*summary[1:5], summary[6], head, *self.dialect.extra_values(trace), run_id),
                )
        finally:
            self.dialect.stop_recording(run_id)

    def mark_cut_off(self, run_id: str, message: str) -> None:
        """Says why a started run's recording stopped (`message`, one line) where its status is read: a
        one-row update, which a full disk still takes once the failed transaction has given its pages back."""
        self.dialect.stop_recording(run_id)
        with self.dialect.writing(f"mark run {run_id} cut off") as cur:
            cur.execute(
                self._sql("UPDATE {runs} SET error = ? WHERE run_id = ? AND status = 'running'"), (message, run_id)
            )

    def _append(self, cur: Any, run_id: str, rows: StepRows, blobs: BlobRows) -> None:
        """Refuses to go on recording a run whose row is gone (deleted by hand, or the file replaced)."""
        found = cur.execute(
            self._sql("SELECT steps FROM {runs} WHERE run_id = ?" + self.dialect.for_update), (run_id,)
        ).fetchone()
        if found is None:
            raise StoreError(
                f"run {run_id} is no longer in {self.dialect.where} (it was deleted while it was recorded); "
                "what is left of it was not stored."
            )
        # the next sequence number from the primary key's end, not by counting the rows: counting
        # read every stored step at every flush, so recording a long run cost time quadratic in it
        (first,) = cur.execute(
            self._sql("SELECT coalesce(max(seq) + 1, 0) FROM {steps} WHERE run_id = ?"), (run_id,)
        ).fetchone()
        self._insert_rows(cur, run_id, first, rows, blobs)
        if rows:
            cur.execute(self._sql("UPDATE {runs} SET steps = steps + ? WHERE run_id = ?"), (supersteps(rows), run_id))

    # ---- reading --------------------------------------------------------------------------------------

    def _text(self, cur: Any, run_id: str) -> str | None:
        """A stored run as one trace file's text (None if it is not there)."""
        found = cur.execute(self._sql("SELECT trace FROM {runs} WHERE run_id = ?"), (run_id,)).fetchone()
        if found is None:
            return None
        steps = cur.execute(self._sql("SELECT data FROM {steps} WHERE run_id = ? ORDER BY seq"), (run_id,)).fetchall()
        blobs = cur.execute(self._sql("SELECT key, data FROM {blobs} WHERE run_id = ? ORDER BY key"), (run_id,))
        rows = [tuple(row) for row in blobs.fetchall()]
        if any(data.startswith(STATE_POINTER) or key == ROW_FORM_KEY for key, data in rows):  # not a file's pieces
            return to_json(self.load(run_id))
        return compose_json(found[0], [data for (data,) in steps], rows)

    def list(self, *, graph: str | None = None, status: str | None = None, limit: int = 200) -> list[RunSummary]:
        """Newest first, optionally only one graph's or one status's runs. A run cut off mid-way stays
        `running` (so `--status running` finds it) with `CUT_OFF` as its error, or the words its store
        gave when it stopped storing it (`mark_cut_off`)."""
        cut_sql, cut_args = self.dialect.cut_off_test()
        query = f"SELECT run_id, graph, target, started_at, status, steps, error, {cut_sql} FROM {{runs}}"
        where, args = [], []
        if graph:
            where.append("graph = ?")
            args.append(graph)
        if status:
            where.append("status = ?")
            args.append(status)
        if where:
            query += " WHERE " + " AND ".join(where)
        query += f" ORDER BY started_at DESC, {self.dialect.saved_order} DESC LIMIT ?"
        with self.dialect.reading("list runs") as cur:
            rows = cur.execute(self._sql(query), (*cut_args, *args, limit)).fetchall()
        cut = first_line(CUT_OFF)
        return [RunSummary(*row[:6], (row[6] or cut) if self._cut_off(row[0], row[7]) else row[6]) for row in rows]

    def _cut_off(self, run_id: str, maybe: Any) -> bool:
        """True for a run stored `running` that no process records any more (`maybe`: `cut_off_test`'s value)."""
        return bool(maybe) and self.dialect.nobody_records(run_id)

    def thread_runs(self, target: str, thread_id: str) -> list[tuple[str, str, str]]:
        """(run id, started at, status) of the stored runs of one thread of one target, oldest first."""
        query = (
            f"SELECT run_id, started_at, status FROM {{runs}} WHERE target = ? AND {self.dialect.thread_match} "
            f"ORDER BY started_at, {self.dialect.saved_order}"
        )
        with self.dialect.reading("list a thread's runs") as cur:
            return [tuple(row) for row in cur.execute(self._sql(query), (target, thread_id)).fetchall()]

    def resolve(self, run_id: str) -> str:
        """The full id of a stored run: `run_id` itself, or the one run it is a prefix of."""
        with self.dialect.reading("find a run") as cur:
            return self._resolve(cur, run_id)

    def _resolve(self, cur: Any, run_id: str) -> str:
        if not isinstance(run_id, str) or not run_id.strip():
            raise StoreError("give a run id (`stepscope runs` lists them).")
        if cur.execute(self._sql("SELECT 1 FROM {runs} WHERE run_id = ?"), (run_id,)).fetchone():
            return run_id
        where = self.dialect.where
        if len(run_id) < MIN_PREFIX:
            raise StoreError(
                f"no stored run {run_id!r} in {where}; a shortened id needs at least "
                f"{MIN_PREFIX} characters (`stepscope runs` lists them)."
            )
        query = "SELECT run_id FROM {runs} WHERE substr(run_id, 1, ?) = ? ORDER BY run_id LIMIT 2"
        ids = [row[0] for row in cur.execute(self._sql(query), (len(run_id), run_id)).fetchall()]
        if not ids:
            raise StoreError(f"no stored run {run_id!r} in {where}; `stepscope runs` lists them.")
        if len(ids) > 1:
            raise StoreError(f"{run_id!r} is the start of several run ids; give more of the id.")
        return ids[0]

    def load(self, run_id: str) -> Trace:
        """The stored run (a run still being recorded reads as its steps so far; one cut off mid-way has
        `CUT_OFF` as its error), read in one consistent snapshot. Its steps are checked one at a time as
        they are read; a long one (its steps `STREAM_MIN_BYTES` or more) keeps them in the database, read
        a few hundred rows at a time when asked for (`RowSteps`), with its kept states."""
        cut_sql, cut_args = self.dialect.cut_off_test()
        with self.dialect.snapshot("read a run") as cur:
            full = self._resolve(cur, run_id)
            query = f"SELECT trace, digest, error, {cut_sql} FROM {{runs}} WHERE run_id = ?"
            head, stored_digest, why, maybe_cut = cur.execute(self._sql(query), (*cut_args, full)).fetchone()
            seqs, numbers = self._step_layout(cur, full)
            long_run = self._long(cur, full)
            blobs = cur.execute(self._sql("SELECT key, data FROM {blobs} WHERE run_id = ?"), (full,)).fetchall()
            rows = None if long_run else self._all_rows(cur, full)
        name = f"run {full} in {self.dialect.where}"
        fix = f"(`stepscope delete {full}` removes it)"
        try:
            trace = self._checked(full, head, stored_digest, seqs, numbers, blobs, rows, name, fix)
        except (ValueError, RecursionError) as exc:  # TraceFileError, or a row that is not JSON
            raise StoreError(
                f"{exc if isinstance(exc, TraceFileError) else f'{name} is damaged: {exc}.'} {fix}"
            ) from None
        if not trace.error and self._cut_off(full, maybe_cut):
            trace.error = cut_off_error(why)
        return trace

    def _checked(
        self,
        run_id: str,
        head: str,
        stored_digest: str,
        seqs: Sequence[int],
        numbers: Sequence[int],
        blobs: list[tuple[str, str]],
        rows: list[str] | None,
        name: str,
        fix: str,
    ) -> Trace:
        """A stored run's Trace from what `load` read: `rows` (a short run's step rows, by position), or
        None for a long run whose steps stay in the database."""
        from debugger.sources.trace_check import checked_trace  # here: its schemas cost a run 0.2 s

        pointers = pointed_channels(blobs)
        table = {key: None if key in pointers else PooledDecoder({}).decode(data) for key, data in blobs}
        head_data = PooledDecoder(table).decode(head)
        if isinstance(head_data, dict):
            head_data.pop("blobs", None)
        if rows is None:
            steps = RowSteps(lambda wanted: self._rows(run_id, wanted), seqs, numbers, table, name)
            # its steps are read later, outside `load`'s `except`: each damaged one says the fix itself
            steps.fix = fix
            steps.identity = (name, stored_digest, len(seqs))
            steps.snapshots = self._shelf(run_id, stored_digest, len(seqs))
        else:
            position = {seq: index for index, seq in enumerate(seqs)}
            steps = RowSteps(lambda wanted: [rows[position[seq]] for seq in wanted], seqs, numbers, table, name)
        trace = checked_trace(head_data, steps, name, keep_on_disk=rows is None, checked_when_stored=True)
        if pointers:  # the values pointed at are the run's state after its last step: put back in its head
            table.update(final_values(trace, pointers))
            whole = PooledDecoder(table).decode(head)
            for key in set(whole) & {"input", "output", "config"}:  # the fields a head pools (`BlobPacker.pack_run`)
                setattr(trace, key, whole[key])
        return trace

    def _step_layout(self, cur: Any, run_id: str) -> tuple[Sequence[int], Sequence[int]]:
        aggregate = cur.execute(self._sql(f"SELECT {LAYOUT_COLUMNS} FROM {{steps}} WHERE run_id = ?"), (run_id,))
        return step_layout(
            aggregate.fetchone(),
            lambda: cur.execute(self._sql("SELECT seq, step FROM {steps} WHERE run_id = ? ORDER BY seq"), (run_id,)),
        )

    def _all_rows(self, cur: Any, run_id: str) -> list[str]:
        found = cur.execute(self._sql("SELECT data FROM {steps} WHERE run_id = ? ORDER BY seq"), (run_id,))
        return [data for (data,) in found.fetchall()]

    def _long(self, cur: Any, run_id: str) -> bool:
        """`STREAM_MIN_BYTES` of step rows or more; a run with kept states is long without summing them."""
        kept = cur.execute(self._sql("SELECT 1 FROM {snapshots} WHERE run_id = ? LIMIT 1"), (run_id,)).fetchone()
        if kept is not None:
            return True
        query = f"SELECT coalesce(sum({self.dialect.step_bytes}), 0) FROM {{steps}} WHERE run_id = ?"
        (size,) = cur.execute(self._sql(query), (run_id,)).fetchone()
        return size >= STREAM_MIN_BYTES

    def _is_long(self, run_id: str) -> bool:
        with self.dialect.reading("read a run") as cur:
            return self._long(cur, run_id)

    def _rows(self, run_id: str, seqs: Sequence[int]) -> list[str]:
        """The JSON of a run's step rows with sequence numbers `seqs` (ascending), in one short read."""
        if not len(seqs):
            return []
        query = "SELECT data FROM {steps} WHERE run_id = ? AND seq BETWEEN ? AND ? ORDER BY seq"
        with self.dialect.reading("read a run") as cur:
            return [data for (data,) in cur.execute(self._sql(query), (run_id, seqs[0], seqs[-1])).fetchall()]

    def _shelf(self, run_id: str, stored_digest: str, count: int) -> SnapshotShelf:
        """The kept states of a long run. New ones are written only while the run is the one read (same
        digest: not replaced meanwhile), and not at all where the database cannot be written: they are a
        cache, and the run opens without them."""

        def read(position: int) -> str | None:
            query = "SELECT data FROM {snapshots} WHERE run_id = ? AND position = ?"
            with self.dialect.reading("read a run") as cur:
                row = cur.execute(self._sql(query), (run_id, position)).fetchone()
            return row[0] if row else None

        def write(rows: list[tuple[int, str]]) -> None:
            try:
                with self.dialect.writing("keep a run's states") as cur:
                    found = cur.execute(self._sql("SELECT digest FROM {runs} WHERE run_id = ?"), (run_id,)).fetchone()
                    if found is not None and found[0] == stored_digest:
                        cur.executemany(self.dialect.insert_ignoring("snapshots", 3), [(run_id, *r) for r in rows])
            except StoreError:
                pass  # read-only, locked, full or gone: the states are folded again next time

        with self.dialect.reading("read a run") as cur:
            found = cur.execute(self._sql("SELECT position FROM {snapshots} WHERE run_id = ?"), (run_id,))
            positions = [position for (position,) in found.fetchall()]
        return SnapshotShelf(positions, read, write, count)

    def delete(self, run_id: str) -> str:
        """Removes a stored run. A run another process is still recording is refused: its recorder
        would go on writing steps of a run nobody can see."""
        cut_sql, cut_args = self.dialect.cut_off_test()
        with self.dialect.writing(f"delete run {run_id}") as cur:
            full = self._resolve(cur, run_id)
            query = f"SELECT status = 'running', {cut_sql} FROM {{runs}} WHERE run_id = ?"
            running, maybe_cut = cur.execute(self._sql(query), (*cut_args, full)).fetchone()
            if running and not self.dialect.records(full) and not self._cut_off(full, maybe_cut):
                raise StoreError(recording_now(full))
            self._remove(cur, full)
        if not self.dialect.records(full):  # what a cut-off recording left behind
            self.dialect.forget(full)
        return full
