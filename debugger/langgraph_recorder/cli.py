"""`stepscope run` and `stepscope diagnose` for langgraph targets (the CLI's langgraph half).

    stepscope run my_app.py:graph [--input JSON|@file.json|-] [--config JSON] [--thread ID]
                                  [--context JSON] [--resume VALUE]

A run that stops on `interrupt()` prints each question and the exact command that answers it.
"""

from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path
from typing import Any

from debugger.present import interrupt_line, short
from engine.codec import encode

from .runs import NO_RESUME, RunSetupError, checkpointer_of, parse_value, run_graph


def read_json_option(text: str | None, what: str) -> Any:
    """A JSON option given inline, as `@file.json`, or `-` for standard input."""
    if text is None:
        return None
    if text == "-":
        text = sys.stdin.read()
    elif text.startswith("@"):
        path = Path(text[1:])
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            raise RunSetupError(f"{what}: cannot read {path}: {exc.strerror or exc}.") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise RunSetupError(f"{what} is not valid JSON (line {exc.lineno}, column {exc.colno}): {exc.msg}.") from None


def run_options(args: Any, target: Any) -> dict[str, Any]:
    config = dict(target.example_config)
    extra = read_json_option(getattr(args, "config", None), "--config")
    if extra is not None:
        if not isinstance(extra, dict):
            raise RunSetupError("--config must be a JSON object, e.g. '{\"recursion_limit\": 50}'.")
        config.update(extra)
    if getattr(args, "recursion_limit", None) is not None:
        config["recursion_limit"] = args.recursion_limit
    graph_input = read_json_option(args.input, "--input")
    return {
        "graph_input": target.example_input if graph_input is None else graph_input,
        "config": config,
        "context": read_json_option(getattr(args, "context", None), "--context"),
        "thread": getattr(args, "thread", None),
        "resume": NO_RESUME if getattr(args, "resume", None) is None else parse_value(args.resume),
    }


def command_run(args: Any, target: Any, table: Any) -> int:
    """`stepscope run` on a langgraph target; `table(trace)` prints the supersteps."""
    from debugger.stores import open_store

    options = run_options(args, target)
    if getattr(args, "follow", False):
        return _follow(args, target, options)
    store = open_store(args.db)
    if options["resume"] is not NO_RESUME and not (
        options["thread"] or (options["config"].get("configurable") or {}).get("thread_id")
    ):
        raise RunSetupError(
            "--resume continues a thread: give the thread with --thread ID (the run that stopped printed it)."
        )
    if options["resume"] is not NO_RESUME and checkpointer_of(target.graph) is None:
        raise RunSetupError(
            f"{args.target} has no checkpointer, so there is no thread to resume: compile it with "
            f"checkpointer=InMemorySaver() (or another saver)."
        )
    result = run_graph(
        target.graph, options.pop("graph_input"), target=args.target, db=store, db_path=store.path, **options
    )
    trace = result.trace
    if args.out:
        from engine.tracefile import to_json

        Path(args.out).write_text(to_json(trace, indent=1), encoding="utf-8")
    if result.new_thread:
        print(f"thread: {result.thread_id} (new; continue it with --thread {result.thread_id})")
    elif result.thread_id:
        print(f"thread: {result.thread_id}")
    if result.before_start:
        error = result.error
        print(f"error: the run failed before its first superstep: {type(error).__name__}: {error}", file=sys.stderr)
        print(f"run: {trace.run_id} (stored, with no steps)")
        return 2
    print(table(trace))
    print(f"status: {trace.status}   run: {trace.run_id}" + (f"   trace: {args.out}" if args.out else ""))
    if trace.status == "interrupted" and trace.interrupts:
        for item in trace.interrupts:
            print(interrupt_line(item))
        if result.thread_id:
            print("answer it with (ANSWER as JSON, or plain text):")
            print("  " + resume_command(args, result.thread_id))
        else:  # langgraph ends the run at interrupt() and, without a saver, keeps nothing to resume from
            print(
                f"it cannot be answered: {args.target} has no checkpointer, so nothing of the paused run was "
                "kept to resume. Compile it with checkpointer=InMemorySaver() (or another saver) and run it "
                "again: the command that answers it is then printed here."
            )
        return 0
    if result.error is not None:
        print(f"error: {type(result.error).__name__}: {result.error}", file=sys.stderr)
        return 1
    print(f"final state: {short(encode(result.output), 400)}")
    return 0


def _follow(args: Any, target: Any, options: dict[str, Any]) -> int:
    """`--follow`: a live run (`debugger/runtimes/langgraph/live.py`) on a fresh thread, printed as it goes."""
    from debugger.live.follow import follow

    given = [name for name in ("thread", "context") if options[name] is not None] + (
        ["resume"] if options["resume"] is not NO_RESUME else []
    )
    if given:
        raise RunSetupError(
            f"--follow runs on a fresh thread without {', '.join('--' + g for g in given)}: "
            "drop --follow to continue a thread or pass a context."
        )
    return follow(args.target, target.graph, options["graph_input"], options["config"], db=args.db, out_file=args.out)


def resume_command(args: Any, thread_id: str, answer: str = "ANSWER") -> str:
    parts = ["stepscope", "run", args.target, "--thread", thread_id, "--resume", answer]
    if args.db:
        parts += ["--db", str(args.db)]
    return " ".join(shlex.quote(p) if p != answer else p for p in parts)


def diagnosis_run(args: Any, target: Any) -> tuple[Any, Any, str | None]:
    """(static view or None, trace, why static checks were skipped) for `stepscope diagnose` on a
    langgraph target. A run langgraph refused before its first superstep returns its trace with no steps."""
    from .static_view import StaticViewError, static_view

    try:
        view, skipped = static_view(target.graph), None
    except StaticViewError as exc:
        view, skipped = None, str(exc)
    if args.no_run:
        return view, None, skipped
    options = run_options(args, target)
    result = run_graph(target.graph, options.pop("graph_input"), target=args.target, db=False, **options)
    return view, result, skipped
