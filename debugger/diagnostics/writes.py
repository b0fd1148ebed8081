"""What nodes wrote into reducer keys, checked against what they had received.

- read-modify-write: a node returns the value it read plus its change (`state["log"] + [x]`, the new
  total of a counter). Into an appending reducer the old items are added again; into a keep-the-last
  reducer with parallel writers, one node's change is lost (seed 000's race).
- subgraph duplication: a subgraph node returns its whole final state, which starts with the parent's
  list, and the parent's reducer appends it again (seed 001, 6.4). Provenance names where each
  duplicated item first came from.
- `[]` into an additive list: adds nothing, so it does not clear it.
- returning the whole state: a node writes back every key it received.

The test for "starts with what it received" compares the write with the channel's value at the start
of the step, which is exactly what the node was given.
"""

from __future__ import annotations

from typing import Any

from debugger.diagnostics.replay import MISSING_VALUE
from debugger.diagnostics.value_text import MESSAGE_REDUCERS, short
from debugger.i18n import _, ngettext

from .facts import INPUT_WRITERS, PLAIN, RunFacts, calls_with_values, canonical, names, same
from .findings import Finding
from .source import empty_write_intent

PUSH = "__pregel_push"


def list_writes(facts: RunFacts) -> list[Finding]:
    found: list[Finding] = []
    totals: dict[tuple[str, str], CounterWrites] = {}
    for step in facts.order:
        if step < 0:
            continue
        calls = list(calls_with_values(facts, step))
        final = {call.channel: after for call, _prior, _before, after in calls}
        for call, _prior, before, after in calls:
            if call.error is not None or call.writer_name in INPUT_WRITERS or call.reducer in PLAIN:
                continue
            key, write = call.channel, call.write
            start = facts.start_value(step, key)
            if _is_number(write) and _is_number(start) and _is_number(before) and same(after, before + write):
                totals.setdefault((call.writer_name, key), CounterWrites()).add(step, start, write)
                continue
            if not isinstance(write, list):
                continue
            if write == [] and isinstance(before, list) and before and same(after, before):
                if _meant_to_clear(facts, call.writer_name, key) is not False:
                    found.append(_empty_clear(facts, step, call, before))
                continue
            if not _echoes(facts, step, call, start):
                continue
            task = facts.task(step, call.writer)
            subgraph = task is not None and (bool(task.subgraphs) or facts.is_subgraph_node(task.name))
            if isinstance(before, list) and same(after, before + write):
                found.append(_repeated(facts, step, call, start, before, after, subgraph))
            elif not subgraph and same(after, write):
                lost = lost_items(facts, step, call, start, final.get(key))
                if lost:
                    found.append(_lost_update(facts, step, call, start, final.get(key), lost))
    found.extend(_counters(facts, totals))
    return found


def whole_state_returns(facts: RunFacts) -> list[Finding]:
    found = []
    for step in facts.order:
        if step < 0:
            continue
        start = facts.start_state(step)
        for task in facts.tasks(step):
            if task.name in INPUT_WRITERS or (task.path and task.path[0] == PUSH) or task.error:
                continue
            if task.subgraphs or facts.is_subgraph_node(task.name):
                continue
            received = [k for k in facts.input_keys(task) if k in start]
            written = dict(facts.state_writes(task))
            if len(received) < 2 or not set(received) <= set(written):
                continue
            echoed = [k for k in received if same(written[k], start[k])]
            meaningful = [k for k in echoed if start[k] not in ([], "", 0, None, {})]
            if len(echoed) < max(2, len(received) - 1) or not meaningful:
                continue
            changed = [k for k in received if k not in echoed]
            explanation = _(
                "{node} returned every key it received ({keys}) in step {step}, {changing}: it returned the state "
                "rather than an update. Every key is written again: a key without a reducer then conflicts with any "
                "other node writing it in the same step (InvalidUpdateError), and a reducer key such as a list under "
                "operator.add gets its whole value added again."
            ).format(
                node=task.name,
                keys=", ".join(received),
                step=step,
                changing=_("changing only {key}").format(key=repr(changed[0]))
                if changed
                else _("changing none of them"),
            )
            update = ", ".join(f'"{k}": ...' for k in changed) or '"key_you_changed": ...'
            found.append(
                Finding(
                    kind="returns_whole_state",
                    severity="warning",
                    title=_("{node} returns the whole state").format(node=task.name),
                    explanation=explanation,
                    fix=f"return {{{update}}}   # only what changed, not `return state`",
                    fix_label=_("Return only the keys the node changed"),
                    step=step,
                    node=task.name,
                    scope=facts.scope,
                    evidence=tuple(
                        {"key": k, "value": written[k], "text": short(written[k], 60), "unchanged": k in echoed}
                        for k in received
                    ),
                )
            )
    return found


