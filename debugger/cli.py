"""The `stepscope` command.

    stepscope run TARGET [--input JSON] [--out FILE] [--db PATH]   run, record, store, print the supersteps
                      [--follow]                                   ... printing each one as it commits
    stepscope show FILE|RUN_ID [--step N] [--channel KEY]          every merge, one reducer call at a time
    stepscope runs [--graph NAME] [--status S]                      the stored runs, newest first
    stepscope samples                                               the gallery of lessons
    stepscope diagnose TARGET|FILE|RUN_ID [--json] [--no-run]      find mistakes; exit 1 on an error-level finding
    stepscope export RUN_ID FILE | import FILE | delete RUN_ID      move runs in and out of the database

TARGET is a sample name, `path/to/file.py[:attribute]` or `package.module[:attribute]`; without an
attribute the module's `graph` (or its only compiled graph) is used, with its `example_input`.
Runs are stored in the database described in `debugger/store.py` (`--db` or `$STEPSCOPE_DB`).
"""

from __future__ import annotations

import argparse
import copy
import json
import sys
from pathlib import Path
from typing import Any, Sequence

from engine.codec import encode
from engine.trace import Recorder, Trace
from engine.tracefile import TraceFileError, read_file, to_json
from debugger.diagnostics import diagnose, has_errors
from debugger.diagnostics.report import render, to_data
from debugger.present import explain_call, short
from debugger.replay import Replay
from debugger.store import RunStore, StoreError
from debugger.targets import TargetError, load_target

DEFAULT_SAMPLE = "subgraph_trap"


def _table(rows: list[list[str]], headers: list[str]) -> str:
    widths = [max(len(str(x)) for x in column) for column in zip(headers, *rows)]
    line = lambda cells: "  ".join(str(c).ljust(w) for c, w in zip(cells, widths)).rstrip()  # noqa: E731
    return "\n".join([line(headers), line(["-" * w for w in widths]), *(line(r) for r in rows)])


def superstep_rows(trace: Trace) -> list[list[str]]:
    rows = []
    for step in trace.steps:
        if step.step < 0:
            continue
        keys = sorted({c.channel for c in step.reducer_calls})
        errors = [t.error for t in step.tasks if t.error] + [c.error for c in step.reducer_calls if c.error]
        error = f"{errors[0]['class']}: {errors[0]['message'].splitlines()[0]}" if errors else ""
        nested = sum(len(t.subgraphs) for t in step.tasks)
        tasks = ", ".join(t.name for t in step.tasks) + (f" (+{nested} subgraph run)" if nested else "")
        rows.append([str(step.step), tasks, ", ".join(keys), str(len(step.reducer_calls)), short(error, 70) if error else ""])
    return rows


def command_run(args: argparse.Namespace) -> int:
    target = load_target(args.target)
    graph_input = json.loads(args.input) if args.input is not None else target.example_input
    config = dict(target.example_config)
    if args.recursion_limit is not None:
        config["recursion_limit"] = args.recursion_limit
    if args.follow:  # prints each superstep as it commits; Ctrl-C stops and stores (debugger/live/follow.py)
        from debugger.live.follow import follow

        return follow(args.target, target.graph, graph_input, config, db=args.db, out_file=args.out)
    recorder = Recorder(target=args.target)
    failure: BaseException | None = None
    try:
        output = target.graph.invoke(graph_input, config, hooks=recorder)
    except Exception as exc:  # the run's own error: recorded, stored, reported in words
        failure, output = exc, None
    trace = recorder.trace
    print(_table(superstep_rows(trace), ["step", "tasks", "keys written", "reducer calls", "error"]))
    run_id = RunStore(args.db).save(trace)
    if args.out:
        Path(args.out).write_text(to_json(trace, indent=1), encoding="utf-8")
    print(f"status: {trace.status}   run: {run_id}" + (f"   trace: {args.out}" if args.out else ""))
    if failure is not None:
        print(f"error: {type(failure).__name__}: {failure}", file=sys.stderr)
        return 1
    print(f"final state: {short(encode(output), 400)}")
    return 0


def _open_trace(ref: str, db: str | None) -> Trace:
    path = Path(ref)
    if path.suffix == ".json" or path.is_file():
        return read_file(path)
    return RunStore(db).load(ref)


def command_show(args: argparse.Namespace) -> int:
    trace = _open_trace(args.trace, args.db)
    replay = Replay(trace)
    steps = [s for s in trace.steps if args.step is None or s.step == args.step]
    if args.step is not None and not steps:
        raise StoreError(f"the run has no step {args.step}; it has steps {replay.order[0]}..{replay.order[-1]}.")
    print(f"run {trace.run_id}  graph {trace.graph.get('name')}  status {trace.status}")
    for step in steps:
        calls = [(c, b, a) for c, b, a in replay.call_values(step.step) if args.channel in (None, c.channel)]
        if not calls:
            continue
        print(f"step {step.step}: {', '.join(t.name for t in step.tasks) or '(input)'}")
        for call, before, after in calls:
            verdict = "REFUSED" if call.error else short(after, 60)
            print(f"  #{call.index} {call.channel} [{call.reducer}] from {call.writer_name}: "
                  f"{short(before, 50)} -> {short(call.write, 50)} -> {verdict}")
            print(f"      {explain_call(call, before, after, applied=step.committed)}")
    if trace.error:
        print(f"error: {trace.error['class']}: {trace.error['message']}")
    return 0


