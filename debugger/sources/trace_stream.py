"""Reading a long trace file step by step: one pass finds where each step lies (byte offsets) without
keeping any of them, a second checks them one at a time (`trace_check.StreamCheck`), and from then on a
step is decoded only when a view or a command asks for it (`LazySteps`).

A 200,000-step trace is 150-200 MB of JSON and many times that as Python objects; reading it whole (what
`json.loads` does) costs memory that grows with the run and minutes of time. Here the file is read in
chunks by the C JSON decoder (`JSONDecoder.raw_decode`), one top-level value at a time (`trace_scan.py`):

    {"schema_version": 3, "run_id": ..., "blobs": {...}, "graph": {...}, "steps": [ {...}, {...} ], ...}
                                                                                  ^ offsets of each step

The head (every field but `steps`, with the pooled large values of `blobs`) is kept: it does not grow with
the steps. What does is one (start, end) pair of integers a step, in two `array`s.

Small traces (under `STREAM_MIN_BYTES`) are read the same way and then kept as a plain list of steps, as
they always were: nothing changes for them but that they are checked step by step.
"""

from __future__ import annotations

import json
import threading
import time
from array import array
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any, BinaryIO, Callable, Iterator, overload

from debugger.sources.trace_scan import READ_AHEAD, Scanner
from engine.blobs import BlobPacker, PooledDecoder
from engine.codec import BLOB
from engine.trace import SCHEMA_VERSION, StepRecord
from engine.tracefile import TraceFileError, step_dict, step_from_dict

STREAM_MIN_BYTES = 4_000_000
"""Traces at least this long keep their steps on disk (`LazySteps`); shorter ones are read into a list."""
CACHED_STEPS = 64
"""Decoded steps `LazySteps` keeps, most recently used: a view moving one step at a time decodes each once."""

_POINTER = json.dumps(BLOB)
"""What a step's text holds where it points at a large value (`{"$blob": key}`)."""


def one_after_another(numbers: array) -> Sequence[int]:
    """`numbers` as a `range` when each is one more than the one before (a 200,000-step file's take 1.6 MB
    as an array), else as they are."""
    count = len(numbers)
    if count and numbers[-1] - numbers[0] == count - 1 and all(b - a == 1 for a, b in zip(numbers, numbers[1:])):
        return range(numbers[0], numbers[0] + count)
    return numbers


class StepIndex:
    """Where each step of a trace file lies, and the file's head: built by one pass that keeps no step."""

    def __init__(self, read: Callable[[int], bytes], source: str) -> None:
        self.source = source
        self.starts = array("q")
        self.ends = array("q")
        self.numbers: Sequence[int] = ()
        """Each step's number as the file gives it (checked later with the rest of the step); a `range` when
        they run one after another, as most runs' do (`one_after_another`)."""
        self.blobs: dict[str, Any] = {}
        """The file's pooled large values (`engine.blobs`), put back into each step as it is decoded."""
        numbers = array("q")
        self.head = self._scan(Scanner(read, source), numbers)
        self.numbers = one_after_another(numbers)

    @classmethod
    def restored(
        cls, source: str, head: dict[str, Any], blobs: dict[str, Any], starts: array, ends: array, numbers: array
    ) -> "StepIndex":
        """The index a first pass made of the file, saved and read back (`debugger.sources.file_index`)."""
        index = cls.__new__(cls)
        index.source, index.head, index.blobs = source, head, blobs
        index.starts, index.ends, index.numbers = starts, ends, one_after_another(numbers)
        return index

    def _scan(self, scanner: Scanner, numbers: array) -> dict[str, Any]:
        plain = json.JSONDecoder()
        pooled = PooledDecoder(self.blobs)
        if scanner.peek() == "":
            raise TraceFileError(
                f"{self.source} is empty; a trace file is the JSON that `stepscope run --out` or `export` writes."
            )
        scanner.expect("{", "a JSON object")
        head: dict[str, Any] = {}
        more = scanner.peek() != "}"
        while more:
            key, _, _ = scanner.value(plain, 1)
            if not isinstance(key, str):
                raise scanner._error(f"has a key that is not a string at byte {scanner.byte}")
            scanner.expect(":", "':'")
            if key == "steps" and scanner.peek() == "[":
                if len(self.starts):
                    raise TraceFileError(f"{self.source} has two lists of steps; a trace file has one.")
                self._scan_steps(scanner, plain, numbers)
            else:
                head[key], _, _ = scanner.value(pooled.decoder, 1)
            more = scanner.peek() == ","
            if more:
                scanner.expect(",", "','")
        scanner.expect("}", "'}' or ','")
        if scanner.peek() != "":
            raise scanner._error(f"has more after the trace's object, at byte {scanner.byte}")
        try:
            pooled.check()
        except ValueError as exc:
            raise TraceFileError(f"{self.source} cannot be parsed: {exc}.") from None
        head.pop("blobs", None)
        return head

    def _scan_steps(self, scanner: Scanner, plain: json.JSONDecoder, numbers: array) -> None:
        scanner.expect("[", "'['")
        more = scanner.peek() != "]"
        while more:
            found, start, end = scanner.value(plain, 2)
            number = found.get("step") if isinstance(found, dict) else None
            numbers.append(number if type(number) is int and -(2**62) < number < 2**62 else -2)
            self.starts.append(start)
            self.ends.append(end)
            more = scanner.peek() == ","
            if more:
                scanner.expect(",", "','")
        scanner.expect("]", "']' or ','")

    def __len__(self) -> int:
        return len(self.starts)


