"""A node that sends the new total of an additive counter instead of the increment: `{"n": state["n"] + 1}`
into `Annotated[int, operator.add]` counts the old total again at every step.

The writes are tallied as the run goes by (`CounterWrites`), in memory that does not grow with the run.
"""

from __future__ import annotations

from typing import Any

from debugger.diagnostics.replay import MISSING_VALUE
from debugger.i18n import _

from .facts import RunFacts, same
from .findings import Finding, Said, trace_finding

COUNTER_EVIDENCE = 50
"""The writes a "sends the total" finding lists: a long run's counter is written at every step, and its first
writes show the pattern as well as all of them would."""


class CounterWrites:
    """One node's numeric writes into one additive key, tallied as the steps go by: what `Counters.findings` needs to
    tell a node sending the new total, kept in memory that does not grow with the run (a 200,000-step loop
    wrote its counter 200,000 times)."""

    def __init__(self) -> None:
        self.count = 0
        self.increments: set[Any] = set()
        """`write - start` of each write, while at most one: a second one means it is not a total plus a step."""
        self.first_read: tuple[int, Any, Any] | None = None
        """The first write made when the value read was not 0 (a total then differs from an increment)."""
        self.points: list[tuple[int, Any, Any]] = []
        """The first `COUNTER_EVIDENCE` writes: (step, value read, value written)."""

    def add(self, step: int, start: Any, write: Any) -> None:
        self.count += 1
        if len(self.increments) <= 1:
            self.increments.add(write - start)
        if self.first_read is None and start != 0:
            self.first_read = (step, start, write)
        if len(self.points) < COUNTER_EVIDENCE:
            self.points.append((step, start, write))


class Counters:
    """Every node's numeric writes into additive keys, one `CounterWrites` per (node, key)."""

    def __init__(self) -> None:
        self.totals: dict[tuple[str, str], CounterWrites] = {}

    def tally(self, step: int, call: Any, start: Any, before: Any, after: Any) -> bool:
        """Counts `call` when it added a number to a number (True); False for any other write."""
        write = call.write
        if not (_is_number(write) and _is_number(start) and _is_number(before) and same(after, before + write)):
            return False
        self.totals.setdefault((call.writer_name, call.channel), CounterWrites()).add(step, start, write)
        return True

    def findings(self, facts: RunFacts) -> list[Finding]:
        """A node that sent the new total of an additive counter instead of the increment, for each such counter."""
        found = []
        for (node, key), writes in self.totals.items():
            if writes.count < 2 or writes.first_read is None or len(writes.increments) != 1:
                continue
            if (increment := next(iter(writes.increments))) >= 1:
                found.append(_total_sent(facts, node, key, writes, increment))
        return found


def _total_sent(facts: RunFacts, node: str, key: str, writes: CounterWrites, increment: Any) -> Finding:
    step, start, write = writes.first_read
    reducer = facts.reducer(key)
    seen = ", ".join(_("{wrote} when it was {read}").format(wrote=w, read=s) for _step, s, w in writes.points[:4])
    explanation = _(
        "{node} wrote {key} = {seen}: each time the value it read plus {increment}, i.e. the new total. But "
        "{reducer} adds every write to the current value, so the total is counted again: in step {step} "
        "{key} went from {start} to {got} instead of {wanted}."
    ).format(
        node=node,
        key=key,
        seen=seen,
        increment=increment,
        reducer=reducer,
        step=step,
        start=start,
        got=start + write,
        wanted=start + increment,
    )
    send_increment = (
        _("Send the increment and let the reducer add it"),
        f'return {{"{key}": {increment}}}   # the increment; {reducer} keeps the total',
    )
    title = _("{node} sends the total of {key}, not the increment").format(node=node, key=repr(key))
    evidence = tuple({"step": s, "value_read": v, "wrote": w} for s, v, w in writes.points)
    said = Said(title, explanation, [send_increment])
    return trace_finding("read_modify_write", "warning", said, facts.scope, step, node=node, key=key, evidence=evidence)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value != MISSING_VALUE
