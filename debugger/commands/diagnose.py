"""`stepscope diagnose TARGET|FILE|RUN_ID`: find mistakes; exit 1 when a finding is an error or the run
failed or timed out.

A graph target is checked before running (its runtime's static view), then run with the options `run`
takes (`debugger/runtimes/run_options.py`; `Runtime.record`, not stored) and its trace checked; a trace
file, a stored run or a checkpointer thread (`--checkpointer URL --thread ID`) is checked as recorded.
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

from debugger.commands.common import add_command, thread_from_args
from debugger.commands.diagnose_text import render, to_data
from debugger.commands.terminal import print_block
from debugger.commands.terminal import safe_print as print  # every line shown goes through one filter: no escape codes
from debugger.diagnostics import diagnose, has_errors
from debugger.model import run_status
from debugger.runtimes.capabilities import static_view_of
from debugger.runtimes.run_options import COMMAND_LINE, RUN_OPTIONS, RunOptions, add_run_options, run_request
from debugger.runtimes.targets import LoadedTarget, TargetError, load_target
from debugger.sources.recording import timeout_from
from debugger.sources.trace_stream import step_numbers
from debugger.stores.opening import load_trace, open_store
from debugger.stores.protocol import StoreError
from engine.trace import Trace
from sample_graphs.gallery import SAMPLES


class RunFailedBeforeStart(Exception):
    """`diagnose` ran the graph and its runtime refused it before its first superstep (exit 2)."""


def add_to(commands: Any) -> None:
    """Registers `stepscope diagnose` and its options."""
    diag = add_command(
        commands,
        "diagnose",
        command,
        "find concurrent updates, reducer traps and in-place edits; exit 1 if any finding is an error "
        "or the run failed",
    )
    diag.add_argument(
        "target",
        help="sample name, file.py[:attr] or module[:attr] (checked, then run and checked), "
        "a trace .json file or a stored run id",
    )
    diag.add_argument("--json", action="store_true", help="print the findings as JSON")
    diag.add_argument("--no-run", action="store_true", help="for a graph: only the checks before running")
    add_run_options(
        diag,
        also={
            "thread": "with --checkpointer: the thread to read",
            "checkpointer": "with --thread: the thread of it to read (nothing runs)",
        },
    )
    diag.add_argument("--checkpoint", metavar="ID", help="with --checkpointer: stop at this checkpoint")


def command(args: argparse.Namespace) -> int:
    """Prints the findings (as text, or `--json`); 1 when one is an error or the run did not finish."""
    subject, graph, trace = diagnosis_subject(args)
    findings = diagnose(graph, trace)
    status = trace.status if trace is not None else None
    ending = _ending(trace)
    if args.json:
        data = to_data(findings, subject, status)
        data["ending"] = ending
        print_block(json.dumps(data, ensure_ascii=False, indent=1, default=repr))
    else:
        print_block(render(findings, subject, run_status.label(status, trace.error) if trace is not None else None))
        if ending and trace is not None and trace.status != "done":
            print(ending)
    return 1 if has_errors(findings) or _did_not_finish(trace) else 0


def _did_not_finish(trace: Trace | None) -> bool:
    """The run failed, hit its recursion limit or timed out: `diagnose` fails with it, even when no finding
    explains why (a node that raised is no reducer mistake), so CI never reads "no findings" as a run that
    worked."""
    return trace is not None and trace.status in UNFINISHED


UNFINISHED = ("error", "recursion_limit", "timeout")
"""Statuses of a run that went wrong. A run cancelled by its caller (Ctrl-C, a `break` out of `stream()`),
a cut-off recording (`running`) and an interrupted run are checked as far as they go: nothing failed."""


def _ending(trace: Trace | None) -> str | None:
    if trace is None:
        return None
    steps = step_numbers(trace.steps)  # the numbers only: a long trace's steps stay on disk
    after = f"step {steps[-1]}" if len(steps) else ""
    return run_status.ending(trace.status, trace.error, after=after, site=run_status.failure_site(trace))


def diagnosis_subject(args: argparse.Namespace) -> tuple[str, Any, Trace | None]:
    """(what is diagnosed, what the checks before running read or None, the trace or None) for a target, a
    trace file, a stored run id or a checkpointer thread."""
    ref = args.target
    # --checkpointer with --thread reads that thread; without, the graph runs on the checkpointer (`run_request`)
    thread = thread_from_args(args, ref) if args.thread or not args.checkpointer else None
    if thread is not None:
        return f"thread {args.thread} of {ref}", thread[1].view, thread[0]
    path = Path(ref.partition(":")[0])
    if path.suffix == ".json" or (path.suffix != ".py" and Path(ref).is_file()):
        _refuse_run_options(args, "a trace file")
        return f"trace {ref}", None, load_trace(ref, args.db)
    if path.suffix == ".py" or ":" in ref or "." in ref or ref in SAMPLES:
        timeout = timeout_from(args.timeout)  # as `run`: the limit covers the import too
        return _graph_subject(args, load_target(ref, timeout=timeout), timeout)
    try:
        trace = open_store(args.db).load(ref)
    except StoreError as exc:
        raise TargetError(f"{ref}: not a sample, a .py file, a module or a stored run ({exc})") from None
    _refuse_run_options(args, "a stored run")
    return f"run {trace.run_id[:12]}", None, trace


def _refuse_run_options(args: argparse.Namespace, kind: str) -> None:
    """A recorded run is checked as it was recorded: the options that make a run (and `--checkpoint`) would
    change nothing, and ignoring them would let the user think they had (`--checkpointer` read no thread)."""
    given = [option.name for option in RUN_OPTIONS if getattr(args, option.name, None) is not None]
    given += ["checkpoint"] if getattr(args, "checkpoint", None) is not None else []
    if given:
        flags = ", ".join(COMMAND_LINE.named(name) for name in given)
        raise TargetError(
            f"{args.target}: {flags} {'is' if len(given) == 1 else 'are'} for a graph that runs or a thread "
            f"(--checkpointer URL --thread ID); {kind} is checked as it was recorded: drop {flags}"
        )


def _graph_subject(
    args: argparse.Namespace, loaded: LoadedTarget, timeout: float | None
) -> tuple[str, Any, Trace | None]:
    """The graph's static view, and unless `--no-run` its run (the options `run` takes, `RunOptions`),
    recorded by its runtime and not stored."""
    view, skipped = static_view_of(loaded.runtime, loaded.graph)
    if skipped:
        print(f"note: the checks before running were skipped: {skipped}", file=sys.stderr)
    if args.no_run:
        return f"graph {args.target}", view, None
    request = run_request(loaded, RunOptions.from_args(args, timeout=timeout))
    graph_input = request.graph_input if args.input is not None else _copied(loaded.example_input)
    recorded = loaded.runtime.record(replace(request, graph_input=graph_input, db=args.db))
    if recorded.before_start:
        raise RunFailedBeforeStart(
            f"{args.target}: the run failed before its first superstep, so there is nothing "
            f"to diagnose in it: {type(recorded.error).__name__}: {recorded.error}"
        )
    return f"graph {args.target}", view, recorded.trace  # the run's own error is what we diagnose


def _copied(example_input: Any) -> Any:
    """The module's example input, copied so the run cannot change it; as it is when it cannot be copied."""
    try:
        return copy.deepcopy(example_input)
    except Exception:  # an input that cannot be copied is passed as it is
        return example_input
