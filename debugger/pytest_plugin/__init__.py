"""StepScope's pytest plugin (the `pytest11` entry point `stepscope`): records every graph run of a test.

Off unless asked for (`pytest --stepscope`, or `STEPSCOPE_PYTEST=1`), so installing StepScope changes no
test session. When on, every run of a StepScope engine graph or a langgraph graph started inside a test
(its setup, call and teardown) is recorded into one run store for the session, named by the test's node
id; a failing test's report gets a "StepScope runs" section (each run's status, its findings in one line
each and the command that opens it), and `--stepscope-fail-on=error` fails a passing test whose run has an
error finding. No change to the test code.

This module only declares the options: it is imported by every pytest session of an environment where
StepScope is installed, so what records (`session.py`: the store, langgraph, the diagnostics) is imported
only when the plugin is switched on.
"""

from __future__ import annotations

import os
from typing import Any

ENV_SWITCH = "STEPSCOPE_PYTEST"
"""`STEPSCOPE_PYTEST=1` turns the plugin on as `--stepscope` does (for a CI job that cannot change its command)."""
DEFAULT_DB = ".stepscope/pytest-runs.sqlite3"
"""Where runs go unless `--stepscope-db` says otherwise: below the session's root folder."""
FAIL_ON = ("never", "error", "warning")


def pytest_addoption(parser: Any) -> None:
    """`--stepscope`, `--stepscope-db` and `--stepscope-fail-on`."""
    group = parser.getgroup("stepscope", "StepScope: record the graph runs of each test")
    group.addoption(
        "--stepscope",
        action="store_true",
        default=False,
        help=f"record every engine/langgraph graph run of each test (also: {ENV_SWITCH}=1)",
    )
    group.addoption(
        "--stepscope-db",
        metavar="PATH_OR_URL",
        default=None,
        help=f"the run store for this session: a SQLite file or a postgresql:// URL (default: <rootdir>/{DEFAULT_DB})",
    )
    group.addoption(
        "--stepscope-fail-on",
        choices=FAIL_ON,
        default="never",
        help="fail a passing test whose recorded run has a finding of this severity or worse (default: never)",
    )


def switched_on(config: Any) -> bool:
    """`--stepscope`, or `STEPSCOPE_PYTEST` set to 1/true/yes."""
    if config.getoption("stepscope"):
        return True
    return os.environ.get(ENV_SWITCH, "").strip().lower() in ("1", "true", "yes", "on")


def pytest_configure(config: Any) -> None:
    """Registers the recording session object when the plugin is on (see the module docstring)."""
    if not switched_on(config) or _is_xdist_controller(config):
        return
    # imported here on purpose: the recorder, the store and the diagnostics cost a test session that did
    # not ask for StepScope nothing (see the module docstring)
    from debugger.pytest_plugin.session import RecordingSession

    db = config.getoption("stepscope_db") or str(config.rootpath / DEFAULT_DB)
    config.pluginmanager.register(
        RecordingSession(db, fail_on=config.getoption("stepscope_fail_on")), "stepscope-recording"
    )


def _is_xdist_controller(config: Any) -> bool:
    """With pytest-xdist, the controller runs no test: only its workers record (into the same store)."""
    is_worker = getattr(config, "workerinput", None) is not None
    return not is_worker and bool(getattr(config.option, "numprocesses", None))
