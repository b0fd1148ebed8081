"""Channels: named value slots with an update rule, one per state key plus the control channels.

The per-step contract (LangGraph's `BaseChannel`): at the barrier of every superstep the engine calls
`update(writes)` exactly once on each channel that received writes, with all of them in application
order, and `update([])` on every other channel that holds a value. `update` returns whether the channel
changed; only a change bumps the channel's version, and only a version bump can trigger a node.
`consume()` is called on the trigger channels of the tasks that just ran, `finish()` when the graph
would otherwise stop. A channel holds `MISSING` until its first write; `get()` then raises
`EmptyChannelError` and the key is absent from node input.

Channels compiled into a graph are *specs*: `fresh()` makes the empty instance a run owns, `copy()` a
same-valued one for a local read. `update(..., observe=...)` reports every reducer call so the
debugger can replay a merge one call at a time; with `observe=None` it costs nothing.

Here: the base class and the channels of state keys (`LastValue`, `AnyValue`, `EphemeralValue`,
`BinaryOperatorAggregate`); the control channels (`Topic`, the named barriers, `LastValueAfterFinish`)
are `engine.control_channels`.
"""

from __future__ import annotations

from typing import Any, Callable, Sequence

from .errors import EmptyChannelError, ErrorCode, InvalidUpdateError, coded_error, concurrent_update_error
from .types import Overwrite, as_overwrite


class _Missing:
    __slots__ = ()

    def __repr__(self) -> str:
        return "MISSING"

    def __reduce__(self) -> str:
        return "MISSING"


MISSING: Any = _Missing()
"""The value of a channel that was never written (distinct from None, which is a value)."""

Observe = Callable[..., None]
"""observe(index_of_write, value_before, write, value_after[, before_unchanged]): one call per reducer
application; `before_unchanged` (default False) is `ReducerCall.before_unchanged`."""


class Channel:
    """Base class: a value, or MISSING. Subclasses define `update`."""

    __slots__ = ("key", "value")
    reducer_name = "LastValue"
    clears_unwritten = True
    """Whether `update(())` (a step that did not write it) can change it; the barrier only asks those."""

    def __init__(self, key: str = "") -> None:
        self.key = key
        self.value: Any = MISSING

    def fresh(self) -> "Channel":
        """An empty instance with the same configuration, for a new run."""
        new = object.__new__(type(self))
        for slot in _all_slots(type(self)):
            setattr(new, slot, getattr(self, slot))
        new._reset()
        return new

    def _reset(self) -> None:
        self.value = MISSING

    def _clear(self) -> bool:
        """A step that did not write a channel that lasts one step: empty again; True if it held a value."""
        if self.value is MISSING:
            return False
        self.value = MISSING
        return True

    def copy(self) -> "Channel":
        """An instance holding the same value (shallow), for reads that must not touch the original."""
        new = object.__new__(type(self))
        for slot in _all_slots(type(self)):
            setattr(new, slot, getattr(self, slot))
        return new

    def update(self, values: Sequence[Any], observe: Observe | None = None) -> bool:
        raise NotImplementedError

    def get(self) -> Any:
        if self.value is MISSING:
            raise EmptyChannelError()
        return self.value

    def get_after(self, values: Sequence[Any]) -> Any:
        """What `get` would return after `update(values)`, leaving this channel as it is (a router's
        fresh read of its task's own writes). Raises what `update` or `get` would."""
        channel = self.copy()
        channel.update(values)
        return channel.get()

    def is_available(self) -> bool:
        return self.value is not MISSING

    def consume(self) -> bool:
        return False

    def finish(self) -> bool:
        return False

    def checkpoint(self) -> Any:
        return self.value

    def restore(self, saved: Any) -> "Channel":
        """A fresh instance holding what `checkpoint()` returned."""
        new = self.fresh()
        new.value = saved
        return new

    def __repr__(self) -> str:
        return f"{type(self).__name__}(key={self.key!r}, value={self.value!r})"


def _all_slots(cls: type) -> list[str]:
    cached = _SLOTS_CACHE.get(cls)
    if cached is None:
        cached = [s for klass in cls.__mro__ for s in getattr(klass, "__slots__", ())]
        _SLOTS_CACHE[cls] = cached
    return cached


_SLOTS_CACHE: dict[type, list[str]] = {}


class LastValue(Channel):
    """A plain state key: stores one write per step; a second write in the same step is an error.

    Two writes raise even when they come from the same task or carry the same value, exactly like
    LangGraph (`INVALID_CONCURRENT_GRAPH_UPDATE`).
    """

    __slots__ = ()
    clears_unwritten = False

    def update(self, values: Sequence[Any], observe: Observe | None = None) -> bool:
        if not values:
            return False
        if len(values) != 1:
            raise concurrent_update_error(self.key)
        if observe is not None:
            observe(0, self.value, values[0], values[0])
        self.value = values[0]
        return True


