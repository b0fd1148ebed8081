"""`stepscope samples`: the gallery of lessons."""

from __future__ import annotations

import argparse
from typing import Any

from debugger.commands.common import add_command, table
from debugger.commands.terminal import print_block  # every line shown goes through one filter: no escape codes
from debugger.i18n import _
from sample_graphs.gallery import list_samples


def add_to(commands: Any) -> None:
    """Registers `stepscope samples`."""
    add_command(commands, "samples", command, "list the gallery of sample lessons (`--lang zh`: in Chinese)")


def command(args: argparse.Namespace) -> int:
    """Prints each sample with its title and lesson, in the language of `--lang` or `LANG`."""
    rows = [[s.name, _(s.title), _(s.summary)] for s in list_samples()]
    print_block(table(rows, [_("sample"), _("title"), _("lesson")]))
    return 0
