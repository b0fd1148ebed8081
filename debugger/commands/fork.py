"""`stepscope fork TARGET --checkpointer URL --thread ID [--checkpoint ID] [--update JSON --as-node NODE]
[--resume JSON] [--out FILE]`: time travel on a checkpointer thread, run on a local copy (never the app's)."""

from __future__ import annotations

import argparse
from typing import Any

from debugger.commands.common import add_checkpointer_options, add_command
from debugger.commands.terminal import safe_print as print  # every line shown goes through one filter: no escape codes
from debugger.runtimes.checkpointers.open import fork_from_options
from debugger.stores.opening import open_store


def add_to(commands: Any) -> None:
    """Registers `stepscope fork` and its options."""
    fork = add_command(
        commands, "fork", command, "time travel on a checkpointer thread, run on a local copy (never the app's)"
    )
    fork.add_argument("target", help="the app's graph, file.py[:attr] or module[:attr]")
    add_checkpointer_options(fork)
    fork.add_argument("--update", help="edit the checkpoint first: JSON values, as if --as-node returned them")
    fork.add_argument("--as-node", help="with --update: the node the edit is made as")
    fork.add_argument("--resume", help="answer the thread's interrupt (JSON)")
    fork.add_argument("--out", help="the local SQLite file for the copy (default: a new temporary file)")


def command(args: argparse.Namespace) -> int:
    """Runs the app from the checkpoint on a local copy, stores the fork and says where the copy is."""
    result, checkpoint = fork_from_options(
        args.target,
        args.checkpointer,
        args.thread,
        args.checkpoint,
        update_json=args.update,
        as_node=args.as_node,
        resume_json=args.resume,
        local=args.out,
    )
    run_id = open_store(args.db).save(result.trace)
    print(f"forked thread {args.thread} at checkpoint {checkpoint} on a local copy: {result.local}")
    print(f"status: {result.trace.status}   run: {run_id}   (the app's checkpointer was not written)")
    if result.error is not None:
        print(f"error: {type(result.error).__name__}: {result.error}")
        return 1
    return 0
