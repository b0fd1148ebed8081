"""`stepscope show FILE|RUN_ID`: a run's merges, one reducer call at a time (`--step N`, `--channel KEY`)."""

from __future__ import annotations

import argparse
import json
from typing import Any

from debugger.commands.common import add_checkpointer_options, add_command, thread_from_args
from debugger.commands.terminal import print_error
from debugger.commands.terminal import safe_print as print  # every line shown goes through one filter: no escape codes
from debugger.diagnostics.replay import CallValues, walk_calls
from debugger.diagnostics.value_text import task_name
from debugger.model import run_status
from debugger.model.failures import is_interrupt
from debugger.model.present import explain_call, short
from debugger.model.turns import turn_label, turns_of
from debugger.sources.trace_stream import step_numbers
from debugger.stores.opening import load_trace
from debugger.stores.protocol import StoreError
from engine.tracefile import TraceFileError


def add_to(commands: Any) -> None:
    """Registers `stepscope show` and its options."""
    show = add_command(commands, "show", command, "print a run's merges, one reducer call at a time")
    show.add_argument("trace", help="a trace .json file or a stored run id (a unique prefix is enough)")
    show.add_argument("--step", type=int, help="only this superstep")
    show.add_argument("--channel", help="only this state key")
    add_checkpointer_options(show)


def command(args: argparse.Namespace) -> int:
    """Prints every reducer call of the run (a file, a stored run or a checkpointer thread), reading its
    steps one at a time in one pass, so a run of any length is shown in memory that does not grow with it."""
    thread = thread_from_args(args, args.trace, step=args.step)  # a thread's step N: N and its ending decoded
    trace = thread[0] if thread else _load(args)
    order = step_numbers(trace.steps)
    if args.step is not None and args.step not in set(order):
        if not len(order):
            has = "it has no steps"
        else:  # a thread read at step N holds it and its ending only: its other steps exist but were not read
            has = f"it has steps up to {order[-1]}" if thread else f"it has steps {order[0]}..{order[-1]}"
        raise StoreError(f"the run has no step {args.step}; {has}.")
    if args.channel is not None:
        known = set(trace.graph.get("channels") or {})
        if args.channel not in known:
            known |= {c.channel for s in trace.steps for c in s.reducer_calls}
        if args.channel not in known:
            raise StoreError(
                f"the run has no state key {args.channel!r}; its keys are: {', '.join(sorted(known)) or '(none)'}."
            )
    damage = _thread_damage(args, trace) if thread else None
    unknown_end = damage is not None and _ends_damaged(trace)
    status = "unknown: a damaged checkpoint" if unknown_end else run_status.label(trace.status, trace.error)
    print(f"run {trace.run_id}  graph {trace.graph.get('name')}  status {status}")
    # a run on no thread is one turn (as `RunView.turns`): its steps are not read a second time to find that
    turns = turns_of(trace) if getattr(trace, "thread_id", "") else ()
    starts = {turn.first_step: turn for turn in turns if turn.number > 1 or turn.first_step > 0}
    state_keys = trace.graph.get("channels") or {}
    for step, calls in walk_calls(trace.steps):
        if args.step is None or step.step == args.step:
            if step.step in starts:  # a turn of the thread begins: its new input (or answer) before its steps
                print(f"-- {turn_label(starts[step.step])}")
            _print_step(step, calls, args.channel, state_keys, asked=args.step is not None)
            if any(m.get("damaged") for m in step.mismatches):  # said in full on stderr as the command ends
                print(f"step {step.step}: cannot be replayed: the data stored for it is damaged")
    if unknown_end:  # how the app ended is in the damaged checkpoint: no ending line stands in for it
        raise damage
    if trace.status == "interrupted" and trace.interrupts:  # it asked, it did not fail: what it asks, not a repr
        for item in trace.interrupts:
            print(f"paused: {item.get('node') or 'a node'} asks {json.dumps(item.get('value'), ensure_ascii=False)}")
    elif trace.error and trace.status not in ("running", "cancelled", "timeout") and not is_interrupt(trace.error):
        print_error(trace.error, run_status.failure_site(trace))
    last = order[-1] if len(order) else None
    print(run_status.ending(trace.status, trace.error, after=f"step {last}" if last is not None else ""))
    if damage is not None:  # the app's ending is known, but a step between could not be read
        raise damage
    return 0


