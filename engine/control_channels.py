"""The channels that carry control rather than a state key's value (the contract is `engine.channels`'s):
`Topic` (the packets of `Send`, and a state key declared with it), the named barriers of waiting edges
(`NamedBarrierValue`, and its deferred-node form that opens only when the graph would otherwise stop) and
`LastValueAfterFinish` (a deferred node's trigger).
"""

from __future__ import annotations

from typing import Any, Sequence

from .channels import MISSING, Channel, Observe
from .errors import EmptyChannelError, InvalidUpdateError


class Topic(Channel):
    """A list of published values; list writes are flattened. Cleared each step unless `accumulate`."""

    __slots__ = ("accumulate", "values")
    reducer_name = "Topic"

    def __init__(self, key: str = "", accumulate: bool = False) -> None:
        super().__init__(key)
        self.accumulate = accumulate
        self.values: list[Any] = []

    def _reset(self) -> None:
        self.value = MISSING
        self.values = []

    def update(self, values: Sequence[Any], observe: Observe | None = None) -> bool:
        updated = False
        if not self.accumulate:
            updated = bool(self.values)
            self.values = []
        for write in values:
            if isinstance(write, list):
                if write:
                    self.values.extend(write)
                    updated = True
            else:
                self.values.append(write)
                updated = True
        return updated

    def copy(self) -> "Channel":
        new = super().copy()
        new.values = list(self.values)
        return new

    def get(self) -> Any:
        if not self.values:
            raise EmptyChannelError()
        return list(self.values)

    def is_available(self) -> bool:
        return bool(self.values)

    def checkpoint(self) -> Any:
        return list(self.values) if self.values else MISSING

    def restore(self, saved: Any) -> "Channel":
        new = self.fresh()
        if saved is not MISSING:
            new.values = list(saved)
        return new


class NamedBarrierValue(Channel):
    """The barrier of a waiting edge: available once every expected name has arrived, in any steps."""

    __slots__ = ("names", "seen")
    clears_unwritten = False
    reducer_name = "NamedBarrierValue"

    def __init__(self, key: str, names: set[str]) -> None:
        super().__init__(key)
        self.names = frozenset(names)
        self.seen: set[str] = set()

    def _reset(self) -> None:
        self.value = MISSING
        self.seen = set()

    def update(self, values: Sequence[Any], observe: Observe | None = None) -> bool:
        updated = False
        for write in values:
            if write not in self.names:
                raise InvalidUpdateError(f"At key '{self.key}': Value {write} not in {set(self.names)}")
            if write not in self.seen:
                self.seen.add(write)
                updated = True
        return updated

    def copy(self) -> "Channel":
        new = super().copy()
        new.seen = set(self.seen)
        return new

    def get(self) -> Any:
        if self.seen != self.names:
            raise EmptyChannelError()
        return None

    def is_available(self) -> bool:
        return self.seen == self.names

    def consume(self) -> bool:
        if self.seen == self.names:
            self.seen = set()
            return True
        return False

    def checkpoint(self) -> Any:
        return set(self.seen)

    def restore(self, saved: Any) -> "Channel":
        new = self.fresh()
        new.seen = set(saved) if saved is not MISSING else set()
        return new


class NamedBarrierValueAfterFinish(NamedBarrierValue):
    """A waiting edge into a `defer=True` node: also waits for the graph to run out of other work."""

    __slots__ = ("finished",)

    def __init__(self, key: str, names: set[str]) -> None:
        super().__init__(key, names)
        self.finished = False

    def _reset(self) -> None:
        super()._reset()
        self.finished = False

    def get(self) -> Any:
        if not self.finished or self.seen != self.names:
            raise EmptyChannelError()
        return None

    def is_available(self) -> bool:
        return self.finished and self.seen == self.names

    def consume(self) -> bool:
        if self.finished and self.seen == self.names:
            self.finished = False
            self.seen = set()
            return True
        return False

    def finish(self) -> bool:
        if not self.finished and self.seen == self.names:
            self.finished = True
            return True
        return False

    def checkpoint(self) -> Any:
        return (set(self.seen), self.finished)

    def restore(self, saved: Any) -> "Channel":
        new = self.fresh()
        if saved is not MISSING:
            seen, new.finished = saved
            new.seen = set(seen)
        return new


class LastValueAfterFinish(Channel):
    """The trigger of a `defer=True` node: readable only after `finish()`, cleared when consumed."""

    __slots__ = ("finished",)
    clears_unwritten = False
    reducer_name = "LastValueAfterFinish"

    def __init__(self, key: str = "") -> None:
        super().__init__(key)
        self.finished = False

    def _reset(self) -> None:
        self.value = MISSING
        self.finished = False

    def update(self, values: Sequence[Any], observe: Observe | None = None) -> bool:
        if not values:
            return False
        self.finished = False
        self.value = values[-1]
        return True

    def get(self) -> Any:
        if self.value is MISSING or not self.finished:
            raise EmptyChannelError()
        return self.value

    def is_available(self) -> bool:
        return self.value is not MISSING and self.finished

    def consume(self) -> bool:
        if self.finished:
            self.finished = False
            self.value = MISSING
            return True
        return False

    def finish(self) -> bool:
        if not self.finished and self.value is not MISSING:
            self.finished = True
            return True
        return False

    def checkpoint(self) -> Any:
        return (self.value, self.finished) if self.value is not MISSING else MISSING

    def restore(self, saved: Any) -> "Channel":
        new = self.fresh()
        if saved is not MISSING:
            new.value, new.finished = saved
        return new
