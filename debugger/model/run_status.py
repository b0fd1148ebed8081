"""How a run's status reads, in every view: the CLI (`run`, `show`, `runs`, `diagnose`), the app's
sidebar, step page, run list and thread lists. One place, so no view words an ending differently.

The stored status is kept as it is for filters and JSON (`--status running` finds a cut-off run);
what people read comes from here. The status that needs words most is `running`: a stored run with
that status did not end. Its recording stopped mid-way, and nothing after its last recorded step is
known. Both run stores know when the recording process is gone (error class `RunCutOff`: it held a
lock that went with it); otherwise it may still be recording, and a checkpointer thread opened at a
chosen checkpoint stops there too, so the words for a `running` run without that error name each case.
"""

from __future__ import annotations

from typing import Any

from debugger.i18n import N_, _
from debugger.model.failures import is_interrupt

CUT_OFF_CLASS = "RunCutOff"

LABELS = {
    "done": N_("done"),
    "interrupted": N_("interrupted"),
    "error": N_("error"),
    "recursion_limit": N_("recursion limit"),
    "cancelled": N_("cancelled"),
    "timeout": N_("timed out"),
}
"""The badge word of each stored status (English; `label` says it in the current language)."""
RUNNING_LABELS = (N_("cut off"), N_("unfinished"))
ICONS = {
    "done": "✅",
    "interrupted": "⏸️",
    "error": "🛑",
    "recursion_limit": "🔁",
    "cancelled": "⏹️",
    "timeout": "⏱️",
    "cut off": "✂️",
    "unfinished": "⏳",
}


def _error_text(error: Any) -> tuple[str, str]:
    """(class, message) of a trace's error record, or of a run list's one-line error text."""
    if isinstance(error, dict):
        return str(error.get("class", "")), str(error.get("message", "") or "")
    return "", str(error or "")


def is_cut_off(status: str, error: Any = None) -> bool:
    """A `running` run whose recording process is known to be gone (the run store says so)."""
    kind, message = _error_text(error)
    return status == "running" and (kind == CUT_OFF_CLASS or message.startswith("Cut off"))


def stored_reason(error: Any) -> str:
    """The first line of a cut-off run's error when its store said why the recording stopped ("Cut off at
    step 14: the disk filled ..."); "" for the words every cut-off run gets ("Cut off: the process ...")."""
    line = _error_text(error)[1].strip().split("\n", 1)[0]
    return line if line.startswith("Cut off ") else ""


def _badge(status: str, error: Any = None) -> str:
    """The status's badge word in English: the key of its icon and of its translation."""
    if status == "running":
        return RUNNING_LABELS[0] if is_cut_off(status, error) else RUNNING_LABELS[1]
    return LABELS.get(status, status)


def label(status: str, error: Any = None) -> str:
    """The status as one or two words for lists and badges (`cut off`, not `running`), in the current language."""
    return _(_badge(status, error))


def icon(status: str, error: Any = None) -> str:
    return ICONS.get(_badge(status, error), ICONS.get(status, "•"))


def failure_site(run: Any) -> str:
    """Where a failed run failed, in words for `ending`'s `site`: " in step 2, where boom raised", " in step 1,
    where the writes to 'v' were refused"; "" when the run did not fail. A run fails in its last recorded step,
    so only that step is read (a long trace's other steps stay on disk)."""
    if run.status != "error" or not len(run.steps):
        return ""
    record = run.steps[-1]
    raised = tuple(dict.fromkeys(t.name for t in record.tasks if t.error and not is_interrupt(t.error)))
    refused = tuple(dict.fromkeys(repr(c.channel) for c in record.reducer_calls if c.error))
    if refused:
        return _(" in step {step}, where the writes to {keys} were refused").format(
            step=record.step, keys=", ".join(refused)
        )
    if raised:
        return _(" in step {step}, where {nodes} raised").format(step=record.step, nodes=", ".join(raised))
    return _(" in step {step}").format(step=record.step)


def ending(status: str, error: Any = None, *, after: str = "", site: str = "") -> str:
    """How the run ended, in a sentence. `after` names the last recorded step ("step 4", "3
    supersteps") so a run that did not end says where its recording stops; `site` says where a failed run
    failed (`failure_site`)."""
    kind, message = _error_text(error)
    first = message.strip().splitlines()[0] if message.strip() else ""
    where = _(" after {step}").format(step=after) if after else ""
    if status == "running":
        unknown = (
            _("nothing after {step} is known").format(step=after)
            if after
            else _("nothing after its last recorded step is known")
        )
        if stored_reason(error):  # the store knows why it stopped (a full disk): its words, not a guess
            return stored_reason(error)
        if is_cut_off(status, error):
            return _(
                "Cut off{where}: the process recording this run ended before the run did (killed, crashed or "
                "disconnected), so the recording stops there and {unknown}. The run has no final state."
            ).format(where=where, unknown=unknown)
        return _(
            "Not finished: the recording stops{where} and {unknown}. The run had not ended there: its "
            "recording process was cut off (killed or crashed), it is still recording (open it again to see "
            "more), or it was opened at a checkpoint before its end."
        ).format(where=where, unknown=unknown)
    if status == "done":
        return _("The run finished (done).")
    if status == "interrupted":
        return _("The run paused at an interrupt or a breakpoint (interrupted); resuming its thread goes on from here.")
    if status == "error":
        if first and kind and kind not in first:  # KeyError's message alone is just "'missing_field'"
            first = f"{kind}: {first}"
        if first:
            return _("The run failed (error){site}: {error}").format(site=site, error=first)
        return _("The run failed (error){site}.").format(site=site)
    if status == "recursion_limit":
        return _("The run hit its recursion limit (recursion_limit) and was stopped.")
    if status in ("cancelled", "timeout"):
        why = (
            _("The run was stopped before it finished (cancelled)")
            if status == "cancelled"
            else _("The run ran out of time (timeout)")
        )
        return why + (": " + first if first else _("{where}; nothing after that ran.").format(where=where))
    return _("The run ended with status {status}.").format(status=status)


def note(status: str, error: Any = None, *, after: str = "") -> str:
    """A run list's one-line note: the first line of the error, or, for a run that did not end,
    where its recording stops."""
    where = f" after {after}" if after else ""
    if status == "running":
        if stored_reason(error):
            return stored_reason(error)
        if is_cut_off(status, error):
            return f"Cut off{where}: the recording process ended; nothing after is known."
        return f"Recording stops{where}: cut off or still recording; nothing after is known."
    lines = _error_text(error)[1].strip().splitlines()
    return lines[0] if lines else ""
