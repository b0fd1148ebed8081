"""What-if: re-fold one step's recorded writes to a key in another order, or without one of them.
Nodes never run again. The reducer comes from `diagnostics.order.reducer_for` (the live graph's, else
found by its recorded name, else inferred from the calls), so stored traces work too, and the orders
tried are `diagnostics.order.candidate_orders`, the ones `diagnose` tries."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from debugger.diagnostics.order import candidate_orders, reducer_for
from debugger.diagnostics.replay import Refold, channel_calls, refold
from debugger.model.run_view import RunView

PLAIN = ("LastValue", "AnyValue", "EphemeralValue")


@dataclass(frozen=True)
class WhatIf:
    """What the panel offers for one key of one step."""

    channel: str
    writers: tuple[str, ...]
    """The writing tasks, in recorded order."""
    orders: tuple[tuple[int, ...], ...]
    """The orders offered, recorded order first."""
    reducer: Any
    how: str
    """How the reducer was found (`the graph's reducer`, `operator.add, by name`, ...), or why it was not."""


def channels(view: RunView, step: int) -> list[str]:
    """The keys of `step` whose writes went through a reducer (a plain key takes one write: no order)."""
    record = view.by_step.get(step)
    if record is None:
        return []
    return list(dict.fromkeys(c.channel for c in record.reducer_calls if c.reducer not in PLAIN))


def offer(view: RunView, step: int, channel: str) -> WhatIf:
    record = view.by_step[step]
    calls = channel_calls(record, channel)
    reducer, how = reducer_for(view.facts, channel, calls)
    if reducer is None:
        how = (
            f"the reducer {calls[0].reducer} is your own code and this run was opened without it (a stored or "
            "uploaded trace); open it from its graph file to re-fold"
        )
    identity = tuple(range(len(calls)))
    orders = (identity, *(o for o in candidate_orders(len(calls)) if o != identity))
    return WhatIf(channel, tuple(view.writer_label(record, c) for c in calls), orders, reducer, how)


def fold(view: RunView, step: int, offer: WhatIf, order: tuple[int, ...], skip: int | None) -> Refold:
    return refold(view.replay, step, offer.channel, offer.reducer, order, skip=skip)


def sensitivity(view: RunView, step: int, offer: WhatIf) -> tuple[int, int]:
    """(how many of the other offered orders change the result, how many there are)."""
    others = offer.orders[1:]
    changed = sum(1 for order in others if fold(view, step, offer, order, None).differs)
    return changed, len(others)
