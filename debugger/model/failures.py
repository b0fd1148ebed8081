"""What went wrong in a step, in plain words, with the fixes. The words are `stepscope diagnose`'s
where it has a finding for the failure (a refused write), so the app's Errors tab and the command
line say the same; a node that raised and a run stopped by its recursion limit are told here. The
tasks that caused a failure (culprits) are told apart from the step's other tasks (bystanders, whose
writes were discarded with the step)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from debugger.i18n import _, ngettext

if TYPE_CHECKING:
    from debugger.model.run_view import RunView


@dataclass(frozen=True)
class ErrorReport:
    """A failing step, in plain words, with the fixes (from a `Finding` when diagnose has one)."""

    title: str
    """What failed, in one line: `plan raised ValueError`, `add refused a write to 'log'`."""
    message: str
    """The error's own message, as the runtime gave it."""
    explanation: str
    """Why the step failed and what that did to the state, in plain words ('' for a run's bare error)."""
    key: str | None = None
    """The state key whose write was refused, or None."""
    writers: tuple[tuple[str, Any], ...] = ()
    """For a refused write: (writer, value) of every write to the key in that step."""
    fixes: tuple[tuple[str, str], ...] = ()
    """(what to do, code snippet)."""
    traceback: str = ""
    """The node's traceback, when it raised."""
    culprits: tuple[str, ...] = ()
    """The tasks that caused the failure; the step's other tasks are bystanders."""


def is_interrupt(error: dict[str, Any]) -> bool:
    return error.get("class") in ("GraphInterrupt", "NodeInterrupt")


STOPPED, NOT_COMMITTED = "RunCancelled", "StepNotCommitted"
"""The error classes a stopped run gives the tasks of the step it stopped in (`debugger/live/ending.py`):
the ones still running, and the ones that had finished but whose step never committed."""


def is_stopped(error: dict[str, Any] | None) -> bool:
    """The run was stopped from outside (Stop, Ctrl-C): nothing the task did went wrong."""
    return error is not None and error.get("class") in (STOPPED, NOT_COMMITTED)


def cut_short(task: Any) -> bool:
    """A task of an uncommitted step that a stopped run left unfinished: no result, no writes, and no
    error but the stop's own. (A sibling that had finished ran: it has its result, or `NOT_COMMITTED`.)"""
    if task.error is not None:
        return task.error.get("class") == STOPPED
    return task.result is None and not task.writes


def _is_plain_key_refusal(call: Any) -> bool:
    """A key without a reducer refusing a second write in one step (LangGraph's InvalidUpdateError)."""
    return bool(call.error) and call.error.get("class") == "InvalidUpdateError"


def _finding_report(view: RunView, record: Any, finding: Any) -> ErrorReport:
    """An error finding of `record`'s step as the Errors tab shows it, with the writes to its key."""
    writers = tuple((view.writer_label(record, c), c.write) for c in record.reducer_calls if c.channel == finding.key)
    message = next((c.error["message"] for c in record.reducer_calls if c.error and c.channel == finding.key), "")
    return ErrorReport(
        finding.title,
        message,
        finding.explanation,
        finding.key,
        writers,
        ((finding.fix_label, finding.fix), *finding.other_fixes),
        "",
        tuple(finding.nodes or (finding.node,)),
    )


def step_errors(view: RunView, step: int) -> list[ErrorReport]:
    """What went wrong in `step`: diagnose's error findings there, else the raw failure in words, each kind
    (a refused write, a node that raised, the recursion limit, the run's own error) in its own."""
    record = view.by_step.get(step)
    if record is None:
        return []
    culprits = view.culprits(step)
    names = tuple(dict.fromkeys(t.name for t in record.tasks if t.id in culprits))
    reports = _diagnosed(view, record, failed=not record.committed or bool(culprits))
    if reports:
        return reports
    report = (
        _refused_write(record, names)
        or _raised(view, record, culprits, names)
        or (_run_error(view) if step == view.failed_step else None)
    )
    return [report] if report else []


def _diagnosed(view: RunView, record: Any, *, failed: bool) -> list[ErrorReport]:
    """Diagnose's error findings of a failed step, as the Errors tab shows them."""
    step = record.step
    reports = [_finding_report(view, record, f) for f in view.findings_at(step) if failed and f.severity == "error"]
    if not reports and any(_is_plain_key_refusal(c) for c in record.reducer_calls):
        # a view made without diagnose's findings (the playground's): the same finding, so a plain key is
        # never said to have a reducer that raised; imported here, as the run's analysis is not loaded by a
        # command that reaches this module (stepscope run, via the live page's helpers) before it shows a merge
        from debugger.diagnostics.conflicts import concurrent_updates

        found = [f for f in concurrent_updates(view.facts) if f.step == step]
        reports = [_finding_report(view, record, f) for f in found]
    return reports


def _refused_write(record: Any, culprits: tuple[str, ...]) -> ErrorReport | None:
    """The first reducer call of the step that raised."""
    call = next((c for c in record.reducer_calls if c.error), None)
    if call is None:
        return None
    return ErrorReport(
        _("{reducer} refused a write to {key}").format(reducer=call.reducer, key=repr(call.channel)),
        call.error["message"],
        _(
            "The reducer of {key} raised while merging step {step}, so the step failed and none of its "
            "writes were applied."
        ).format(key=repr(call.channel), step=record.step),
        call.channel,
        tuple((c.writer_name, c.write) for c in record.reducer_calls if c.channel == call.channel),
        culprits=culprits,
    )


def _raised(view: RunView, record: Any, culprit_ids: set[str], culprits: tuple[str, ...]) -> ErrorReport | None:
    """The first task of the step that raised (an interrupt is no failure), and the bystanders it cost."""
    task = next((t for t in record.tasks if t.error and not is_interrupt(t.error)), None)
    if task is None:
        return None
    others = [view.label(t) for t in record.tasks if t.id not in culprit_ids]
    bystanders = (
        " "
        + ngettext(
            "{tasks} finished, but its writes were discarded with the step.",
            "{tasks} finished, but their writes were discarded with the step.",
            len(others),
        ).format(tasks=", ".join(others))
        if others
        else ""
    )
    return ErrorReport(
        title=_("{task} raised {error}").format(task=view.label(task), error=task.error["class"]),
        message=task.error["message"],
        explanation=_(
            "The node {node} raised an exception in step {step}, so none of the step's writes were applied: "
            "the state stays as it was after the previous step."
        ).format(node=repr(task.name), step=record.step)
        + bystanders,
        traceback=task.error.get("traceback", ""),
        culprits=culprits,
    )


def _run_error(view: RunView) -> ErrorReport | None:
    """The run's own error, told in the step it failed in: the recursion limit with its fixes."""
    error = view.run.error
    if not error:
        return None
    if error["class"] != "GraphRecursionError":
        return ErrorReport(error["class"], error["message"], "", traceback=error.get("traceback", ""))
    explanation = _(
        "The run was stopped after {count} supersteps without reaching END. "
        "A loop whose exit condition never becomes true runs until the recursion limit."
    ).format(count=view.run.recursion_limit)
    fixes = (
        (_("Make the loop's router return END when it is done"), 'return END if done(state) else "again"'),
        (_("Allow more supersteps if the loop is meant to be long"), 'graph.invoke(inp, {"recursion_limit": 100})'),
    )
    return ErrorReport(error["class"], error["message"], explanation, fixes=fixes)
