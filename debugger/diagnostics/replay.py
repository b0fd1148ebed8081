"""Replaying a Trace: the state at any step or reducer call, where each value came from, and what a
step's merge would give in another order. Pure functions over `engine.trace` records; nothing here
runs a node, and only `refold` needs the graph's live reducers.

Values stay in their recorded (encoded) form; `engine.codec.decode` turns them into Python values
where a caller needs them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, Mapping, Sequence

from debugger.i18n import _
from debugger.sources.trace_stream import step_numbers
from engine.codec import MISSING_ENCODED, apply_delta, decode, encode
from engine.trace import ReducerCallRecord, RunRecord, StepRecord

MISSING_VALUE = MISSING_ENCODED


@dataclass(frozen=True)
class Origin:
    """Where a value (or one list item) came from."""

    step: int
    task: str
    """The node name of the writer (`__start__` for the input), or `(outside reducers)`."""
    task_id: str
    call_index: int | None
    """The reducer call's index in its step; None for changes made outside the reducers."""

    def describe(self) -> str:
        if self.call_index is None:
            return _("step {step}: changed outside the reducers ({task})").format(step=self.step, task=self.task)
        return _("step {step}: {task} (reducer call #{index})").format(
            step=self.step, task=self.task, index=self.call_index
        )


@dataclass
class ChannelHistory:
    """A channel's current encoded value and the origin of each list item (or of the whole value)."""

    value: Any = field(default_factory=lambda: MISSING_VALUE)
    origins: list[Origin] = field(default_factory=list)
    """One per list item; a single entry for a non-list value."""


KEEP_EVERY = 32
"""`Replay` keeps the state after every KEEP_EVERY-th step (and the last one asked for): walking a run
step by step costs one step's fold each, and memory grows with steps / KEEP_EVERY, not steps."""


STATES_IN_MEMORY = 256
"""For a stored long run with kept states (`Replay.shelf`), at most this many states (the latest folded,
8,192 steps' worth) stay in memory: a 200,000-step run would keep 6,250, and the shelf has a state
within 1,024 steps of any other. A run whose steps are all in memory keeps every KEEP_EVERY-th."""


class Positions(Mapping[int, int]):
    """Where each step number sits in a run (`{number: index}`; a number used twice, by a state edit
    beside its superstep, names its last step). Numbered one after another, as most runs are, it is
    arithmetic and holds nothing per step."""

    def __init__(self, order: Sequence[int]) -> None:
        self.first = order[0] if len(order) else 0
        self.count = len(order)
        consecutive = (isinstance(order, range) and order.step == 1) or all(
            number == self.first + index for index, number in enumerate(order)
        )
        self.table = None if consecutive else {number: index for index, number in enumerate(order)}

    def __getitem__(self, number: int) -> int:
        if self.table is not None:
            return self.table[number]
        if type(number) is not int or not 0 <= number - self.first < self.count:
            raise KeyError(number)
        return number - self.first

    def __iter__(self) -> Iterator[int]:
        return iter(self.table) if self.table is not None else iter(range(self.first, self.first + self.count))

    def __len__(self) -> int:
        return len(self.table) if self.table is not None else self.count


class StepsByNumber(Mapping[int, StepRecord]):
    """A run's steps by number, read from the run when asked for: an index, not a copy, so a long trace
    whose steps stay on disk (`debugger.sources.trace_stream.LazySteps`) is not read whole."""

    def __init__(self, steps: Sequence[StepRecord]) -> None:
        self.records = steps
        self.order = step_numbers(steps)
        self.position = Positions(self.order)

    def __getitem__(self, number: int) -> StepRecord:
        return self.records[self.position[number]]

    def __contains__(self, number: object) -> bool:
        return number in self.position  # Mapping's own would decode the step to answer

    def __iter__(self) -> Iterator[int]:
        return iter(self.position)

    def __len__(self) -> int:
        return len(self.position)


