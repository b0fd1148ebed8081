"""The `stepscope` command.

    stepscope run TARGET [--input JSON|@FILE|-] [--out FILE] [--db PATH]   run, record, store, print the supersteps
        langgraph apps also: [--config JSON] [--thread ID] [--context JSON] [--resume VALUE]
        engine and langgraph: [--follow]                          print each superstep as it commits
    stepscope show FILE|RUN_ID [--step N] [--channel KEY]          every merge, one reducer call at a time
    stepscope runs [--graph NAME] [--status S]                      the stored runs, newest first
    stepscope samples                                               the gallery of lessons
    stepscope diagnose TARGET|FILE|RUN_ID [--json] [--no-run]      find mistakes; exit 1 on an error-level finding
    stepscope export RUN_ID FILE | import FILE | delete RUN_ID      move runs in and out of the database
    stepscope threads --checkpointer URL                            threads of a langgraph checkpointer (SQLite file,
                                                                    postgresql:// URL); show, diagnose and app open
                                                                    one with
                                                                    `my_app.py:graph --checkpointer URL --thread ID`;
                                                                    `stepscope fork` time-travels one on a local copy

TARGET is a sample name, `path/to/file.py[:attribute]` or `package.module[:attribute]`; without an
attribute the module's `graph` (or its only compiled graph) is used, with its `example_input`.
Runs are stored in the database described in `debugger/stores/sqlite.py` (`--db` or `$STEPSCOPE_DB`).
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from pathlib import Path
from typing import Any, Sequence

from debugger import run_status
from debugger.diagnostics import diagnose, has_errors
from debugger.diagnostics.report import render, to_data
from debugger.diagnostics.validation import rejection_note
from debugger.langgraph_recorder.probe import UnsupportedLangGraph  # these import no langgraph
from debugger.langgraph_recorder.runs import RunSetupError
from debugger.langgraph_recorder.superstep import UnrecordableChannel
from debugger.langgraph_recorder.threads import ThreadFileError
from debugger.present import explain_call, short
from debugger.recording import ALL_STATUSES, RecordingError, StoreSink, record_run, timeout_from
from debugger.replay import Replay
from debugger.stores.opening import open_store
from debugger.stores.protocol import StoreError
from debugger.targets import TargetError, load_target
from debugger.terminal import (
    safe_print as print,
)  # every line shown goes through one filter: no escape codes from a trace
from debugger.threads.open import add_arguments as add_thread_arguments
from debugger.threads.open import command_fork, command_threads, trace_from_args
from debugger.threads.savers import CheckpointerError
from debugger.tracecheck import read_trace_file
from engine.codec import encode
from engine.trace import Recorder, StepRecord, Trace
from engine.tracefile import TraceFileError, to_json

DEFAULT_SAMPLE = "subgraph_trap"


def _table(rows: list[list[str]], headers: list[str]) -> str:
    widths = [max(len(str(x)) for x in column) for column in zip(headers, *rows)]
    line = lambda cells: "  ".join(str(c).ljust(w) for c, w in zip(cells, widths)).rstrip()  # noqa: E731
    return "\n".join([line(headers), line(["-" * w for w in widths]), *(line(r) for r in rows)])


def superstep_rows(steps: Trace | list[StepRecord]) -> list[list[str]]:
    rows = []
    for step in steps.steps if isinstance(steps, Trace) else steps:
        if step.step < 0:
            continue
        keys = sorted({c.channel for c in step.reducer_calls})
        errors = [t.error for t in step.tasks if t.error] + [c.error for c in step.reducer_calls if c.error]
        error = f"{errors[0]['class']}: {errors[0]['message'].splitlines()[0]}" if errors else ""
        if not error and isinstance(steps, Trace) and step is steps.steps[-1]:  # a value the schema refused
            error = rejection_note(steps, step.step)
        nested = sum(len(t.subgraphs) for t in step.tasks)
        tasks = ", ".join(t.name for t in step.tasks) + (f" (+{nested} subgraph run)" if nested else "")
        rows.append(
            [str(step.step), tasks, ", ".join(keys), str(len(step.reducer_calls)), short(error, 70) if error else ""]
        )
    return rows


def command_run(args: argparse.Namespace) -> int:
    target = load_target(args.target)
    if target.is_langgraph:
        from debugger.langgraph_recorder import cli as langgraph_cli

        return langgraph_cli.command_run(args, target, _run_table)
    _refuse_langgraph_only_options(args)
    graph_input = _input_option(args.input, target.example_input)
    config = dict(target.example_config)
    if args.recursion_limit is not None:
        config["recursion_limit"] = args.recursion_limit
    if args.follow:  # prints each superstep as it commits; Ctrl-C stops and stores (debugger/live/follow.py)
        from debugger.live.follow import follow

        return follow(args.target, target.graph, graph_input, config, db=args.db, out_file=args.out)
    timeout = timeout_from(args.timeout)
    store = open_store(args.db)  # opened and checked before the run, so a bad database costs no run
    rows: list[list[str]] = []
    # with --out, the stored steps are kept too: the file gets the whole run even if the database goes away
    sink = StoreSink(store, on_steps=lambda steps: rows.extend(superstep_rows(steps)), keep_stored=bool(args.out))
    recorder = Recorder(target=args.target, sink=sink)  # steps go to the database as they finish
    outcome = record_run(target.graph, graph_input, config, target=args.target, timeout=timeout, recorder=recorder)
    trace = outcome.trace
    sink.finish(trace)
    print(_table(rows, RUN_HEADERS))
    kept = []
    if args.out:
        try:
            Path(args.out).write_text(to_json(sink.whole_trace(trace), indent=1), encoding="utf-8")
            kept.append(f"trace: {args.out}")
        except (OSError, StoreError, TraceFileError) as exc:
            print(f"error: cannot write {args.out}: {getattr(exc, 'strerror', None) or exc}", file=sys.stderr)
    if sink.error is None:
        kept.append(f"reopen: stepscope show {trace.run_id[:12]}")
    else:
        print(f"error: the run was not (fully) stored: {sink.error}", file=sys.stderr)
    print(f"status: {trace.status}   run: {trace.run_id}   " + "   ".join(kept))
    if not outcome.ok:
        error = trace.error or {}
        print(f"error: {error.get('class', 'Error')}: {error.get('message', '')}", file=sys.stderr)
        return 130 if trace.status == "cancelled" else 1
    print(f"final state: {short(encode(outcome.output), 400)}")
    return 0


RUN_HEADERS = ["step", "tasks", "keys written", "reducer calls", "error"]


def _run_table(trace: Trace) -> str:
    return _table(superstep_rows(trace), RUN_HEADERS)


def _input_option(text: str | None, default: Any) -> Any:
    if text is None:
        return default
    from debugger.langgraph_recorder.cli import read_json_option  # imports no langgraph

    return read_json_option(text, "--input")


def _refuse_langgraph_only_options(args: argparse.Namespace) -> None:
    given = [f"--{name}" for name in ("config", "thread", "context", "resume") if getattr(args, name, None) is not None]
    if given:
        raise TargetError(
            f"{', '.join(given)}: only for langgraph apps (threads, checkpointers and run contexts); "
            f"{args.target} is a StepScope engine graph."
        )


def _open_trace(ref: str, db: str | None) -> Trace:
    path = Path(ref)
    if path.suffix == ".json" or path.is_file():
        return read_trace_file(path)
    return open_store(db).load(ref)


def command_show(args: argparse.Namespace) -> int:
    thread = trace_from_args(args, args.trace)
    trace = thread[0] if thread else _open_trace(args.trace, args.db)
    replay = Replay(trace)
    steps = [s for s in trace.steps if args.step is None or s.step == args.step]
    if args.step is not None and not steps:
        raise StoreError(f"the run has no step {args.step}; it has steps {replay.order[0]}..{replay.order[-1]}.")
    if args.channel is not None:
        known = set(trace.graph.get("channels") or {}) | {c.channel for s in trace.steps for c in s.reducer_calls}
        if args.channel not in known:
            raise StoreError(
                f"the run has no state key {args.channel!r}; its keys are: {', '.join(sorted(known)) or '(none)'}."
            )
    print(f"run {trace.run_id}  graph {trace.graph.get('name')}  status {run_status.label(trace.status, trace.error)}")
    for step in steps:
        calls = [(c, b, a) for c, b, a in replay.call_values(step.step) if args.channel in (None, c.channel)]
        if not calls:
            continue
        print(f"step {step.step}: {', '.join(t.name for t in step.tasks) or '(input)'}")
        for call, before, after in calls:
            verdict = "REFUSED" if call.error else short(after, 60)
            print(
                f"  #{call.index} {call.channel} [{call.reducer}] from {call.writer_name}: "
                f"{short(before, 50)} -> {short(call.write, 50)} -> {verdict}"
            )
            print(f"      {explain_call(call, before, after, applied=step.committed)}")
    if trace.error and trace.status not in ("running", "cancelled", "timeout"):
        print(f"error: {trace.error['class']}: {trace.error['message']}")
    last = replay.order[-1] if replay.order else None
    print(run_status.ending(trace.status, trace.error, after=f"step {last}" if last is not None else ""))
    return 0


def command_runs(args: argparse.Namespace) -> int:
    runs = open_store(args.db).list(graph=args.graph, status=args.status)
    if not runs:
        print("no stored runs yet: `stepscope run TARGET` records one.")
        return 0
    rows = [
        [
            r.run_id[:12],
            r.graph,
            r.target,
            r.started_at[:19],
            run_status.label(r.status, r.error),
            str(r.steps),
            _note(r),
        ]
        for r in runs
    ]
    print(_table(rows, ["run", "graph", "target", "started (UTC)", "status", "steps", "error"]))
    return 0


def _note(run: Any, width: int = 90) -> str:
    """The run list's last column: the error, or for a run that did not end, where its recording stops."""
    text = run_status.note(run.status, run.error, after=f"{run.steps} supersteps")
    return text if len(text) <= width else text[: width - 1] + "…"


