"""Files the CLI writes at a user's path are whole or not there (issue 38, 6): written beside the path and
renamed into place (`debugger/commands/files.py`). Under a file-size limit (`ulimit -f`), `run --out F` and
`export` leave no truncated F, an older F unchanged, no temporary file, and exit non-zero with one line."""

from __future__ import annotations

import json
import os
import resource
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from debugger.commands.files import whole_file, write_whole

APP = """
import operator
from typing import Annotated, TypedDict
from engine import END, START, StateGraph

class State(TypedDict):
    items: Annotated[list, operator.add]
    pad: list

def a(state): return {"items": ["a"]}
def b(state): return {"items": ["b"]}

builder = StateGraph(State)
builder.add_node("a", a)
builder.add_node("b", b)
builder.add_edge(START, "a")
builder.add_edge("a", "b")
builder.add_edge("b", END)
graph = builder.compile()
"""


def test_a_write_that_fails_midway_leaves_the_old_file_and_no_temporary(tmp_path):
    path = tmp_path / "run.json"
    path.write_text("old")
    with pytest.raises(OSError), whole_file(path) as out:
        out.write("half of it")
        raise OSError(28, "No space left on device")
    assert path.read_text() == "old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run.json"], "the temporary file is removed"


def test_a_whole_write_replaces_the_file_and_keeps_its_permissions(tmp_path):
    path = tmp_path / "run.json"
    path.write_text("old")
    path.chmod(0o640)
    write_whole(path, "new ✓")
    assert path.read_text(encoding="utf-8") == "new ✓"
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    link = tmp_path / "link.json"
    link.symlink_to(path)
    write_whole(link, "through the link")
    assert link.is_symlink() and path.read_text() == "through the link"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["link.json", "run.json"]


def test_a_folder_at_the_path_is_refused_and_nothing_is_left(tmp_path):
    (tmp_path / "out").mkdir()
    with pytest.raises(OSError):
        write_whole(tmp_path / "out", "x")
    assert [p.name for p in tmp_path.iterdir()] == ["out"] and not any((tmp_path / "out").iterdir())


def _limited(limit_bytes):
    def set_limit():
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit_bytes, limit_bytes))

    return set_limit


def _stepscope(tmp_path, args, limit=None):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path), "STEPSCOPE_FILE_CACHE": "off"}
    return subprocess.run(
        [sys.executable, "-m", "debugger.cli", *args],
        capture_output=True,
        text=True,
        env=env,
        cwd=tmp_path,
        preexec_fn=_limited(limit) if limit else None,
    )


@pytest.mark.slow
def test_run_out_and_export_under_a_file_size_limit_leave_no_truncated_file(tmp_path):
    (tmp_path / "app.py").write_text(APP)
    # 300,000 numbers: the trace file (indented, 2.1 MB) is bigger than the database (compact, under 1 MB),
    # so a 1.5 MB limit stops the --out file and not the run's store
    (tmp_path / "input.json").write_text(json.dumps({"items": [], "pad": [0] * 300_000}))
    db, out = str(tmp_path / "runs.db"), tmp_path / "run.json"
    out.write_text("the older run")
    limit = 1_500_000
    run = _stepscope(tmp_path, ["run", "app.py:graph", "--input", "@input.json", "--db", db, "--out", str(out)], limit)
    assert run.returncode == 4, run.stderr
    assert out.read_text() == "the older run", "the older file is untouched"
    last = run.stderr.strip().splitlines()[-1]
    assert last.startswith(f"error: cannot write {out}: File too large (the file there is as it was)"), run.stderr
    assert "Traceback" not in run.stderr and "status: done" in run.stdout
    out.unlink()
    fresh = str(tmp_path / "fresh.db")  # a second run in `db` would pass the limit there: the store's own failure
    again = _stepscope(
        tmp_path, ["run", "app.py:graph", "--input", "@input.json", "--db", fresh, "--out", str(out)], limit
    )
    assert again.returncode == 4 and not out.exists(), "no truncated file where there was none"
    assert "nothing was left there" in again.stderr
    run_id = run.stdout.split("run: ")[1].split()[0]
    exported = _stepscope(tmp_path, ["export", run_id, str(out), "--db", db], 500_000)  # reading is not limited
    assert exported.returncode == 2 and not out.exists(), exported.stderr
    assert len(exported.stderr.strip().splitlines()) == 1 and "File too large" in exported.stderr
    names = {p.name for p in tmp_path.iterdir()}
    assert not [n for n in names if n.endswith(".tmp")], names
    whole = _stepscope(tmp_path, ["export", run_id, str(out), "--db", db])
    assert whole.returncode == 0 and json.loads(out.read_text())["run_id"] == run_id, "without the limit it writes"


def test_a_path_that_is_no_file_is_written_as_it_is(tmp_path):
    """`--out /dev/stdout` or a named pipe: nothing to swap, and a rename would replace the device."""
    write_whole(os.devnull, "the run")
    assert stat.S_ISCHR(os.stat(os.devnull).st_mode), "still the device"
    assert not list(Path(os.devnull).parent.glob(".null.*.tmp")), "no temporary file beside it"
