"""A run in stored pieces: both stores keep a run as its head (the trace file without its steps), one
row per superstep and each large value once (`engine.blobs`); these functions cut a Trace into those
pieces (whole, or one step at a time for a long run: `SpooledRun`), read a long run's rows back when
asked for (`RowSteps`) and name the run-list columns."""

from __future__ import annotations

import hashlib
import json
import re
import tempfile
from array import array
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Sequence

from debugger.sources.trace_scan import MAX_NESTING, nesting_depth
from debugger.sources.trace_stream import file_forms
from debugger.stores.protocol import first_line
from engine.blobs import BlobPacker, PooledDecoder
from engine.trace import StepRecord, Trace
from engine.tracefile import TraceFileError, composed_parts, dumps, head_dict, step_dict

if TYPE_CHECKING:
    from debugger.diagnostics.snapshots import SnapshotShelf

StepRows = list[tuple[int, str]]
"""(step number, the step's JSON) of each step, in order."""

BlobRows = list[tuple[str, str]]
"""(key, JSON) of each large value pooled by a run's head or steps (`engine.blobs`)."""


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def packed_steps(steps: list[StepRecord]) -> tuple[StepRows, BlobRows]:
    """Finished steps of a run being recorded, as rows (`row_text`), and the large values they hold."""
    packer = BlobPacker()
    rows = [(step.step, row_text(step, packer)) for step in steps]
    return rows, _fresh(packer)


ROW_FORM_KEY = "$rows"
"""The blob row (a key no value's hash is) of a run whose step rows leave out what `leave_out_repeats`
leaves out, holding `ROW_FORM`; a run stored before layout 5 has none, and its rows are read as they are."""
ROW_FORM = 2


def row_text(step: StepRecord, packer: BlobPacker) -> str:
    """A step's row: its file form without what nearly every step of a run repeats (`leave_out_repeats`)."""
    data = step_dict(step, packer)
    leave_out_repeats(data)
    return dumps(data)


def leave_out_repeats(data: dict[str, Any]) -> None:
    """A step's file form without `committed` when it is true (a step that did not commit says `false`) and
    without `updated_channels` when they are the channels its tasks, reducer calls and barrier wrote, as
    nearly every step's are: 0.68 MB of a 10,000-message run's 7.6 MB of rows."""
    if data.get("committed") is True:
        del data["committed"]
    else:
        data["committed"] = False
    updated = data.get("updated_channels", [])
    if updated == written_channels(data):
        data.pop("updated_channels", None)
    else:
        data["updated_channels"] = updated


def put_back_repeats(data: Any) -> Any:
    """What `leave_out_repeats` left out of a row, back in place (anything else is left for the checks)."""
    if type(data) is dict:
        data.setdefault("committed", True)
        if "updated_channels" not in data:
            data["updated_channels"] = written_channels(data)
    return data


def written_channels(data: dict[str, Any]) -> list[str]:
    """The channels a step's file form writes, sorted: its tasks' writes, its reducer calls, its barrier's."""
    found = set(data["state"]) if type(data.get("state")) is dict else set()
    for task in data.get("tasks") or ():
        for write in task.get("writes") or () if type(task) is dict else ():
            if type(write) is list and write and type(write[0]) is str:
                found.add(write[0])
    for call in data.get("reducer_calls") or ():
        if type(call) is dict and type(call.get("channel")) is str:
            found.add(call["channel"])
    return sorted(found)


def packed_head(trace: Trace) -> tuple[str, BlobRows]:
    """The head of a run (all but its steps), and the large values it holds (its input, its output)."""
    packer = BlobPacker()
    head = dumps(head_dict(trace, packer))
    return head, _fresh(packer)


def supersteps(rows: StepRows) -> int:
    """How many of the rows the run list counts: supersteps, not the input step (-1)."""
    return len([n for n, _ in rows if n >= 0])


def _fresh(packer: BlobPacker) -> BlobRows:
    return [(key, dumps(value)) for key, value in packer.take_fresh().items()]


def summary_row(trace: Trace, steps: int) -> tuple[str, str, str, str, str, int, str]:
    """The run list's columns: id, graph, target, started, status, steps, first line of the error."""
    return (
        trace.run_id,
        column_text(trace.graph.get("name", "")),
        column_text(trace.target),
        trace.started_at,
        trace.status,
        steps,
        column_text(first_line(str((trace.error or {}).get("message", "")))),
    )


_SURROGATE = re.compile("[\ud800-\udfff]")


def column_text(value: object) -> str:
    """Text a database column can hold: a lone surrogate (half an emoji, a name decoded with
    `surrogateescape`), which no UTF-8 text can, as its escape `\\ud800`, as the terminal shows it. The
    trace's JSON keeps the value itself (`engine.tracefile.dumps` writes it as a JSON escape)."""
    return _SURROGATE.sub(lambda m: f"\\u{ord(m.group()):04x}", str(value))


def split_trace_text(text: str) -> tuple[str, list[tuple[int, str]]]:
    """A version 1 row's whole trace as a head and its steps; text that does not parse is kept as
    the head, so opening the run says what is wrong with it (and `delete` removes it)."""
    try:
        data = json.loads(text)
        steps = data.pop("steps", [])
        return dumps(data), [(s.get("step", 0) if isinstance(s, dict) else 0, dumps(s)) for s in steps]
    except (ValueError, TypeError, AttributeError, RecursionError):
        return text, []


