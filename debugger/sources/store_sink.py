"""A run streamed into a run store while it is recorded, its supersteps committed in batches.

`StoreSink` is the `Recorder`'s sink of `stepscope run` and of the pytest plugin: the run's head is stored
when its first step ends (so it is listed, `running`, at once), then its finished supersteps, a batch per
write transaction: every `BATCH_STEPS` steps or `BATCH_SECONDS` after the first step of a batch was handed
over, whichever comes first (a timer writes a batch whose run has gone quiet: a node that hangs), and
what is left when the run ends, is stopped (Ctrl-C, a time limit) or the process gets SIGTERM
(`write_pending_on_sigterm`). One commit per superstep made a 10,000-step run 10,005 disk commits; a
process killed outright (SIGKILL, a crash, the OOM killer) now loses at most the steps of the last
`BATCH_SECONDS`, and the steps stored before stay, read as cut off.
"""

from __future__ import annotations

import os
import signal
import threading
import time
import weakref
from typing import Any, Callable

from debugger.diagnostics.snapshots import StatesToKeep
from debugger.stores.protocol import StoreError, StoreFull, cut_off_for_disk
from engine.trace import RunRecord, StepRecord, Trace
from engine.tracefile import from_dict, to_dict

BATCH_STEPS = 200
"""Supersteps written in one transaction at most: a fast loop commits every 200 steps."""
BATCH_SECONDS = 0.2
"""The longest a finished superstep waits to be committed: what a killed process can lose."""

_LIVE: "weakref.WeakSet[StoreSink]" = weakref.WeakSet()
"""Sinks with steps not yet written, for `write_pending_on_sigterm`."""


