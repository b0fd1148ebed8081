"""`stepscope runs [--graph NAME] [--status S]`: the stored runs, newest first."""

from __future__ import annotations

import argparse
from typing import Any

from debugger.commands.common import add_command, table
from debugger.commands.terminal import print_block
from debugger.commands.terminal import safe_print as print  # every line shown goes through one filter: no escape codes
from debugger.i18n import _
from debugger.model import run_status
from debugger.sources.recording import ALL_STATUSES
from debugger.stores.opening import open_store


def add_to(commands: Any) -> None:
    """Registers `stepscope runs` and its options."""
    runs = add_command(commands, "runs", command, "list stored runs, newest first")
    runs.add_argument("--graph", help="only runs of this graph")
    runs.add_argument(
        "--status",
        choices=ALL_STATUSES,
        help="only runs with this stored status (`running`: runs that did not end, listed as cut off or unfinished)",
    )


def command(args: argparse.Namespace) -> int:
    """Prints the stored runs as a table."""
    runs = open_store(args.db).list(graph=args.graph, status=args.status)
    if not runs:
        print("no stored runs yet: `stepscope run TARGET` records one.")
        return 0
    rows = [
        [
            r.run_id[:12],
            r.graph,
            r.target,
            r.started_at[:19],
            run_status.label(r.status, r.error),
            str(r.steps),
            note(r),
        ]
        for r in runs
    ]
    headers = [_("run"), _("graph"), _("target"), _("started (UTC)"), _("status"), _("steps"), _("error")]
    print_block(table(rows, headers))
    return 0


def note(run: Any, width: int = 90) -> str:
    """The run list's last column: the error, or for a run that did not end, where its recording stops."""
    text = run_status.note(run.status, run.error, after=f"{run.steps} supersteps")
    return text if len(text) <= width else text[: width - 1] + "…"
