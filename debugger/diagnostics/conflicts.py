"""Concurrent updates in a recorded run: the `InvalidUpdateError` of a key written twice in one step.

LangGraph's message names the key only ("At key 'v': Can receive only one value per step"). The trace
has the rest: every reducer call the barrier refused (`call.error`), so every node that wrote the key
in that superstep and what it wrote; and, from each writer's `fired` channels and the earlier tasks
that wrote them, why those nodes ran in the same step. The finding names them all and offers the
fixes that fit: a reducer, one writer per key, running them in sequence, and for writers that echo
the value they received (a subgraph, a node returning the whole state), not writing the key at all.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from debugger.diagnostics.replay import MISSING_VALUE
from debugger.diagnostics.value_text import short
from debugger.i18n import _, join_sentences
from engine.codec import TYPE, decode

from .facts import RunFacts, both, names, same
from .findings import Finding, Said, trace_finding
from .walk import Collecting, SeenStep, findings_of


class ConcurrentUpdates(Collecting):
    """The rule: each step's writes the barrier refused with InvalidUpdateError, one finding per key."""

    def observe(self, seen: SeenStep) -> None:
        record = seen.record
        refused: dict[str, list[Any]] = {}
        for call in record.reducer_calls:
            if call.error is not None and call.error.get("class") == "InvalidUpdateError":
                refused.setdefault(call.channel, []).append(call)
        for key, calls in refused.items():
            writes = [c for c in record.reducer_calls if c.channel == key]
            self.found.append(_finding(self.facts, record.step, key, writes, calls[0].error.get("message", "")))


def concurrent_updates(facts: RunFacts) -> list[Finding]:
    return findings_of(facts, ConcurrentUpdates(facts))


@dataclass
class Refused:
    """The writes of one plain key that the barrier refused in one step, as the finding tells them."""

    step: int
    key: str
    calls: list[Any]
    writers: list[str]
    start: Any
    """The key's value at the start of the step."""
    evidence: list[dict[str, Any]] = field(default_factory=list)
    echoes: list[str] = field(default_factory=list)
    """The writers that wrote back the value the key already had."""
    subgraphs: list[str] = field(default_factory=list)
    """The writers that run a subgraph."""

    def values(self) -> str:
        return join_sentences(_("{node} wrote {value}").format(node=e["node"], value=e["text"]) for e in self.evidence)

    def why(self) -> str:
        return " ".join(
            dict.fromkeys(
                _("{node} ran because {why}.").format(node=e["node"], why=e["why"]) for e in self.evidence if e["why"]
            )
        )


def _finding(facts: RunFacts, step: int, key: str, calls: list[Any], message: str) -> Finding:
    """One finding for the refused writes of `key`: two Overwrites, or plain writes of a key without a reducer."""
    overwrite = "Overwrite" in message
    if overwrite:
        calls = [c for c in calls if isinstance(c.write, dict) and c.write.get(TYPE) == "Overwrite"] or calls
    refused = _refused(facts, step, key, calls)
    title, explanation, ways = _overwrites(refused) if overwrite else _plain_writes(refused)
    return trace_finding(
        "concurrent_update",
        "error",
        Said(title, explanation, ways),
        facts.scope,
        step,
        node=refused.writers[0],
        key=key,
        nodes=tuple(refused.writers),
        evidence=tuple(refused.evidence),
    )


def _refused(facts: RunFacts, step: int, key: str, calls: list[Any]) -> Refused:
    """Each refused write with what it wrote, why its node ran, and whether it echoed the key's value."""
    writers = list(dict.fromkeys(c.writer_name for c in calls))
    refused = Refused(step, key, calls, writers, facts.start_value(step, key))
    for call in calls:
        task = facts.task(step, call.writer)
        echoed = refused.start != MISSING_VALUE and same(call.write, refused.start)
        if echoed:
            refused.echoes.append(call.writer_name)
        if task is not None and (task.subgraphs or facts.is_subgraph_node(task.name)):
            refused.subgraphs.append(call.writer_name)
        refused.evidence.append(
            {
                "node": call.writer_name,
                "value": call.write,
                "text": short(call.write, 60),
                "why": facts.why(step, task) if task is not None else "",
                "echoes_received_value": echoed,
            }
        )
    return refused


Words = tuple[str, str, list[tuple[str, str]]]
"""A finding's title, explanation and fixes (what to do, code), best first."""


def _overwrites(refused: Refused) -> Words:
    key, who = refused.key, names(refused.writers)
    explanation = _(
        "{writers} each wrote Overwrite(...) to {key} in step {step} ({values}). An Overwrite replaces the "
        "value, bypassing the reducer, and only one per key per superstep is allowed, since two would each "
        "claim to be the final value. The step failed and none of its writes reached the state. {why}"
    ).format(writers=who, key=repr(key), step=refused.step, values=refused.values(), why=refused.why())
    fix = f'return {{"{key}": Overwrite(new_value)}}   # in one node only; the others return plain updates'
    title = _("Two Overwrite writes to {key} in one superstep ({writers})").format(key=repr(key), writers=who)
    return title, explanation, [(_("Let one node replace the value; the others add to it"), fix)]


