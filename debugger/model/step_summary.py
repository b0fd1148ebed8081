"""The step summary beside the drawing, as lines of Markdown: who ran, why, what the barrier did, what
went wrong (a duplicated item, a lost update, an error, a finding) and what runs next. Pure: the step
page renders each line with the element its `kind` names.

In learn mode, while the step's merge is still hidden (the learner has not guessed every call), no line
says what the merge gave: not the duplicate, not the lost update, not a refused write or a finding. A
line in their place says that the answer comes once the learner has guessed.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from debugger import i18n
from debugger.i18n import _, ngettext
from debugger.model import run_status
from debugger.model.present import code, md, short
from debugger.model.run_view import RunView
from debugger.model.trace_view import Cursor
from debugger.model.turns import Turn, turn_at
from engine import START

SUMMARY_TASKS = 4
"""The step summary explains this many tasks; the tabs list them all."""


@dataclass(frozen=True)
class Line:
    """One line of the summary: `kind` is the element it is shown as."""

    kind: str
    """`heading`, `text`, `caption`, `bullet`, `info`, `warning`, `lost`, `error` or `finding`."""
    text: str


def merge_hidden(view: RunView, at: Cursor, learning: bool) -> bool:
    """Learn mode with this step's merge not yet all revealed: its results stay unsaid."""
    return learning and at.call is not None and at.call < len(view.merge(at.step))


def summary(view: RunView, at: Cursor, *, learning: bool = False, errors_tab: bool = True) -> list[Line]:
    """The summary of the step at `at`, line by line. `errors_tab`: the host has the page's Errors tab to
    point a failure to (the HTML file and the notebook widget have not)."""
    step = at.step
    lines = _who_ran(view, step)
    hidden = merge_hidden(view, at, learning)
    # what went wrong comes right after who ran: the summary scrolls in a box as tall as the drawing
    if hidden:
        lines.append(
            Line(
                "info",
                _(
                    "🎓 Learn mode: what this step's merge gave (and anything wrong with it) is shown once you have "
                    "guessed each reducer call in the Merge tab."
                ),
            )
        )
    else:
        lines += _trouble(view, step, errors_tab)
    triggers = [t for t in view.triggers(step) if t.task != START]
    lines += [Line("bullet", md(t.sentence())) for t in triggers[:SUMMARY_TASKS]]
    if len(triggers) > SUMMARY_TASKS:
        lines.append(
            Line("bullet", _("… and {count} more (see the Tasks tab)").format(count=len(triggers) - SUMMARY_TASKS))
        )
    lines += _barrier(view, step, hidden)
    lines += _next(view, step)
    return lines


def _who_ran(view: RunView, step: int) -> list[Line]:
    """The step's heading, who ran (or where a turn starts), and what a step with no node or START's is."""
    unfinished = view.unfinished(step)
    tasks = view.tasks(step)
    stopped = i18n.join_names(f"**{md(view.label(t))}**" for t in tasks if t.id in unfinished)
    tasks = [t for t in tasks if t.id not in unfinished]  # the ones that ran
    record = view.by_step.get(step)
    turn = turn_at(view.turns, step)
    starts = turn is not None and turn.first_step == step >= 0 and not tasks and not stopped
    starts = starts and record is not None and record.kind == "loop"
    lines = [Line("heading", _heading(view, step, turn if starts else None))]
    if starts:  # a new input or an answer to an interrupt: where a turn of the thread begins
        lines.append(_turn_start(view, turn))
    else:
        lines.append(_what_ran(view, step, tasks, stopped))
    edited = record is not None and record.kind == "update"
    if any(t.name == START for t in tasks):
        lines.append(
            Line(
                "caption",
                _("Step {step} is the hidden `__start__` task: it writes the graph input through the reducers.").format(
                    step=step
                ),
            )
        )
    elif not tasks and not stopped and step >= 0 and not starts and not edited:
        lines.append(
            Line(
                "caption",
                _(
                    "No node ran in step {step}: it is a saved checkpoint (where a resumed run picked up its thread, "
                    "or a state update), not a superstep of nodes."
                ).format(step=step),
            )
        )
    return lines