# ---- read-modify-write and subgraph duplication -------------------------------------------------------


def _echoes(facts: RunFacts, step: int, call: Any, start: Any) -> bool:
    """Whether a write starts with the whole value its key had at the start of the step.

    A longer write (the old items, then new ones) is the read-modify-write shape. An exact copy is only
    counted when some copied item came from another writer (or the input): a node in a loop that
    writes the same constant list every time (`{"log": ["inc"]}`) also "equals" the old value once."""
    write = call.write
    if not (
        isinstance(start, list)
        and start
        and isinstance(write, list)
        and len(write) >= len(start)
        and same(write[: len(start)], start)
    ):
        return False
    if len(write) > len(start):
        return True
    return any(origin.task != call.writer_name for origin in facts.origins_before(step, call.channel)[: len(start)])


def _repeated(
    facts: RunFacts, step: int, call: Any, start: list[Any], before: list[Any], after: list[Any], subgraph: bool
) -> Finding:
    """Long because it words one finding whole (the items written twice, where each came from, the fixes),
    which reads better in one place."""
    key, node, reducer = call.channel, call.writer_name, call.reducer
    evidence = [
        {
            "item": repeat.item,
            "text": short(repeat.item, 60),
            "origin": repeat.origin_words(),
            "count_after": sum(1 for x in after if same(x, repeat.item)),
        }
        for repeat in facts.repeats(step, key, before, after)
    ]
    listed = ", ".join(_("{item} ({origin})").format(item=e["text"], origin=e["origin"]) for e in evidence[:4]) + (
        " …" if len(evidence) > 4 else ""
    )
    new_items = call.write[len(start) :]
    if subgraph:
        mounted = facts.is_subgraph_node(node)
        explanation = (
            _("{node} is a compiled subgraph mounted as a node. ") if mounted else _("{node} runs a subgraph. ")
        ).format(node=node) + _(
            "It received the parent's state ({key} = {start}) and returned the subgraph's whole final state "
            "({key} = {write}), not just what it added. The parent's reducer {reducer} then appended all of it, so "
            "items the parent already had are in {channel} twice: {listed}. After step {step}: {after}."
        ).format(
            key=key,
            start=short(start, 50),
            write=short(call.write, 60),
            reducer=reducer,
            channel=repr(key),
            listed=listed,
            step=step,
            after=short(after, 80),
        )
        code = (
            f"def call_{node}(state):\n    out = subgraph.invoke({{...}})   # the subgraph has its own schema, "
            f'without {key!r}\n    return {{"{key}": [...]}}   # only the new items'
        )
        other = (
            (
                _("Give the key a reducer that merges by id, so re-sent items are not added again"),
                f"def merge_by_id(old, new):\n    ids = {{item['id'] for item in old}}\n"
                f"    return old + [item for item in new if item['id'] not in ids]\n\n"
                f"{key}: Annotated[list, merge_by_id]   # messages: add_messages already does this",
            ),
        )
        return Finding(
            kind="subgraph_duplication",
            severity="error",
            title=_("Subgraph node {node} re-appended {key}").format(node=node, key=repr(key)),
            explanation=explanation,
            fix=code,
            fix_label=_("Wrap the subgraph in a function node with its own schema that returns only the new items"),
            other_fixes=other,
            step=step,
            node=node,
            key=key,
            scope=facts.scope,
            evidence=tuple(evidence),
        )
    explanation = _(
        "{node} returned {key} = {write}, which starts with the whole value it received ({start}), into {reducer}, "
        "which appends every write to the current value. So the old items were added again and are now in "
        "{channel} twice: {listed}. After step {step}: {after}. A node should return only its new items and let "
        "the reducer keep the rest."
    ).format(
        node=node,
        key=key,
        write=short(call.write, 60),
        start=short(start, 50),
        reducer=reducer,
        channel=repr(key),
        listed=listed,
        step=step,
        after=short(after, 80),
    )
    return Finding(
        kind="read_modify_write",
        severity="error",
        title=_("{node} wrote back the whole {key} list into {reducer}").format(
            node=node, key=repr(key), reducer=reducer
        ),
        explanation=explanation,
        fix=f'return {{"{key}": {short(new_items, 60)}}}   # only the new items',
        fix_label=_("Return only the new items; {reducer} keeps the rest").format(reducer=reducer),
        other_fixes=(
            (
                _("Never change the received list in place; build a new one if you need it"),
                f'items = [*state["{key}"], new_item]   # a copy, for the node\'s own use',
            ),
        ),
        step=step,
        node=node,
        key=key,
        scope=facts.scope,
        evidence=tuple(evidence),
    )