def fold_step(
    channels: dict[str, ChannelHistory], step: StepRecord, upto: int | None = None, owned: set[str] | None = None
) -> None:
    """Applies `step`'s reducer calls (the first `upto` of them), then, for a whole step, its residual changes.

    A step that did not commit (a refused write, a node that raised, a timeout) applies nothing, as in
    LangGraph: its reducer calls were computed but the barrier never wrote them to the state.

    `owned`: for a fold that holds one state and changes it in place (`snapshots.StatesToKeep`), the keys
    whose list this fold made itself: an `extend` delta then appends to it, where copying the grown list at
    every step made recording a 10,000-message chat quadratic. Any other list may be a step record's own
    (a `set` delta's value), so it is copied once first."""
    if not step.committed:
        return
    calls = step.reducer_calls if upto is None else step.reducer_calls[:upto]
    for call in calls:
        history = channels.setdefault(call.channel, ChannelHistory())
        if "same" not in call.before:
            _fold_change(history, call.before, call.channel, Origin(step.step, "(outside reducers)", "", None), owned)
        if call.error is None:
            origin = Origin(step.step, call.writer_name, call.writer, call.index)
            _fold_change(history, call.after, call.channel, origin, owned)
    if upto is None:
        for key, change in step.state.items():
            _fold_change(
                channels.setdefault(key, ChannelHistory()), change, key, Origin(step.step, "(barrier)", "", None), owned
            )


def _fold_change(
    history: ChannelHistory, change: dict[str, Any], key: str, origin: Origin, owned: set[str] | None
) -> None:
    """`history` after one recorded change, its new items attributed to `origin`."""
    previous = history.value
    previous_length = len(previous) if isinstance(previous, list) else None
    history.value = _applied(previous, change, key, owned)
    _attribute(history, origin, previous, change, previous_length)


def _applied(value: Any, change: dict[str, Any], key: str, owned: set[str] | None) -> Any:
    """`apply_delta(value, change)`, appending in place to a list of `owned` (see `fold_step`)."""
    if owned is None or "same" in change:
        return apply_delta(value, change)
    if "extend" in change and type(value) is list:
        if key in owned:
            value += change["extend"]
            return value
        owned.add(key)
        return [*value, *change["extend"]]
    owned.discard(key)
    return apply_delta(value, change)


