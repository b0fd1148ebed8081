"""One reducer call of a langgraph barrier as the trace writer (`engine.trace_writer.TraceWriter.add_call`)
takes it, with what the recorder knows about it that spares the writer looking at a long list again.

    folds = folds_of(channels, state_keys)   # per loop: the keys whose reducer appends
    add_call(writer, step, folds, key, reducer, writer_id, writer_name, before, write, after, error)

The writer records each call's values as deltas against the value it recorded last for the channel.
To find the delta of `before` it compares the whole list with what it recorded (was it changed in
place?), and for `after` again, to find what the call added. Told that `before` is the very object
it recorded last, it compares only once (`before_is_recorded`); told which items a call appended
(`appended`), it does not compare `after` at all. The hints change no record: the writer still checks
that `before` is unchanged since it was recorded, and a call whose hint cannot be proved gets none.
"""

from __future__ import annotations

from operator import add as _list_add
from operator import is_ as _is
from typing import Any, Iterable, Mapping

from engine.codec import MISSING as ENGINE_MISSING
from engine.trace import TraceWriter

_LG_MISSING: Any = None


def lg_missing() -> Any:
    """langgraph's empty-channel marker (imported on first use: importing this module imports no langgraph)."""
    global _LG_MISSING
    if _LG_MISSING is None:
        from langgraph._internal._typing import MISSING

        _LG_MISSING = MISSING
    return _LG_MISSING


def add_call(
    writer: TraceWriter,
    step: int,
    folds: Mapping[str, str] | None,
    channel: str,
    reducer: str,
    writer_id: str,
    writer_name: str,
    before: Any,
    write: Any,
    after: Any,
    error: BaseException | None,
) -> None:
    """`writer.add_call` of one reducer call (raw values, langgraph's empty marker as the engine's),
    telling the writer what is known without looking at the long list again: `before` is the object
    it recorded last (then only an in-place change is looked for), and, for a reducer that only
    appended (`folds`: `operator.add` of two lists; langgraph's `add_messages` that appended its
    write's messages to a list it made itself, `Appends`), the items it appended. The records are
    the same as without the hints: the writer still checks that `before` is unchanged since recorded."""
    missing = _LG_MISSING if _LG_MISSING is not None else lg_missing()
    if before is missing:
        before = ENGINE_MISSING
    if after is missing:
        after = ENGINE_MISSING
    tracker = writer.trackers.get(channel)
    same = tracker is not None and tracker.raw is before
    appended = None
    if folds:
        fold = folds.get(channel)
        if fold is ADD:
            if same and error is None and type(before) is list and type(write) is list and type(after) is list:
                appended = write  # list + list: the items of `before`, then the write's
        elif fold is not None:
            appended = fold.appended(before, write, after if error is None else None)
            if not same:
                appended = None
    writer.add_call(
        step,
        channel,
        reducer,
        writer_id,
        writer_name,
        before,
        write,
        after,
        error,
        before_is_recorded=same,
        appended=appended,
    )


ADD = "operator.add"
"""`folds_of`'s mark of a key whose reducer is `operator.add`."""


class Appends:
    """A state key whose reducer is langgraph's own `add_messages` (without a `format`, which rebuilds
    every message): the list its last call made from a plain write (a message or a list), in which
    every item is a message (`add_messages` converts them). Called on such a list, `add_messages`
    keeps its items as they are and appends the write's messages, or replaces and removes by id."""

    __slots__ = ("made",)

    def __init__(self) -> None:
        self.made: Any = None

    def appended(self, before: Any, write: Any, after: Any) -> list[Any] | None:
        """The messages a call appended, when it did nothing else: `before` is the list the last call
        made, `after` holds as many more items as the write has, and those are the write's own objects
        (so nothing was replaced or removed: the counts would not add up). None otherwise (and for a
        call that failed: `after` None)."""
        made, self.made = self.made, None
        if type(after) is not list:
            return None
        if type(write) is list:
            items = write
        elif _is_message(write):
            items = [write]
        else:
            return None
        self.made = after
        start = len(after) - len(items)
        if made is not before or start != len(before) or not all(map(_is, after[start:], items)):
            return None
        return items

    def committed(self, value: Any) -> None:
        """The key's committed value: what the last call made, or else anything (forgotten)."""
        if value is not self.made:
            self.made = None


_MESSAGE_CLASS: Any = None


def _is_message(value: Any) -> bool:
    global _MESSAGE_CLASS
    if _MESSAGE_CLASS is None:
        from langchain_core.messages import BaseMessage

        _MESSAGE_CLASS = BaseMessage
    return isinstance(value, _MESSAGE_CLASS)


def folds_of(channels: Mapping[str, Any], state_keys: Iterable[str]) -> dict[str, Any]:
    """`{key: ADD or Appends()}` for the state keys whose reducer only appends in the usual call:
    `operator.add`, and langgraph's own `add_messages` (see `Appends`)."""
    from langgraph.graph.message import add_messages

    folds: dict[str, Any] = {}
    for key in state_keys:
        reducer = getattr(channels.get(key), "operator", None)
        if reducer is _list_add:
            folds[key] = ADD
        elif reducer is add_messages:
            folds[key] = Appends()
    return folds
