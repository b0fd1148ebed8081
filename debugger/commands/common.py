"""What several subcommands share: the `--db` option, plain-text tables, JSON options, the run request,
the checkpointer options."""

from __future__ import annotations

import argparse
import json
import sys
import unicodedata
from pathlib import Path
from typing import Any, Callable

from debugger.commands.terminal import one_line
from debugger.runtimes.runtime import NO_RESUME, LoadedTarget, RunRequest, RunSetupError

# Every subcommand imports this module, so what only some of them use is imported where it is used:
# the checkpointer threads' opening (`runtimes/checkpointers/open.py`, which loads every runtime) and the app's run
# sources (`sources/runs.py`, which loads the forks, the comparison and the diagnostics). `stepscope run`
# loads neither unless it resumes (tests/test_cli_lazy.py).

Handler = Callable[[argparse.Namespace], int]


def add_command(commands: Any, name: str, handler: Handler, help: str) -> argparse.ArgumentParser:
    """A subcommand with the `--db` option every one of them takes, run by `handler(args)`."""
    sub = commands.add_parser(name, help=help, description=help)
    sub.add_argument("--db", help="the run database (default: $STEPSCOPE_DB or ~/.local/share/stepscope/runs.sqlite3)")
    sub.add_argument(
        "--lang", help="the language of lessons and explanations: en or zh (default: from $LANGUAGE, $LC_ALL, $LANG)"
    )
    sub.set_defaults(handler=handler)
    return sub


def width(text: str) -> int:
    """How many terminal columns `text` takes: a Chinese character (East Asian wide or full-width) takes two."""
    if text.isascii():  # no ASCII character is wide: the usual cell, without a lookup per character
        return len(text)
    return sum(2 if unicodedata.east_asian_width(ch) in "WF" else 1 for ch in text)


def table(rows: list[list[str]], headers: list[str]) -> str:
    """Rows under their headers, in columns as wide as their widest cell. Every cell is data on one line
    (`one_line`), so no value (a run id with a newline, say) can start a row of its own."""
    rows = [[one_line(cell) for cell in row] for row in rows]
    widths = [max(width(str(x)) for x in column) for column in zip(headers, *rows)]
    line = lambda cells: "  ".join(str(c) + " " * (w - width(str(c))) for c, w in zip(cells, widths)).rstrip()  # noqa: E731
    return "\n".join([line(headers), line(["-" * w for w in widths]), *(line(r) for r in rows)])


def read_json_option(text: str | None, what: str) -> Any:
    """A JSON option given inline, as `@file.json`, or `-` for standard input; None when not given."""
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


def add_checkpointer_options(parser: argparse.ArgumentParser, *, thread: bool = True, checkpoint: bool = True) -> None:
    """`--checkpointer URL [--thread ID [--checkpoint ID]]`: a checkpointer thread to read."""
    parser.add_argument(
        "--checkpointer",
        metavar="URL",
        help="a langgraph or LangGraph.js checkpointer: the SQLite file of SqliteSaver, or a postgresql:// URL",
    )
    if thread:
        parser.add_argument("--thread", metavar="ID", help="with --checkpointer: the thread to open")
    if thread and checkpoint:
        parser.add_argument(
            "--checkpoint", metavar="ID", help="with --thread: stop at this checkpoint (default: the newest)"
        )


def thread_from_args(args: argparse.Namespace, target: str, *, step: int | None = None) -> Any:
    """(trace, App) of the thread `--checkpointer/--thread` name, with `target` as the app's graph (its one
    step `step` and how the thread ended, when given); None without."""
    from debugger.runtimes.checkpointers.open import thread_from_options

    return thread_from_options(
        target,
        getattr(args, "checkpointer", None),
        getattr(args, "thread", None),
        getattr(args, "checkpoint", None),
        step=step,
    )


THREAD_OPTIONS = ("config", "thread", "context", "resume")
"""The run options for runtimes whose runs live on checkpointer threads (`Runtime.check_run_options`)."""


def run_request(args: argparse.Namespace, loaded: LoadedTarget) -> RunRequest:
    """The run the options ask for, on the target's defaults (`example_input`, `example_config`); thread
    options the target's runtime does not take are refused by name first."""
    loaded.runtime.check_run_options([n for n in THREAD_OPTIONS if getattr(args, n, None) is not None], args.target)
    config = dict(loaded.example_config)
    extra = read_json_option(getattr(args, "config", None), "--config")
    if extra is not None:
        if not isinstance(extra, dict):
            raise RunSetupError("--config must be a JSON object, e.g. '{\"recursion_limit\": 50}'.")
        config.update(extra)
    if getattr(args, "recursion_limit", None) is not None:
        config["recursion_limit"] = args.recursion_limit
    graph_input = read_json_option(args.input, "--input")
    resume = getattr(args, "resume", None)
    if resume is not None:
        from debugger.sources.runs import answer_value  # one function of a heavy module: only to resume
    return RunRequest(
        loaded.graph,
        loaded.example_input if graph_input is None else graph_input,
        config,
        args.target,
        thread=getattr(args, "thread", None),
        resume=NO_RESUME if resume is None else answer_value(resume),
        context=read_json_option(getattr(args, "context", None), "--context"),
    )