def _plain_writes(refused: Refused) -> Words:
    key, writers, who = refused.key, refused.writers, names(refused.writers)
    count, step, values = len(refused.calls), refused.step, refused.values()
    if len(writers) == 1:
        situation = _(
            "{writers} wrote {key} {count} times in step {step} ({values}): as several tasks of the same node "
            "(Sends), or one task writing the key twice."
        ).format(writers=who, key=repr(key), count=count, step=step, values=values)
    else:
        situation = _("{writers} {both} wrote {key} in step {step} ({values}).").format(
            writers=who, both=both(writers), key=repr(key), step=step, values=values
        )
    explanation = _(
        "{situation} {key} has no reducer, so it holds one value and accepts one write per superstep; with "
        "{count}, LangGraph does not guess which one you meant: it raises InvalidUpdateError "
        "(INVALID_CONCURRENT_GRAPH_UPDATE) and the whole step is lost, none of its writes reach the state. "
        "{why} Nodes triggered by the same superstep always run together in the next one."
    ).format(situation=situation, key=repr(key), count=count, why=refused.why())
    if refused.echoes:
        explanation += " " + _echo_words(refused)
    title = _("{writers} wrote the plain key {key} in one superstep").format(writers=who, key=repr(key))
    return title, explanation, _fixes(key, refused.calls, writers, refused.echoes, refused.subgraphs)


def _echo_words(refused: Refused) -> str:
    """Why some writers wrote back the value the key already had, and that leaving it out ends the conflict."""
    how = (
        _("a subgraph returns its whole final state, including keys it only received. ")
        if refused.subgraphs
        else _("a node that returns the whole state (or copies a key it did not change) writes every key again. ")
    )
    return _("{writers} wrote back the value {key} already had ({start}): {how}").format(
        writers=names(refused.echoes), key=repr(refused.key), start=short(refused.start, 40), how=how
    ) + _("Leaving unchanged keys out of the update removes the conflict.")


def _fixes(
    key: str, calls: list[Any], writers: list[str], echoes: list[str], subgraphs: list[str]
) -> list[tuple[str, str]]:
    """The fixes that fit, best first: not echoing the key where a writer echoes it, then a reducer, a key per
    node and running the writers in sequence (a scalar's reducer changes its type, so it comes after a key per
    node)."""
    reducer, scalar = _reducer_fix(key, calls)
    own_keys = (
        _("Give each node its own key, if the values mean different things"),
        "\n".join(f'return {{"{key}_{w}": ...}}   # in {w}' for w in writers[:3]),
    )
    sequence = (
        _("Run them one after the other instead of in parallel"),
        f'builder.add_edge("{writers[0]}", "{writers[-1]}")   # instead of both edges from the same node',
    )
    fixes = []
    if subgraphs:
        fixes.append(
            (
                _("Give the subgraph an output schema without {key}, so it does not echo it back").format(
                    key=repr(key)
                ),
                "sub = StateGraph(SubState, output_schema=SubOutput)   # SubOutput lists only the keys it changes",
            )
        )
    if echoes and not subgraphs:
        fixes.append(
            (
                _("Return only what changed, not the whole state"),
                f'return {{"other_key": new_value}}   # leave {key!r} out of the update (not `return state`)',
            )
        )
    if scalar and len(writers) > 1:
        return [*fixes, own_keys, reducer, sequence]
    return [*fixes, reducer, *([own_keys, sequence] if len(writers) > 1 else [])]


def _reducer_fix(key: str, calls: list[Any]) -> tuple[tuple[str, str], bool]:
    """The reducer that fits the writes, and whether they are scalars. Lists are merged by concatenation and
    dicts by union, keeping the key's type; scalars (a str, an int) have no natural merge, so collecting them is
    offered as a change of type."""
    values = [decode_or_raw(c.write) for c in calls]
    if all(isinstance(v, list) for v in values):
        return (
            _("Give {key} a reducer that concatenates, so parallel lists are merged").format(key=repr(key)),
            f"{key}: Annotated[list, operator.add]   # each node's list is appended",
        ), False
    if all(isinstance(v, dict) for v in values):
        return (
            _("Give {key} a reducer that merges the dicts").format(key=repr(key)),
            f"{key}: Annotated[dict, lambda old, new: {{**old, **new}}]   # later keys win",
        ), False
    item = _item_type([c.write for c in calls])
    return (
        _(
            "Collect every value: make {key} a list with a reducer (its type changes from {item} to list[{item}])"
        ).format(key=repr(key), item=item),
        f'{key}: Annotated[list[{item}], operator.add]   # each node returns {{"{key}": [its value]}}',
    ), True


def decode_or_raw(encoded: Any) -> Any:
    try:
        return decode(encoded)
    except Exception:  # a value the codec cannot rebuild: judge its recorded form
        return encoded


def _item_type(values: list[Any]) -> str:
    kinds = {type(v).__name__ for v in values if not isinstance(v, dict)}
    if len(kinds) == 1 and kinds <= {"int", "str", "float", "bool"}:
        return kinds.pop()
    return "Any"
