"""Kept states of a long stored run: the state (each channel's encoded value and its items' origins, as
`Replay` folds them) after chosen steps, kept by the store beside the run, so showing step N folds from
the nearest kept state before N instead of from the run's first step. A 200,000-step run opens at its
last step by reading one kept state (and the few it is a delta of); stepping back folds at most a few
thousand steps.

Which steps are kept (`worth_keeping`): one every `MIN_GAP` steps at most, and a state only when the run
has gone at least half as many steps since the last kept one as the state holds items (list items, or
one per value). So a counter loop keeps a small state every `MIN_GAP` steps, and a chat whose message
list grows by one a step keeps its states further and further apart (each about twice as far in as the
one before): whole, together they would hold about twice the items the run's steps added, never the
whole list again every few steps (as deltas, below, about those items once), and stepping back from the
last step of such a chat folds up to half its steps. The run's last step is always kept.

A state kept right after one the same shelf packed is written as what changed since (`delta`), so
recording costs what is new: whole, a 10,000-message chat's states at steps 1,023, 2,047, 4,094, 8,188
and its last packed about 25,000 messages again (1.87 MB of text); as deltas each message is packed
about once (0.74 MB). Reading one reads its base first, a kept state before it.

A kept state is a cache, never the record: one that cannot be read (another format, damaged text, a
delta whose base is gone) is passed over and the state is folded from the steps, as without it.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import json
import operator
import zlib
from dataclasses import dataclass
from typing import Any, Callable, Sequence

from debugger.diagnostics.replay import ChannelHistory, Origin, fold_step
from engine.trace import StepRecord

FORMAT = 3
"""The layout of a kept state's JSON; a state of another format is folded again, not read. Format 1 was
the JSON as the text; format 2's text is `PACKED` and the JSON compressed: a kept state repeats the
values the run's steps added, which compress three- to tenfold. Level 1: a 10,000-message state (1.75 MB
of JSON) compresses in 12 ms to 553 kB, where level 6 took 32 ms for 518 kB, while the run records.
Format 3 is format 2 or a delta (`delta`): `base`, the position of an earlier kept state, and the
channels that changed since, each as `["extend", new items, their origins]` (a list that only grew at
its end) or `["set", value, origins]`."""
READABLE_FORMATS = (1, 2, 3)
PACKED = "z:"
"""How a compressed kept state's text begins (then base64 of zlib): JSON never does."""

MAX_CHAIN = 8
"""Deltas in a row at most: the next state is kept whole, so reading a state reads at most this many
texts besides a whole one (a counter beside a large list that never changes would keep a chain of 200
tiny deltas in a 200,000-step run, each read to show its last step). Longer chains are not read."""

MIN_GAP = 1024
"""Steps between two kept states at least: stepping back from a kept state folds at most this many
steps (a few tenths of a second), and a counter loop of 200,000 steps keeps about 200 small states."""

States = dict[str, ChannelHistory]


def worth_keeping(gap: int, channels: States) -> bool:
    """Whether the state after a step `gap` steps past the last kept one is kept (see the module)."""
    if gap < MIN_GAP:
        return False
    return 2 * gap >= sum(len(history.origins) or 1 for history in channels.values())


def pack(channels: States) -> str:
    """A state as text: each channel's value and its origins as `[step, task, task_id, call_index]`,
    compressed (see `FORMAT`)."""
    return _packed(
        {"format": FORMAT, "channels": {key: [h.value, _origin_rows(h.origins)] for key, h in channels.items()}}
    )


def _packed(data: dict[str, Any]) -> str:
    text = json.dumps(data, separators=(",", ":"))
    # ASCII (lone surrogates escaped, as in a trace file): compressed, the escapes cost next to nothing
    return PACKED + base64.b64encode(zlib.compress(text.encode("ascii"), 1)).decode("ascii")


def _origin_rows(origins: list[Origin]) -> list[list[Any]]:
    return [[o.step, o.task, o.task_id, o.call_index] for o in origins]


Held = dict[str, tuple[Any, list[Origin]]]
"""A packed state as its shelf holds it to build the next one's delta on: each channel's value (a list
copied, as the fold that gave it may extend it in place) and a copy of its origins."""


def held(channels: States) -> Held:
    return {key: (list(h.value) if type(h.value) is list else h.value, list(h.origins)) for key, h in channels.items()}


