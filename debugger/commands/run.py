"""`stepscope run TARGET`: run a graph headless on its runtime, record and store it, print its supersteps.

    stepscope run TARGET [--out FILE] [--db PATH] [--follow] [the options that make a run]
        --input, --config, --thread, --context, --resume, --recursion-limit, --timeout, --checkpointer: one definition,
        `debugger/runtimes/run_options.py`, shared with `diagnose` and the app's Graph file form
        --follow        print each superstep as it commits (`debugger/commands/follow.py`);
                        --timeout limits the whole followed run too

Written once against `Runtime.record`: the steps go to the run store as they finish (a `StoreSink`),
and a run that stops on `interrupt()` on a thread prints each question and the exact command that
answers it. A store that fails after the run started (a disk that fills, a PostgreSQL server lost)
cannot lose the run: every step is kept in memory, the whole trace goes to `--out` or a kept file,
the command that stores it is printed and the exit code is `STORE_FAILED`.
"""

from __future__ import annotations

import argparse
import shlex
import sys
from dataclasses import replace
from typing import Any

from debugger.commands.common import add_command, table
from debugger.commands.files import not_written, write_whole
from debugger.commands.recovery import OUT_FAILED, STORE_FAILED, recover
from debugger.commands.terminal import print_block, print_error
from debugger.commands.terminal import safe_print as print  # every line shown goes through one filter: no escape codes
from debugger.diagnostics.value_text import cut, short, task_name
from debugger.i18n import N_, _
from debugger.model import run_status
from debugger.model.failures import is_interrupt
from debugger.runtimes.capabilities import Threads, capability
from debugger.runtimes.run_options import RunOptions, add_run_options, run_request
from debugger.runtimes.runtime import NO_RESUME, Recorded, RunRequest, RunSetupError
from debugger.runtimes.targets import LoadedTarget, load_target
from debugger.sources.recording import StoreSink, timeout_from
from debugger.sources.store_sink import write_pending_on_sigterm
from debugger.stores.opening import open_store
from debugger.stores.protocol import StoreError
from debugger.stores.sqlite import RunStore
from engine.codec import encode
from engine.trace import StepRecord, Trace
from engine.tracefile import TraceFileError, to_json

DEFAULT_SAMPLE = "subgraph_trap"
RUN_HEADERS = [N_("step"), N_("tasks"), N_("keys written"), N_("reducer calls"), N_("error")]
EXIT_CODES = (
    "exit codes: 0 the run ended (or stopped at an interrupt), 1 the graph failed, 2 it failed before its "
    f"first superstep, {STORE_FAILED} the run database failed during the run (the whole trace is then written "
    f"to --out or a kept file, and the command that stores it is printed), {OUT_FAILED} the run is stored but "
    "the --out file could not be written (none is left half-written), 130 the run was stopped before it ended"
)


def add_to(commands: Any) -> None:
    """Registers `stepscope run` and its options."""
    run = add_command(commands, "run", command, "run a graph headless, record and store it, print its supersteps")
    run.epilog = EXIT_CODES
    run.add_argument("target", nargs="?", default=DEFAULT_SAMPLE, help="sample name, file.py[:attr] or module[:attr]")
    run.add_argument("--out", help="also write the trace to this JSON file")
    run.add_argument(
        "--follow",
        action="store_true",
        help="print each superstep as it commits and the nodes running now; Ctrl-C stops and stores",
    )
    add_run_options(run)


def superstep_rows(steps: Trace | list[StepRecord]) -> list[list[str]]:
    """One table row per superstep: its tasks, the keys they wrote, its reducer calls and its first error."""
    rows = []
    for step in steps.steps if isinstance(steps, Trace) else steps:
        if step.step < 0:
            continue
        keys = sorted({c.channel for c in step.reducer_calls})
        asked = [t.name for t in step.tasks if t.error and is_interrupt(t.error)]
        errors = [t.error for t in step.tasks if t.error and not is_interrupt(t.error)]
        errors += [c.error for c in step.reducer_calls if c.error]
        error = f"{errors[0]['class']}: {errors[0]['message'].splitlines()[0]}" if errors else ""
        if asked and not error:  # an interrupt() asks: not an error (what it asks is printed below the table)
            error = f"⏸ {', '.join(asked)} asked"
        if not error and isinstance(steps, Trace) and step is steps.steps[-1]:  # a value the schema refused
            from debugger.diagnostics.validation import rejection_note  # the run's analysis: only for a whole trace

            error = rejection_note(steps, step.step)
        nested = sum(len(t.subgraphs) for t in step.tasks)
        tasks = ", ".join(task_name(t) for t in step.tasks) + (f" (+{nested} subgraph run)" if nested else "")
        rows.append([str(step.step), tasks, ", ".join(keys), str(len(step.reducer_calls)), cut(error, 70)])
    return rows