class Replay:
    """Folds a run's recorded deltas forward. States after a step are cached (see `KEEP_EVERY`)."""

    def __init__(self, run: RunRecord) -> None:
        self.run = run
        self.steps = StepsByNumber(run.steps)
        self.order = self.steps.order
        self.position = self.steps.position
        self._states: dict[int, dict[str, ChannelHistory]] = {}
        self._last: tuple[int, dict[str, ChannelHistory]] | None = None
        self.shelf = getattr(run.steps, "snapshots", None)
        """A stored long run's kept states (`debugger.diagnostics.snapshots.SnapshotShelf`), or None."""

    def histories_after(self, step: int) -> dict[str, ChannelHistory]:
        """Every channel's value and provenance after `step`'s barrier."""
        index = self.position.get(step)
        if index is None:
            raise KeyError(
                f"run has no step {step}; steps are {self.order[0]}..{self.order[-1]}"
                if self.order
                else "the run has no steps"
            )
        if step in self._states:
            return self._states[step]
        if self._last is not None and self._last[0] == index:
            return self._last[1]
        start, channels = -1, {}
        if self._last is not None and self._last[0] < index:
            start, channels = self._last
        kept = index - index % KEEP_EVERY
        while kept > start:
            if self.order[kept] in self._states:
                start, channels = kept, self._states[self.order[kept]]
                break
            kept -= KEEP_EVERY
        if self.shelf is not None and index - start > KEEP_EVERY:  # a kept state nearer than what is in memory
            found = self.shelf.nearest(index)
            if found is not None and found[0] > start:
                start, channels = found
        for position in range(start + 1, index + 1):
            channels = {k: ChannelHistory(v.value, list(v.origins)) for k, v in channels.items()}
            fold_step(channels, self.steps[self.order[position]])
            if position % KEEP_EVERY == 0:
                self._states[self.order[position]] = channels
                if self.shelf is not None and len(self._states) > STATES_IN_MEMORY:
                    del self._states[next(iter(self._states))]  # the longest kept: the shelf has one near it
            if self.shelf is not None:
                self.shelf.offer(position, channels)
        if self.shelf is not None:
            self.shelf.flush()
        self._last = (index, channels)
        return channels

    def state_after(self, step: int) -> dict[str, Any]:
        """The recorded state (encoded values) after `step`; empty keys are left out, as in node input."""
        return {k: h.value for k, h in self.histories_after(step).items() if h.value != MISSING_VALUE}

    def state_before(self, step: int) -> dict[str, Any]:
        index = self._index(step)
        return self.state_after(self.order[index - 1]) if index > 0 else {}

    def state_at_call(self, step: int, calls: int) -> dict[str, Any]:
        """The state inside `step`'s merge, after its first `calls` reducer calls."""
        index = self._index(step)
        base = self.histories_after(self.order[index - 1]) if index > 0 else {}
        channels = {k: ChannelHistory(v.value, list(v.origins)) for k, v in base.items()}
        fold_step(channels, self.steps[step], upto=calls)
        return {k: h.value for k, h in channels.items() if h.value != MISSING_VALUE}

    def call_values(self, step: int) -> Iterator[tuple[ReducerCallRecord, Any, Any]]:
        """Each reducer call of `step` with its full (encoded) value before and after."""
        index = self._index(step)
        base = self.histories_after(self.order[index - 1]) if index > 0 else {}
        return iter(fold_calls({k: h.value for k, h in base.items()}, self.steps[step]))

    def _index(self, step: int) -> int:
        index = self.position.get(step)
        if index is None:
            raise ValueError(f"run has no step {step}")
        return index

    def provenance(self, step: int, key: str) -> list[Origin]:
        """Who put `key`'s value there, as of `step`: one origin per list item, else one."""
        history = self.histories_after(step).get(key)
        if history is None:
            raise KeyError(f"no channel {key!r} in this run")
        return list(history.origins)


CallValues = list[tuple[ReducerCallRecord, Any, Any]]
"""Each reducer call of a step with its full (encoded) value before and after it."""


def fold_calls(values: dict[str, Any], step: StepRecord) -> CallValues:
    """`step`'s reducer calls with their values, from `values` (the encoded state before the step), which
    becomes the state after it: a step that did not commit leaves it as it was (see `fold_step`)."""
    working = dict(values)
    rows = []
    for call in step.reducer_calls:
        before = apply_delta(working.get(call.channel, MISSING_VALUE), call.before)
        after = before if call.error is not None else apply_delta(before, call.after)
        working[call.channel] = after
        rows.append((call, before, after))
    if step.committed:
        for key, change in step.state.items():
            working[key] = apply_delta(working.get(key, MISSING_VALUE), change)
        values.clear()
        values.update(working)
    return rows


def walk_calls(steps: Iterator[StepRecord] | Sequence[StepRecord]) -> Iterator[tuple[StepRecord, CallValues]]:
    """Each step of a run, in order, with its reducer calls' values: one pass that holds one state, for
    readers that go through a whole run once (`stepscope show`), however long it is."""
    values: dict[str, Any] = {}
    for step in steps:
        yield step, fold_calls(values, step)


def repeated_items(before: Any, after: Any) -> tuple[int, ...]:
    """Indexes of the items a call appended to the list `before` (giving `after`) that were already in
    `before`: a write that carried the old value again (the subgraph trap, a read-modify-write)."""
    if not (isinstance(before, list) and isinstance(after, list) and len(after) > len(before)):
        return ()
    if not any(item in before for item in after[len(before) :]):  # equal texts are equal values: a cheap first pass
        return ()
    seen = {canonical(item) for item in before}
    return tuple(len(before) + i for i, item in enumerate(after[len(before) :]) if canonical(item) in seen)


