"""The pytest plugin, tried as a user would: their own test suite, run by pytest with `--stepscope`."""

from __future__ import annotations

import importlib.metadata
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from debugger.stores.opening import open_store

HERE = Path(__file__).parent
ROOT = HERE.parent.parent

pytestmark = pytest.mark.slow  # each test runs a pytest session of its own


def user_project(tmp_path: Path) -> Path:
    """A folder holding the user's app and tests, with no trace of StepScope in them."""
    shutil.copy(HERE / "app_under_test.py", tmp_path / "app_under_test.py")
    shutil.copy(HERE / "user_tests.py", tmp_path / "test_user.py")
    return tmp_path


def run_pytest(project: Path, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """pytest in the user's folder (`pytest_command`), waited for."""
    return subprocess.run(
        pytest_command(project, *args),
        cwd=project,
        env=pytest_environment(project, env),
        capture_output=True,
        text=True,
        timeout=300,
    )


def pytest_command(project: Path, *args: str) -> list[str]:
    """pytest on the user's folder; the plugin is loaded by its module name, whichever way StepScope is
    installed here (its entry point is checked on its own below)."""
    loading = ["-p", "no:stepscope", "-p", "debugger.pytest_plugin", "-p", "no:cacheprovider"]
    return [sys.executable, "-m", "pytest", *loading, "-q", "-rA", str(project), *args]


def pytest_environment(project: Path, env: dict[str, str] | None = None) -> dict[str, str]:
    """StepScope and the user's folder importable; `STEPSCOPE_PYTEST` only where `env` sets it."""
    environment = {**os.environ, "PYTHONPATH": f"{ROOT}{os.pathsep}{project}", **(env or {})}
    if "STEPSCOPE_PYTEST" not in (env or {}):
        environment.pop("STEPSCOPE_PYTEST", None)
    return environment


def test_entry_point_is_declared():
    """`pip install stepscope` makes pytest find the plugin (off until asked for)."""
    points = {p.name: p.value for p in importlib.metadata.entry_points(group="pytest11")}
    assert points.get("stepscope") == "debugger.pytest_plugin"


def test_off_unless_asked(tmp_path):
    project = user_project(tmp_path)
    result = run_pytest(project)
    assert "1 failed, 4 passed" in result.stdout, result.stdout + result.stderr
    assert "StepScope" not in result.stdout
    assert not (project / ".stepscope").exists()


def test_failing_test_reports_its_runs_and_how_to_open_them(tmp_path):
    project = user_project(tmp_path)
    result = run_pytest(project, "--stepscope")
    out = result.stdout
    assert result.returncode == 1, out + result.stderr
    assert "1 failed, 4 passed" in out
    db = project / ".stepscope" / "pytest-runs.sqlite3"
    # the failing test's report has its run: status, the finding, and the command that opens it
    section = out.split(" StepScope runs ", 1)[1].split("short test summary", 1)[0]
    assert "error at step 1: docs and web wrote the plain key 'answer' in one superstep" in section, section
    runs = {r.run_id: r for r in open_store(db).list()}
    broken = [r for r in runs.values() if r.target.endswith("test_broken_search_answers")]
    assert len(broken) == 1 and broken[0].status == "error"
    assert f"stepscope show {broken[0].run_id[:12]} --db {db}" in section
    # every graph run of the session is stored under its test's node id, engine and langgraph alike
    targets = sorted(r.target.split("::")[-1] for r in runs.values())
    assert targets == [
        "test_broken_search_answers",
        "test_broken_search_is_refused",
        "test_engine_graph_counts",
        "test_fixed_search_finds_both",
    ]
    assert "StepScope: 4 graph run(s) of 4 test(s) recorded" in out
    # and the command printed really opens the run
    shown = subprocess.run(
        [sys.executable, "-m", "debugger.cli", "show", broken[0].run_id[:12], "--db", str(db)],
        capture_output=True,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
        timeout=120,
    )
    assert shown.returncode in (0, 1) and "answer" in shown.stdout, shown.stdout + shown.stderr


def test_fail_on_error_fails_a_passing_test_whose_run_has_an_error(tmp_path):
    project = user_project(tmp_path)
    result = run_pytest(project, "--stepscope", "--stepscope-fail-on=error")
    out = result.stdout
    assert "2 failed, 3 passed" in out, out + result.stderr
    assert "FAILED test_user.py::test_broken_search_is_refused" in out
    assert "--stepscope-fail-on=error" in out


def test_switched_on_by_the_environment_into_a_store_of_its_own(tmp_path):
    project = user_project(tmp_path)
    db = tmp_path / "elsewhere.sqlite3"
    result = run_pytest(project, "--stepscope-db", str(db), env={"STEPSCOPE_PYTEST": "1"})
    assert "1 failed, 4 passed" in result.stdout, result.stdout + result.stderr
    assert len(open_store(db).list()) == 4


def test_an_unusable_store_stops_the_session_before_any_test_runs(tmp_path):
    project = user_project(tmp_path)
    foreign = tmp_path / "notes.sqlite3"
    with sqlite3.connect(foreign) as db:
        db.execute("CREATE TABLE notes (text)")
    before = foreign.read_bytes()
    result = run_pytest(project, "--stepscope", "--stepscope-db", str(foreign))
    assert result.returncode != 0 and result.returncode != 1
    assert "--stepscope: cannot record into" in result.stderr, result.stderr
    assert "Traceback" not in result.stderr
    assert foreign.read_bytes() == before
