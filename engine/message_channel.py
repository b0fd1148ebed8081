"""The channel of a state key reduced by the engine's own `add_messages`: it keeps, beside its value,
the index of its messages' ids, so a step that adds k messages to n costs O(k) in Python, not O(n).

`add_messages(left, right)` must know which ids `left` holds; read from `left`, that is a Python loop
over every message at every call (the barrier's and each router's fresh read: twice a step), which
makes a long chat loop quadratic. The channel's `MessageIndex` remembers the ids of the value it last
committed, by position, and is trusted for `left` only when both hold:

- `left` has the same items as the index's own copy of that value (`==` on two lists: identical items
  are skipped at C speed, about 1 ns each, and an item replaced by an equal message has the same id),
  so a node that appended, removed, replaced or reordered the state's messages in place is seen;
- no message that had an id was given another since (`engine.messages.ID_CHANGES`).

Otherwise the call is `add_messages` as it is, and the committed result is indexed again. Only the
run's own channel learns (at the barrier, one thread); the copies a router's fresh read makes only
look up, so parallel tasks never change the index.

What the barrier's check proves is told to whoever observes the call (`ReducerCall.before_unchanged`):
when `left` is the very list the index learned and its items are those it had then, a recorder that
kept its own copy of them need not compare the long list again (a second pass over every message at
every step).
"""

from __future__ import annotations

import functools
from typing import Any, Sequence

from .channels import BinaryOperatorAggregate, Observe
from .message_reducer import add_messages, all_new, coerce_messages, give_ids, merge_by_id
from .messages import ID_CHANGES, BaseMessage

_NOTHING_KNOWN: tuple[list[BaseMessage], dict[Any, int], int, Any] = ([], {}, -1, None)


class MessageIndex:
    """The ids of one list of messages by position, with the list's items as they were indexed."""

    __slots__ = ("known", "proven")

    def __init__(self) -> None:
        self.known = _NOTHING_KNOWN
        """`(items, position by id, ID_CHANGES count, the list indexed)`, replaced as one (a reader takes
        it once)."""
        self.proven = False
        """Whether the `left` of the barrier's last call was the list indexed, its items unchanged since
        (`MessagesChannel.update` tells the observer of that call, then forgets it)."""

    def positions_for(self, left: Any) -> dict[Any, int] | None:
        """The position of each id in `left`, when the index holds for it (see the module docstring)."""
        items, position, changes, _ = self.known
        if changes != ID_CHANGES[0] or type(left) is not list or len(left) != len(items) or left != items:
            return None
        return position

    def learn(self, messages: list[BaseMessage]) -> None:
        """Index `messages` (a committed value): only when every id is set and none repeats."""
        ids = [getattr(message, "id", None) for message in messages]
        position = dict(zip(ids, range(len(ids))))
        if len(position) != len(ids) or None in position:
            self.known = _NOTHING_KNOWN
        else:
            self.known = (list(messages), position, ID_CHANGES[0], messages)

    def learn_appended(self, merged: list[BaseMessage], added: list[BaseMessage]) -> None:
        """The committed value `merged` is the indexed one and then `added` (new ids, none repeated)."""
        items, position, changes, _ = self.known
        for offset, message in enumerate(added, len(items)):
            position[message.id] = offset
        items += added
        self.known = (items, position, changes, merged)


def indexed_add(index: MessageIndex, learns: bool, left: Any, right: Any) -> list[BaseMessage]:
    """`add_messages(left, right)`, reading `left`'s ids from `index` when it holds for `left`;
    when `learns`, the result is what `index` holds afterwards."""
    position = index.positions_for(left)
    if learns:  # the barrier's call (one thread): what its check proved, for the observer
        index.proven = position is not None and left is index.known[3]
    if position is None:
        merged = add_messages(left, right)
        if learns:
            index.learn(merged)
        return merged
    right = coerce_messages(right)
    remove_all_at = give_ids(right)
    if remove_all_at is not None:
        merged = right[remove_all_at + 1 :]
    elif all_new(right, position.__contains__):
        merged = left.copy()
        merged += right
        if learns:
            index.learn_appended(merged, right)
        return merged
    else:
        merged = merge_by_id(left.copy(), right, None)
    if learns:
        index.learn(merged)
    return merged


def _told_if_unchanged(
    index: MessageIndex, observe: Observe, position: int, before: Any, write: Any, after: Any
) -> None:
    """`observe`, told whether the call's `before` is the list the index learned, unchanged since (see
    the module): proven by the reducer call just made, or by none (an `Overwrite`, a first value)."""
    unchanged = index.proven
    index.proven = False
    observe(position, before, write, after, unchanged)


class MessagesChannel(BinaryOperatorAggregate):
    """`BinaryOperatorAggregate` with `add_messages` (its `operator`, as every reader expects), whose
    reducer calls read the ids of the value from the channel's `MessageIndex`."""

    __slots__ = ("index",)

    def __init__(self, key: str, initial: Any) -> None:
        super().__init__(key, add_messages, initial)

    def _reset(self) -> None:
        super()._reset()
        self.index = MessageIndex()  # a run's own, never its spec's
        # partials, not bound methods: no cycle back to the channel
        self.reduce = functools.partial(indexed_add, self.index, True)
        self.look_ahead = functools.partial(indexed_add, self.index, False)

    def update(self, values: Sequence[Any], observe: Observe | None = None) -> bool:
        if observe is not None:
            self.index.proven = False  # a call that raised left its proof: it is no other call's
            observe = functools.partial(_told_if_unchanged, self.index, observe)
        return super().update(values, observe)

    def copy(self) -> MessagesChannel:
        new = super().copy()
        new.reduce = new.look_ahead  # a fresh read's copy only looks up: the run's index stays the value's
        return new
