"""How a `TraceWriter` records values: each encoded once per step however often it is recorded,
name lists and scalar pairs shared for the whole run, a node's input as a view of the recorded
state, and per channel the value recorded last (`codec.DeltaTracker`), which deltas are made against."""

from __future__ import annotations

from typing import Any, Iterable

from .codec_delta import DeltaTracker
from .codec_encode import encode, encode_own_message
from .codec_types import BIG_INT, RESERVED
from .messages import BaseMessage
from .records import VIEW, fields_of

_SCALARS = (int, str, float, bool, type(None))
_SCALAR_TYPES = frozenset(_SCALARS)
_SHARED_LEVELS = 4
"""How deep `RecordedValues.encode` shares encodings by identity (a cycle is cut a few levels later)."""
IMMUTABLE = frozenset((int, str, float, bool, type(None), tuple))
"""Values `DeltaTracker.delta` calls unchanged when they are the recorded object itself."""


def _id_of(value: Any) -> Any:
    """A message's id (ours or langchain-core's; None for lists and dicts): what a reducer may set
    on a write it keeps."""
    kind = type(value)
    if kind is list or kind is dict:
        return None
    try:
        return getattr(value, "id", None)
    except Exception:  # noqa: BLE001 - a state value's own `id` property may raise; it is recorded all the same
        return None