class StoreSink:
    """Streams a run into a `RunStore` superstep by superstep (a `Recorder`'s sink), in batches (see the
    module), so recording holds at most a batch of steps. If the database fails mid-run, the remaining steps
    are kept in memory (`kept`) and the error in `error`: the run goes on and nothing more is lost. With
    `keep_stored` (for `--out`) the steps stored are kept too (`stored`), so the whole run can be written out
    even when the database that holds its first steps has gone away."""

    def __init__(
        self, store: Any, on_steps: Callable[[list[StepRecord]], None] | None = None, *, keep_stored: bool = False
    ) -> None:
        self.store = store
        self.on_steps = on_steps
        self.keep_stored = keep_stored
        self.stored: list[StepRecord] = []
        self.lock = threading.Lock()
        self.closed = False
        self.started = False
        self.error: Exception | None = None
        self.cut_at: int | None = None
        """The first step the database did not take (None: it failed on the run's end, or never)."""
        self.unmarked: StoreError | None = None
        """Why the stored run could not be told why it stops (a full disk refusing even that), or None."""
        self.kept: list[StepRecord] = []
        self.handed = 0
        """Supersteps (not the input step) handed over so far."""
        self.stored_up_to: int | None = None
        """The last committed step handed over: where a stopped run's message says it stopped."""
        self.finished = False
        self.pending: list[StepRecord] = []
        """Finished steps handed over and not written yet: the batch being gathered."""
        self.run_id = ""
        self.timer: threading.Timer | None = None
        self.writes = 0
        """Write transactions this sink has asked of the store (the run's head, each batch, its end)."""
        self.states: StatesToKeep | None = StatesToKeep(None)
        """The run's state folded as its steps are handed over, and the states a long run keeps of it."""

    def flush(self, record: RunRecord) -> None:
        with self.lock:
            if self.closed:  # the run was stopped: its steps stay in the record, for the frozen copy
                return
            steps = list(record.steps)
            del record.steps[:]
            self.handed += len([s for s in steps if s.step >= 0])
            self.stored_up_to = next((s.step for s in reversed(steps) if s.committed), self.stored_up_to)
            self._fold(steps)
            if self.on_steps is not None:
                self.on_steps(steps)
            if self.error is None and not self.started:  # on the recording's thread: nothing changes the head
                self._start(record, steps)
            if self.error is not None:
                self.kept.extend(steps)
                return
            self.pending.extend(steps)
            if len(self.pending) >= BATCH_STEPS:
                self._write_pending()
            elif self.timer is None and self.pending:
                self._arm()

    def close(self) -> None:
        with self.lock:
            self.closed = True

    def finish(self, trace: Trace) -> None:
        """Stores the steps not written yet (a batch), then the run's final head with the steps still in
        `trace` (all of them if none streamed), in one transaction."""
        with self.lock:
            self.closed = self.finished = True
            self._disarm()
            steps = list(trace.steps)
            self._fold(steps)
            if self.on_steps is not None and steps:
                self.on_steps(steps)
            if self.error is None and not self.started:
                self._start(trace, [*self.pending, *steps])
            self._write_pending()  # a batch of its own: a disk that fills in it keeps the steps that fit
            if self.error is None:
                try:
                    self.writes += 1
                    self.store.finish_run(trace)
                    if self.keep_stored:
                        self.stored.extend(steps)
                    if self.states is not None:
                        final = {key: history.value for key, history in self.states.channels.items()}
                        self.store.keep_folded_states(trace, self.states.end(), final)
                    return
                except StoreError as exc:
                    self._stopped_storing(exc, steps)
            self.kept.extend(steps)
            self._say_why_cut_off(trace)

    def write_pending(self, wait: float = -1) -> None:
        """Writes the steps gathered so far now (the batch's timer, a SIGTERM); nothing if the sink stays
        busy for `wait` seconds (a SIGTERM's handler, which may have interrupted this sink's own write)."""
        if not self.lock.acquire(timeout=wait):
            return
        try:
            self.timer = None
            if not self.finished:
                self._write_pending()
        finally:
            self.lock.release()

    def _fold(self, steps: list[StepRecord]) -> None:
        """Folds the steps handed over into the run's state; a step the fold cannot read (a trace a node
        made unreadable) stops the folding, not the recording: the run's first open then folds it."""
        if self.states is None:
            return
        try:
            for step in steps:
                self.states.add(step)
        except Exception:  # the kept states are a cache; the steps themselves are stored as they are
            self.states = None

    def _start(self, record: RunRecord, steps: list[StepRecord]) -> None:
        """Stores the run's head (its first write); a database that fails keeps `steps` and the rest."""
        try:
            self.writes += 1
            self.store.start_run(record)
            self.started = True
            self.run_id = record.run_id
        except StoreError as exc:  # a database that fails mid-run must not stop or lose the run
            self._stopped_storing(exc, steps)

    def _write_pending(self) -> None:
        """The batch, in one transaction (hold `lock`)."""
        steps, self.pending = self.pending, []
        if not steps:
            return
        if self.error is None:
            try:
                self._append(steps)
                return
            except StoreFull:  # the disk filled in this batch: as many of its steps as fit, one at a time
                for at, step in enumerate(steps):
                    try:
                        self._append([step])
                    except StoreError as exc:
                        self._stopped_storing(exc, steps[at:])
                        steps = steps[at:]
                        break
                else:
                    return
            except StoreError as exc:
                self._stopped_storing(exc, steps)
        self.kept.extend(steps)

    def _append(self, steps: list[StepRecord]) -> None:
        self.writes += 1
        self.store.append_steps(self.run_id, steps)
        if self.keep_stored:
            self.stored.extend(steps)

    def _arm(self) -> None:
        self.timer = threading.Timer(BATCH_SECONDS, self.write_pending)
        self.timer.daemon = True
        self.timer.start()
        _LIVE.add(self)

    def _disarm(self) -> None:
        if self.timer is not None:
            self.timer.cancel()
            self.timer = None
        _LIVE.discard(self)

    def _stopped_storing(self, exc: StoreError, steps: list[StepRecord]) -> None:
        """The store refused `steps`: they and the rest are kept in memory; where it stopped is noted."""
        self.error = exc
        self.cut_at = steps[0].step if steps else None

    def _say_why_cut_off(self, trace: Trace) -> None:
        """A database that filled mid-run: the stored run says at which step and what it kept (not that its
        process ended, which is what a stopped recording reads as otherwise)."""
        if not (self.started and isinstance(self.error, StoreFull)):
            return
        try:
            self.store.mark_cut_off(trace.run_id, cut_off_for_disk(self.cut_at, self.error.reason, trace.target))
        except StoreError as exc:
            self.unmarked = exc

    def whole_trace(self, trace: Trace) -> Trace:
        """The run with every step: from the database when it held up, else what it kept plus memory."""
        if self.error is None and self.started and self.finished:
            return self.store.load(trace.run_id)
        steps: list[StepRecord] = self.stored
        if self.started and not self.keep_stored:
            try:
                steps = self.store.load(trace.run_id).steps
            except StoreError:  # the stored part is unreadable: keep what memory has
                steps = []
        whole = frozen_copy(trace)
        whole.steps = [*steps, *self.kept, *self.pending, *([] if self.finished else whole.steps)]
        return whole


def write_pending_on_sigterm() -> None:
    """On SIGTERM, the steps every sink of this process gathered are written before the process ends as
    SIGTERM ends it (a run then reads as cut off, with all its finished steps). Only where SIGTERM has its
    default action and this is the main thread: a handler of the program's own is left alone."""
    if threading.current_thread() is not threading.main_thread():
        return
    if signal.getsignal(signal.SIGTERM) is not signal.SIG_DFL:
        return
    signal.signal(signal.SIGTERM, _written_then_ended)


def _written_then_ended(signum: int, frame: Any) -> None:
    for sink in list(_LIVE):
        sink.write_pending(wait=2)  # a sink this thread was writing when the signal came stays busy: skipped
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    os.kill(os.getpid(), signal.SIGTERM)


def frozen_copy(trace: Trace) -> Trace:
    """A copy of a trace that a run may still be writing to (hold the recorder's lock)."""
    for _ in range(5):
        try:
            return from_dict(to_dict(trace))
        except RuntimeError:  # a list changed size while read: try again
            time.sleep(0.01)
    return from_dict(to_dict(trace))
