"""The one walk over a run's steps that feeds every trace rule (`recorded.py`).

Each rule is an object with a small state of its own: `observe(seen)` once per step, in the run's order,
then `finish()` gives its findings. The walk reads each step once (a long trace's steps stay on disk and
are decoded one at a time), folds the state as it goes (`seen.start`: what the step started from) and
keeps nothing per step: ten rules walking the run each on its own decoded every step eight times and
folded the state four times.

What a rule sees is what `RunFacts` gives for the step's number: `seen.numbered` is `facts.steps[number]`
and `seen.start` is `facts.start_state(number)`. They are the stored step and the folded state, except
where a number is used twice (a state edit beside its superstep), whose number names its last step.
"""

from __future__ import annotations

from functools import cached_property
from typing import Any, Iterable, Protocol

from engine.codec import apply_delta
from engine.trace import ReducerCallRecord, StepRecord

from .facts import RunFacts
from .findings import Finding
from .replay import MISSING_VALUE, fold_calls

CallWithValues = tuple[ReducerCallRecord, Any, Any, Any]
"""A reducer call with the channel's value before its `before` delta (prior), the value the reducer got
(before) and its result (after)."""


class Rule(Protocol):
    """One diagnostic over a recorded run, fed one step at a time."""

    def observe(self, seen: SeenStep) -> None: ...

    def finish(self) -> list[Finding]: ...


class Collecting:
    """A rule's common part: its run and the findings it has made so far."""

    def __init__(self, facts: RunFacts) -> None:
        self.facts = facts
        self.found: list[Finding] = []

    def observe(self, seen: SeenStep) -> None:
        """Nothing by default: a rule that only looks at the run as a whole decides in `finish`."""

    def finish(self) -> list[Finding]:
        return self.found


class SeenStep:
    """One step of the walk: the stored record, the step its number names, and the state it started from."""

    def __init__(self, record: StepRecord, numbered: StepRecord, start: dict[str, Any]) -> None:
        self.record = record
        """The step as stored at this place of the run."""
        self.numbered = numbered
        """The step its number names (`facts.steps[record.step]`): the same one unless the number is used twice."""
        self.start = start
        """The encoded state `numbered` started from, empty keys left out. Do not mutate it."""

    @property
    def step(self) -> int:
        return self.record.step

    @cached_property
    def calls(self) -> list[CallWithValues]:
        """Each reducer call of `numbered` with its values, folded from `start` (committed or not)."""
        values = dict(self.start)
        rows = []
        for call in self.numbered.reducer_calls:
            prior = values.get(call.channel, MISSING_VALUE)
            before = apply_delta(prior, call.before)
            after = before if call.error is not None else apply_delta(before, call.after)
            values[call.channel] = after
            rows.append((call, prior, before, after))
        return rows


def walk(facts: RunFacts, rules: Iterable[Rule]) -> None:
    """Feeds every step of the run to each rule, in order, reading each step once."""
    rules = list(rules)
    positions = facts.replay.position
    values: dict[str, Any] = {}
    """The state after the previous step, as `Replay` folds it (a step that did not commit changes nothing)."""
    for index, record in enumerate(facts.run.steps):
        number = record.step
        exact = positions.get(number) == index
        numbered = record if exact else facts.steps[number]
        start = {k: v for k, v in values.items() if v != MISSING_VALUE} if exact else facts.start_state(number)
        facts.remember_start(number, start)  # the rules' own look-ups of this step's start are answered from it
        seen = SeenStep(record, numbered, start)
        for rule in rules:
            rule.observe(seen)
        values = _state_after(values, seen, exact)


def _state_after(values: dict[str, Any], seen: SeenStep, exact: bool) -> dict[str, Any]:
    """The state after `seen.numbered`'s barrier: its reducer calls' results, then its residual changes."""
    step = seen.numbered
    if not step.committed:
        return values
    if not exact:  # `seen.calls` started from where the number's last step did, not from here
        after = dict(values)
        fold_calls(after, step)
        return after
    after = dict(values)
    for call, _prior, _before, result in seen.calls:
        after[call.channel] = result
    for key, change in step.state.items():
        after[key] = apply_delta(after.get(key, MISSING_VALUE), change)
    return after


def findings_of(facts: RunFacts, rule: Rule) -> list[Finding]:
    """One rule walked over the run on its own (for a caller that wants only its findings)."""
    walk(facts, [rule])
    return rule.finish()
