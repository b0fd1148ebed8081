"""The `stepscope` command: the parser, assembled from `debugger/commands/` (one module per subcommand),
and `main`, which maps the typed errors of the services to one `error: ...` line and exit code 2.

    stepscope run TARGET [--input JSON|@FILE|-] [--out FILE] [--db PATH]   run, record, store, print the supersteps
        [--config JSON] [--recursion-limit N] [--timeout S]       `run` and `diagnose` take the same options
        apps with threads also: [--thread ID] [--context JSON] [--resume VALUE]   (debugger/runtimes/run_options.py)
        [--checkpointer URL]                                      run an app compiled without a saver on this
                                                                  SQLite file or postgresql:// URL: its thread is
                                                                  kept there (`threads`, `--resume` read it)
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


# set before the imports below; `main` puts Python's own handler back, so a run sees KeyboardInterrupt
# and keeps what it recorded. Only in the `stepscope` process, never on import.
if __name__ == "__main__" or os.path.basename(sys.argv[0]) == "stepscope":
    signal.signal(signal.SIGINT, _stopped_while_starting)
    # past a file-size limit (`ulimit -f`) a write fails with EFBIG, which says so and removes the half file
    # (`commands/files.py`), where SIGXFSZ would kill the process mid-write
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)

import argparse
import gc
import json
from typing import Sequence

from debugger import i18n
from debugger.commands import COMMANDS, command_module
from debugger.commands.terminal import safe_print as print  # every line shown goes through one filter: no escape codes

USAGE_ERRORS: tuple[str, ...] = (
    "debugger.runtimes.runtime:TargetError",
    "debugger.stores.protocol:StoreError",
    "engine.tracefile:TraceFileError",
    "debugger.sources.recording:RecordingError",
    "debugger.commands.diagnose:RunFailedBeforeStart",
    "debugger.runtimes.threads_api:CheckpointerError",
    "debugger.runtimes.runtime:RunSetupError",
    "debugger.model.html_report:ReportError",
)
"""The typed errors a command reports as one `error: ...` line (exit 2): bad input, never a traceback.
Named, not imported: a command imports only what it needs (see `debugger.commands.COMMANDS`), and
each runtime adds its own (`Runtime.errors`, `usage_errors`)."""
REGISTRY = "debugger.runtimes.registry"


def usage_errors() -> tuple[type[Exception], ...]:
    """The classes of `USAGE_ERRORS` and every runtime's own errors, of the modules loaded so far: an
    exception is an instance of a class whose module was imported, so the others cannot have been raised."""
    found = []
    for name in USAGE_ERRORS:
        module, _, attribute = name.partition(":")
        if module in sys.modules:
            found.append(getattr(sys.modules[module], attribute))
    if REGISTRY in sys.modules:
        found.extend(sys.modules[REGISTRY].runtime_errors())
    return tuple(found)


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The `stepscope` parser: with `command` (a name of `debugger.commands.COMMANDS`) that subcommand
    alone, which imports only its module; else every subcommand (the whole `--help`)."""
    parser = argparse.ArgumentParser(
        prog="stepscope", description="See what a state graph does, superstep by superstep."
    )
    commands = parser.add_subparsers(dest="command", required=True)
    for name in [command] if command in COMMANDS else COMMANDS:
        command_module(name).add_to(commands)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Runs one `stepscope` command; returns its exit code."""
    argv = sys.argv[1:] if argv is None else list(argv)
    # the subcommand is the first word (stepscope has no options of its own but --help); its module is
    # imported here, still under `_stopped_while_starting`
    args = build_parser(argv[0] if argv else None).parse_args(argv)
    if signal.getsignal(signal.SIGINT) is _stopped_while_starting:  # the `stepscope` process, not a caller's
        signal.signal(signal.SIGINT, signal.default_int_handler)
        # StepScope's modules live as long as the process: frozen, the collector no longer walks them on
        # each full collection while the app imports and runs (`stepscope run`: about 0.05 CPU s)
        gc.freeze()
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
    except Exception as exc:
        if not isinstance(exc, usage_errors()):
            raise
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
