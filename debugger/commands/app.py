"""`stepscope app [SAMPLE] [--host H [--allow-code]] [--port P] [--checkpointer URL --thread ID]`: the
step-through debugger in the browser (`debugger/commands/app_server.py` starts Streamlit)."""

from __future__ import annotations

import argparse
from typing import Any

from debugger.commands.app_server import launch
from debugger.commands.common import add_checkpointer_options, add_command


def add_to(commands: Any) -> None:
    """Registers `stepscope app` and its options."""
    app = add_command(commands, "app", command, "open the step-through debugger in the browser (http://127.0.0.1:8501)")
    app.add_argument("sample", nargs="?", help="the sample to open first (default: subgraph_trap)")
    app.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    app.add_argument("--port", type=int, default=8501)
    app.add_argument(
        "--allow-code",
        action="store_true",
        help="with a --host beyond this machine, keep the pages that run typed code (playground, exercise checks) on",
    )
    add_checkpointer_options(app, checkpoint=False)


def command(args: argparse.Namespace) -> int:
    """Starts the app server and waits for it; its exit code."""
    return launch(
        host=args.host,
        port=args.port,
        sample=args.sample,
        db=args.db,
        checkpointer=args.checkpointer,
        thread=args.thread,
        allow_code=args.allow_code,
    )