def _what_ran(view: RunView, step: int, tasks: list[Any], stopped: str) -> Line:
    """Who ran in the step: a person's edit at a pause, tasks the run's stop cut short, or the nodes."""
    label = _("the input") if step < 0 else _("step {step}").format(step=step)
    names = i18n.join_names(f"**{md(view.label(t))}**" for t in tasks) or _("no task")
    parallel = _(" (in parallel)") if len(tasks) > 1 else ""
    record = view.by_step.get(step)
    if record is not None and record.kind == "update":  # an edit made at a pause of a live run
        writers = i18n.join_names(sorted({c.writer_name for c in record.reducer_calls}))
        return Line(
            "text",
            _(
                "In {label}, **a person edited the state** at a pause of a live run, as **{writers}**: "
                "no node ran; the values went through the reducers as that node's write (`update_state`)."
            ).format(label=label, writers=md(writers)),
        )
    if stopped:
        ran = _("{names} ran").format(names=names) + parallel + _("; ") if tasks else ""
        return Line(
            "text",
            _("In {label}, {ran}{stopped} never finished: the run stopped first, so the step never committed.").format(
                label=label, ran=ran, stopped=stopped
            ),
        )
    return Line(
        "text",
        _("In {label}, {names} ran{parallel}{inside}.").format(
            label=label, names=names, parallel=parallel, inside=_inside_subgraphs(view, step)
        ),
    )


def _heading(view: RunView, step: int, starting: Turn | None) -> str:
    """`Superstep 4`, `Input`; in a run of several turns `Turn 2 · superstep 4`; where a turn starts
    `Turn 2 · new input (step 3)` (or `Resumed (step 5)`)."""
    turn = turn_at(view.turns, step)
    if turn is not None and len(view.turns) > 1:
        what = _("input") if step < 0 else _("superstep {step}").format(step=step)
        if starting is not None:
            what = (_("resumed (step {step})") if starting.resumed else _("new input (step {step})")).format(step=step)
        return _("Turn {number} · {what}").format(number=turn.number, what=what)
    if starting is not None:
        return (_("Resumed (step {step})") if starting.resumed else _("New input (step {step})")).format(step=step)
    return _("Superstep {step}").format(step=step) if step >= 0 else _("Input")


def _turn_start(view: RunView, turn: Turn) -> Line:
    """The line of a step where a turn of the thread starts: the new input, or the answer to an interrupt."""
    following = view.neighbour(turn.first_step, +1)
    then = _(" in step {step}").format(step=following) if following != turn.first_step else ""
    given = code(short(turn.given, 80))
    if turn.resumed:
        return Line(
            "text",
            _(
                "**Resumed with the answer** `{given}`: the node that asked runs again from its top{then}, and its "
                "`interrupt()` returns the answer."
            ).format(given=given, then=then),
        )
    return Line(
        "text",
        _("The thread was given `{given}`: it reaches the state through the hidden `__start__` task{then}.").format(
            given=given, then=then
        ),
    )


def _inside_subgraphs(view: RunView, step: int) -> str:
    """` (a subgraph: inside child, s1 ran)` for a subgraph node whose inner nodes the drawing marks
    (its cluster's nodes are highlighted, not a node named `child`)."""
    if not view.has_subgraphs:
        return ""
    parts = []
    for task, _index, run in view.subgraph_runs(step):
        inner = list(dict.fromkeys(t.name for s in run.steps for t in s.tasks if t.name != START))
        if inner:
            parts.append(
                _("inside **{task}**, {names} ran").format(
                    task=md(task.name), names=i18n.join_names(f"**{md(n)}**" for n in inner)
                )
            )
    return _(" (a subgraph: {parts})").format(parts=i18n.join_sentences(parts)) if parts else ""


