"""`stepscope samples`: the gallery of lessons."""

from __future__ import annotations

import argparse
from typing import Any

from debugger.commands.common import add_command, table
from debugger.commands.terminal import safe_print as print  # every line shown goes through one filter: no escape codes
from sample_graphs.gallery import list_samples


def add_to(commands: Any) -> None:
    """Registers `stepscope samples`."""
    add_command(commands, "samples", command, "list the gallery of sample lessons")


def command(args: argparse.Namespace) -> int:
    """Prints each sample with its title and lesson."""
    print(table([[s.name, s.title, s.summary] for s in list_samples()], ["sample", "title", "lesson"]))
    return 0