def lost_items(facts: RunFacts, step: int, call: Any, start: list[Any], final: Any) -> list[tuple[str, Any]]:
    """(writer, item) for the items other writers of this step added that the final value no longer has:
    what `call`, a write that replaced the value, lost (diagnose's finding and the step summary's line)."""
    if not isinstance(final, list):
        return []
    kept = {canonical(item) for item in final}
    lost = []
    for other in facts.steps[step].reducer_calls:
        if other.channel != call.channel or other.writer == call.writer or not isinstance(other.write, list):
            continue
        for item in other.write[len(start) :] if same(other.write[: len(start)], start) else other.write:
            if canonical(item) not in kept:
                lost.append((other.writer_name, item))
    return lost


def _lost_update(
    facts: RunFacts, step: int, call: Any, start: list[Any], final: Any, lost: list[tuple[str, Any]]
) -> Finding:
    key, reducer = call.channel, call.reducer
    writers = list(dict.fromkeys([*(w for w, _ in lost), call.writer_name]))
    why = "".join(
        dict.fromkeys(
            " " + _("{node} ran because {why}.").format(node=t.name, why=facts.why(step, t))
            for t in facts.tasks(step)
            if t.name in writers
        )
    )
    missing = ", ".join(_("{item} from {node}").format(item=short(item, 40), node=who) for who, item in lost[:4])
    explanation = (
        _(
            "{writers} ran in step {step} and each wrote back {channel} as the list it read ({start}) plus its own "
            "items. {reducer} keeps the last write, so {kept}'s list replaced the others and {missing} was lost: "
            "{key} = {final}. This is the read-modify-write race: each node only knew the old value, and no error is "
            "raised."
        ).format(
            writers=names(writers),
            step=step,
            channel=repr(key),
            start=short(start, 40),
            reducer=reducer,
            kept=call.writer_name,
            missing=missing,
            key=key,
            final=short(final, 60),
        )
        + why
    )
    return Finding(
        kind="read_modify_write",
        severity="error",
        title=_("Parallel writes to {key} lost {item}").format(key=repr(key), item=short(lost[0][1], 30)),
        explanation=explanation,
        fix=(
            f"{key}: Annotated[list, operator.add]   # declare the merge on the key\n\n"
            f'def {writers[0]}(state):\n    return {{"{key}": [...]}}   # only its own new items'
        ),
        fix_label=_("Declare an appending reducer and let each node return only its delta"),
        step=step,
        node=call.writer_name,
        key=key,
        nodes=tuple(writers),
        scope=facts.scope,
        evidence=tuple({"node": who, "item": item, "text": short(item, 60)} for who, item in lost),
    )


COUNTER_EVIDENCE = 50
"""The writes a "sends the total" finding lists: a long run's counter is written at every step, and its first
writes show the pattern as well as all of them would."""


