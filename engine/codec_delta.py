"""Deltas that keep a trace small: how a channel's new value differs from the one recorded last
(`DeltaTracker.delta`, the forms are `engine.codec`'s module docstring), and `apply_delta`, its inverse.
Items are compared by identity against the previous value's items, which `DeltaTracker` remembers, so a
growing list costs what was added, not its whole length.
"""

from __future__ import annotations

import operator
from typing import Any, Callable

from .channels import MISSING
from .codec_encode import encode
from .codec_types import BIG_INT, MISSING_ENCODED, RESERVED, SAME


class DeltaTracker:
    """The last recorded value of one channel: its items (for identity checks) and their encoding."""

    __slots__ = ("raw", "items", "encoded")

    def __init__(self) -> None:
        self.raw: Any = MISSING
        self.items: list[Any] | dict[Any, Any] | None = None
        """A shallow copy of a list's items or a dict's entries, as they were when recorded."""
        self.encoded: Any = MISSING_ENCODED
        """The encoding of a dict value (what a `merge` delta builds on). A list's is not kept: its
        deltas are built from its items alone, and rebuilding it would copy the whole list per step."""

    def delta(self, new: Any, encode: Callable[[Any], Any] = encode) -> dict[str, Any]:
        """How `new` differs from the snapshot; then the snapshot becomes `new`. `encode` may be a
        memoising encoder, so a value recorded twice in a step shares one encoding."""
        old_items = self.items
        if type(new) is list and type(old_items) is list:
            return self._list_delta(old_items, new, encode)
        if (
            type(new) is dict
            and type(old_items) is dict
            and all(type(k) is str for k in new)
            and new.keys().isdisjoint(RESERVED)
        ):
            merged = {k: encode(v) for k, v in new.items() if k not in old_items or old_items[k] is not v}
            dropped = [k for k in old_items if k not in new]
            if not merged and not dropped:
                result = SAME
            else:
                self.encoded = {**{k: v for k, v in self.encoded.items() if k not in dropped}, **merged}
                result = {"merge": merged, "drop": dropped} if dropped else {"merge": merged}
            self.raw, self.items = new, dict(new)
            return result
        if new is self.raw and (new is MISSING or type(new) in (int, str, float, bool, type(None), tuple)):
            return SAME
        kind = type(new)
        if kind is str or kind is bool or new is None or (kind is int and -BIG_INT < new < BIG_INT):
            self.encoded = self.raw = new  # recorded as it is (the usual value of a plain key or a counter)
            self.items = None
            return {"set": new}
        self.encoded = encode(new)
        self.raw = new
        self.items = (
            list(new)
            if type(new) is list
            else dict(new)
            if type(new) is dict and type(self.encoded) is dict and self.encoded.keys().isdisjoint(RESERVED)
            else None
        )
        return {"set": self.encoded}

    def _list_delta(self, old_items: list[Any], new: list[Any], encode: Callable[[Any], Any]) -> dict[str, Any]:
        """`delta` of a list recorded as a list: the same, extended, or spliced from the first item that
        is not the recorded one."""
        common = _common_prefix(old_items, new)
        # `items` is this tracker's own copy: brought up to date in place, not copied per step
        if common == len(old_items) == len(new):
            result: dict[str, Any] = SAME
        elif common == len(old_items):
            added = new[common:]
            result = {"extend": [encode(item) for item in added]}
            old_items.extend(added)
        else:
            changed = new[common:]
            result = {"splice": common, "items": [encode(item) for item in changed]}
            del old_items[common:]
            old_items.extend(changed)
        self.encoded = MISSING_ENCODED
        self.raw = new
        return result

    def extend(self, new: list[Any], added: list[Any], encode: Callable[[Any], Any] = encode) -> dict[str, Any]:
        """`delta(new)` when the producer knows `new` is the recorded list's items then `added` (an
        `add_messages` that only appended): the same delta, without comparing the long list again."""
        items = self.items
        if not added:
            result: dict[str, Any] = SAME
        else:
            result = {"extend": [encode(item) for item in added]}
            items.extend(added)  # type: ignore[union-attr]
        self.encoded = MISSING_ENCODED
        self.raw = new
        return result


def _common_prefix(old: list[Any], new: list[Any]) -> int:
    """How many leading items `old` and `new` share by identity. The usual answer (all of `old`) is
    checked at C speed; only a list that changed in the middle is scanned item by item."""
    limit = min(len(old), len(new))
    if limit and old[limit - 1] is new[limit - 1] and all(map(operator.is_, old, new)):  # map stops at `limit`
        return limit
    for index in range(limit):
        if old[index] is not new[index]:
            return index
    return limit


def apply_delta(encoded: Any, change: dict[str, Any]) -> Any:
    """The encoded value after `change` (the inverse of `DeltaTracker.delta`)."""
    if "same" in change:
        return encoded
    if "extend" in change:
        return [*encoded, *change["extend"]]
    if "splice" in change:
        return [*encoded[: change["splice"]], *change["items"]]
    if "merge" in change:
        dropped = set(change.get("drop", ()))
        return {**{k: v for k, v in encoded.items() if k not in dropped}, **change["merge"]}
    if "set" in change:
        return change["set"]
    raise ValueError(f"not a delta: {sorted(change)}")
