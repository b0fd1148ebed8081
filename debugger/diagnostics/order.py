"""Order sensitivity: a step whose parallel writes would merge to a different value in another order.

The writes of one superstep are folded in a fixed order (PULL tasks by node name, then Sends in the
order they were made), never by finishing time. A commutative reducer (sum, max, set or dict union)
gives the same result in any order; a keep-first or keep-last reducer, or string concatenation, picks
a winner by node name: repeatable, but arbitrary (renaming a node changes the answer).

Re-folding needs the reducer as a function. `debugger.diagnostics.replay.refold` folds the recorded writes with
it; nodes never run again. The reducer comes from the live graph when there is one
(`graph.builder.channels[key].operator`), else from its recorded name (`operator.*`, `add_messages`,
`max`, `min`), else it is inferred from the calls themselves when they all kept the write (keep-last)
or all kept the old value (keep-first). A list whose items only come out in another order is not
reported: a reducer that collects items (operator.add, add_messages) is order-sensitive only in that
harmless sense, and every fan-out would be flagged.
"""

from __future__ import annotations

import itertools
import operator
from typing import Any, Callable

from debugger.diagnostics.replay import CallValues, channel_calls, refold
from debugger.diagnostics.value_text import short
from debugger.i18n import _
from engine import add_messages
from engine.codec import TYPE

from .facts import RunFacts, both, canonical, names, same
from .findings import Finding, Fix, Said, trace_finding
from .walk import Collecting, SeenStep, findings_of

MAX_ORDERS = 120
"""At most this many orders are re-folded per channel and step (the What-if panel uses the same)."""

_BY_NAME: dict[str, Callable[[Any, Any], Any]] = {
    "add_messages": add_messages,
    "messagesStateReducer": add_messages,  # LangGraph.js's: the same merge by id, re-run on recorded messages
    "max": max,
    "min": min,
}


class OrderSensitivity(Collecting):
    """The rule: each committed step's keys with parallel writes that a re-fold in another order changes."""

    def observe(self, seen: SeenStep) -> None:
        record = seen.record
        if record.step < 0 or not record.committed:
            return
        for key in dict.fromkeys(c.channel for c in record.reducer_calls):
            calls = channel_calls(record, key)
            if _may_depend_on_order(calls):
                self._refolded(seen, key, calls)

    def _refolded(self, seen: SeenStep, key: str, calls: list[Any]) -> None:
        """Re-folds `key`'s writes in other orders; a finding for the first whose result differs."""
        values = [(call, before, after) for call, _prior, before, after in seen.calls]
        reducer, how = reducer_for(self.facts, key, calls, values)
        if reducer is None:
            return
        recorded = refold(self.facts.replay, seen.step, key, reducer, values=values)
        if recorded.error is not None or recorded.differs:
            return  # the reducer does not reproduce the run: say nothing rather than guess
        other = _differing_order(self.facts, seen.step, key, reducer, len(calls), recorded.value, values)
        if other is not None:
            self.found.append(_finding(self.facts, seen.step, key, calls, recorded.value, other, how))


def order_sensitivity(facts: RunFacts) -> list[Finding]:
    return findings_of(facts, OrderSensitivity(facts))


def _may_depend_on_order(calls: list[Any]) -> bool:
    """Writes of several nodes, none refused, through a reducer (not a plain key or an Overwrite), not all equal."""
    if len(calls) < 2 or len({c.writer for c in calls}) < 2 or any(c.error for c in calls):
        return False
    if calls[0].reducer == "LastValue" or any(_is_overwrite(c.write) for c in calls):
        return False
    return not all(same(c.write, calls[0].write) for c in calls)


def _is_overwrite(write: Any) -> bool:
    return isinstance(write, dict) and write.get(TYPE) == "Overwrite"


def reducer_for(
    facts: RunFacts, key: str, calls: list[Any], values: CallValues | None = None
) -> tuple[Callable[[Any, Any], Any] | None, str]:
    """The reducer of `key` as a function, and how it was found: the live graph's, else by its recorded
    name, else inferred from `calls` (one step's calls on `key`; `values`: that step's calls with their
    values, when the caller has them); (None, "") when none of these works."""
    graph = facts.graph
    channel = getattr(getattr(graph, "builder", None), "channels", {}).get(key) if graph is not None else None
    live = getattr(channel, "operator", None)
    if live is not None:
        return live, "the graph's reducer"
    name = calls[0].reducer
    if name.startswith("operator.") and hasattr(operator, name[9:]):
        return getattr(operator, name[9:]), f"{name}, by name"
    if name in _BY_NAME:
        return _BY_NAME[name], f"{name}, by name"
    values = list(_call_values(facts, calls, values))
    if all(same(after, call.write) for call, _before, after in values):
        return (lambda old, new: new), "keep-the-last, inferred from the recorded calls"
    if len(values) > 1 and all(same(after, before) for _call, before, after in values[1:]):
        return (lambda old, new: old if old else new), "keep-the-first, inferred from the recorded calls"
    return None, ""


