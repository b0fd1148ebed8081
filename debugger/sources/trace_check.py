"""Reading trace files safely: every trace the debugger opens (a file given to `import`, `show` or
`diagnose`, an upload in the app, a row of the run database) passes here before anything touches it.

Four gates, each ending in one `TraceFileError` line that names the source and the first problem:

1. Size and nesting: a file over `max_trace_bytes()` is refused unread; the file is then read one
   top-level value and one step at a time (`trace_stream`), and a value nested deeper than
   `MAX_NESTING` is refused as it is met, counted without recursion.
2. The schema (`trace_schema`, its recorded values in `trace_values`): `TraceFile` is the file format
   (`engine.tracefile`'s file form of `engine.trace`'s records), declared once with pydantic in strict
   mode; it checks every record, every field's type, the deltas, the errors and the tags of recorded values.
3. Consistency (`trace_replay`): the deltas of each channel must apply one after another (a `merge` on a
   list, or a splice past the end, cannot be replayed), and write references must point at writes.
4. Sense (`trace_sense`): the steps in order, calls into declared channels, edges
   between declared nodes, a plain key's new value its write.

Gates 2-4 run one step at a time (`StreamCheck`), so checking a long trace holds one step. Only then
is the Trace built (`engine.tracefile.from_dict`), a long one with its steps left on disk (`LazySteps`).
The engine stays standard-library only; this module is the debugger's side of the contract.
"""

from __future__ import annotations

import io
import os
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from debugger.sources.file_index import FileIndexCache, content_stamp
from debugger.sources.trace_replay import ReplayCheck
from debugger.sources.trace_scan import MAX_NESTING, nesting_depth
from debugger.sources.trace_schema import StepFile, TraceFile, first_problem
from debugger.sources.trace_sense import SenseCheck
from debugger.sources.trace_stream import STREAM_MIN_BYTES, FileSteps, LazySteps, StepIndex
from engine.trace import SCHEMA_VERSION, StepRecord, Trace
from engine.tracefile import TraceFileError, from_dict, put_back, step_from_dict

MAX_TRACE_MB_ENV = "STEPSCOPE_MAX_TRACE_MB"
DEFAULT_MAX_TRACE_MB = 1024

__all__ = [
    "TraceFileError",
    "parse_trace",
    "read_trace_file",
    "validate",
    "max_trace_bytes",
    "MAX_NESTING",
    "nesting_depth",
]


def max_trace_bytes() -> int:
    try:
        return int(float(os.environ.get(MAX_TRACE_MB_ENV, DEFAULT_MAX_TRACE_MB)) * 1_000_000)
    except ValueError:
        return DEFAULT_MAX_TRACE_MB * 1_000_000


# ---- reading -------------------------------------------------------------------------------------