class AnyValue(Channel):
    """Keeps the last of several writes; clears itself in a step where nothing wrote it."""

    __slots__ = ()
    reducer_name = "AnyValue"

    def update(self, values: Sequence[Any], observe: Observe | None = None) -> bool:
        if not values:
            return self._clear()
        if observe is not None:
            for index, write in enumerate(values):
                observe(index, self.value if index == 0 else values[index - 1], write, write)
        self.value = values[-1]
        return True


class EphemeralValue(Channel):
    """Holds a write for one step only (START input, edge triggers); `guard` forbids two writes."""

    __slots__ = ("guard",)
    reducer_name = "EphemeralValue"

    def __init__(self, key: str = "", guard: bool = True) -> None:
        super().__init__(key)
        self.guard = guard

    def update(self, values: Sequence[Any], observe: Observe | None = None) -> bool:
        if not values:
            return self._clear()
        if len(values) != 1 and self.guard:
            raise InvalidUpdateError(
                f"At key '{self.key}': EphemeralValue(guard=True) can receive only one value per step. "
                "Use guard=False if you want to store any one of multiple values."
            )
        self.value = values[-1]
        return True


class BinaryOperatorAggregate(Channel):
    """A key with a reducer: folds each write into the value, left to right, one call per write.

    Starts from the type's constructor (`list` -> [], `int` -> 0, ...); a type without a usable
    constructor (e.g. `list[str] | None`) starts MISSING and stores its first write as is, without
    calling the reducer. `Overwrite(v)` replaces the value; later plain writes of that step are
    ignored and a second Overwrite in the same step is an error.
    """

    __slots__ = ("operator", "initial", "reducer_name", "reduce", "look_ahead")
    clears_unwritten = False

    def __init__(self, key: str, operator: Callable[[Any, Any], Any], initial: Callable[[], Any] | None) -> None:
        super().__init__(key)
        self.operator = operator
        self.reduce = self.look_ahead = operator
        """What each reducer call calls, in `update` and in `get_after` (a fresh read, which must leave
        the channel as it is): `operator`, or a channel's own faster way to the same result."""
        self.initial = initial
        self.reducer_name = reducer_display_name(operator)
        self._reset()

    def _reset(self) -> None:
        self.value = MISSING
        if self.initial is not None:
            try:
                self.value = self.initial()
            except Exception:  # LangGraph: a constructor that fails means "starts empty"
                self.value = MISSING

    def get_after(self, values: Sequence[Any]) -> Any:
        if len(values) == 1 and self.value is not MISSING and not isinstance(values[0], _MAYBE_OVERWRITE):
            return self.look_ahead(self.value, values[0])  # `update`'s common case, without a copy
        return Channel.get_after(self, values)

    def update(self, values: Sequence[Any], observe: Observe | None = None) -> bool:
        if not values:
            return False
        if len(values) == 1 and self.value is not MISSING:
            # The common case (one writer), kept short because it runs every step.
            write = values[0]
            if not isinstance(write, _MAYBE_OVERWRITE):
                before = self.value
                self.value = self.reduce(before, write)
                if observe is not None:
                    observe(0, before, write, self.value)
                return True
        start = 0
        if self.value is MISSING:
            first = values[0]
            if observe is not None:
                observe(0, MISSING, first, first)
            self.value = first
            start = 1
        seen_overwrite = False
        operator = self.reduce
        for index in range(start, len(values)):
            write = values[index]
            overwrite = as_overwrite(write) if isinstance(write, _MAYBE_OVERWRITE) else None
            if overwrite is not None:
                if seen_overwrite:
                    message = "Can receive only one Overwrite value per super-step."
                    raise coded_error(InvalidUpdateError, ErrorCode.INVALID_CONCURRENT_GRAPH_UPDATE, message)
                if observe is not None:
                    observe(index, self.value, write, overwrite.value)
                self.value = overwrite.value
                seen_overwrite = True
            elif not seen_overwrite:
                if observe is None:
                    self.value = operator(self.value, write)
                else:
                    before = self.value
                    self.value = operator(before, write)
                    observe(index, before, write, self.value)
        return True


_MAYBE_OVERWRITE = (Overwrite, dict)


def reducer_display_name(fn: Callable[..., Any]) -> str:
    """`operator.add`, `add_messages`, `my_module.merge`: how the debugger names a reducer."""
    fn = getattr(fn, "func", fn)  # functools.partial, e.g. add_messages(format=...)
    name = getattr(fn, "__qualname__", None) or getattr(fn, "__name__", None) or type(fn).__name__
    module = getattr(fn, "__module__", None)
    if module in ("operator", "_operator"):
        return f"operator.{name}"
    return name
