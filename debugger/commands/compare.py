"""`stepscope compare A B`: two runs superstep by superstep (`debugger/model/compare.py`); exit 0 when they
agree, 1 when they differ, 2 when one cannot be opened.

A and B are each a stored run id, a trace `.json` file, a graph target (run now, not stored) or, with
`--checkpointer URL --thread-a ID` (`--thread-b ID`), a checkpointer thread read with that target's
graph: the sources `stepscope diagnose` opens, of any runtime.
"""

from __future__ import annotations

import argparse
import json
from typing import Any

from debugger.commands.common import add_checkpointer_options, add_command
from debugger.commands.diagnose import diagnosis_subject
from debugger.commands.terminal import print_block  # every line shown goes through one filter: no escape codes
from debugger.diagnostics.value_text import one_line, short
from debugger.i18n import _
from debugger.model.compare import ABSENT, IDS_NOTE, Row, RunComparison, StepDiff, compare_runs
from debugger.runtimes.run_options import RUN_OPTIONS, add_run_options
from debugger.runtimes.runtime import RunSetupError
from engine.trace import Trace

WIDTH = 38
"""Characters of each side's value on a line of the text output."""


def add_to(commands: Any) -> None:
    """Registers `stepscope compare` and its options."""
    compare = add_command(
        commands, "compare", command, "compare two runs superstep by superstep; exit 1 when they differ"
    )
    for side in ("a", "b"):
        compare.add_argument(
            side, help="a stored run id, a trace .json file, or a sample / file.py[:attr] / module[:attr] (run now)"
        )
    compare.add_argument("--input", help="for a graph target: the input as JSON, @file.json or - (both sides)")
    compare.add_argument("--input-b", help="B's input, when it differs from A's (a fixed graph's new schema)")
    # the options of a run that both sides share (a thread and an answer belong to one side: --thread-a/-b)
    add_run_options(compare, only=("config", "context", "recursion_limit", "timeout"))
    compare.add_argument("--all", action="store_true", help="also list the writes, calls and keys that are equal")
    compare.add_argument("--json", action="store_true", help="print the comparison as JSON")
    add_checkpointer_options(compare, thread=False)
    compare.add_argument("--checkpointer-b", metavar="URL", help="B's checkpointer, when not the same as A's")
    compare.add_argument("--thread-a", metavar="ID", help="with --checkpointer: A is this thread of target A")
    compare.add_argument("--thread-b", metavar="ID", help="with --checkpointer: B is this thread of target B")


def command(args: argparse.Namespace) -> int:
    """Prints the comparison; 0 when the runs agree, 1 when they differ."""
    label_a, trace_a = _side(args, args.a, args.thread_a, args.checkpointer, args.input)
    label_b, trace_b = _side(
        args, args.b, args.thread_b, args.checkpointer_b or args.checkpointer, args.input_b or args.input
    )
    comparison = compare_runs(trace_a, trace_b)
    if args.json:
        print_block(json.dumps(to_data(comparison, label_a, label_b), ensure_ascii=False, indent=1, default=repr))
    else:
        print_block(render(comparison, label_a, label_b, every_row=args.all))
    return 0 if comparison.agree else 1


def _side(
    args: argparse.Namespace, ref: str, thread: str | None, checkpointer: str | None, graph_input: str | None
) -> tuple[str, Trace]:
    """(what it is, its trace) for one side, opened as `stepscope diagnose` opens its subject."""
    if thread is not None and not checkpointer:
        raise RunSetupError(
            f"--thread-{'a' if ref == args.a else 'b'} needs --checkpointer URL (the thread's database)."
        )
    options = argparse.Namespace(
        # as given, for both sides; compare's --checkpointer names the sides' threads, never a saver to run on
        **{option.name: getattr(args, option.name, None) for option in RUN_OPTIONS if option.name != "checkpointer"},
        target=ref,
        db=args.db,
        checkpointer=checkpointer if thread is not None else None,
        checkpoint=None,
        no_run=False,
    )
    options.thread, options.input = thread, graph_input
    subject, _graph, trace = diagnosis_subject(options)
    if trace is None:  # diagnosis_subject runs every graph target here (no --no-run)
        raise RunSetupError(f"{ref}: nothing was recorded to compare.")
    return subject, trace