class SpooledRun:
    """A whole trace cut into its stored pieces one step at a time, for storing a long run (an import)
    without holding it: the step rows wait in a spool file, one a line, and `digest` is the hash of the
    text `compose_json` gives of the pieces, hashed as it is composed. Use it in a `with` block."""

    def __init__(self, trace: Trace) -> None:
        packer = BlobPacker()
        pooled: dict[str, Any] = {}
        self.numbers = array("q")
        self.spool = tempfile.TemporaryFile("w+", encoding="utf-8", newline="\n")
        from debugger.diagnostics.snapshots import StatesToKeep  # here: debugger.diagnostics imports the stores

        states = StatesToKeep(len(trace.steps))
        for step, form in file_forms(trace.steps, packer):
            leave_out_repeats(form)
            self.spool.write(dumps(form) + "\n")  # no indent: a step's JSON has no newline
            self.numbers.append(step.step)
            pooled.update(packer.take_fresh())
            states.add(step)
        self.snapshots = states.kept
        """The run's kept states (`debugger.diagnostics.snapshots`), by position: a long run is stored
        with them, so it opens at its last step without a fold of all its steps."""
        self.final = {key: history.value for key, history in states.channels.items()} if self.snapshots else {}
        """Each channel's value after the run's last step, when it keeps states (`final_state.output_pointers`)."""
        self.head = dumps(head_dict(trace, packer))
        pooled.update(packer.take_fresh())
        self.blobs: BlobRows = [(key, dumps(value)) for key, value in pooled.items()]
        self.blobs.append((ROW_FORM_KEY, str(ROW_FORM)))
        hashed = hashlib.sha256()
        for part in composed_parts(self.head, (data for _, data in self.rows()), self.blobs):
            hashed.update(part.encode("utf-8"))
        self.digest = hashed.hexdigest()

    def rows(self) -> Iterator[tuple[int, str]]:
        """(step number, the step's JSON) of each step, in order, read back from the spool."""
        self.spool.seek(0)
        for number, line in zip(self.numbers, self.spool):
            yield number, line[:-1]

    def supersteps(self) -> int:
        """How many steps the run list counts (not the input step)."""
        return sum(1 for n in self.numbers if n >= 0)

    def __enter__(self) -> "SpooledRun":
        return self

    def __exit__(self, *exc: object) -> None:
        self.spool.close()


LAYOUT_COLUMNS = "count(*), min(seq), max(seq), min(step - seq), max(step - seq)"
"""What `step_layout` is given of a run's step rows, in one aggregate query of each store."""


def step_layout(
    aggregate: tuple[Any, ...], rows: Callable[[], Iterable[tuple[int, Any]]]
) -> tuple[Sequence[int], Sequence[int]]:
    """A stored run's step rows in order: their sequence numbers and step numbers. Rows numbered one after
    another, as a recorder writes them, are known so from the `LAYOUT_COLUMNS` aggregate and given as ranges:
    reading the 200,000 rows of a long run one by one took most of its first paint. Other runs (a step number
    used twice, by a state edit) are read row by row: `rows()` gives (seq, step) in order of seq."""
    count, first, last, low, high = aggregate
    if count and last - first + 1 == count and type(low) is int and low == high:  # step = seq + low, each row
        return range(first, last + 1), range(first + low, last + low + 1)
    seqs, numbers = array("q"), array("q")
    for seq, number in rows():
        seqs.append(seq)
        numbers.append(number if type(number) is int else -2)
    return seqs, numbers


class RowSteps:
    """The steps of a stored run read from its rows when asked for (`LazySteps` takes it): `read(seqs)`
    gives the JSON of the rows with those sequence numbers, in order; a few hundred are read at a time,
    each read its own short transaction, so a long read never holds the database against a recorder."""

    BATCH = 256

    def __init__(
        self,
        read: Callable[[Sequence[int]], list[str]],
        seqs: Sequence[int],
        numbers: Sequence[int],
        table: dict,
        name: str,
    ) -> None:
        self.read = read
        self.seqs = seqs
        self.numbers = numbers
        self.name = name
        self.pooled = PooledDecoder(table)
        self.snapshots: "SnapshotShelf | None" = None
        """The run's kept states, when its store keeps them (`LazySteps.snapshots` passes it on to `Replay`)."""
        self.identity: Any = None
        """The stored run as read (`LazySteps.identity`), set by its store."""
        self.fix = ""
        """What to do about a damaged step row, said after the problem (`LazySteps` adds it to the schema's too)."""
        self.form = table.pop(ROW_FORM_KEY, 1)
        """`ROW_FORM` where the run's rows leave out what `leave_out_repeats` does (its blob row says so)."""

    def __len__(self) -> int:
        return len(self.seqs)

    def _decode(self, text: str, position: int) -> dict[str, Any]:
        if nesting_depth(text, MAX_NESTING) + 2 > MAX_NESTING:
            raise TraceFileError(
                f"{self.name}: step {position} is nested more than {MAX_NESTING} levels deep. {self.fix}".rstrip()
            )
        try:
            data = self.pooled.decode(text)
            return put_back_repeats(data) if self.form == ROW_FORM else data
        except (ValueError, RecursionError) as exc:
            problem = f"{self.name} cannot be parsed at step {position}: {exc}."
            raise TraceFileError(f"{problem} {self.fix}".rstrip()) from None

    def _batch(self, first: int, last: int) -> list[str]:
        wanted = self.seqs[first:last]
        found = self.read(wanted)
        if len(found) != len(wanted):
            raise TraceFileError(f"{self.name} changed since it was opened (deleted or replaced); open it again.")
        return found

    def load_range(self, first: int, last: int) -> list[dict[str, Any]]:
        """The file forms of steps `first` to `last - 1`, in one read."""
        return [self._decode(text, first + offset) for offset, text in enumerate(self._batch(first, last))]

    def loads(self) -> Iterator[dict[str, Any]]:
        """Every step's file form, in order."""
        for first in range(0, len(self.seqs), self.BATCH):
            for offset, text in enumerate(self._batch(first, first + self.BATCH)):
                yield self._decode(text, first + offset)
