"""Learn mode: the learner predicts what each reducer call gives before it is revealed. Pure: no
Streamlit; `check_call` says whether a guess is right and, if not, what the call really did.

A sample's lesson says what its merges give (that is its point), so learn mode keeps it back until the
learner has guessed every reducer call of the run (`lesson_progress`); meanwhile the sample's
`learn_prompt`, its set-up without the results, stands in its place (`prompt`)."""

from __future__ import annotations

import ast
import json
from dataclasses import dataclass
from typing import Any, Iterable

from debugger.i18n import N_, _
from debugger.model.merge_calls import MergeCall
from debugger.model.present import short
from debugger.model.run_view import RunView
from engine.codec import decode
from sample_graphs.gallery import SAMPLES, load_sample

GENERIC_PROMPT = N_(
    "Learn mode keeps the lesson back: it tells what the merges give. Step through the run and guess each "
    "reducer call in the Merge tab; the lesson appears once you have guessed them all."
)


@dataclass(frozen=True)
class Verdict:
    right: bool
    text: str


def parse_guess(text: str) -> Any:
    """A learner's predicted value, as JSON or a Python literal; raises ValueError with a hint."""
    text = text.strip()
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError):
        raise ValueError(_("Write the value as JSON or a Python literal, e.g. ['a', 'b'] or 3 or 'text'.")) from None


def _matches(guess: Any, encoded: Any) -> bool:
    actual = decode(encoded)
    if guess == actual:
        return True
    if isinstance(actual, list) and actual and not isinstance(actual[0], (str, int, float)):
        return guess == [short(x) for x in actual]  # messages and objects: their one-line previews
    return False


def check_call(view: RunView, step: int, index: int, guess: Any) -> Verdict:
    """Whether `guess` is the channel's value after reducer call `index` of `step`."""
    item = next((m for m in view.merge(step) if m.call.index == index), None)
    if item is None:
        return Verdict(False, _("Step {step} has no reducer call #{index}.").format(step=step, index=index))
    channel = item.call.channel
    if item.call.error is not None:
        return Verdict(
            False, _("Trick question: the barrier refused this write. {sentence}.").format(sentence=item.sentence)
        )
    if _matches(guess, item.after):
        return Verdict(
            True,
            _("Right: {key} is {value}. {sentence}.").format(
                key=repr(channel), value=short(item.after, 120), sentence=item.sentence
            ),
        )
    later = view.merge_by_channel(step)[channel][-1]
    note = (
        _(" You gave the value after the whole merge, not after this call.")
        if (later is not item and _matches(guess, later.after))
        else ""
    )
    return Verdict(
        False,
        _("Not quite: {key} is {value} after call #{index}. {sentence}.").format(
            key=repr(channel), value=short(item.after, 120), index=index, sentence=item.sentence
        )
        + note,
    )


def _sets_item(item: MergeCall, index: int) -> bool:
    """Whether this reducer call put (or changed) the list item at `index`."""
    before, after = item.before, item.after
    if not isinstance(after, list) or index >= len(after):
        return False
    return not isinstance(before, list) or index >= len(before) or before[index] != after[index]


def check_guess(view: RunView, step: int, channel: str, guess: Any) -> tuple[bool, str]:
    """Whether the guess equals the channel's value after the whole merge; if not, which call made the difference."""
    calls = view.merge_by_channel(step).get(channel, [])
    if not calls:
        return False, _("{key} was not written in step {step}.").format(key=repr(channel), step=step)
    final = calls[-1]
    if _matches(guess, final.after):
        return True, _("Right: {key} is {value} after the merge.").format(
            key=repr(channel), value=short(final.after, 120)
        )
    actual = decode(final.after)
    culprit = final
    if isinstance(actual, list) and isinstance(guess, list):
        index = next((i for i, (a, g) in enumerate(zip(actual, guess)) if a != g), min(len(actual), len(guess)))
        culprit = next((item for item in calls if _sets_item(item, index)), culprit)
    return False, _(
        "Not quite: {key} is {value}. The difference comes from reducer call #{index} by {writer}: {sentence}."
    ).format(
        key=repr(channel),
        value=short(final.after, 120),
        index=culprit.call.index,
        writer=culprit.writer,
        sentence=culprit.sentence,
    )


def lesson_progress(view: RunView, guessed: Iterable[tuple[int, int]]) -> tuple[int, int]:
    """(calls guessed, calls in the run): `guessed` holds the (step, call index) pairs of the root run
    the learner has guessed."""
    calls = {(step, m.call.index) for step in view.steps for m in view.merge(step)}
    return len(calls & set(guessed)), len(calls)


def prompt(target: str) -> str:
    """What learn mode shows while the lesson is kept back: the sample's `learn_prompt` (its set-up,
    without the results), else a general word on why the lesson waits."""
    if target not in SAMPLES:
        return _(GENERIC_PROMPT)
    return _(getattr(load_sample(target), "learn_prompt", "") or GENERIC_PROMPT)
