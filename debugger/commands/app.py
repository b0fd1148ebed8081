"""`stepscope app [SAMPLE] [--host H [--allow-code]] [--port P] [--checkpointer URL --thread ID]`: the
step-through debugger in the browser (`debugger/commands/app_server.py` starts Streamlit)."""

from __future__ import annotations

import argparse
import difflib
from typing import Any

from debugger.commands.app_server import launch, port_refusal
from debugger.commands.common import add_checkpointer_options, add_command
from debugger.runtimes.runtime import TargetError


def add_to(commands: Any) -> None:
    """Registers `stepscope app` and its options."""
    app = add_command(commands, "app", command, "open the step-through debugger in the browser (http://127.0.0.1:8501)")
    app.add_argument("sample", nargs="?", help="the sample to open first (default: subgraph_trap)")
    app.add_argument("--host", default="127.0.0.1", help="address to bind (default 127.0.0.1: this machine only)")
    app.add_argument("--port", type=port_number, default=8501, help="port to listen on, 1-65535 (default 8501)")
    app.add_argument(
        "--allow-code",
        action="store_true",
        help="with a --host beyond this machine, keep the pages that run typed code (playground, exercise checks) on",
    )
    add_checkpointer_options(app, checkpoint=False)


def port_number(text: str) -> int:
    """`--port`: a TCP port, refused with the range when it is none."""
    try:
        port = int(text)
    except ValueError:
        port = 0
    if not 0 < port < 65536:
        raise argparse.ArgumentTypeError(f"{text!r} is no port: give a number from 1 to 65535, e.g. --port 8501")
    return port


def command(args: argparse.Namespace) -> int:
    """Starts the app server and waits for it; its exit code. An unknown sample and a port that is taken are
    refused before anything starts, so the URL printed is one this app serves."""
    if args.sample and not args.checkpointer:
        from sample_graphs.gallery import SAMPLES  # the gallery's names only: nothing is imported to run

        if args.sample not in SAMPLES:
            close = difflib.get_close_matches(args.sample, SAMPLES, n=1)
            hint = f"did you mean {close[0]}?" if close else "`stepscope samples` lists them"
            raise TargetError(f"{args.sample}: no such sample; {hint} (a graph file opens in the app's sidebar)")
    refused = port_refusal(args.host, args.port)
    if refused:
        raise TargetError(refused)
    return launch(
        host=args.host,
        port=args.port,
        sample=args.sample,
        db=args.db,
        checkpointer=args.checkpointer,
        thread=args.thread,
        allow_code=args.allow_code,
    )
