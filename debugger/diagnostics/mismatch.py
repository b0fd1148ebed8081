"""Committed values that the recorded reducer calls do not explain (`StepRecord.mismatches`).

The live langgraph recorder and a thread read from a checkpointer both fold each step's writes with
the graph's reducers and compare the result with what langgraph committed (or the checkpoint stored).
A difference means the record cannot be trusted there: the graph given is not the one that ran the
thread (code changed since), a reducer is not deterministic or has side effects, or a node changed
the state in place. It is always reported, as an error, with both values. A mismatch with `damaged` set
is not about a key: the step's stored data (a checkpoint or a write) is corrupt, which is reported as
damaged data, never as a bug of the app's.
"""

from __future__ import annotations

from typing import Any

from debugger.diagnostics.value_text import short
from debugger.i18n import _
from engine.trace import StepRecord

from .facts import RunFacts
from .findings import Finding, Said, trace_finding
from .walk import Collecting, SeenStep, findings_of


class RecordedMismatches(Collecting):
    """The rule: each mismatch a step recorded, as a damaged step or as a value its writes do not fold to."""

    def observe(self, seen: SeenStep) -> None:
        for mismatch in seen.record.mismatches:
            if mismatch.get("damaged"):
                self.found.append(_damaged(self.facts, seen.step, mismatch["damaged"]))
            else:
                self.found.append(_mismatch(self.facts, seen.record, mismatch))


def recorded_mismatches(facts: RunFacts) -> list[Finding]:
    return findings_of(facts, RecordedMismatches(facts))


def _mismatch(facts: RunFacts, step: StepRecord, mismatch: dict[str, Any]) -> Finding:
    key = mismatch.get("channel")
    recorded, committed = mismatch.get("recorded"), mismatch.get("committed")
    writers = sorted({c.writer_name for c in step.reducer_calls if c.channel == key})
    return trace_finding(
        "committed_mismatch",
        "error",
        Said(
            _("{key} after step {step} is not what its writes fold to").format(key=repr(key), step=step.step),
            _(
                "Folding step {step}'s writes to {key} with the graph's reducer gives "
                "{recorded}, but the run committed {committed}. "
                "The views show the committed value from here on. "
                "Either the graph given is not the one that ran (for a checkpointer thread: the app's code "
                "changed since), the reducer is not deterministic or changes its arguments, or a node "
                "({writers}) changed the state in place."
            ).format(
                step=step.step,
                key=repr(key),
                recorded=short(recorded, 80),
                committed=short(committed, 80),
                writers=", ".join(writers) or _("of this step"),
            ),
            [
                (
                    _("Compare with the app's code at the time of the run"),
                    "# open the thread with the graph version that wrote it; keep reducers pure",
                )
            ],
        ),
        facts.scope,
        step.step,
        key=key,
        node=writers[0] if writers else None,
        nodes=tuple(writers),
        evidence=(
            {
                "before": recorded,
                "after": committed,
                "text": _("folded {recorded} ≠ committed {committed}").format(
                    recorded=short(recorded, 40), committed=short(committed, 40)
                ),
            },
        ),
    )


def _damaged(facts: RunFacts, step: int, what: str) -> Finding:
    """A step whose stored data is corrupt: the data, not the app, is what is wrong."""
    return trace_finding(
        "damaged_data",
        "error",
        Said(
            _("step {step}'s stored data is damaged").format(step=step),
            _("Step {step}: {what}. The other steps are read from the data that decodes.").format(step=step, what=what),
            [
                (
                    _("The stored bytes are corrupt; the app's code is not at fault"),
                    "# restore the checkpointer database from a backup, or keep the thread's other steps",
                )
            ],
        ),
        facts.scope,
        step,
    )
