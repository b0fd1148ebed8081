"""`stepscope export RUN FILE`: a stored run written to a JSON trace file; `--html FILE`: the run as one
self-contained web page (`debugger/model/html_report.py`) to open in any browser or send to someone."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from debugger.commands.common import add_command
from debugger.commands.files import not_written, write_whole
from debugger.commands.terminal import safe_print as print  # every line shown goes through one filter: no escape codes
from debugger.model.html_report import ReportError, html_report
from debugger.stores.opening import load_trace, open_store


def add_to(commands: Any) -> None:
    """Registers `stepscope export`."""
    export = add_command(
        commands, "export", command, "write a stored run to a JSON trace file, or (--html) to one web page"
    )
    export.add_argument("run", help="a stored run id (a unique prefix is enough); with --html also a trace .json file")
    export.add_argument("file", nargs="?", help="the JSON trace file to write")
    export.add_argument("--html", metavar="FILE", help="write the run as one self-contained HTML page instead")


def command(args: argparse.Namespace) -> int:
    """Writes the file and says where."""
    if args.html is None and args.file is None:
        raise ReportError("say where to write the run: `stepscope export RUN FILE.json` or `--html FILE.html`.")
    if args.file is not None and Path(args.file).suffix.lower() in (".html", ".htm"):  # JSON in a page's name
        raise ReportError(
            f"{args.file}: `export RUN FILE` writes a JSON trace; for the HTML page, give --html {args.file}"
        )
    if args.file is not None:
        print(open_store(args.db).export(args.run, args.file))
    if args.html is not None:
        page = html_report(load_trace(args.run, args.db))
        path = Path(args.html)
        try:
            write_whole(path, page)
        except OSError as exc:
            raise ReportError(not_written(path, exc) + ".") from None
        print(f"{path} ({len(page.encode('utf-8')) / 1024:.0f} KB): open it in any browser; it loads nothing.")
    return 0
