"""`stepscope import FILE [--replace]`: a JSON trace file stored in the run database (`import` is a keyword)."""

from __future__ import annotations

import argparse
from typing import Any

from debugger.commands.common import add_command
from debugger.commands.terminal import safe_print as print  # every line shown goes through one filter: no escape codes
from debugger.stores.opening import open_store


def add_to(commands: Any) -> None:
    """Registers `stepscope import`."""
    imp = add_command(commands, "import", command, "store a JSON trace file in the database")
    imp.add_argument("file")
    imp.add_argument("--replace", action="store_true", help="overwrite a different stored run with the same id")


def command(args: argparse.Namespace) -> int:
    """Stores the file's run and says under which id."""
    print(open_store(args.db).import_file(args.file, replace=args.replace))
    return 0