class FileSteps:
    """The steps of one trace file (on disk, or bytes in memory), read back by their offsets as dicts."""

    def __init__(self, index: StepIndex, opener: Callable[[], BinaryIO], stamp: Callable[[], Any]) -> None:
        self.index = index
        self.opener = opener
        self.stamp = stamp
        self.opened_as = stamp()
        self.pooled = PooledDecoder(index.blobs)
        self.snapshots: Any = None
        """The run's kept states, where the file's index is saved (`debugger.sources.file_index`)."""
        self.identity = None if self.opened_as is None else (index.source, self.opened_as)
        """The file as it was opened (`LazySteps.identity`); None for text in memory."""

    def __len__(self) -> int:
        return len(self.index)

    @property
    def numbers(self) -> Sequence[int]:
        return self.index.numbers

    def _checked(self) -> None:
        if self.stamp() != self.opened_as:
            raise TraceFileError(f"{self.index.source} changed since it was opened; open it again.")

    def _decode(self, data: bytes, position: int) -> dict[str, Any]:
        try:
            return self.pooled.decode(data)
        except (ValueError, RecursionError) as exc:  # the file changed under us, or a blob is missing
            raise TraceFileError(f"{self.index.source} cannot be parsed at step {position}: {exc}.") from None

    def load_range(self, first: int, last: int) -> list[dict[str, Any]]:
        """The file forms of steps `first` to `last - 1`, read with one seek."""
        self._checked()
        starts, ends = self.index.starts, self.index.ends
        with self.opener() as handle:
            handle.seek(starts[first])
            data = handle.read(ends[last - 1] - starts[first])
        base = starts[first]
        return [self._decode(data[starts[i] - base : ends[i] - base], i) for i in range(first, last)]

    def loads(self) -> Iterator[dict[str, Any]]:
        """Every step's file form, in order, reading the file once."""
        for data, _ in self.loads_with_text():
            yield data

    def loads_with_text(self) -> Iterator[tuple[dict[str, Any], str]]:
        """Every step's file form, in order, with the JSON text it was decoded from (reading the file once)."""
        self._checked()
        with self.opener() as handle:
            for position, (start, end) in enumerate(zip(self.index.starts, self.index.ends)):
                handle.seek(start)
                text = handle.read(end - start).decode("utf-8")  # the scan read it as UTF-8 already
                yield self._decode(text, position), text

    def stored_as_written(self) -> bool:
        """Whether each step's text, as the file holds it, is what a run store keeps of the step: the file is
        of this schema (a store's rows are), so its step forms are the ones the writers give."""
        return self.index.head.get("schema_version") == SCHEMA_VERSION


_GIVING_WAY = threading.local()


def give_way_while_reading() -> None:
    """Marks this thread as a background reader (a long run's findings): after each step it decodes it lets
    the interpreter go (`time.sleep(0)`), so the thread drawing a page gets it at once. A thread that runs
    Python without pause makes every other one wait up to the switch interval (5 ms) each time it gives the
    interpreter up for a read or a socket; a page of a few hundred of those took 5 to 12 s, against 3 s alone."""
    _GIVING_WAY.on = True


def _gave_way() -> None:
    if getattr(_GIVING_WAY, "on", False):
        time.sleep(0)


