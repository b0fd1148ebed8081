"""What several subcommands share: the `--db` option, plain-text tables, the checkpointer options (the
options that make a run are `debugger/runtimes/run_options.py`)."""

from __future__ import annotations

import argparse
import unicodedata
from typing import Any, Callable

from debugger.commands.terminal import one_line

# Every subcommand imports this module, so what only some of them use is imported where it is used:
# the checkpointer threads' opening (`runtimes/checkpointers/open.py`, which loads every runtime) and the app's run
# sources (`sources/runs.py`, which loads the forks, the comparison and the diagnostics). `stepscope run`
# loads neither (tests/test_cli_lazy.py).

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