def delta(base: int, before: Held, channels: States) -> str | None:
    """`channels` as what changed since the state `before` (kept at position `base`), or None where
    that would not be much smaller than the whole state: more than two thirds of its items new (a chat
    keeps a state when about half its messages are new since the last, so half would be a coin toss), or
    a channel of `before` gone. Items are compared by identity, as the fold keeps them: what it did not
    change is the very objects, and equal-looking values (1 and True) are not taken for one another."""
    if not before.keys() <= channels.keys():
        return None
    changes: dict[str, list[Any]] = {}
    new = 0
    for key, history in channels.items():
        value, origins = history.value, history.origins
        old_value, old_origins = before.get(key, (None, None))
        if old_origins is not None and _grown(old_origins, origins):
            if type(value) is list and type(old_value) is list and _grown(old_value, value):
                if len(value) > len(old_value) or len(origins) > len(old_origins):
                    changes[key] = ["extend", value[len(old_value) :], _origin_rows(origins[len(old_origins) :])]
                    new += max(len(value) - len(old_value), len(origins) - len(old_origins))
                continue
            if value is old_value and len(origins) == len(old_origins):
                continue
        changes[key] = ["set", value, _origin_rows(origins)]
        new += len(origins) or 1
    if 3 * new > 2 * sum(len(history.origins) or 1 for history in channels.values()):
        return None
    return _packed({"format": FORMAT, "base": base, "channels": changes})


def _grown(old: list[Any], new: list[Any]) -> bool:
    """Whether `new` begins with the very items of `old` (at C speed: a fold extends a list in place)."""
    return len(old) <= len(new) and all(map(operator.is_, old, new))  # map stops at the end of `old`


def unpack(text: str, read: Callable[[int], str | None] = lambda base: None, position: int = -1) -> States | None:
    """The state `pack` or `delta` wrote, or None for text that is not one (another format, damaged). A
    delta is read onto its base, read by `read` (its text at a position), which must be before `position`
    (the delta's own) and readable itself, at most `MAX_CHAIN` deltas deep."""
    try:
        deltas = []
        data = _loaded(text)
        while data is not None and "base" in data:
            base = data["base"]
            if data["format"] < 3 or type(base) is not int or not 0 <= base < position or len(deltas) == MAX_CHAIN:
                return None  # formats 1 and 2 had no deltas
            deltas.append(data["channels"])
            text, position = read(base), base
            data = _loaded(text) if text is not None else None
        if data is None:
            return None
        channels = {}
        for key, (value, origins) in data["channels"].items():
            kept = _origins(origins)
            if kept is None:
                return None
            channels[key] = ChannelHistory(value, kept)
        for changes in reversed(deltas):
            if not _changed(channels, changes):
                return None
        return channels
    except (ValueError, TypeError, RecursionError, binascii.Error, zlib.error):
        return None


def _loaded(text: str) -> dict[str, Any] | None:
    """A kept state's JSON, when it is one of a format read here."""
    if text.startswith(PACKED):
        text = zlib.decompress(base64.b64decode(text[len(PACKED) :], validate=True)).decode("ascii")
    data = json.loads(text)
    if type(data) is not dict or data.get("format") not in READABLE_FORMATS or type(data.get("channels")) is not dict:
        return None
    return data


def _origins(rows: Any) -> list[Origin] | None:
    """The origins of `_origin_rows`, or None where they are not such rows."""
    kept = []
    for step, task, task_id, call_index in rows:
        if not (
            type(step) is int
            and type(task) is str
            and type(task_id) is str
            and (call_index is None or type(call_index) is int)
        ):
            return None
        kept.append(Origin(step, task, task_id, call_index))
    return kept


def _changed(channels: States, changes: dict[str, Any]) -> bool:
    """Applies a delta's `changes` to `channels` (read whole, so changed in place); False where they are
    not a delta of it (a channel extended that is not a list there, an unknown change)."""
    for key, (kind, value, origin_rows) in changes.items():
        origins = _origins(origin_rows)
        if origins is None:
            return False
        history = channels.get(key)
        if kind == "extend" and history is not None and type(history.value) is list and type(value) is list:
            history.value.extend(value)
            history.origins.extend(origins)
        elif kind == "set":
            channels[key] = ChannelHistory(value, origins)
        else:
            return False
    return True


