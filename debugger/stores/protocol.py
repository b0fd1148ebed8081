"""What every run store is: the `RunStoreProtocol` both stores implement, the base they share
(`TraceFiles`: trace files in and out on top of a store's own `load`/`save`/`list`), the run-list
row (`RunSummary`), and the errors and cut-off wording every store and view uses."""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Protocol

from engine.codec import TYPE
from engine.trace import StepRecord, Trace
from engine.tracefile import TraceFileError, to_json, write_json

ENV_VAR = "STEPSCOPE_DB"

MIN_PREFIX = 4

CUT_OFF = (
    "Cut off: the process recording this run ended before the run did (killed, crashed or disconnected). "
    "The supersteps it finished are kept; the run has no final state."
)
"""The error a `running` run gets when no process is recording it any more."""


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


class StoreFull(StoreError):
    """The database could not grow: its disk is full (or a file-size limit was reached). What was stored
    before stays; `StoreSink` says so in the run's stored status (`cut_off_for_disk`)."""

    reason: str = ""
    """What the database said (`database or disk is full`)."""


class RunExistsError(StoreError):
    """An import whose run id is already stored with other content."""


class RunStoreProtocol(Protocol):
    """What every run store does (SQLite `RunStore`, PostgreSQL `PostgresRunStore`). Each method is
    one transaction; every failure is a `StoreError` whose message says what to do."""

    def save(self, trace: Trace, *, replace: bool = True) -> str:
        """Stores a whole run; returns its id. A different run under the same id needs `replace`."""

    def start_run(self, trace: Trace) -> None:
        """Opens a run that is being recorded (status `running`, holding the recording lock)."""

    def append_steps(self, run_id: str, steps: list[StepRecord]) -> None:
        """Adds the supersteps just committed to a run opened with `start_run`."""

    def finish_run(self, trace: Trace) -> None:
        """Closes a recorded run with its final status, output and error."""

    def keep_folded_states(self, trace: Trace, kept: list[tuple[int, str]], final: dict[str, Any]) -> None:
        """Stores the states a recorder folded as it streamed a long run (`TraceFiles.keep_folded_states`)."""

    def list(self, *, graph: str | None = None, status: str | None = None, limit: int = 200) -> list[RunSummary]:
        """The stored runs, newest first, optionally of one graph or one status."""

    def thread_runs(self, target: str, thread_id: str) -> list[tuple[str, str, str]]:
        """(run id, started at, status) of one checkpointer thread's runs of `target`, oldest first."""

    def resolve(self, run_id: str) -> str:
        """The full id of `run_id` or of the one run it is a prefix of (at least 4 characters)."""

    def load(self, run_id: str) -> Trace:
        """A stored run as a Trace (a run whose recorder died reads as cut off)."""

    def delete(self, run_id: str) -> str:
        """Removes a run; returns its full id."""

    def export_text(self, run_id: str) -> str:
        """A stored run as the text of a trace file."""

    def export(self, run_id: str, path: str | Path) -> Path:
        """Writes a stored run to a trace file."""

    def import_file(self, path: str | Path, *, replace: bool = False) -> str:
        """Stores a trace file, checked first; returns its run id."""

    def __iter__(self) -> Iterator[RunSummary]:
        """The stored runs, as `list()` gives them."""


