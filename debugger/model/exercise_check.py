"""Checking a learner's code against a lesson's exercise, with the analysis `stepscope diagnose` runs.

The code is the learner's, so all of this happens in a child process under limits (`debugger.sandbox`): there
it is saved to a file of its own and opened as any graph file is (`load_target`, with a time limit),
its `graph` is run under the recorder, and the verdict says why it is not solved yet: the code does not load,
the run ended otherwise than it should, a finding the exercise is about is still there, or the result is
wrong (with what a right one is). An exercise is solved only when none of these holds.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from debugger import i18n, sandbox
from debugger.diagnostics import Finding, diagnose
from debugger.i18n import _
from debugger.model import present, run_status
from debugger.runtimes.targets import TargetError, load_target
from debugger.sandbox.limits import Limits, raise_if_out_of_memory
from debugger.sources.recording import record_run
from engine.trace import Trace
from sample_graphs.exercises import EXERCISES, Exercise

RUN_SECONDS = 30.0
"""Code that waits without end stops after this long (one that computes without end, at the CPU limit)."""


LIMITS = Limits(cpu_seconds=5, memory_mb=512, wall_seconds=RUN_SECONDS + 5)
"""What the learner's code may use in its child process (the wall limit leaves the run's own timeout its say)."""


@dataclass
class Verdict:
    """What checking the learner's code found."""

    solved: bool
    reasons: list[str] = field(default_factory=list)
    """Why it is not solved yet, one sentence each in Markdown (empty when solved)."""


def check(exercise: Exercise, code: str) -> Verdict:
    """Judges `code` as the lesson's module (see the module docstring). The code is the learner's: it runs in
    a child process (`debugger.sandbox`, `check_request`), never here; a limit it passes is the one reason."""
    request = {"lesson": exercise.lesson, "code": code}
    try:
        answer = sandbox.run("exercise", request, LIMITS, what=_("your code"))
    except sandbox.TypedCodeStopped as exc:
        return Verdict(False, [present.md(str(exc))])
    return Verdict(answer["solved"], answer["reasons"])


def check_request(request: dict[str, Any]) -> dict[str, Any]:
    """The sandbox child's job: `check_here` of the request's lesson and code, as data."""
    verdict = check_here(EXERCISES[request["lesson"]], request["code"])
    return {"solved": verdict.solved, "reasons": verdict.reasons}


def check_here(exercise: Exercise, code: str) -> Verdict:
    """Runs `code` as the lesson's module and judges it, in this process (the sandbox child's)."""
    with tempfile.TemporaryDirectory(prefix="stepscope-exercise-") as folder:
        path = Path(folder) / f"{exercise.lesson}_exercise.py"
        path.write_text(code, encoding="utf-8")
        try:
            loaded = load_target(str(path), timeout=RUN_SECONDS)
        except TargetError as exc:
            if isinstance(exc.__context__, MemoryError):  # the memory limit stopped the import, not the code's bug
                raise MemoryError from None
            where = _(" (line {line})").format(line=exc.line) if exc.line else ""
            return Verdict(
                False, [_("Your code does not load{where}: {error}").format(where=where, error=present.md(exc))]
            )
        outcome = record_run(
            loaded.graph,
            loaded.example_input,
            dict(loaded.example_config or {}),
            target=f"exercise:{exercise.lesson}",
            timeout=RUN_SECONDS,
        )
    trace = outcome.trace
    raise_if_out_of_memory(trace.error)
    state = outcome.output if isinstance(outcome.output, dict) else None
    findings = diagnose(loaded.graph, trace)
    reasons = judged(exercise, trace, state, findings)
    return Verdict(not reasons, reasons)


def judged(exercise: Exercise, trace: Trace, state: dict[str, Any] | None, findings: list[Finding]) -> list[str]:
    """Why the run is not right yet, in Markdown (the learner's values and errors escaped), judged by what the
    run did: how it ended and with what state, then what diagnose found in it (whatever the learner's code
    is now, not the lesson's cause), and the exercise's own findings still there. Empty when it is solved."""
    reasons: list[str] = []
    if trace.status != exercise.status:
        error = (trace.error or {}).get("message", "").strip().splitlines()
        reasons.append(
            _("The run ended {status}, not {wanted}{error}.").format(
                status=f"`{present.code(run_status.label(trace.status, trace.error))}`",
                wanted=f"`{present.code(run_status.label(exercise.status))}`",
                error=_(": {error}").format(error=present.md(error[0])) if error else "",
            )
        )
    elif not _holds(exercise, state):
        reasons.append(
            _("The run ended with {state}; a right run ends like this: {expected}.").format(
                state=ended_with(state), expected=_(exercise.expected)
            )
        )
    if reasons:  # why, as diagnose reads this run
        reasons += [_finding_line(f) for f in findings if f.severity in ("error", "warning")]
    else:
        reasons += [_finding_line(f, still=True) for f in findings if f.kind in exercise.gone]
    return list(dict.fromkeys(reasons))


def ended_with(state: dict[str, Any] | None) -> str:
    """The run's final state as the verdict says it: `log` = ['parent', 'parent', 'sub-1'], ..."""
    if not state:
        return _("no state")
    return i18n.join_names(
        f"`{present.code(key)}` = `{present.code(present.short(value, 80))}`" for key, value in state.items()
    )


def _finding_line(finding: Finding, still: bool = False) -> str:
    """A finding in one sentence: its step and title (the learner's node and key names escaped); `still`: one
    the exercise is about, left in a run whose result is right."""
    title = present.md(finding.title)
    if finding.step is None:
        return (_("Still there: {finding}") if still else "{finding}").format(finding=title)
    sentence = _("Still there in step {step}: {finding}") if still else _("In step {step}: {finding}")
    return sentence.format(step=finding.step, finding=title)


def _holds(exercise: Exercise, state: dict[str, Any] | None) -> bool:
    """The exercise's check of the final state; a check that cannot read this state does not hold."""
    if state is None:
        return False
    try:
        return bool(exercise.expect(state))
    except Exception:  # the learner's state has another shape (a missing key, another type): not right
        return False