def command_samples(args: argparse.Namespace) -> int:
    from sample_graphs.gallery import list_samples

    rows = [[s.name, s.title, s.summary] for s in list_samples()]
    print(_table(rows, ["sample", "title", "lesson"]))
    return 0


def command_app(args: argparse.Namespace) -> int:
    from debugger.launch import launch

    return launch(
        host=args.host,
        port=args.port,
        sample=args.sample,
        db=args.db,
        checkpointer=args.checkpointer,
        thread=args.thread,
    )


def command_diagnose(args: argparse.Namespace) -> int:
    subject, graph, trace = _diagnosis_subject(args)
    findings = diagnose(graph, trace)
    status = trace.status if trace is not None else None
    ending = _ending(trace)
    if args.json:
        data = to_data(findings, subject, status)
        data["ending"] = ending
        print(json.dumps(data, ensure_ascii=False, indent=1, default=repr))
    else:
        print(render(findings, subject, run_status.label(status, trace.error) if trace is not None else None))
        if ending and trace is not None and trace.status != "done":
            print(ending)
    return 1 if has_errors(findings) else 0


def _ending(trace: Trace | None) -> str | None:
    if trace is None:
        return None
    steps = [s.step for s in trace.steps]
    return run_status.ending(trace.status, trace.error, after=f"step {steps[-1]}" if steps else "")


