"""What nodes wrote into reducer keys, checked against what they had received (`ListWrites`, one rule).

- read-modify-write: a node returns the value it read plus its change (`state["log"] + [x]`, the new
  total of a counter: `counters.py`). Into an appending reducer the old items are added again; into a
  keep-the-last reducer with parallel writers, one node's change is lost (seed 000's race).
- subgraph duplication: a subgraph node returns its whole final state, which starts with the parent's
  list, and the parent's reducer appends it again (seed 001, 6.4). Provenance names where each
  duplicated item first came from.
- `[]` into an additive list: adds nothing, so it does not clear it (`clears.py`).

The test for "starts with what it received" compares the write with the channel's value at the start
of the step, which is exactly what the node was given. (A node returning the whole state: `whole_state.py`.)
"""

from __future__ import annotations

from typing import Any

from debugger.diagnostics.replay import MISSING_VALUE
from debugger.diagnostics.value_text import short
from debugger.i18n import _

from .clears import EmptyClears
from .counters import Counters
from .facts import INPUT_WRITERS, PLAIN, RunFacts, canonical, names, same
from .findings import Finding, Fix, Said, trace_finding
from .walk import Collecting, SeenStep, findings_of


class ListWrites(Collecting):
    """The rule: each reducer call of a node, checked for a counter's total, a `[]` that clears nothing, and a
    list written back with the old items (appended again, or replacing a parallel writer's)."""

    def __init__(self, facts: RunFacts) -> None:
        super().__init__(facts)
        self.counters = Counters()
        self.clears = EmptyClears(facts)

    def observe(self, seen: SeenStep) -> None:
        for call in seen.numbered.reducer_calls:
            self.clears.note(call)
        if seen.step < 0:
            return
        final = {call.channel: after for call, _prior, _before, after in seen.calls}
        for call, _prior, before, after in seen.calls:
            if call.error is not None or call.writer_name in INPUT_WRITERS or call.reducer in PLAIN:
                continue
            start = seen.start.get(call.channel, MISSING_VALUE)
            if self.counters.tally(seen.step, call, start, before, after) or not isinstance(call.write, list):
                continue
            if EmptyClears.cleared_nothing(call, before, after):
                self.clears.judge(seen.step, call, before, self.found)
            elif _echoes(self.facts, seen.step, call, start):
                self._written_back(seen.step, call, start, before, after, final.get(call.channel))

    def _written_back(self, step: int, call: Any, start: list[Any], before: Any, after: Any, final: Any) -> None:
        """A write that starts with the old value: appended again, or replacing what parallel writers added."""
        facts = self.facts
        task = facts.task(step, call.writer)
        subgraph = task is not None and (bool(task.subgraphs) or facts.is_subgraph_node(task.name))
        if isinstance(before, list) and same(after, before + call.write):
            self.found.append(_appended_again(facts, step, call, (start, before, after), subgraph))
        elif not subgraph and same(after, call.write):
            lost = lost_items(facts, step, call, start, final)
            if lost:
                self.found.append(_lost_update(facts, step, call, start, final, lost))

    def finish(self) -> list[Finding]:
        return self.clears.kept(self.found) + self.counters.findings(self.facts)


def list_writes(facts: RunFacts) -> list[Finding]:
    return findings_of(facts, ListWrites(facts))


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


def _repeat_evidence(facts: RunFacts, step: int, key: str, before: list[Any], after: list[Any]) -> list[dict]:
    """Each item the write added again, where its first copy came from and how often it is there now."""
    evidence: list[dict] = []
    for repeat in facts.repeats(step, key, before, after):
        if any(same(e["item"], repeat.item) for e in evidence):  # an item there four times is told once
            continue
        evidence.append(
            {
                "item": repeat.item,
                "text": short(repeat.item, 60),
                "origin": repeat.origin_words(),
                "count_after": sum(1 for x in after if same(x, repeat.item)),
            }
        )
    return evidence


def _repeat_words(step: int, call: Any, start: list[Any], after: list[Any], evidence: list[dict]) -> dict[str, Any]:
    """What both wordings of a list appended again fill in: the values, the reducer, the repeated items."""
    listed = (
        ", ".join(
            (_("{item} ({origin}, now {count}×)") if e["count_after"] > 2 else _("{item} ({origin})")).format(
                item=e["text"], origin=e["origin"], count=e["count_after"]
            )  # "more than once" says twice; a count says more
            for e in evidence[:4]
        )
        + (" …" if len(evidence) > 4 else "")
    )
    return {
        "key": call.channel,
        "start": short(start, 50),
        "write": short(call.write, 60),
        "reducer": call.reducer,
        "channel": repr(call.channel),
        "listed": listed,
        "step": step,
        "after": short(after, 80),
        "added": call.write[len(start) :],
    }


