"""The turns of a thread: one `invoke` (new input) or one resume (`Command(resume=...)`) each, with what
it was given and the steps it ran.

A conversation on a checkpointer thread is several runs of one graph. A run recorded live is one turn
whose first step says where the thread stood; a thread read back from its checkpointer
(`stepscope show --checkpointer`) holds them all. Either way a turn shows in the steps the same way:

- the run's first step starts a turn, given the run's input (a `Command(resume=...)` input is a resume);
- a later new input is a step where no task ran (the checkpoint langgraph saves with the input, source
  `input`) followed by the step of the hidden `__start__` task that writes that input through the
  reducers; the turn starts at the empty step, and its input is what `__start__` wrote.

A resume inside a thread read back from its checkpointer is not told apart: the stored checkpoints of
the step that asked and of the step that answered are one and the same step.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from debugger.diagnostics.value_text import short
from debugger.i18n import _
from debugger.sources.trace_stream import step_numbers
from engine import START
from engine.codec import TYPE
from engine.trace import RunRecord, StepRecord


@dataclass(frozen=True)
class Turn:
    """One invoke or resume of a thread, within one recorded run."""

    number: int
    """1 for the run's first turn, then 2, 3, ... in step order."""
    first_step: int
    last_step: int
    resumed: bool
    """It answered an interrupt (`Command(resume=...)`) rather than giving new input."""
    given: Any
    """The encoded input (new input), or the encoded answer (a resume)."""

    def contains(self, step: int) -> bool:
        """Whether `step` is one of this turn's steps."""
        return self.first_step <= step <= self.last_step


def turns_of(run: RunRecord) -> tuple[Turn, ...]:
    """The run's turns in step order (one for a run of one invoke; none for a run with no steps). The steps
    are read once, in order, two at a time: a long run's stay where they are stored (`stepscope show`)."""
    numbers = step_numbers(run.steps)
    if not len(numbers):
        return ()
    in_order = all(a <= b for a, b in zip(numbers, numbers[1:]))
    steps = iter(run.steps if in_order else sorted(run.steps, key=lambda s: s.step))
    first, last = min(numbers), max(numbers)
    resumed, given = _run_input(run.input)
    starts: list[tuple[int, bool, Any]] = [(first, resumed, given)]
    before = next(steps)
    for after in steps:
        if not (before.step == first or before.step < 0 or before.kind != "loop" or before.tasks):
            written = _start_writes(after)
            if written is not None:
                starts.append((before.step, False, written))
        before = after
    ends = [step for step, _, _ in starts[1:]]
    return tuple(
        Turn(number, begin, (ends[number - 1] - 1) if number <= len(ends) else last, resumed, given)
        for number, (begin, resumed, given) in enumerate(starts, 1)
    )


def turn_label(turn: Turn) -> str:
    """`Turn 2 · step 3 · new input {'question': 'send'}` or `Turn 3 · step 5 · resumed with 'yes'`."""
    given = short(turn.given, 60)
    what = _("resumed with {value}") if turn.resumed else _("new input {value}")
    return _("Turn {number} · step {step} · {what}").format(
        number=turn.number, step=max(turn.first_step, 0), what=what.format(value=given)
    )


def turn_at(turns: tuple[Turn, ...], step: int) -> Turn | None:
    """The turn that `step` belongs to, or None."""
    return next((turn for turn in turns if turn.contains(step)), None)


def _run_input(encoded: Any) -> tuple[bool, Any]:
    """(is it a resume, what it gives): a `Command(resume=...)` input gives its answer."""
    if isinstance(encoded, dict) and encoded.get(TYPE) == "Command":
        fields = encoded.get("fields") or {}
        if "resume" in fields:
            return True, fields["resume"]
    return False, encoded


def _start_writes(record: StepRecord) -> dict[str, Any] | None:
    """What the `__start__` task of `record` wrote to the state (the new input), or None without one."""
    start = next((t for t in record.tasks if t.name == START), None)
    if start is None:
        return None
    return {channel: value for channel, value in start.writes if not channel.startswith(("branch:", "join:"))}


def only_turn(run: RunRecord, first_step: int, last_step: int) -> Turn:
    """The one turn of a run on no checkpointer thread, from `first_step` to `last_step`: what `turns_of`
    finds there (no later input can come in without a thread), known without reading a step."""
    resumed, given = _run_input(run.input)
    return Turn(1, first_step, last_step, resumed, given)