def command(args: argparse.Namespace) -> int:
    """Records the run the options ask for, stores it as it goes and prints it; the exit code says how it ended."""
    timeout = timeout_from(args.timeout)
    loaded = load_target(args.target, timeout=timeout)  # the limit covers the import too: a module may hang in it
    request = run_request(loaded, RunOptions.from_args(args, timeout=timeout))
    if args.follow:  # prints each superstep as it commits; Ctrl-C stops and stores (debugger/commands/follow.py)
        return _follow(args, loaded, request)
    store = open_store(args.db)  # opened and checked before the run, so a bad database costs no run
    write_pending_on_sigterm()  # a SIGTERM (a `kill`, a CI job's end) loses no step gathered for the store
    rows: list[list[str]] = []
    # the stored steps are kept too: if the database fails mid-run (a full disk, a lost server) it may not
    # give them back, and the kept file must hold the whole run
    sink = StoreSink(store, on_steps=lambda steps: rows.extend(superstep_rows(steps)), keep_stored=True)
    recorded = loaded.runtime.record(replace(request, sink=sink, db=args.db))
    kept, problem = _write_out(args.out, sink, recorded.trace)
    code = _report(args, loaded, recorded, sink, rows, kept)
    if problem is None:
        return code
    print(f"error: {problem}.", file=sys.stderr)  # said last, so it is the line the user sees
    return code or OUT_FAILED


def _follow(args: argparse.Namespace, loaded: LoadedTarget, request: RunRequest) -> int:
    """`--follow`: a live run on a fresh thread, printed as it goes."""
    given = ["a thread (--thread or configurable.thread_id)"] if request.thread is not None else []
    given += ["--context"] if request.context is not None else []
    given += ["--resume"] if request.resume is not NO_RESUME else []
    if given:
        raise RunSetupError(
            f"--follow runs on a fresh thread without {', '.join(given)}: "
            "drop --follow to continue a thread or pass a context."
        )
    from debugger.commands.follow import follow  # the live controller: only for --follow (tests/test_cli_lazy.py)

    live_options = {"db": args.db, "out_file": args.out, "timeout": request.timeout}
    return follow(args.target, loaded.graph, request.graph_input, request.config, **live_options)


def _write_out(out: str | None, sink: StoreSink, trace: Trace) -> tuple[list[str], str | None]:
    """`--out`: the whole run as a JSON trace file, whole or not at all; what the status line then names,
    and why the file was not written (None when it was, or was not asked for)."""
    if not out:
        return [], None
    try:
        write_whole(out, to_json(sink.whole_trace(trace), indent=1))
    except OSError as exc:
        return [], not_written(out, exc)
    except (StoreError, TraceFileError) as exc:
        return [], f"cannot write {out}: {exc}"
    return [f"trace: {out}"], None


