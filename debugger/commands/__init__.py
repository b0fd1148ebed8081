"""The `stepscope` subcommands, one module each: an argparse layer (`add_to(commands)` registers the
subcommand and its options) over a service that returns data or raises a typed error; the module prints.

    run.py        stepscope run TARGET          record a run on its runtime (`Runtime.record`), print its supersteps
    show.py       stepscope show FILE|RUN_ID    every merge, one reducer call at a time
    threads.py    stepscope threads             a checkpointer's threads (`debugger/runtimes/langgraph/threads/open.py`)
    fork.py       stepscope fork TARGET         time travel on a checkpointer thread, on a local copy
    runs.py       stepscope runs                the stored runs
    samples.py    stepscope samples             the gallery of lessons
    diagnose.py   stepscope diagnose ...        findings (`debugger/diagnostics/`), printed by `diagnose_text.py`
    compare.py    stepscope compare A B         two runs superstep by superstep (`debugger/model/compare.py`)
    app.py        stepscope app                 the Streamlit debugger (`debugger/commands/app_server.py`)
    export.py, import_.py, delete.py            move runs in and out of the run store
    common.py     what several share: the `--db` option, tables, JSON options, the checkpointer options

`debugger/cli.py` assembles the parser from `COMMANDS` and maps the typed errors to exit codes.
"""

from __future__ import annotations

from debugger.commands import app, compare, delete, diagnose, export, fork, import_, run, runs, samples, show, threads

COMMANDS = (run, show, threads, fork, runs, samples, diagnose, compare, app, export, import_, delete)
"""Every subcommand module, in the order `stepscope --help` lists them."""