def _appended_again(
    facts: RunFacts, step: int, call: Any, values: tuple[list[Any], list[Any], list[Any]], subgraph: bool
) -> Finding:
    """A list written back with the old items that the reducer appended again, by a subgraph node returning its
    whole final state or by a node's read-modify-write. `values`: the key at the step's start, before the write
    and after it."""
    start, before, after = values
    evidence = _repeat_evidence(facts, step, call.channel, before, after)
    words = _repeat_words(step, call, start, after, evidence)
    kind, title, explanation, ways = (_subgraph_duplication if subgraph else _read_modify_write)(facts, call, words)
    return trace_finding(
        kind,
        "error",
        Said(title, explanation, ways),
        facts.scope,
        step,
        node=call.writer_name,
        key=call.channel,
        evidence=tuple(evidence),
    )


def _subgraph_duplication(facts: RunFacts, call: Any, words: dict[str, Any]) -> tuple[str, str, str, list[Fix]]:
    """(kind, title, explanation, fixes) of a subgraph node's whole final state appended again."""
    key, node = call.channel, call.writer_name
    mounted = facts.is_subgraph_node(node)
    explanation = (
        _("{node} is a compiled subgraph mounted as a node. ") if mounted else _("{node} runs a subgraph. ")
    ).format(node=node) + _(
        "It received the parent's state ({key} = {start}) and returned the subgraph's whole final state "
        "({key} = {write}), not just what it added. The parent's reducer {reducer} then appended all of it, so "
        "items the parent already had are in {channel} more than once: {listed}. After step {step}: {after}."
    ).format(**words)
    wrap = (
        _("Wrap the subgraph in a function node with its own schema that returns only the new items"),
        f"def call_{node}(state):\n    out = subgraph.invoke({{...}})   # the subgraph has its own schema, "
        f'without {key!r}\n    return {{"{key}": [...]}}   # only the new items',
    )
    by_id = (
        _("Give the key a reducer that merges by id, so re-sent items are not added again"),
        f"def merge_by_id(old, new):\n    ids = {{item['id'] for item in old}}\n"
        f"    return old + [item for item in new if item['id'] not in ids]\n\n"
        f"{key}: Annotated[list, merge_by_id]   # messages: add_messages already does this",
    )
    title = _("Subgraph node {node} re-appended {key}").format(node=node, key=repr(key))
    return "subgraph_duplication", title, explanation, [wrap, by_id]


def _read_modify_write(facts: RunFacts, call: Any, words: dict[str, Any]) -> tuple[str, str, str, list[Fix]]:
    """(kind, title, explanation, fixes) of a node's list written back with the old items, appended again."""
    key, node, reducer = call.channel, call.writer_name, call.reducer
    explanation = _(
        "{node} returned {key} = {write}, which starts with the whole value it received ({start}), into {reducer}, "
        "which appends every write to the current value. So the old items were added again and are now in "
        "{channel} more than once: {listed}. After step {step}: {after}. A node should return only its new items "
        "and let "
        "the reducer keep the rest."
    ).format(node=node, **words)
    only_new = (
        _("Return only the new items; {reducer} keeps the rest").format(reducer=reducer),
        f'return {{"{key}": {short(words["added"], 60)}}}   # only the new items',
    )
    copy = (
        _("Never change the received list in place; build a new one if you need it"),
        f'items = [*state["{key}"], new_item]   # a copy, for the node\'s own use',
    )
    title = _("{node} wrote back the whole {key} list into {reducer}").format(node=node, key=repr(key), reducer=reducer)
    return "read_modify_write", title, explanation, [only_new, copy]


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
    why = facts.ran_because(step, [t for t in facts.tasks(step) if t.name in writers])
    missing = ", ".join(_("{item} from {node}").format(item=short(item, 40), node=who) for who, item in lost[:4])
    explanation = _(
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
    ) + (" " + why if why else "")
    declare = (
        _("Declare an appending reducer and let each node return only its delta"),
        f"{key}: Annotated[list, operator.add]   # declare the merge on the key\n\n"
        f'def {writers[0]}(state):\n    return {{"{key}": [...]}}   # only its own new items',
    )
    return trace_finding(
        "read_modify_write",
        "error",
        Said(
            _("Parallel writes to {key} lost {item}").format(key=repr(key), item=short(lost[0][1], 30)),
            explanation,
            [declare],
        ),
        facts.scope,
        step,
        node=call.writer_name,
        key=key,
        nodes=tuple(writers),
        evidence=tuple({"node": who, "item": item, "text": short(item, 60)} for who, item in lost),
    )