def _call_values(facts: RunFacts, calls: list[Any], values: CallValues | None):
    wanted = {c.index for c in calls}
    if values is None:
        step = next(s.step for s in facts.run.steps if any(c is calls[0] for c in s.reducer_calls))
        values = facts.replay.call_values(step)
    for call, before, after in values:
        if call.index in wanted:
            yield call, before, after


def candidate_orders(count: int):
    """The orders tried for `count` writes: all of them (at most MAX_ORDERS) for up to five writes; for
    more, the reverse, every rotation and every swap of neighbours (a permutation count explodes)."""
    if count <= 5:
        yield from itertools.islice(itertools.permutations(range(count)), MAX_ORDERS)
        return
    base = list(range(count))
    yield tuple(reversed(base))
    for shift in range(1, count):
        yield tuple(base[shift:] + base[:shift])
    for i in range(count - 1):
        swapped = list(base)
        swapped[i], swapped[i + 1] = swapped[i + 1], swapped[i]
        yield tuple(swapped)


def _differing_order(
    facts: RunFacts, step: int, key: str, reducer: Any, count: int, value: Any, values: CallValues
) -> Any:
    for order in candidate_orders(count):
        if order == tuple(range(count)):
            continue
        result = refold(facts.replay, step, key, reducer, order, values=values)
        if result.error is not None or same(result.value, value):
            continue
        if (
            isinstance(result.value, list)
            and isinstance(value, list)
            and sorted(map(canonical, result.value)) == sorted(map(canonical, value))
        ):
            continue  # the same items in another order
        return result
    return None


def _finding(facts: RunFacts, step: int, key: str, calls: list[Any], value: Any, other: Any, how: str) -> Finding:
    writers = [c.writer_name for c in calls]
    reordered = [writers[i] for i in other.order]
    return trace_finding(
        "order_sensitive",
        "warning",
        Said(
            _("{key} depends on the order of parallel writes").format(key=repr(key)),
            _explanation(facts, step, key, calls, value, other, how),
            _fixes(key, writers),
        ),
        facts.scope,
        step,
        node=writers[-1],
        key=key,
        nodes=tuple(dict.fromkeys(writers)),
        evidence=(
            {"order": writers, "value": value, "text": short(value, 60), "recorded": True},
            {"order": reordered, "value": other.value, "text": short(other.value, 60), "recorded": False},
        ),
    )


def _explanation(facts: RunFacts, step: int, key: str, calls: list[Any], value: Any, other: Any, how: str) -> str:
    """The writers, the two results in the two orders, why the writers ran together and how the reducer was found."""
    writers = [c.writer_name for c in calls]
    ids = {c.writer for c in calls}
    then = _(", then ")
    return _(
        "{writers} {both} wrote {key} in step {step}, and the reducer of {key}, {reducer}, gives a different "
        "result depending on the order it folds them in: as recorded ({recorded}) it is {value}; folded as "
        "{reordered} it would be {other}. The writes of one superstep are folded by node name (then Send order), "
        "not by finishing time, so the result is repeatable but arbitrary: renaming a node changes it. {why} "
        "(Re-folded with {how}.)"
    ).format(
        writers=names(writers),
        both=both(writers),
        key=repr(key),
        step=step,
        reducer=calls[0].reducer,
        recorded=then.join(writers),
        value=short(value, 50),
        reordered=then.join(writers[i] for i in other.order),
        other=short(other.value, 50),
        why=facts.ran_because(step, [t for t in facts.tasks(step) if t.id in ids]),
        how=how,
    )


def _fixes(key: str, writers: list[str]) -> list[Fix]:
    """Best first: each writer's value kept under its name and a node after the join that chooses; then a
    commutative reducer."""
    collected = f"{key}_by_node"
    collect = (
        _("Collect the parallel results with an order-independent reducer, then choose in a node after the join"),
        f"{collected}: Annotated[dict, lambda old, new: {{**old, **new}}]   # each node returns "
        f'{{"{collected}": {{"<its name>": value}}}}\n\n'
        f'def choose(state):\n    return {{"{key}": pick(state["{collected}"])}}   '
        "# decide explicitly after the join\n\n"
        f'builder.add_edge([{", ".join(repr(w) for w in dict.fromkeys(writers))}], "choose")',
    )
    commutative = (
        _("Use a reducer that is commutative (sum, max, set union)"),
        f"{key}: Annotated[int, operator.add]   # or max, or a set with operator.or_",
    )
    return [collect, commutative]