_CANONICAL = json.JSONEncoder(sort_keys=True, ensure_ascii=False).encode
"""`json.dumps(value, sort_keys=True, ensure_ascii=False)` without building an encoder per call: finding
repeated items asks for every item of a list, at every step."""


def canonical(value: Any) -> str:
    """One text per recorded value, so equal values compare equal whatever their key order."""
    return _CANONICAL(value)


def _attribute(
    history: ChannelHistory, origin: Origin, previous: Any, change: Any, previous_length: int | None
) -> None:
    """Updates item origins for a change from `previous` to `history.value` (both encoded). A recorded
    `extend` delta says the old items stayed as they were, so they are not compared again
    (`previous_length`: how long `previous` was, given whenever it is a list, as a fold in place may have
    extended it already)."""
    new = history.value
    if (
        isinstance(change, dict)
        and "extend" in change
        and isinstance(previous, list)
        and isinstance(new, list)
        and len(history.origins) == previous_length
    ):
        history.origins.extend([origin] * (len(new) - previous_length))
        return
    if isinstance(new, list) and isinstance(previous, list):
        keep = 0
        limit = min(previous_length, len(new), len(history.origins))  # `previous` may be `new`, grown in place
        while keep < limit and previous[keep] == new[keep]:
            keep += 1
        history.origins = history.origins[:keep] + [origin] * (len(new) - keep)
    elif isinstance(new, list):
        history.origins = [origin] * len(new)
    elif new != previous or not history.origins:
        history.origins = [origin]


# ---- what-if: re-folding a step's writes --------------------------------------------------------


@dataclass(frozen=True)
class Refold:
    """The result of folding one channel's writes of one step in some order."""

    channel: str
    order: tuple[int, ...]
    """Indexes into the step's calls on that channel, in the order they were folded."""
    value: Any
    """The encoded result, or None with `error` set."""
    error: str | None
    differs: bool
    """Whether the result differs from what the run recorded."""


def channel_calls(step: StepRecord, channel: str) -> list[ReducerCallRecord]:
    return [c for c in step.reducer_calls if c.channel == channel]


def refold(
    replay: Replay,
    step: int,
    channel: str,
    reducer: Callable[[Any, Any], Any],
    order: Sequence[int] | None = None,
    *,
    skip: int | None = None,
    values: CallValues | None = None,
) -> Refold:
    """Folds `channel`'s recorded writes of `step` with the graph's live `reducer`, in `order` (default:
    as recorded), leaving out call `skip`. Nodes are never re-run: only the recorded writes are used.
    `values` are the step's calls with their values where the caller has them (else they are replayed)."""
    calls = channel_calls(replay.steps[step], channel)
    if not calls:
        raise ValueError(f"step {step} has no writes to {channel!r}")
    order = tuple(range(len(calls))) if order is None else tuple(order)
    if sorted(order) != list(range(len(calls))):
        raise ValueError(f"order {order} is not a permutation of the {len(calls)} writes to {channel!r}")
    used = tuple(i for i in order if i != skip)
    recorded = {c.index: (before, after) for c, before, after in values or replay.call_values(step)}
    start = recorded[calls[0].index][0]
    final = recorded[calls[-1].index][1]
    value = decode(start)
    try:
        for i in used:
            write = decode(calls[i].write)
            value = write if value is MISSING_MARK else reducer(value, write)
        encoded = encode(value)
    except Exception as exc:  # the live reducer on recorded values: report, never crash the view
        return Refold(channel, used, None, f"{type(exc).__name__}: {exc}", True)
    return Refold(channel, used, encoded, None, encoded != final)


MISSING_MARK = decode(MISSING_VALUE)
