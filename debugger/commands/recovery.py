"""A run the database failed to keep: its whole trace in a file, and the command that stores it.

`stepscope run` (streamed into the store) and `stepscope run --follow` (stored when it ends) both end
here when the store failed after the run started: the run happened, its side effects too, so it must not
be lost in silence. The exit code is `STORE_FAILED`, documented in `stepscope run --help`.
"""

from __future__ import annotations

import shlex
import sys
import tempfile
from pathlib import Path

from debugger.commands.files import write_whole
from debugger.commands.terminal import safe_print as print  # every line shown goes through one filter: no escape codes
from engine.trace import Trace
from engine.tracefile import to_json

STORE_FAILED = 3
"""Exit code of a run the store failed to keep after it started: its whole trace is in a file that
`stepscope import` stores."""

OUT_FAILED = 4
"""Exit code of a run that ended and is stored, whose `--out` file could not be written (nothing was left
at that path, or the file there is as it was)."""


def recover(trace: Trace, cause: object, *, written: str | None, db: str | None, beside: Path | None) -> None:
    """Says the run is not stored whole and why, puts the whole trace in `written` (the `--out` file, when
    it was written) or a kept file (beside the database, here, the temporary folder: the first that takes
    it), and prints the command that stores it (`--replace`: the database may hold its first steps)."""
    print(
        f"error: the run database failed during the run, so run {trace.run_id[:12]} is not stored whole: {cause}",
        file=sys.stderr,
    )
    file = written or keep_file(trace, [beside] if beside is not None else [])
    if file is None:
        print(
            "error: and no folder could take a copy of the trace (beside the database, here, the temporary "
            "folder): run it again with --out FILE on a disk with room.",
            file=sys.stderr,
        )
        return
    parts = ["stepscope", "import", str(file), "--replace"] + (["--db", str(db)] if db else [])
    print(f"the whole run is in {file}; once the database works again, store it with:", file=sys.stderr)
    print("  " + " ".join(shlex.quote(p) for p in parts), file=sys.stderr)


def keep_file(trace: Trace, folders: list[Path]) -> Path | None:
    """Writes the trace to the first of `folders`, here, the temporary folder that takes it (a full or
    read-only disk refuses the first); the file's path, or None if none did."""
    text = to_json(trace, indent=1)
    for folder in [*folders, Path.cwd(), Path(tempfile.gettempdir())]:
        path = folder / f"stepscope-unstored-{trace.run_id[:12]}.json"
        try:
            write_whole(path, text)  # a half-written copy (the disk filled) must not pass for the run
        except OSError:
            continue
        return path.resolve()
    return None
