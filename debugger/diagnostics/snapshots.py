"""Kept states of a long stored run: the state (each channel's encoded value and its items' origins, as
`Replay` folds them) after chosen steps, kept by the store beside the run, so showing step N folds from
the nearest kept state before N instead of from the run's first step. A 200,000-step run opens at its
last step by reading one kept state; stepping back folds at most a few thousand steps.

Which steps are kept (`worth_keeping`): one every `MIN_GAP` steps at most, and a state only when the run
has gone at least half as many steps since the last kept one as the state holds items (list items, or
one per value). So a counter loop keeps a small state every `MIN_GAP` steps, and a chat whose message
list grows by one a step keeps its states further and further apart (each about 1.5 times as far in as
the one before): together they hold about twice the items the run's steps added, never the whole list
again every few steps, and stepping back from the last step of such a chat folds up to half its steps.
The run's last step is always kept.

A kept state is a cache, never the record: one that cannot be read (another format, damaged text) is
passed over and the state is folded from the steps, as without it.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import json
import zlib
from typing import Callable, Sequence

from debugger.diagnostics.replay import ChannelHistory, Origin, fold_step
from engine.trace import StepRecord

FORMAT = 2
"""The layout of a kept state's JSON; a state of another format is folded again, not read. Format 1 was
the JSON as the text; format 2's text is `PACKED` and the JSON compressed: a kept state repeats the
values the run's steps added, which compress three- to tenfold. Level 1: a 10,000-message state (1.75 MB
of JSON) compresses in 12 ms to 553 kB, where level 6 took 32 ms for 518 kB, while the run records."""
READABLE_FORMATS = (1, 2)
PACKED = "z:"
"""How a compressed kept state's text begins (then base64 of zlib): JSON never does."""

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
    text = json.dumps(
        {
            "format": FORMAT,
            "channels": {
                key: [history.value, [[o.step, o.task, o.task_id, o.call_index] for o in history.origins]]
                for key, history in channels.items()
            },
        },
        separators=(",", ":"),
    )  # ASCII (lone surrogates escaped, as in a trace file): compressed, the escapes cost next to nothing
    return PACKED + base64.b64encode(zlib.compress(text.encode("ascii"), 1)).decode("ascii")


def unpack(text: str) -> States | None:
    """The state `pack` wrote, or None for text that is not one (another format, damaged)."""
    try:
        if text.startswith(PACKED):
            text = zlib.decompress(base64.b64decode(text[len(PACKED) :], validate=True)).decode("ascii")
        data = json.loads(text)
        if (
            type(data) is not dict
            or data.get("format") not in READABLE_FORMATS
            or type(data.get("channels")) is not dict
        ):
            return None
        channels: States = {}
        for key, (value, origins) in data["channels"].items():
            kept = []
            for step, task, task_id, call_index in origins:
                if not (
                    type(step) is int
                    and type(task) is str
                    and type(task_id) is str
                    and (call_index is None or type(call_index) is int)
                ):
                    return None
                kept.append(Origin(step, task, task_id, call_index))
            channels[key] = ChannelHistory(value, kept)
        return channels
    except (ValueError, TypeError, RecursionError, binascii.Error, zlib.error):
        return None


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

    def nearest(self, position: int) -> tuple[int, States] | None:
        """The kept state at the largest kept position up to `position`, readable, or None."""
        at = bisect.bisect_right(self.positions, position)
        while at > 0:
            at -= 1
            text = self.read(self.positions[at])
            channels = unpack(text) if text is not None else None
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
            self.positions.insert(at, position)
            self.pending.append((position, pack(channels)))

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
            self.kept.append((self.position, pack(self.channels)))
        return self.kept
