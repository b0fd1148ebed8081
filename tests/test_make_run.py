"""`make run` takes a port (`make run PORT=8600`), as the README says, and a sample."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def planned(*args: str) -> str:
    """The command `make run` would end with (`make -n`: printed, nothing run)."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    # --no-print-directory: under `make test` this make is nested and would end with "Leaving directory"
    command = ["make", "--no-print-directory", "-n", "run", *args]
    out = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, check=True)
    return out.stdout.strip().splitlines()[-1]


@pytest.mark.slow  # runs make, which starts the app
def test_make_run_serves_on_the_port_it_is_given():
    assert planned("PORT=8600").endswith("-m debugger.cli app  --port 8600")
    assert planned().endswith("--port 8501")
    assert planned("SAMPLE=uneven_join", "PORT=8601").endswith("app uneven_join --port 8601")
