"""The `stepscope` subcommands, one module each: an argparse layer (`add_to(commands)` registers the
subcommand and its options) over a service that returns data or raises a typed error; the module prints.

    run.py        stepscope run TARGET          record a run on its runtime (`Runtime.record`), print its supersteps
    show.py       stepscope show FILE|RUN_ID    every merge, one reducer call at a time
    threads.py    stepscope threads             a checkpointer's threads (`debugger/runtimes/checkpointers/open.py`)
    fork.py       stepscope fork TARGET         time travel on a checkpointer thread, on a local copy
    runs.py       stepscope runs                the stored runs
    samples.py    stepscope samples             the gallery of lessons
    diagnose.py   stepscope diagnose ...        findings (`debugger/diagnostics/`), printed by `diagnose_text.py`
    compare.py    stepscope compare A B         two runs superstep by superstep (`debugger/model/compare.py`)
    app.py        stepscope app                 the Streamlit debugger (`debugger/commands/app_server.py`)
    export.py, import_.py, delete.py            move runs in and out of the run store
    common.py     what several share: the `--db` option, tables, JSON options, the checkpointer options

`debugger/cli.py` assembles the parser from `COMMANDS` and maps the typed errors to exit codes.
Importing this package imports no subcommand: `command_module` imports the one a command line names.
"""

from __future__ import annotations

import importlib
from types import ModuleType

COMMANDS: dict[str, str] = {
    "run": "run",
    "show": "show",
    "threads": "threads",
    "fork": "fork",
    "runs": "runs",
    "samples": "samples",
    "diagnose": "diagnose",
    "compare": "compare",
    "app": "app",
    "export": "export",
    "import": "import_",
    "delete": "delete",
}
"""Every subcommand's name and its module here, in the order `stepscope --help` lists them. A module
is imported only for its own command (or for the whole help): `stepscope run` does not pay for the
app's server, the diagnostics or the stores' schema checks that other commands need."""


def command_module(name: str) -> ModuleType:
    """The module of subcommand `name` (a key of `COMMANDS`), imported now if it was not yet."""
    return importlib.import_module(f"{__name__}.{COMMANDS[name]}")