def _diagnosis_subject(args: argparse.Namespace) -> tuple[str, Any, Trace | None]:
    """(what is diagnosed, the live graph or None, the trace or None) for a target, a trace file or a run id."""
    ref = args.target
    thread = trace_from_args(args, ref)
    if thread is not None:
        return f"thread {args.thread} of {ref}", thread[1].view, thread[0]
    path = Path(ref.partition(":")[0])
    if path.suffix == ".json" or (path.suffix != ".py" and Path(ref).is_file()):
        return f"trace {ref}", None, _open_trace(ref, args.db)
    if path.suffix == ".py" or ":" in ref or "." in ref or _is_sample(ref):
        target = load_target(ref)
        if target.is_langgraph:
            return _langgraph_subject(args, target)
        if args.no_run:
            return f"graph {ref}", target.graph, None
        if args.input is not None:
            graph_input = _input_option(args.input, None)
        else:
            try:
                graph_input = copy.deepcopy(target.example_input)
            except Exception:  # an input that cannot be copied is passed as it is
                graph_input = target.example_input
        outcome = record_run(
            target.graph, graph_input, dict(target.example_config), target=ref, timeout=timeout_from(None)
        )
        return f"graph {ref}", target.graph, outcome.trace  # the run's own error is what we diagnose
    try:
        trace = open_store(args.db).load(ref)
    except StoreError as exc:
        raise TargetError(f"{ref}: not a sample, a .py file, a module or a stored run ({exc})") from None
    return f"run {trace.run_id[:12]}", None, trace