@dataclass
class Packed:
    """The state a shelf packed last: a state kept right after it is written as its delta."""

    position: int
    state: Held
    chain: int
    """Deltas in a row up to it: 0 for a whole state."""


class SnapshotShelf:
    """One stored run's kept states, by position of the step in the run (0 is its first step): `nearest`
    reads one back, `offer` and `flush` keep new ones (in one write, after a fold). The store gives the
    three ways to reach its table; a store that cannot be written to drops what it is offered."""

    def __init__(
        self,
        positions: Sequence[int],
        read: Callable[[int], str | None],
        write: Callable[[list[tuple[int, str]]], None],
        count: int,
    ) -> None:
        self.positions = sorted(positions)
        self.read = read
        self.write = write
        self.count = count
        """How many steps the run has: the last one is always kept."""
        self.pending: list[tuple[int, str]] = []
        self.packed: Packed | None = None
        """The state this shelf packed last, the base of the next one's delta when that is kept right after it."""

    def nearest(self, position: int) -> tuple[int, States] | None:
        """The kept state at the largest kept position up to `position`, readable, or None."""
        at = bisect.bisect_right(self.positions, position)
        while at > 0:
            at -= 1
            text = self.read(self.positions[at])
            channels = unpack(text, self.read, self.positions[at]) if text is not None else None
            if channels is not None:
                return self.positions[at], channels
        return None

    def offer(self, position: int, channels: States) -> None:
        """The state after the step at `position`, as a fold reaches it: kept when `worth_keeping`."""
        at = bisect.bisect_left(self.positions, position)
        if at < len(self.positions) and self.positions[at] == position:
            return
        previous = self.positions[at - 1] if at else -1
        if position == self.count - 1 or worth_keeping(position - previous, channels):
            self.keep(position, channels)

    def keep(self, position: int, channels: States) -> None:
        """Keeps the state after the step at `position` (not kept yet): as its `delta` from the state this
        shelf packed last, when that is the kept state just before it and the chain is not `MAX_CHAIN`
        long, else whole. A base written in an earlier batch is as good: it is read by its position."""
        at = bisect.bisect_left(self.positions, position)
        last, text, chain = self.packed, None, 0
        if last is not None and at and self.positions[at - 1] == last.position and last.chain < MAX_CHAIN:
            text, chain = delta(last.position, last.state, channels), last.chain + 1
        if text is None:
            text, chain = pack(channels), 0
        self.positions.insert(at, position)
        self.pending.append((position, text))
        self.packed = Packed(position, held(channels), chain)

    def flush(self) -> None:
        if self.pending:
            pending, self.pending = self.pending, []
            self.write(pending)


class StatesToKeep:
    """The kept states of a run being stored, folded as its steps go by (`add`, in order; one state held,
    changed in place) and offered to a shelf of their own, so what is kept is what `SnapshotShelf.offer`
    keeps of any fold (`kept`: packed as offered, so the state may change after). Runs shorter than
    `MIN_GAP` steps keep nothing: they fold from their start at once. A run still being recorded has no
    count yet (`count=None`): every step is folded, and `end` keeps its last state once its length is known."""

    def __init__(self, count: int | None) -> None:
        self.count = count
        self.channels: States = {}
        self.position = -1
        self.owned: set[str] = set()
        """The keys whose list the fold made and appends to in place (`replay.fold_step`)."""
        self.shelf = SnapshotShelf((), lambda position: None, lambda rows: None, -1 if count is None else count)

    @property
    def kept(self) -> list[tuple[int, str]]:
        """(position, packed state) of each state kept so far, in order."""
        return self.shelf.pending

    def add(self, step: StepRecord) -> None:
        self.position += 1
        if self.count is not None and self.count < MIN_GAP:
            return
        fold_step(self.channels, step, owned=self.owned)
        self.shelf.offer(self.position, self.channels)

    def end(self) -> list[tuple[int, str]]:
        """The states a recorded run keeps, now that its steps are all added: none for a short run, else
        those kept on the way and its last state, as the fold of the stored run would keep them."""
        if self.position + 1 < MIN_GAP:
            return []
        if not self.kept or self.kept[-1][0] != self.position:
            self.shelf.keep(self.position, self.channels)
        return self.kept