class LazySteps(Sequence[StepRecord]):
    """A trace's steps kept where they are stored (a file, a database's rows) and built into records
    when asked for: indexing decodes one step (the last `CACHED_STEPS` are kept), iterating decodes one
    at a time in order. It stands where `Trace.steps` holds a list; nothing here can be changed. Two threads
    may read it at once (the app's page, and a long run's findings computed in the background): the cache
    and the source (one decoder) are used under a lock."""

    def __init__(self, source: Any, name: str) -> None:
        self.source = source
        """Has `__len__`, `numbers`, `load_range(first, last)` and `loads()`, giving steps' file forms."""
        self.name = name
        self._cache: OrderedDict[int, StepRecord] = OrderedDict()
        self._lock = threading.RLock()

    def __len__(self) -> int:
        return len(self.source)

    @property
    def numbers(self) -> Sequence[int]:
        """Each step's number, in order, known without decoding any step."""
        return self.source.numbers

    @property
    def identity(self) -> Any:
        """What run these steps are, the same for every open of the same content (a file's path, size and
        modification time; a stored run's id, digest and step count), or None: sessions of one server share
        what they compute of it (`debugger.model.background.shared`)."""
        return getattr(self.source, "identity", None)

    @property
    def snapshots(self) -> Any:
        """The kept states of the run, where its source keeps them (`debugger.diagnostics.snapshots`):
        `Replay` folds from the nearest one instead of from the first step."""
        return getattr(self.source, "snapshots", None)

    @overload
    def __getitem__(self, position: int) -> StepRecord: ...

    @overload
    def __getitem__(self, position: slice) -> list[StepRecord]: ...

    def __getitem__(self, position: int | slice) -> StepRecord | list[StepRecord]:
        if isinstance(position, slice):
            return [self[i] for i in range(*position.indices(len(self)))]
        count = len(self)
        if position < 0:
            position += count
        if not 0 <= position < count:
            raise IndexError("step index out of range")
        with self._lock:
            step = self._cache.get(position)
            if step is not None:
                self._cache.move_to_end(position)
                return step
            last = min(position + READ_AHEAD, count)  # a reader that asks for a step mostly asks for the next one next
            try:
                loaded = self.source.load_range(position, last)
            except TraceFileError:  # a damaged step read ahead is not this one: it says so when asked for
                loaded = self.source.load_range(position, position + 1)
            for offset, data in enumerate(loaded):
                try:
                    built = self._built(data, position + offset)
                except TraceFileError:
                    if offset == 0:
                        raise
                    break
                self._keep(position + offset, built)
                if offset == 0:
                    step = built
        _gave_way()
        return step

    def _built(self, data: dict[str, Any], position: int) -> StepRecord:
        """The record of one step's file form; a damaged one's line ends with what its source says to do
        (a stored run's: delete it), as the same damage found when the run was opened would."""
        try:
            return step_from_dict(data, source=self.name, index=position)
        except TraceFileError as exc:
            fix = getattr(self.source, "fix", "")
            if not fix:
                raise
            raise TraceFileError(f"{exc} {fix}") from None

    def _keep(self, position: int, step: StepRecord) -> None:
        self._cache[position] = step
        self._cache.move_to_end(position)
        if len(self._cache) > CACHED_STEPS:
            self._cache.popitem(last=False)

    def __iter__(self) -> Iterator[StepRecord]:
        loads, position = self.source.loads(), -1
        while True:
            position += 1
            with self._lock:  # one step at a time: another reader's look-ups go in between
                data = next(loads, None)
                if data is None:
                    return
                step = self._cache.get(position)
                if step is None:  # kept: a reader going through the steps looks the current one up again by number
                    step = self._built(data, position)
                    self._keep(position, step)
            _gave_way()
            yield step

    def __eq__(self, other: object) -> bool:
        if isinstance(other, (list, LazySteps)):
            return len(self) == len(other) and all(a == b for a, b in zip(self, other))
        return NotImplemented

    __hash__ = None  # type: ignore[assignment]


def step_numbers(steps: Sequence[StepRecord]) -> Sequence[int]:
    """The numbers of a run's steps in order, without decoding steps kept where they are stored."""
    if isinstance(steps, LazySteps):
        return steps.numbers
    return [s.step for s in steps]


def file_forms(steps: Sequence[StepRecord], packer: BlobPacker) -> Iterator[tuple[StepRecord, dict[str, Any]]]:
    """Each step with its file form, large values pointed at (they go to `packer`), for a store to keep. A long
    trace file's steps give the form the file holds, parsed by the C decoder a second time rather than built
    again from the record (`step_dict`: a third of a 20,000-step import's time); a step pointing at a large
    value is built, so `packer` meets the run's large values in the order a save of the run does (its digest)."""
    source = steps.source if isinstance(steps, LazySteps) else None
    if not isinstance(source, FileSteps) or not source.stored_as_written():
        for step in steps:
            yield step, step_dict(step, packer)
        return
    for position, (data, text) in enumerate(source.loads_with_text()):
        step = steps._built(data, position)  # it changes `data`: the step's form is parsed anew from its text
        yield step, step_dict(step, packer) if _POINTER in text else json.loads(text)
        _gave_way()