def read_trace_file(path: str | Path) -> Trace:
    """A checked Trace from a trace file, read step by step (`trace_stream`): a long one keeps its steps
    on disk and decodes each when asked for; `TraceFileError` (one line) for anything else."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > max_trace_bytes():
            raise TraceFileError(_too_big(str(path), size))
        long_file = size >= STREAM_MIN_BYTES
        cache = FileIndexCache(path) if long_file else None  # indexed and checked once (`file_index`)
        stamp = content_stamp(path) if cache is not None and cache.path is not None else (0, "")
        opened_as = _stamp(path)
        index = cache.load(stamp, str(path)) if cache is not None else None
        indexed_before = index is not None
        if index is None:
            with path.open("rb") as handle:
                index = StepIndex(handle.read, str(path))
    except OSError as exc:
        raise TraceFileError(f"cannot read {path}: {exc.strerror or exc}.") from None
    steps = FileSteps(index, lambda: path.open("rb"), lambda: _stamp(path))
    trace = checked_trace(index.head, steps, str(path), keep_on_disk=long_file, checked_when_stored=indexed_before)
    if cache is not None and steps.opened_as == opened_as:  # not changed while it was read
        if not indexed_before:
            cache.save(stamp, index)
        steps.snapshots = cache.shelf(stamp, len(index))
    return trace


def _stamp(path: Path) -> tuple[int, int]:
    """What tells a file changed since it was indexed: its size and modification time."""
    try:
        status = path.stat()
    except OSError:
        return (-1, -1)
    return status.st_size, status.st_mtime_ns


def parse_trace(text: str | bytes, *, source: str = "<trace>") -> Trace:
    """A validated Trace from JSON text (an upload, a stored run's text), read the same way as a file:
    a long one keeps its steps as bytes until asked for; `TraceFileError` (one line) for anything else."""
    if len(text) > max_trace_bytes():
        raise TraceFileError(_too_big(source, len(text)))
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else bytes(text)
    index = StepIndex(io.BytesIO(data).read, source)
    steps = FileSteps(index, lambda: io.BytesIO(data), lambda: None)
    return checked_trace(index.head, steps, source, keep_on_disk=len(data) >= STREAM_MIN_BYTES)


def checked_trace(
    head: dict[str, Any], source: Any, name: str, *, keep_on_disk: bool, checked_when_stored: bool = False
) -> Trace:
    """The Trace of a head and its steps (`source`, as `LazySteps` takes it: a file's, a store's rows),
    every step checked first in one pass (`StreamCheck`); the steps then stay where they are
    (`keep_on_disk`) or are read into a list.

    `checked_when_stored`: a run store's own rows, which every writer of the store checked (an import reads
    its file through here; a recorder writes what it recorded). A long run's steps are then not read at
    all: each is still checked against the schema when it is decoded (`step_from_dict`), and its head here,
    but opening a 200,000-step run does not read 200,000 steps again to check what was checked."""
    check = StreamCheck(head, source=name)
    kept: list[StepRecord] = []
    for position, step in () if keep_on_disk and checked_when_stored else enumerate(source.loads()):
        check.step(position, step)
        if not keep_on_disk:
            kept.append(step_from_dict(step, source=name, index=position))
    try:
        trace = from_dict(head, source=name)
    except TraceFileError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, RecursionError) as exc:  # what the schema let through
        raise TraceFileError(f"{name} is damaged: {exc}. Re-export the run.") from None
    trace.steps = LazySteps(source, name) if keep_on_disk else kept  # type: ignore[assignment]
    return trace


def _too_big(source: str, size: int) -> str:
    return (
        f"{source} is {size / 1e6:.0f} MB; traces up to {max_trace_bytes() / 1e6:.0f} MB are opened "
        f"(set {MAX_TRACE_MB_ENV} to allow more)."
    )


# ---- validation ----------------------------------------------------------------------------------


def validate(data: Any, *, source: str = "<trace>") -> None:
    """Raises `TraceFileError` naming `source` and the first field that breaks the schema, the first
    delta that cannot apply or the first thing that cannot have happened (`StreamCheck`, step by step)."""
    steps = data.get("steps") if isinstance(data, dict) else None
    if steps is not None and type(steps) is not list:
        StreamCheck(data, source=source)  # the schema says what is wrong with the steps field
        return
    check = StreamCheck({k: v for k, v in data.items() if k != "steps"} if steps else data, source=source)
    for index, step in enumerate(steps or ()):
        check.step(index, step)


class StreamCheck:
    """The checks of `validate` for a trace read one step at a time: the head (every field but `steps`) at
    once, then each step as it comes, keeping per channel and per graph what the checks need and nothing
    per step, so a trace of any length is checked in memory that does not grow with its steps."""

    def __init__(self, head: Any, *, source: str = "<trace>") -> None:
        self.source = source
        self.head = head
        if not isinstance(head, dict) or "schema_version" not in head:
            raise TraceFileError(
                f"{source} is not a StepScope trace: it has no schema_version. "
                "Export one with `stepscope run TARGET --out FILE`."
            )
        version = head["schema_version"]
        if type(version) is int and version > SCHEMA_VERSION:
            raise TraceFileError(
                f"{source} was written by a newer StepScope (trace schema {version}; this one reads "
                f"up to {SCHEMA_VERSION}). Upgrade StepScope to open it."
            )
        self._schema_check(TraceFile, head)
        self.replay = ReplayCheck()
        self.sense = SenseCheck(head.get("graph") or {})
        problem = self.sense.graph_problem()
        if problem:
            raise TraceFileError(f"{source}: {problem}, so the file describes no run that can have happened.")

    def _schema_check(self, schema: Any, data: Any, within: str = "") -> None:
        """`data` (the head, or the part `within` it) against its pydantic `schema`: a TraceFileError naming
        the first problem."""
        try:
            schema.model_validate(data)
        except ValidationError as exc:
            raise TraceFileError(f"{self.source}: {first_problem(exc, self.head, within=within)}") from None
        except RecursionError:
            raise TraceFileError(f"{self.source} is nested too deeply to check.") from None

    def step(self, index: int, step: Any) -> None:
        """Checks the run's `index`-th step (its file form) after those before it."""
        source = self.source
        put_back(step)  # what the file form leaves out of a step (schema 3), so every check sees the step whole
        self._schema_check(StepFile, step, within=f"steps[{index}]")
        problem = self.replay.step(index, step)
        if problem:
            raise TraceFileError(f"{source}: {problem}. The file is damaged; re-export the run.")
        problem = self.sense.step(index, step)
        if problem:
            raise TraceFileError(f"{source}: {problem}, so the file describes no run that can have happened.")