def render(comparison: RunComparison, label_a: str, label_b: str, *, every_row: bool = False) -> str:
    """The comparison as text: the verdict, then each step (a differing one with its differing rows)."""
    side = _("{side}: {run} ({status}, {count} steps)")
    lines = [
        side.format(side="A", run=label_a, status=comparison.a.status, count=sum(s.in_a for s in comparison.steps)),
        side.format(side="B", run=label_b, status=comparison.b.status, count=sum(s.in_b for s in comparison.steps)),
        comparison.headline(),
    ]
    if comparison.ids_set_aside:
        lines.append(_(IDS_NOTE))
    for step in comparison.steps:
        lines.extend(_step_lines(step, every_row))
    run_wide = [c for c in comparison.findings if c.finding.step is None]
    if comparison.findings:
        gone = sum(c.side == "A" for c in comparison.findings)
        lines.append(
            _("findings: {gone} gone in B, {new} new in B").format(gone=gone, new=len(comparison.findings) - gone)
        )
        lines.extend(f"  - {c.sentence()}" for c in run_wide)
    else:
        lines.append(_("findings: the same in both runs"))
    return "\n".join(map(one_line, lines))  # a name or value holding a newline cannot start a line


MARKS = {"same": "=", "same but ids": "≈", "differs": "✱", "only in A": "<", "only in B": ">"}
"""The mark before a row: equal, equal with generated ids set aside, different, only in A, only in B."""


def _step_lines(step: StepDiff, every_row: bool) -> list[str]:
    """`step 1  ✱ differs` and what differs in it; one line for an equal step."""
    number = _("step {step}").format(step=step.step)
    if not step.in_a or not step.in_b:
        return [f"{number}  " + (_("< only in A") if step.in_a else _("> only in B"))]
    if not step.differs and not every_row:
        return [f"{number}  " + _("= same") + (_("  (≈ generated ids set aside)") if step.ids_set_aside else "")]
    lines = [f"{number}  " + (_("✱ differs") if step.differs else _("= same"))]
    if step.tasks_only_a:
        lines.append("  " + _("tasks only in A: {tasks}").format(tasks=", ".join(step.tasks_only_a)))
    if step.tasks_only_b:
        lines.append("  " + _("tasks only in B: {tasks}").format(tasks=", ".join(step.tasks_only_b)))
    for title, rows in ((_("writes"), step.writes), (_("reducer calls"), step.calls), (_("state after"), step.state)):
        shown = [r for r in rows if every_row or r.differs]
        if shown:
            lines.append(f"  {title}:")
            lines.extend(f"    {MARKS[r.verdict]} {r.what}: {_side_text(r.a)}  |  {_side_text(r.b)}" for r in shown)
    lines.extend(f"  - {c.sentence()}" for c in step.findings)
    for task, nested in step.inside:
        lines.append("  " + _("inside {task}: {verdict}").format(task=task, verdict=nested.headline()))
        lines.extend("    " + line for s in nested.steps if s.differs for line in _step_lines(s, every_row))
    return lines


def _side_text(value: Any) -> str:
    """One side of a row: `(none)`, a reducer call as `reducer: write -> after` (or its error), a value."""
    if value is ABSENT:
        return _("(none)")
    if isinstance(value, dict) and set(value) == {"reducer", "write", "after", "error"}:
        result = f"REFUSED {_cut(one_line(value['error']))}" if value["error"] else short(value["after"], WIDTH // 2)
        return f"{value['reducer']}: {short(value['write'], WIDTH // 2)} -> {result}"
    return short(value, WIDTH)


def _cut(text: str) -> str:
    return text if len(text) <= WIDTH else text[: WIDTH - 1] + "…"


def to_data(comparison: RunComparison, label_a: str, label_b: str) -> dict[str, Any]:
    """The comparison as JSON-able data (`--json`): values as recorded, `null` for a side that has none."""

    def row(r: Row) -> dict[str, Any]:
        return {
            "what": r.what,
            "verdict": r.verdict,
            "a": None if r.a is ABSENT else r.a,
            "b": None if r.b is ABSENT else r.b,
        }

    return {
        "a": {"run": label_a, "status": comparison.a.status},
        "b": {"run": label_b, "status": comparison.b.status},
        "agree": comparison.agree,
        "first_divergence": comparison.first_divergence,
        "generated_ids_set_aside": comparison.ids_set_aside,
        "steps": [
            {
                "step": s.step,
                "in_a": s.in_a,
                "in_b": s.in_b,
                "differs": s.differs,
                "tasks_only_a": list(s.tasks_only_a),
                "tasks_only_b": list(s.tasks_only_b),
                "writes": [row(r) for r in s.writes],
                "reducer_calls": [row(r) for r in s.calls],
                "state": [row(r) for r in s.state],
                "inside": {task: nested.headline() for task, nested in s.inside},
            }
            for s in comparison.steps
        ],
        "findings": [{"side": c.side, "change": c.sentence(), **c.finding.to_dict()} for c in comparison.findings],
    }