def _barrier(view: RunView, step: int, hidden: bool) -> list[Line]:
    merges = view.merge(step)
    if not merges:
        return []
    if view.committed(step) or hidden:
        channels = sorted({m.call.channel for m in merges})
        keys = i18n.join_names(f"`{code(c)}`" for c in channels)
        if hidden:
            sentence = ngettext(
                "The barrier merges **{count}** write into {keys}.",
                "The barrier merges **{count}** writes into {keys}.",
                len(merges),
            )
        else:
            sentence = ngettext(
                "The barrier applied **{count}** write to {keys}.",
                "The barrier applied **{count}** writes to {keys}.",
                len(merges),
            )
        return [Line("text", sentence.format(count=len(merges), keys=keys))]
    return [
        Line(
            "text",
            _("The barrier applied **none** of the {count} writes: the step failed, the state is unchanged.").format(
                count=len(merges)
            ),
        )
    ]


def _trouble(view: RunView, step: int, errors_tab: bool = True) -> list[Line]:
    lines = []
    duplicated = [m for m in view.merge(step) if m.repeats]
    if duplicated:
        lines.append(
            Line(
                "warning",
                _("`{key}` now holds items twice: {sentence}.").format(
                    key=code(duplicated[0].call.channel), sentence=md(duplicated[0].sentence)
                ),
            )
        )
    lines += [Line("lost", md(lost.sentence())) for lost in view.lost_updates(step)]
    finding_titles = {f.title for f in view.findings_at(step)}
    reports = view.errors(step)
    for index, report in enumerate(reports):
        culprits = i18n.join_names(report.culprits)
        # the Errors tab is named once, after the step's last failure, not after each
        told = (
            "."
            if errors_tab and index < len(reports) - 1
            else _where_told(report, errors_tab, report.title in finding_titles)
        )
        lines.append(
            Line(
                "error",
                f"**{md(report.title)}**"
                # the culprits, unless the title names them already ("bad raised KeyError")
                + (
                    _(" (caused by {culprits})").format(culprits=md(culprits))
                    if culprits and not all(name in report.title for name in report.culprits)
                    else ""
                )
                + told,
            )
        )
    lost_keys = {lost.channel for lost in view.lost_updates(step)}
    others = [
        f
        for f in view.findings_at(step)
        if f.severity != "error" or (not view.errors(step) and f.key not in lost_keys and not duplicated)
    ]
    if others:
        lines.append(
            Line("finding", "🔎 " + i18n.join_sentences(md(f.title) for f in others) + _(" — see the Findings tab."))
        )
    return lines


def _where_told(report: Any, errors_tab: bool, is_finding: bool) -> str:
    """Where the failure is told in full: the page's Errors tab, else the step's findings below the summary
    (the HTML file, the notebook), else here, in the report's own words."""
    if errors_tab:
        return _(" — see the Errors tab.")
    if is_finding:
        return _(" — see Findings at this step, below.")
    return _(": {explanation}").format(explanation=md(report.explanation))


def _next(view: RunView, step: int) -> list[Line]:
    following = view.next_triggers(step)
    if following:
        shown = i18n.join_sentences(md(t.sentence()) for t in following[:SUMMARY_TASKS])
        more = len(following) - SUMMARY_TASKS
        more_words = _("; and {count} more (see the Versions tab)").format(count=more) if more > 0 else ""
        return [Line("text", _("**Next:** {tasks}").format(tasks=shown + more_words))]
    if step == view.last:
        ending = run_status.ending(view.run.status, view.run.error, after=_("step {step}").format(step=step))
        unknown = view.run.status == "running"  # the recording stops here: the run did not end
        # one sentence in each language: Chinese puts no space after its full stop
        said = _("**Next:** unknown. {ending}") if unknown else _("**Next:** nothing. {ending}")
        return [Line("text", said.format(ending=md(ending)))]
    return []