def command_runs(args: argparse.Namespace) -> int:
    runs = RunStore(args.db).list(graph=args.graph, status=args.status)
    if not runs:
        print("no stored runs yet: `stepscope run TARGET` records one.")
        return 0
    rows = [[r.run_id[:12], r.graph, r.target, r.started_at[:19], r.status, str(r.steps), r.error[:60]] for r in runs]
    print(_table(rows, ["run", "graph", "target", "started (UTC)", "status", "steps", "error"]))
    return 0


def command_samples(args: argparse.Namespace) -> int:
    from sample_graphs.gallery import list_samples

    rows = [[s.name, s.title, s.summary] for s in list_samples()]
    print(_table(rows, ["sample", "title", "lesson"]))
    return 0


def command_app(args: argparse.Namespace) -> int:
    from debugger.launch import launch

    return launch(host=args.host, port=args.port, sample=args.sample, db=args.db)


def command_diagnose(args: argparse.Namespace) -> int:
    subject, graph, trace = _diagnosis_subject(args)
    findings = diagnose(graph, trace)
    status = trace.status if trace is not None else None
    if args.json:
        print(json.dumps(to_data(findings, subject, status), ensure_ascii=False, indent=1, default=repr))
    else:
        print(render(findings, subject, status))
    return 1 if has_errors(findings) else 0


def _diagnosis_subject(args: argparse.Namespace) -> tuple[str, Any, Trace | None]:
    """(what is diagnosed, the live graph or None, the trace or None) for a target, a trace file or a run id."""
    ref = args.target
    path = Path(ref.partition(":")[0])
    if path.suffix == ".json" or (path.suffix != ".py" and Path(ref).is_file()):
        return f"trace {ref}", None, _open_trace(ref, args.db)
    if path.suffix == ".py" or ":" in ref or "." in ref or _is_sample(ref):
        target = load_target(ref)
        if args.no_run:
            return f"graph {ref}", target.graph, None
        if args.input is not None:
            graph_input = json.loads(args.input)
        else:
            try:
                graph_input = copy.deepcopy(target.example_input)
            except Exception:  # an input that cannot be copied is passed as it is
                graph_input = target.example_input
        from debugger.sources import record

        return f"graph {ref}", target.graph, record(target.graph, graph_input, dict(target.example_config), ref)
    try:
        trace = RunStore(args.db).load(ref)
    except StoreError as exc:
        raise TargetError(f"{ref}: not a sample, a .py file, a module or a stored run ({exc})") from None
    return f"run {trace.run_id[:12]}", None, trace


def _is_sample(name: str) -> bool:
    from sample_graphs.gallery import SAMPLES

    return name in SAMPLES


def command_export(args: argparse.Namespace) -> int:
    print(RunStore(args.db).export(args.run, args.file))
    return 0


def command_import(args: argparse.Namespace) -> int:
    print(RunStore(args.db).import_file(args.file))
    return 0


def command_delete(args: argparse.Namespace) -> int:
    print(f"deleted {RunStore(args.db).delete(args.run)}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="stepscope", description="See what a state graph does, superstep by superstep.")
    commands = parser.add_subparsers(dest="command", required=True)

    def add(name: str, handler: Any, help: str) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help, description=help)
        sub.add_argument("--db", help="the run database (default: $STEPSCOPE_DB or ~/.local/share/stepscope/runs.sqlite3)")
        sub.set_defaults(handler=handler)
        return sub

    run = add("run", command_run, "run a graph headless, record and store it, print its supersteps")
    run.add_argument("target", nargs="?", default=DEFAULT_SAMPLE, help="sample name, file.py[:attr] or module[:attr]")
    run.add_argument("--input", help="the graph input as JSON (default: the module's example_input)")
    run.add_argument("--out", help="also write the trace to this JSON file")
    run.add_argument("--follow", action="store_true",
                     help="print each superstep as it commits and the nodes running now; Ctrl-C stops and stores")
    run.add_argument("--recursion-limit", type=int,
                     help="supersteps allowed (default: the sample's example_config, else LangGraph's 10007)")
    show = add("show", command_show, "print a run's merges, one reducer call at a time")
    show.add_argument("trace", help="a trace .json file or a stored run id (a unique prefix is enough)")
    show.add_argument("--step", type=int, help="only this superstep")
    show.add_argument("--channel", help="only this state key")
    runs = add("runs", command_runs, "list stored runs, newest first")
    runs.add_argument("--graph", help="only runs of this graph")
    runs.add_argument("--status", choices=["done", "interrupted", "error", "recursion_limit"])
    add("samples", command_samples, "list the gallery of sample lessons")
    diag = add("diagnose", command_diagnose,
               "find concurrent updates, reducer traps and in-place edits; exit 1 if any finding is an error")
    diag.add_argument("target", help="sample name, file.py[:attr] or module[:attr] (checked, then run and checked), "
                                      "a trace .json file or a stored run id")
    diag.add_argument("--json", action="store_true", help="print the findings as JSON")
    diag.add_argument("--no-run", action="store_true", help="for a graph: only the checks before running")
    diag.add_argument("--input", help="the graph input as JSON (default: the module's example_input)")
    app = add("app", command_app, "open the step-through debugger in the browser (http://127.0.0.1:8501)")
    app.add_argument("sample", nargs="?", help="the sample to open first (default: subgraph_trap)")
    app.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    app.add_argument("--port", type=int, default=8501)
    export = add("export", command_export, "write a stored run to a JSON trace file")
    export.add_argument("run")
    export.add_argument("file")
    imp = add("import", command_import, "store a JSON trace file in the database")
    imp.add_argument("file")
    delete = add("delete", command_delete, "delete a stored run")
    delete.add_argument("run")
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    try:
        return args.handler(args)
    except (TargetError, StoreError, TraceFileError) as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except json.JSONDecodeError as exc:
        print(f"error: --input is not valid JSON: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