class RecordedValues:
    """The values one run has recorded so far (the base of `TraceWriter`)."""

    def __init__(self) -> None:
        self.trackers: dict[str, DeltaTracker] = {}
        self.memo: dict[int, tuple[Any, Any, Any]] = {}
        """This step's encodings by object identity (emptied when a step opens), each with the message
        id the object had then: `add_messages` gives a written message its id in place, after the
        task's write was recorded, and the call's result must show the id."""
        self.lists: dict[tuple[str, ...], list[str]] = {}
        self.shared_pairs: dict[tuple[Any, ...], list[list[Any]]] = {}
        self.flat_shared: dict[tuple[Any, ...], list[list[Any]]] = {}
        self.views: dict[tuple[str, ...], dict[str, list[str]]] = {}
        self.task_names: dict[tuple[Any, ...], tuple[list[str], list[str], list[str]]] = {}
        """Per pulled task's `(path, triggers, fired)`, their `interned` lists (one lookup per task)."""
        self.last_finished: dict[str, tuple[tuple[Any, ...], Any]] = {}
        """Per node, its last finished task's flat writes and routes (numbers and strings) and their
        `flat_pairs`: a loop's next task has the very same objects."""

    def encode(self, value: Any, _depth: int = 0) -> Any:
        """`encode`, sharing one encoding per object within a step: a node's return value, its write
        and the reducer's new items are usually the same objects, recorded once in memory. Only the
        top levels are shared; deeper down `encode` takes over, with its depth limit and cycle guard."""
        kind = type(value)
        if kind is str or kind is bool or value is None or (kind is int and -BIG_INT < value < BIG_INT):
            return value  # as `encode` records them, without its guards (most values recorded are these)
        if kind in _SCALARS or _depth >= _SHARED_LEVELS:
            return encode(value, _depth)
        hit = self.memo.get(id(value))
        if hit is not None and hit[0] is value and hit[2] is _id_of(value):
            return hit[1]
        if kind is list:
            encoded: Any = [self.encode(item, _depth + 1) for item in value]
        elif kind is dict and value.keys().isdisjoint(RESERVED) and all(type(k) is str for k in value):
            encoded = {k: self.encode(v, _depth + 1) for k, v in value.items()}
        elif isinstance(value, BaseMessage):
            encoded = encode_own_message(value, _depth)
        else:
            encoded = encode(value, _depth)
        self.memo[id(value)] = (value, encoded, _id_of(value))  # keeps `value` alive, so its id is not reused
        return encoded

    def interned(self, names: Iterable[str]) -> list[str]:
        """`list(names)`, one list per distinct sequence of names for the whole run: a long run records
        the same paths, triggers and views every step, and each list kept is one more object for
        Python's cyclic collector to scan (recorded lists are data: nothing mutates them)."""
        names = tuple(names)
        found = self.lists.get(names)
        if found is None:
            found = self.lists[names] = list(names)
        return found

    def pairs(self, pairs: Iterable[tuple[str, Any]], encode_value: Any = None) -> list[list[Any]]:
        """`[[name, encoded], ...]` (each value encoded with `encode_value`, when given), shared like
        `interned` when every encoded value is a scalar: a loop's writes and routes are usually the
        same few names and numbers every step. (Written for speed: it runs for every recorded task.)"""
        if encode_value is None:
            recorded = [[name, value] for name, value in pairs]
        else:
            recorded = [[name, encode_value(value)] for name, value in pairs]
        scalars = _SCALAR_TYPES
        for _, value in recorded:
            if type(value) not in scalars:
                return recorded
        key = tuple([(name, type(value), value) for name, value in recorded])  # 1, 1.0 and True stay apart
        found = self.shared_pairs.get(key)
        if found is None:
            found = self.shared_pairs[key] = recorded
        return found

    def flat_pairs(self, flat: tuple[Any, ...]) -> list[list[Any]]:
        """`pairs` of `(name, value, name, value, ...)`, raw values: a sequence of scalars met before is
        answered from one lookup, without encoding each value again (a loop writes the same few every step)."""
        types = tuple(map(type, flat))
        if not _SCALAR_TYPES.issuperset(types):
            return self.pairs(zip(flat[::2], flat[1::2]), self.encode)
        key = (flat, types)  # the types keep 1, 1.0 and True apart
        found = self.flat_shared.get(key)
        if found is None:
            found = self.pairs(zip(flat[::2], flat[1::2]), self.encode)
            for _, value in found:
                if type(value) not in _SCALAR_TYPES:  # a huge int or a non-finite float: encoded each time
                    return found
            self.flat_shared[key] = found
        return found

    def input_view(self, value: Any, managed: Iterable[str] = ()) -> Any:
        """A node's input as `{"$view": [keys]}` when every item is the value recorded last for its
        key (the usual case), so a long run does not store the whole state once per task; else its
        encoding. `managed` keys (not state) are left out of the view."""
        skip = set(managed)
        items = value.items() if type(value) is dict else fields_of(value)
        if items is not None:
            keys = []
            for key, item in items:
                if key in skip:
                    continue
                tracker = self.trackers.get(key)
                if tracker is None or tracker.raw is not item:
                    return self.encode(value)
                keys.append(key)
            return self.view(tuple(keys))
        return self.encode(value)

    def view(self, keys: tuple[str, ...]) -> dict[str, list[str]]:
        """`{"$view": [keys]}`, one dict per set of keys for the whole run (recorded data: never changed)."""
        view = self.views.get(keys)
        if view is None:
            view = self.views[keys] = {VIEW: self.interned(keys)}
        return view

    def tracker(self, channel: str) -> DeltaTracker:
        """The channel's last recorded value (created empty on first use)."""
        tracker = self.trackers.get(channel)
        if tracker is None:
            tracker = self.trackers[channel] = DeltaTracker()
        return tracker


def unchanged_list(value: Any, items: Any) -> bool:
    """True when `value` is a list whose items still equal the recorded `items` (a node may have changed it
    in place, which the delta must then show). `==` skips identical items at C speed, about 1 ns each; an
    identity test per item in Python cost a 10,000-message run 0.95 s of its 5.8 s. So an item replaced in
    place by one equal to it counts as unchanged: its value is the same, except for numbers Python holds
    equal across types (`1` replaced by `True` in place is not seen)."""
    if type(value) is not list or type(items) is not list or len(value) != len(items):
        return False
    try:
        return bool(value == items)
    except Exception:  # an item whose == does not answer (a numpy array's): changed, as far as the trace knows
        return False