def _langgraph_subject(args: argparse.Namespace, target: Any) -> tuple[str, Any, Trace | None]:
    from debugger.langgraph_recorder import cli as langgraph_cli

    view, result, skipped = langgraph_cli.diagnosis_run(args, target)
    if skipped:
        print(f"note: the checks before running were skipped: {skipped}", file=sys.stderr)
    if result is not None and result.before_start:
        raise RunFailedBeforeStart(
            f"{args.target}: the run failed before its first superstep, so there is nothing "
            f"to diagnose in it: {type(result.error).__name__}: {result.error}"
        )
    return f"graph {args.target}", view, result.trace if result is not None else None


class RunFailedBeforeStart(Exception):
    """`diagnose` ran the graph and langgraph refused it before its first superstep (exit 2)."""


def _is_sample(name: str) -> bool:
    from sample_graphs.gallery import SAMPLES

    return name in SAMPLES


def command_export(args: argparse.Namespace) -> int:
    print(open_store(args.db).export(args.run, args.file))
    return 0


def command_import(args: argparse.Namespace) -> int:
    print(open_store(args.db).import_file(args.file, replace=args.replace))
    return 0


def command_delete(args: argparse.Namespace) -> int:
    print(f"deleted {open_store(args.db).delete(args.run)}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="stepscope", description="See what a state graph does, superstep by superstep."
    )
    commands = parser.add_subparsers(dest="command", required=True)

    def add(name: str, handler: Any, help: str) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help, description=help)
        sub.add_argument(
            "--db", help="the run database (default: $STEPSCOPE_DB or ~/.local/share/stepscope/runs.sqlite3)"
        )
        sub.set_defaults(handler=handler)
        return sub

    run = add("run", command_run, "run a graph headless, record and store it, print its supersteps")
    run.add_argument("target", nargs="?", default=DEFAULT_SAMPLE, help="sample name, file.py[:attr] or module[:attr]")
    run.add_argument(
        "--input", help="the graph input as JSON, @file.json or - for stdin (default: the module's example_input)"
    )
    run.add_argument("--out", help="also write the trace to this JSON file")
    run.add_argument(
        "--follow",
        action="store_true",
        help="print each superstep as it commits and the nodes running now; Ctrl-C stops and stores",
    )
    run.add_argument(
        "--recursion-limit",
        type=int,
        help="supersteps allowed (default: the sample's example_config, else LangGraph's 10007)",
    )
    run.add_argument("--config", help="langgraph apps: the run config as JSON (or @file.json)")
    run.add_argument("--thread", help="langgraph apps with a checkpointer: the thread to run on (default: a new one)")
    run.add_argument("--context", help="langgraph apps with a context_schema: the run context as JSON")
    run.add_argument("--resume", help="langgraph apps: answer the thread's interrupt (JSON, or plain text)")
    run.add_argument(
        "--timeout",
        type=float,
        help="stop waiting after this many seconds and keep what was "
        "recorded (default: $STEPSCOPE_RUN_TIMEOUT, else no limit)",
    )
    show = add("show", command_show, "print a run's merges, one reducer call at a time")
    show.add_argument("trace", help="a trace .json file or a stored run id (a unique prefix is enough)")
    show.add_argument("--step", type=int, help="only this superstep")
    show.add_argument("--channel", help="only this state key")
    add_thread_arguments(show)
    threads = add("threads", command_threads, "list the threads of a langgraph checkpointer, newest first")
    add_thread_arguments(threads, thread=False)
    threads.add_argument("--limit", type=int, default=200)
    fork = add("fork", command_fork, "time travel on a checkpointer thread, run on a local copy (never the app's)")
    fork.add_argument("target", help="the app's graph, file.py[:attr] or module[:attr]")
    add_thread_arguments(fork)
    fork.add_argument("--update", help="edit the checkpoint first: JSON values, as if --as-node returned them")
    fork.add_argument("--as-node", help="with --update: the node the edit is made as")
    fork.add_argument("--resume", help="answer the thread's interrupt (JSON)")
    fork.add_argument("--out", help="the local SQLite file for the copy (default: a new temporary file)")
    runs = add("runs", command_runs, "list stored runs, newest first")
    runs.add_argument("--graph", help="only runs of this graph")
    runs.add_argument(
        "--status",
        choices=ALL_STATUSES,
        help="only runs with this stored status (`running`: runs that did not end, listed as cut off or unfinished)",
    )
    add("samples", command_samples, "list the gallery of sample lessons")
    diag = add(
        "diagnose",
        command_diagnose,
        "find concurrent updates, reducer traps and in-place edits; exit 1 if any finding is an error",
    )
    diag.add_argument(
        "target",
        help="sample name, file.py[:attr] or module[:attr] (checked, then run and checked), "
        "a trace .json file or a stored run id",
    )
    diag.add_argument("--json", action="store_true", help="print the findings as JSON")
    diag.add_argument("--no-run", action="store_true", help="for a graph: only the checks before running")
    diag.add_argument("--input", help="the graph input as JSON, @file.json or - (default: the module's example_input)")
    for name, text in (
        ("config", "the run config as JSON"),
        ("thread", "the thread to run on (with --checkpointer: to read)"),
        ("context", "the run context as JSON"),
        ("resume", "answer the thread's interrupt"),
    ):
        diag.add_argument(f"--{name}", help=f"langgraph apps: {text}")
    add_thread_arguments(diag, thread=False)
    diag.add_argument("--checkpoint", metavar="ID", help="with --checkpointer: stop at this checkpoint")
    app = add("app", command_app, "open the step-through debugger in the browser (http://127.0.0.1:8501)")
    app.add_argument("sample", nargs="?", help="the sample to open first (default: subgraph_trap)")
    app.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    app.add_argument("--port", type=int, default=8501)
    add_thread_arguments(app, checkpoint=False)
    export = add("export", command_export, "write a stored run to a JSON trace file")
    export.add_argument("run")
    export.add_argument("file")
    imp = add("import", command_import, "store a JSON trace file in the database")
    imp.add_argument("file")
    imp.add_argument("--replace", action="store_true", help="overwrite a different stored run with the same id")
    delete = add("delete", command_delete, "delete a stored run")
    delete.add_argument("run")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.handler(args)
    except KeyboardInterrupt:  # outside a run (a run keeps what it recorded): stop quietly
        print("stopped (Ctrl-C).", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `stepscope samples | head`: the reader has all it wanted
        _silence_stdout()
        return 0
    except (
        TargetError,
        StoreError,
        TraceFileError,
        RecordingError,
        RunFailedBeforeStart,
        CheckpointerError,
        RunSetupError,
        ThreadFileError,
        UnsupportedLangGraph,
        UnrecordableChannel,
    ) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except json.JSONDecodeError as exc:
        print(f"error: --input is not valid JSON: {exc}", file=sys.stderr)
        return 2


def _silence_stdout() -> None:
    """Python would report the closed pipe again when it flushes stdout at exit."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a real file (tests): nothing to flush
        pass


if __name__ == "__main__":
    sys.exit(main())
