"""The `stepscope` command: the parser, assembled from `debugger/commands/` (one module per subcommand),
and `main`, which maps the typed errors of the services to one `error: ...` line and exit code 2.

    stepscope run TARGET [--input JSON|@FILE|-] [--out FILE] [--db PATH]   run, record, store, print the supersteps
        langgraph apps also: [--config JSON] [--thread ID] [--context JSON] [--resume VALUE]
        engine and langgraph: [--follow]                          print each superstep as it commits
    stepscope show FILE|RUN_ID [--step N] [--channel KEY]          every merge, one reducer call at a time
    stepscope runs [--graph NAME] [--status S]                      the stored runs, newest first
    stepscope samples [--lang zh]                                   the gallery of lessons (every command: --lang en|zh,
                                                                    default from LANG)
    stepscope diagnose TARGET|FILE|RUN_ID [--json] [--no-run]      find mistakes; exit 1 on an error-level finding
    stepscope compare A B [--json] [--all]                          two runs side by side; exit 1 if they differ
    stepscope export RUN_ID FILE | import FILE | delete RUN_ID      move runs in and out of the database
    stepscope export RUN_ID --html FILE                             the run as one self-contained web page
    stepscope threads --checkpointer URL                            threads of a langgraph checkpointer (SQLite file,
                                                                    postgresql:// URL); show, diagnose and app open
                                                                    one with
                                                                    `my_app.py:graph --checkpointer URL --thread ID`;
                                                                    `stepscope fork` time-travels one on a local copy

TARGET is a sample name, `path/to/file.py[:attribute]` or `package.module[:attribute]`; without an
attribute the module's `graph` (or its only compiled graph) is used, with its `example_input`.
Runs are stored in the database described in `debugger/store.py` (`--db` or `$STEPSCOPE_DB`).
"""

from __future__ import annotations

import os
import signal
import sys


def _stopped_while_starting(signum: int, frame: object) -> None:
    """A Ctrl-C while the command's modules are still importing: nothing has run, so nothing is lost;
    one line instead of a traceback through importlib."""
    os.write(2, b"stopped (Ctrl-C) while starting: nothing ran.\n")
    os._exit(130)


# set before the imports below (a third of a second); `main` puts Python's own handler back, so a run
# sees KeyboardInterrupt and keeps what it recorded. Only in the `stepscope` process, never on import.
if __name__ == "__main__" or os.path.basename(sys.argv[0]) == "stepscope":
    signal.signal(signal.SIGINT, _stopped_while_starting)

import argparse
import json
from typing import Sequence

from debugger import i18n
from debugger.commands import COMMANDS
from debugger.commands.diagnose import RunFailedBeforeStart
from debugger.commands.terminal import safe_print as print  # every line shown goes through one filter: no escape codes
from debugger.model.html_report import ReportError
from debugger.runtimes.langgraph.threads.savers import CheckpointerError
from debugger.runtimes.registry import runtime_errors
from debugger.runtimes.runtime import RunSetupError, TargetError
from debugger.sources.recording import RecordingError
from debugger.stores.protocol import StoreError
from engine.tracefile import TraceFileError

USAGE_ERRORS: tuple[type[Exception], ...] = (
    TargetError,
    StoreError,
    TraceFileError,
    RecordingError,
    RunFailedBeforeStart,
    CheckpointerError,
    RunSetupError,
    ReportError,
    *runtime_errors(),
)
"""The typed errors a command reports as one `error: ...` line (exit 2): bad input, never a traceback."""


def build_parser() -> argparse.ArgumentParser:
    """The `stepscope` parser, with every subcommand of `debugger.commands`."""
    parser = argparse.ArgumentParser(
        prog="stepscope", description="See what a state graph does, superstep by superstep."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    for module in COMMANDS:
        module.add_to(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Runs one `stepscope` command; returns its exit code."""
    if signal.getsignal(signal.SIGINT) is _stopped_while_starting:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    args = build_parser().parse_args(argv)
    language = i18n.parse(args.lang) if getattr(args, "lang", None) else i18n.from_environment()
    if language is None:
        print(f"error: unknown language {args.lang!r}: use --lang en or --lang zh", file=sys.stderr)
        return 2
    try:
        with i18n.using(language):  # the caller's language comes back after (a test calls main in-process)
            return args.handler(args)
    except KeyboardInterrupt:  # outside a run (a run keeps what it recorded): stop quietly
        print("stopped (Ctrl-C).", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `stepscope samples | head`: the reader has all it wanted
        _silence_stdout()
        return 0
    except USAGE_ERRORS as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    except json.JSONDecodeError as exc:
        print(f"error: --input is not valid JSON: {exc}", file=sys.stderr)
        return 2


def _silence_stdout() -> None:
    """Python would report the closed pipe again when it flushes stdout at exit."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # stdout is not a real file (tests): nothing to flush
        pass


if __name__ == "__main__":
    sys.exit(main())
