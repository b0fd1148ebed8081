"""Checking a learner's code against a lesson's exercise, with the analysis `stepscope diagnose` runs.

The code is saved to a file of its own and opened as any graph file is (`load_target`, with a time limit),
its `graph` is run under the recorder, and the verdict says why it is not solved yet: the code does not load,
the run ended otherwise than it should, a finding the exercise is about is still there, or the result is
wrong (with what a right one is). An exercise is solved only when none of these holds.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from debugger.diagnostics import Finding, diagnose
from debugger.i18n import _
from debugger.runtimes.targets import TargetError, load_target
from debugger.sources.recording import record_run
from engine.trace import Trace
from sample_graphs.exercises import Exercise

RUN_SECONDS = 30.0
"""Code that never ends (an endless loop of the learner's) stops after this long."""


@dataclass
class Verdict:
    """What checking the learner's code found."""

    solved: bool
    reasons: list[str] = field(default_factory=list)
    """Why it is not solved yet, one sentence each (empty when solved)."""
    findings: list[Finding] = field(default_factory=list)
    trace: Trace | None = None
    state: dict[str, Any] | None = None


def check(exercise: Exercise, code: str) -> Verdict:
    """Runs `code` as the lesson's module and judges it (see the module docstring)."""
    with tempfile.TemporaryDirectory(prefix="stepscope-exercise-") as folder:
        path = Path(folder) / f"{exercise.lesson}_exercise.py"
        path.write_text(code, encoding="utf-8")
        try:
            loaded = load_target(str(path), timeout=RUN_SECONDS)
        except TargetError as exc:
            where = _(" (line {line})").format(line=exc.line) if exc.line else ""
            return Verdict(False, [_("Your code does not load{where}: {error}").format(where=where, error=exc)])
        outcome = record_run(
            loaded.graph,
            loaded.example_input,
            dict(loaded.example_config or {}),
            target=f"exercise:{exercise.lesson}",
            timeout=RUN_SECONDS,
        )
    trace = outcome.trace
    reasons: list[str] = []
    if trace.status != exercise.status:
        error = (trace.error or {}).get("message", "").splitlines()
        said = f": {error[0]}" if error else ""
        reasons.append(
            _("The run ended with status '{status}', not '{wanted}'").format(
                status=trace.status, wanted=exercise.status
            )
            + said
        )
    findings = diagnose(loaded.graph, trace)
    for finding in findings:
        if finding.kind in exercise.gone:
            step = "" if finding.step is None else _(" (step {step})").format(step=finding.step)
            reasons.append(_("Still there{step}: {finding}").format(step=step, finding=finding.title))
    state = outcome.output if isinstance(outcome.output, dict) else None
    if trace.status == exercise.status and not _holds(exercise, state):
        reasons.append(
            _("The result is not right yet: a right run ends with {expected}.").format(expected=_(exercise.expected))
        )
    return Verdict(not reasons, reasons, findings, trace, state)


def _holds(exercise: Exercise, state: dict[str, Any] | None) -> bool:
    """The exercise's check of the final state; a check that cannot read this state does not hold."""
    if state is None:
        return False
    try:
        return bool(exercise.expect(state))
    except Exception:  # the learner's state has another shape (a missing key, another type): not right
        return False