def _report(
    args: argparse.Namespace,
    loaded: LoadedTarget,
    recorded: Recorded,
    sink: StoreSink,
    rows: list[list[str]],
    kept: list[str],
) -> int:
    """Prints the thread, the supersteps, the status and how the run ended; returns the exit code."""
    trace = recorded.trace
    if recorded.new_thread:
        print(f"thread: {recorded.thread_id} (new; continue it with --thread {recorded.thread_id})")
    elif recorded.thread_id:
        print(f"thread: {recorded.thread_id}")
    if recorded.before_start:
        error = recorded.error
        print(f"error: the run failed before its first superstep: {type(error).__name__}: {error}", file=sys.stderr)
        print(f"run: {trace.run_id} (stored, with no steps)")
        return 2
    print_block(table(rows, [_(h) for h in RUN_HEADERS]))
    if sink.error is None:
        in_db = f" --db {shlex.quote(str(args.db))}" if args.db else ""  # the command must find the run
        kept = [*kept, f"reopen: stepscope show {trace.run_id[:12]}{in_db}"]
    print(f"status: {trace.status}   run: {trace.run_id}   " + "   ".join(kept))
    if capability(loaded.runtime, Threads) is not None and trace.status == "interrupted" and trace.interrupts:
        _print_interrupts(args, trace, recorded.thread_id, loaded.runtime.checkpointer_class(loaded.graph))
        code = 0
    elif trace.status == "interrupted" and (questions := _questions(recorded.output)):  # threads in its process
        for question in questions:
            print(_("paused: the run asks {value}").format(value=short(encode(question), 300)))
        said = _(
            "it cannot be answered from a later command: {target} keeps its thread in its own checkpointer, "
            "in this process, which has ended. Answer it on the app's Live run page (stepscope app, Live run), "
            "or in Python: graph.invoke(Command(resume=ANSWER), config) with the same thread_id."
        )
        print(said.format(target=args.target))
        code = 0
    elif not recorded.ok:
        error = trace.error or {}
        print_error(error, run_status.failure_site(trace), file=sys.stderr)
        code = 130 if trace.status == "cancelled" else 1
    else:
        print(f"final state: {short(encode(recorded.output), 400)}")
        code = 0
    if sink.error is not None:  # said last, so it is the line the user sees
        _recover(args, sink, trace, kept)
        return STORE_FAILED
    return code


def _questions(output: Any) -> list[Any]:
    """The values of the `interrupt()` calls an engine run stopped on, from its output's `__interrupt__`."""
    asked = output.get("__interrupt__") if isinstance(output, dict) else None
    return [getattr(item, "value", item) for item in asked] if isinstance(asked, (list, tuple)) else []


def _recover(args: argparse.Namespace, sink: StoreSink, trace: Trace, kept: list[str]) -> None:
    """The store failed during the run: every step was kept (`keep_stored`), so the file holds it whole."""
    beside = sink.store.path.parent if isinstance(sink.store, RunStore) else None
    recover(sink.whole_trace(trace), sink.error, written=args.out if kept else None, db=args.db, beside=beside)
    if sink.unmarked is not None:  # a disk so full it refused even the one-row note of where the run stops
        print(f"error: and the stored part could not be marked with where it stops: {sink.unmarked}", file=sys.stderr)


def _print_interrupts(args: argparse.Namespace, trace: Trace, thread_id: str, checkpointer: str | None) -> None:
    """Each question the run stopped on, and the command that answers it (or why none can, from what was
    found: the app's checkpointer class, or none)."""
    from debugger.model.present import interrupt_line  # the presenters: only for a run that stopped to ask

    several = len(trace.interrupts) > 1
    for item in trace.interrupts:
        print(interrupt_line(item, with_id=several))
    if thread_id and several:  # Command(resume={id: answer, ...}), as LangGraph answers parallel questions
        print(_("answer them by id, some or all at once (each ANSWER as JSON: text in double quotes):"))
        by_id = ", ".join(f'"{item["id"]}": ANSWER' for item in trace.interrupts)
        print("  " + resume_command(args, thread_id, f"'{{{by_id}}}'"))
    elif thread_id:
        print(_("answer it with (ANSWER as JSON, or plain text):"))
        print("  " + resume_command(args, thread_id))
    elif checkpointer is None:  # the run ended at interrupt() and, without a saver, kept nothing to resume from
        said = _(
            "it cannot be answered: {target} has no checkpointer, so nothing of the paused run was kept "
            "to resume. Compile it with a checkpointer (checkpointer=InMemorySaver() in Python, "
            "new MemorySaver() in LangGraph.js) and run it again: the command that answers it is then printed here."
        )
        print(said.format(target=args.target))
    else:  # a saver, and yet no thread: said as found, never guessed
        said = _(
            "it cannot be answered: {target} has a checkpointer of class {checkpointer}, but the run went "
            "on no thread; run it again with --thread ID (or configurable.thread_id in --config)."
        )
        print(said.format(target=args.target, checkpointer=checkpointer))


def resume_command(args: argparse.Namespace, thread_id: str, answer: str = "ANSWER") -> str:
    """The `stepscope run` command line that answers the thread's interrupt with `answer`."""
    parts = ["stepscope", "run", args.target, "--thread", thread_id, "--resume", answer]
    if getattr(args, "checkpointer", None):  # the saver the thread was kept in, as the user named it
        parts += ["--checkpointer", args.checkpointer]
    if args.db:
        parts += ["--db", str(args.db)]
    return " ".join(shlex.quote(p) if p != answer else p for p in parts)
