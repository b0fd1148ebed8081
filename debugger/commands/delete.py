"""`stepscope delete RUN_ID`: a stored run removed from the run database."""

from __future__ import annotations

import argparse
from typing import Any

from debugger.commands.common import add_command
from debugger.commands.terminal import safe_print as print  # every line shown goes through one filter: no escape codes
from debugger.stores.opening import open_store


def add_to(commands: Any) -> None:
    """Registers `stepscope delete`."""
    delete = add_command(commands, "delete", command, "delete a stored run")
    delete.add_argument("run")


def command(args: argparse.Namespace) -> int:
    """Deletes the run and names it."""
    print(f"deleted {open_store(args.db).delete(args.run)}")
    return 0
