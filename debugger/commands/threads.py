"""`stepscope threads --checkpointer URL [--limit N]`: the threads of a langgraph checkpointer, newest first."""

from __future__ import annotations

import argparse
from typing import Any

from debugger.commands.common import add_checkpointer_options, add_command, table
from debugger.commands.terminal import print_block
from debugger.commands.terminal import safe_print as print  # every line shown goes through one filter: no escape codes
from debugger.i18n import N_, _
from debugger.runtimes.checkpointers.open import list_threads
from debugger.runtimes.threads_api import CheckpointerError

HEADERS = [N_("thread"), N_("updated (UTC)"), N_("checkpoints"), N_("step"), N_("status")]


def add_to(commands: Any) -> None:
    """Registers `stepscope threads` and its options."""
    threads = add_command(commands, "threads", command, "list the threads of a langgraph checkpointer, newest first")
    add_checkpointer_options(threads, thread=False)
    threads.add_argument("--limit", type=int, default=200)


def command(args: argparse.Namespace) -> int:
    """Prints the checkpointer's threads as a table."""
    if not args.checkpointer:
        raise CheckpointerError("give --checkpointer URL: your app's SqliteSaver file or its postgresql:// URL.")
    threads = list_threads(args.checkpointer, args.limit)
    if not threads:
        print("no threads in this checkpointer yet.")
        return 0
    rows = [
        [
            t.thread_id,
            t.updated_at[:19],
            str(t.checkpoints),
            str(t.step),
            t.status + (f" (next: {', '.join(t.next)})" if t.next else ""),
        ]
        for t in threads
    ]
    print_block(table(rows, [_(h) for h in HEADERS]))
    return 0
