"""`stepscope export RUN_ID FILE`: a stored run written to a JSON trace file."""

from __future__ import annotations

import argparse
from typing import Any

from debugger.commands.common import add_command
from debugger.commands.terminal import safe_print as print  # every line shown goes through one filter: no escape codes
from debugger.stores.opening import open_store


def add_to(commands: Any) -> None:
    """Registers `stepscope export`."""
    export = add_command(commands, "export", command, "write a stored run to a JSON trace file")
    export.add_argument("run")
    export.add_argument("file")


def command(args: argparse.Namespace) -> int:
    """Writes the file and says where."""
    print(open_store(args.db).export(args.run, args.file))
    return 0