class TraceFiles(ABC):
    """What every run store does the same way on top of its own `load`, `save` and `list`: trace files
    in and out, for the SQLite store (`sqlite.py`) and the PostgreSQL one (`postgres.py`)."""

    @abstractmethod
    def load(self, run_id: str) -> Trace:
        """A stored run as a Trace."""

    @abstractmethod
    def save(self, trace: Trace, *, replace: bool = True) -> str:
        """Stores a whole run; returns its id."""

    @abstractmethod
    def list(self, *, graph: str | None = None, status: str | None = None, limit: int = 200) -> list[RunSummary]:
        """The stored runs, newest first."""

    @abstractmethod
    def _is_long(self, run_id: str) -> bool:
        """Whether a stored run is long: its step rows, together, `STREAM_MIN_BYTES` or more (as `load` decides)."""

    def export_text(self, run_id: str) -> str:
        """A stored run as the text of a trace file (what `export` writes and the app downloads)."""
        return to_json(self.load(run_id), indent=1)

    def export(self, run_id: str, path: str | Path) -> Path:
        """Writes a stored run to a trace file one step at a time (`engine.tracefile.write_json`), so a
        long run is never held whole."""
        from debugger.commands.files import not_written, whole_file  # files at a user's path: whole or none

        trace = self.load(run_id)
        try:
            with whole_file(path) as out:
                write_json(trace, out)
        except OSError as exc:
            raise StoreError(not_written(path, exc) + ".") from None
        return Path(path)

    def import_file(self, path: str | Path, *, replace: bool = False) -> str:
        """Stores a trace file, validated first. A different run already stored under the same id is
        refused unless `replace`; importing the same run twice is harmless."""
        try:
            from debugger.sources.trace_check import read_trace_file  # here: its schemas cost a run 0.2 s

            trace = read_trace_file(path)
        except TraceFileError as exc:
            raise StoreError(str(exc)) from None
        return self.save(trace, replace=replace)

    def keep_folded_states(self, trace: Trace, kept: list[tuple[int, str]], final: dict[str, Any]) -> None:
        """Stores the states a recorder folded while it streamed the run (`debugger.diagnostics.snapshots.
        StatesToKeep`: `kept`, and `final`, each channel's value after the last step), so a long run opens at
        its last step without a fold of all its steps, and its output, when it is that last state, as a
        pointer to it (`_output_as_state`). A short run keeps none (it is read whole at open). Reading the
        run back to fold it cost a 10,000-step messages run 1.6 s and most of its recording's memory. The
        states are a cache: a database that refuses them leaves the run's first open to fold it."""
        try:
            if kept and self._is_long(trace.run_id):
                self._keep_states(trace.run_id, kept)
                self._output_as_state(trace.run_id, trace.output, final)
        except StoreError:
            pass

    @abstractmethod
    def _keep_states(self, run_id: str, kept: list[tuple[int, str]]) -> None:
        """Stores `kept` (position, packed state) of a stored run beside those it has."""

    @abstractmethod
    def _output_as_state(self, run_id: str, output: Any, final: dict[str, Any]) -> None:
        """Stores the finished run's large `output` values that are its `final` channel values (its state
        after its last step) as pointers to that state (`debugger.stores.final_state`), not a second time."""

    def __iter__(self) -> Iterator[RunSummary]:
        return iter(self.list())

    @staticmethod
    def _same_run(stored: str, text: str) -> bool:
        """True when a stored run (perhaps written by an older version) holds the trace `text` holds."""
        from debugger.sources.trace_check import parse_trace  # here: its schemas cost a run 0.2 s

        try:
            return to_json(parse_trace(stored, source="stored run")) == text
        except TraceFileError:
            return False


def cut_off_error(message: str = "") -> dict[str, Any]:
    """The error of a run whose recording stopped before the run did: its process ended (`CUT_OFF`), or
    the store said why when it stopped storing it (`message`, e.g. `cut_off_for_disk`'s)."""
    return {
        TYPE: "error",
        "class": "RunCutOff",
        "module": "stepscope",
        "message": message or CUT_OFF,
        "notes": [],
        "traceback": "",
    }


def cut_off_for_disk(step: int | None, reason: str, target: str) -> str:
    """The stored status of a run whose database filled while it was recorded: at `step` (None: as its
    end was stored, after every step), what the database kept, and how to fix it, in one line."""
    kept = (
        f"the steps before {step} are kept here, step {step} and later are not"
        if step is not None
        else "every step is kept here, the run's end (status, final state) is not"
    )
    where = f"at step {step}" if step is not None else "as the run ended"
    again = f"`stepscope run {target}`" if target else "`stepscope run`"
    return (
        f"Cut off {where}: the disk filled ({reason}) while the run was stored, so {kept}; the run itself "
        f"went on to its end. Free space on the database's disk, then {again} again."
    )


def recording_now(run_id: str) -> str:
    """Why a run cannot be deleted yet."""
    return (
        f"run {run_id} is still being recorded by another process; stop that run first (Ctrl-C where it runs, "
        f"or Stop on the Live run page), then delete it."
    )


def first_line(text: str) -> str:
    return text.splitlines()[0] if text else ""


def checked_id(trace: Trace) -> str:
    run_id = trace.run_id
    if not isinstance(run_id, str) or not run_id.strip():
        raise StoreError("the trace has no run id; it cannot be stored (re-export it with `stepscope export`).")
    return run_id
