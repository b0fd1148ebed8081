"""In-place mutation: a node that changed the state it received instead of returning an update.

The recorder snapshots every channel when it records it, so a later change made behind the engine's
back shows up as a difference between two records that should agree (see `engine/trace.py`):

- a reducer call whose `before` is not the channel's last recorded value: the value changed between
  the previous barrier and this merge, before any write of this step was applied;
- a step's `state` residual: the value changed at a barrier without any reducer call explaining it.

Nodes receive the state's own lists and dicts, not copies, so `state["notes"].append(x)` changes the
channel itself. The suspects are the step's tasks that received the key.

Limit: the snapshots compare a list's items (or a dict's values) by identity, so an item changed deep
inside (a message whose content was edited) is not seen.
"""

from __future__ import annotations

from typing import Any

from debugger.diagnostics.replay import MISSING_VALUE
from debugger.diagnostics.value_text import short
from debugger.i18n import _
from engine.codec import apply_delta

from .facts import INPUT_WRITERS, RunFacts, names, same
from .findings import Finding, Said, trace_finding
from .walk import Collecting, SeenStep, findings_of


class InPlaceMutations(Collecting):
    """The rule: a value that changed between two records that should agree, once per step and key."""

    def observe(self, seen: SeenStep) -> None:
        step, record = seen.step, seen.numbered
        tasks = [t for t in record.tasks if t.name not in INPUT_WRITERS]
        if step < 0 or not tasks or any(m.get("damaged") for m in record.mismatches):
            return  # a step whose stored data is damaged is reported as that (`mismatch.py`), not guessed at
        reported: set[str] = set()
        values = dict(seen.start)
        for call, prior, before, after in seen.calls:
            values[call.channel] = after
            if "same" in call.before or call.channel in reported or not _changed(prior, before):
                continue
            reported.add(call.channel)
            self.found.append(_finding(self.facts, step, call.channel, prior, before, call=call, after=after))
        # a committed value the step's calls do not fold to is a `committed_mismatch` (the graph is not the
        # one that ran, or its reducer is not pure), already reported as such: not a node's in-place edit
        mismatched = {m.get("channel") for m in record.mismatches}
        for key, change in record.state.items():
            if key in mismatched:
                continue
            prior = values.get(key, MISSING_VALUE)
            new = apply_delta(prior, change)
            if key not in reported and _changed(prior, new):
                reported.add(key)
                self.found.append(_finding(self.facts, step, key, prior, new))


def in_place_mutations(facts: RunFacts) -> list[Finding]:
    return findings_of(facts, InPlaceMutations(facts))


def _changed(prior: Any, new: Any) -> bool:
    """A real change to a value that existed (a channel clearing itself, or its first value, is not one)."""
    return prior != MISSING_VALUE and new != MISSING_VALUE and not same(prior, new)


def _finding(
    facts: RunFacts, step: int, key: str, prior: Any, new: Any, call: Any = None, after: Any = None
) -> Finding:
    """One finding: the nodes that may have done it, what changed and when, and the fix."""
    suspects = _suspects(facts, step, key, call)
    who = suspects[0] if len(suspects) == 1 else _("one of {nodes}").format(nodes=names(suspects))
    added = (
        new[len(prior) :]
        if isinstance(prior, list) and isinstance(new, list) and same(new[: len(prior)], prior)
        else None
    )
    explanation = _explanation(facts, step, key, prior, new, call, after, who)
    fix_value = short(added, 60) if added else "new_value"
    update = (
        _("Return an update instead of editing the state"),
        f'return {{"{key}": {fix_value}}}   # return the change; never edit state in place',
    )
    copy = (
        _("If the node needs a changed copy for its own use, copy first"),
        f'items = list(state["{key}"])   # or dict(...); then change the copy',
    )
    said = Said(_("{who} changed {key} in place").format(who=who, key=repr(key)), explanation, [update, copy])
    return trace_finding(
        "in_place_mutation",
        "error",
        said,
        facts.scope,
        step,
        node=suspects[0] if suspects else None,
        key=key,
        nodes=tuple(suspects),
        evidence=(
            {
                "before": prior,
                "after": new,
                "text": f"{short(prior, 40)} → {short(new, 40)}",
                "seen_at": "merge" if call is not None else "barrier",
            },
        ),
    )


def _suspects(facts: RunFacts, step: int, key: str, call: Any) -> list[str]:
    """The step's tasks that received `key` (else all of them), the writer of `call` first."""
    tasks = [t for t in facts.tasks(step) if t.name not in INPUT_WRITERS]
    suspects = [t.name for t in tasks if key in facts.input_keys(t)] or [t.name for t in tasks]
    if call is not None and call.writer_name in suspects:
        suspects.remove(call.writer_name)
        suspects.insert(0, call.writer_name)
    return list(dict.fromkeys(suspects))


def _explanation(facts: RunFacts, step: int, key: str, prior: Any, new: Any, call: Any, after: Any, who: str) -> str:
    """What changed and when, who received it, and what else the change did (or how a reducer could be the cause)."""
    index = facts.replay.position[step]
    previous = _("after step {step}").format(step=facts.order[index - 1]) if index > 0 else _("when the run started")
    if call is not None:
        what = _(
            "it was {before} {previous} and {after} when {node}'s write was merged in step {step}, before any "
            "write of that step had been applied"
        ).format(before=short(prior, 50), previous=previous, after=short(new, 60), node=call.writer_name, step=step)
    else:
        what = _(
            "it was {before} {previous} and {after} after step {step}, but no task of step {step} wrote {key}"
        ).format(before=short(prior, 50), previous=previous, after=short(new, 60), step=step, key=repr(key))
    explanation = _(
        "{key} changed behind the engine's back: {what}. {who} received {key} and changed it in place (e.g. "
        "`state[{key}].append(...)`): nodes get the state's own lists and dicts, not copies, so editing them edits "
        "the state itself. "
    ).format(key=repr(key), what=what, who=who)
    if call is not None and same(call.write, new) and after is not None and not same(after, new):
        explanation += _(
            "Returning that same object then made {reducer} merge the grown value into itself: {key} = {after}. "
        ).format(reducer=call.reducer, key=key, after=short(after, 60))
    elif call is None:
        explanation += _(
            "Nothing recorded the change as an update: the `updates` stream shows nothing for it, a checkpointer "
            "keeps the old value, and the change cannot be replayed or explained. "
        )
    if call is not None and same(new, after) and call.write not in ([], None):
        explanation += _("(Or the reducer {reducer} itself modified its first argument in place.) ").format(
            reducer=call.reducer
        )
    explanation += _("Treat the state as read-only and return only the change.")
    return explanation
