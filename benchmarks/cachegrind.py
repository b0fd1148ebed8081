"""Machine instructions of a whole command under valgrind's cachegrind (no cache simulation): the
benchmarks' deterministic figure, which the load of a shared machine does not move."""

import os
import re
import subprocess


def instructions(argv: list[str], what: str) -> int:
    """The instructions `argv` ran (Python's hash seed fixed, so two runs count the same); exits naming
    `what` when valgrind or the command failed."""
    done = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null", *argv],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONHASHSEED": "0"},
    )
    found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if done.returncode != 0 or found is None:
        raise SystemExit(f"valgrind on {what} failed ({done.returncode}):\n{done.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))