def _load(args: argparse.Namespace) -> Any:
    """The trace file or stored run `args.trace` names; a graph (a sample, a .py file) is not one, and the
    refusal says how to record it."""
    try:
        return load_trace(args.trace, args.db)
    except (StoreError, TraceFileError):
        from sample_graphs.gallery import SAMPLES  # the gallery's names only

        if args.trace in SAMPLES or args.trace.partition(":")[0].endswith((".py", ".mjs", ".js", ".ts")):
            raise StoreError(
                f"{args.trace} is a graph, not a recorded run: `stepscope run {args.trace}` records it and "
                "prints the id to show (or `stepscope app` steps through it)"
            ) from None
        raise


def _thread_damage(args: argparse.Namespace, trace: Any) -> Exception | None:
    """The one-line refusal (`DamagedThread`) for a thread read with damaged steps, or None: the file is at
    fault, not the app, so it ends `show` with exit 2 after the steps that read."""
    from debugger.runtimes.threads_api import damage_in, damaged_thread
    from debugger.stores.urls import masked

    found = damage_in(trace)
    return damaged_thread(masked(args.checkpointer), args.thread, *found) if found else None


def _ends_damaged(trace: Any) -> bool:
    """Whether the thread's newest checkpoint is the damaged one: then how the app's run ended is unknown."""
    return bool(trace.error) and trace.error.get("class") == "DamagedData"


def _print_step(step: Any, values: CallValues, channel: str | None, state_keys: Any, *, asked: bool = False) -> None:
    """One superstep's reducer calls (on `channel` only, when given), each with what it did in words; a step
    without any says why (a node raised, nothing was written). With `channel`, a step that did not write it
    is left out unless it was `asked` for (`--step N`), as is a step without tasks (the input step of a run
    given none). `state_keys`: the graph's state keys, the writes a failed step discarded (as
    `RunFacts.state_writes` reads them)."""
    calls = [(c, b, a) for c, b, a in values if channel in (None, c.channel)]
    if not calls and not asked and (channel is not None or not step.tasks):  # (a step -1 with no input)
        return
    print(f"step {step.step}: {', '.join(task_name(t) for t in step.tasks) or '(input)'}")
    names = {t.id: task_name(t) for t in step.tasks}  # each Send of a node told apart: write_joke[1]
    if not calls:
        raised = [t for t in step.tasks if t.error and not is_interrupt(t.error)]
        for task in raised:
            print_error(task.error, f" in {task.name}")
        if raised:  # the barrier never ran: what the other tasks wrote went with the step
            for task in step.tasks:
                for key, value in task.writes:
                    if channel in (None, key) and key in state_keys:
                        print(f"  {task_name(task)} wrote {key}: {short(value, 60)} (discarded: the step failed)")
        if not raised and not step.committed:  # the step a stopped run was in: its tasks never reported back
            print(f"  not committed: the run stopped while {', '.join(task_name(t) for t in step.tasks)} ran")
        elif not raised:
            print(f"  nothing written to {channel!r}" if channel is not None else "  nothing written")
    for call, before, after in calls:
        verdict = "REFUSED" if call.error else short(after, 60)
        print(
            f"  #{call.index} {call.channel} [{call.reducer}] from {names.get(call.writer, call.writer_name)}: "
            f"{short(before, 50)} -> {short(call.write, 50)} -> {verdict}"
        )
        print(f"      {explain_call(call, before, after, applied=step.committed)}")