class CounterWrites:
    """One node's numeric writes into one additive key, tallied as the steps go by: what `_counters` needs to
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


def _counters(facts: RunFacts, totals: dict[tuple[str, str], CounterWrites]) -> list[Finding]:
    """A node that sends the new total of an additive counter instead of the increment."""
    found = []
    for (node, key), writes in totals.items():
        if writes.count < 2 or writes.first_read is None or len(writes.increments) != 1:
            continue
        if (increment := next(iter(writes.increments))) < 1:
            continue
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
        found.append(
            Finding(
                kind="read_modify_write",
                severity="warning",
                title=_("{node} sends the total of {key}, not the increment").format(node=node, key=repr(key)),
                explanation=explanation,
                fix=f'return {{"{key}": {increment}}}   # the increment; {reducer} keeps the total',
                fix_label=_("Send the increment and let the reducer add it"),
                step=step,
                node=node,
                key=key,
                scope=facts.scope,
                evidence=tuple({"step": s, "value_read": v, "wrote": w} for s, v, w in writes.points),
            )
        )
    return found


# ---- [] into an additive list -----------------------------------------------------------------------


def _meant_to_clear(facts: RunFacts, node: str, key: str) -> bool | None:
    """True when the node's code writes a literal `[]` to the key; False when its code writes `[]` only
    as the "nothing to add" side of a choice, or the run shows the node adding items to it elsewhere;
    None when unknown."""
    builder = getattr(facts.graph, "builder", None)
    spec = builder.nodes.get(node) if builder is not None else None
    intent = empty_write_intent(spec.action, key) if spec is not None else None
    if intent is not None:
        return intent == "clear"
    for step in facts.order:  # the same node adding items elsewhere: its [] means "nothing to add"
        for call in facts.steps[step].reducer_calls:
            if call.writer_name == node and call.channel == key and isinstance(call.write, list) and call.write:
                return False
    return None


def _empty_clear(facts: RunFacts, step: int, call: Any, before: list[Any]) -> Finding:
    key, node, reducer = call.channel, call.writer_name, call.reducer
    messages = reducer in MESSAGE_REDUCERS
    explanation = ngettext(
        "{node} returned {key} = [] in step {step}, as if to clear it, but every write to {channel} goes through "
        "{reducer}, and {reducer}({before}, []) is the same list: nothing was cleared and the {count} old item "
        "is still there. A reducer key has no 'set' of its own: an empty write means 'nothing to add'. (If "
        "{node} simply had nothing to add, ignore this.)",
        "{node} returned {key} = [] in step {step}, as if to clear it, but every write to {channel} goes through "
        "{reducer}, and {reducer}({before}, []) is the same list: nothing was cleared and the {count} old items "
        "are still there. A reducer key has no 'set' of its own: an empty write means 'nothing to add'. (If "
        "{node} simply had nothing to add, ignore this.)",
        len(before),
    ).format(
        node=node, key=key, step=step, channel=repr(key), reducer=reducer, before=short(before, 40), count=len(before)
    )
    if messages:
        fix = f'return {{"{key}": [RemoveMessage(id=REMOVE_ALL_MESSAGES)]}}   # add_messages: delete every message'
    else:
        fix = f'return {{"{key}": Overwrite([])}}   # replaces the value once, bypassing {reducer}'
    return Finding(
        kind="empty_list_clear",
        severity="warning",
        title=_("{node} returned [] to {key}, which clears nothing").format(node=node, key=repr(key)),
        explanation=explanation,
        fix=fix,
        fix_label=_("Bypass the reducer to replace the value"),
        other_fixes=(
            (
                _("Give the key a reducer that understands a clear marker"),
                f"def add_or_clear(old, new):\n    return [] if new is None else old + new\n\n"
                f'{key}: Annotated[list, add_or_clear]   # return {{"{key}": None}} to clear',
            ),
        ),
        step=step,
        node=node,
        key=key,
        scope=facts.scope,
        evidence=({"before": before, "text": short(before, 60), "write": []},),
    )


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and value != MISSING_VALUE
