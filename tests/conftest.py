"""Markers by folder, so `make check` can leave out what is slow to start: every test under tests/e2e
is `e2e` (a real browser), every test under tests/differential and the langgraph import tests are
`reference` (the real langgraph beside the engine). Tests that take seconds or start a process are
`slow` (`@pytest.mark.slow`, or by name below); `make check` runs none of the three, `make test` all.

`make check` starts no process, by construction: a test without one of those marks that starts a
process or opens a listening socket (a server, even in a thread) fails with one line that names it
and says to mark it. The guard goes by the test's own marks, not by the run's `-m` expression, so
`make test` and a single-file run fail such a test too: the rule holds however the suite is run.

The samples that sleep to be watched live (`slow_research`) do not sleep in tests unless a test asks
for it (`monkeypatch.setenv("STEPSCOPE_SAMPLE_DELAY", ...)`)."""

from __future__ import annotations

import _posixsubprocess
import contextlib
import functools
import gc
import multiprocessing.process
import os
import socket
import subprocess
from pathlib import Path

import pytest

os.environ.setdefault("STEPSCOPE_SAMPLE_DELAY", "0")


@pytest.fixture(autouse=True, scope="session")
def _runs_stay_out_of_the_users_data_folder(tmp_path_factory: pytest.TempPathFactory):
    """Runs and thread files a test makes without naming a database go to a temporary one, never to
    ~/.local/share/stepscope (a test of the default location sets its own environment)."""
    given = {
        "STEPSCOPE_DB": str(tmp_path_factory.mktemp("default-store") / "runs.sqlite3"),
        "STEPSCOPE_FILE_CACHE": str(tmp_path_factory.mktemp("file-cache")),  # long files' saved indexes
    }
    previous = {name: os.environ.get(name) for name in given}
    os.environ.update(given)
    yield
    for name, value in previous.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


HERE = Path(__file__).parent
REFERENCE_FILES = {"test_langgraph_import.py", "test_draw.py"}
"""Files that run the real langgraph as the reference (imports, drawings compared with LangGraph's)."""


SLOW_NAMES = (
    "test_cli",
    "test_sqlite_resumes_a_killed_process",
    "test_the_view_model_imports_no_streamlit",
    "test_runs_as_a_script",
)
"""Name prefixes of tests that start a subprocess (a second or more each)."""
SLOW_FILES = {"test_app.py"}
"""AppTest runs the whole app once per test (about half a second each): `make test` runs them, `make check` not."""


REFERENCE_NAMES = ("test_langgraph_",)
"""Name prefixes of tests elsewhere that run the real langgraph beside the engine (tests/test_samples.py)."""


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    # Browser tests last: Playwright's sync API keeps an asyncio loop running in the main thread for
    # the rest of the session, and a test that calls `asyncio.run` after it would fail.
    items.sort(key=lambda item: Path(str(item.fspath)).is_relative_to(HERE / "e2e"))
    for item in items:
        if item.name.startswith(REFERENCE_NAMES):
            item.add_marker(pytest.mark.reference)
        if item.name.startswith(SLOW_NAMES) or Path(str(item.fspath)).name in SLOW_FILES:
            item.add_marker(pytest.mark.slow)
        path = Path(str(item.fspath))
        parts = path.relative_to(HERE).parts if path.is_relative_to(HERE) else ()
        if parts[:1] == ("e2e",):
            item.add_marker(pytest.mark.e2e)
        elif parts[:1] == ("differential",) or path.name in REFERENCE_FILES:
            item.add_marker(pytest.mark.reference)


def pytest_collection_finish(session: pytest.Session) -> None:
    # Everything imported so far (langgraph, streamlit, the tests) lives until the end: frozen, the
    # garbage collector stops walking it on every full collection (about 1 s of `make check`).
    gc.freeze()


PROCESS_MARKS = ("slow", "e2e", "reference")
"""A test with one of these marks may start processes and servers: `make check` leaves all three out."""

_guarded_item: pytest.Item | None = None
"""The test being set up or run that may start no process (None between tests and for marked tests)."""

_process_starts = pytest.StashKey[list]()
"""What the test started: reported even when the code under test caught the guard's error."""
_reported = pytest.StashKey[bool]()
"""Whether a phase of the test has already been failed for it (once is enough)."""


def _refuse(what: str) -> None:
    """Fail the guarded test that is starting `what` (a process or a listening socket), if there is one."""
    item = _guarded_item
    if item is None:
        return
    message = (
        f"{item.nodeid} starts a process or server ({what}): mark it @pytest.mark.slow "
        "(or e2e for a browser) so `make check` leaves it to `make test`"
    )
    item.stash.setdefault(_process_starts, []).append(message)
    pytest.fail(message, pytrace=False)  # a BaseException: an `except Exception` in the code under test lets it through


def _refusing(owner: object, name: str, describe) -> None:
    """Replace `owner.name` with a version that first asks `_refuse`, describing the call with `describe`."""
    original = getattr(owner, name, None)
    if original is None:  # not on this platform (os.posix_spawn, os.forkpty)
        return

    @functools.wraps(original)
    def refusing(*args, **kwargs):
        _refuse(describe(*args, **kwargs))
        return original(*args, **kwargs)

    setattr(owner, name, refusing)


def _command(args) -> str:
    """A process's command line, short enough for one line of a report."""
    words = [os.fsdecode(args)] if isinstance(args, (str, bytes)) else [os.fsdecode(word) for word in args]
    text = " ".join(words)
    return text if len(text) <= 80 else text[:77] + "..."


def _install_process_guard() -> None:
    """Every way Python starts a process, plus `socket.listen` (a server in a thread needs no process of
    its own): high-level entry points first for a readable message, then the primitives beneath them
    (`_posixsubprocess.fork_exec` is what both subprocess and multiprocessing's spawn call) so that a
    caller holding an early reference is caught too. Installed once; each wrapper is a no-op unless a
    test without PROCESS_MARKS is in its setup or call phase."""
    _refusing(subprocess.Popen, "_execute_child", lambda popen, args, *rest: f"subprocess: {_command(args)}")
    _refusing(multiprocessing.process.BaseProcess, "start", lambda process: f"multiprocessing: {process!r}")
    _refusing(_posixsubprocess, "fork_exec", lambda args, *rest: f"fork_exec: {_command(args or [])}")
    _refusing(os, "system", lambda command: f"os.system: {_command(command)}")
    for name in ("fork", "forkpty"):
        _refusing(os, name, lambda *_, name=name: f"os.{name}")
    for name in ("posix_spawn", "posix_spawnp"):
        _refusing(os, name, lambda path, argv, *rest, name=name: f"os.{name}: {_command(argv)}")
    _refusing(socket.socket, "listen", lambda sock, *rest: f"a socket listening on {sock.getsockname()!r}")


def pytest_configure(config: pytest.Config) -> None:
    _install_process_guard()


@contextlib.contextmanager
def _guarding(item: pytest.Item):
    """While this phase of `item` runs, starting a process fails it unless it carries a PROCESS_MARKS mark."""
    global _guarded_item
    may_start = any(item.get_closest_marker(mark) for mark in PROCESS_MARKS)
    _guarded_item = None if may_start else item
    try:
        yield
    finally:
        _guarded_item = None


# Setup and call are guarded, teardown not: a module or session fixture (a PostgreSQL server a slow
# test started) is torn down inside whichever test ends its scope, which may be an unmarked one.
@pytest.hookimpl(wrapper=True)
def pytest_runtest_setup(item: pytest.Item):
    with _guarding(item):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    with _guarding(item):
        return (yield)


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """A process start fails its phase with the guard's one line, even if the code under test caught
    the error or started the process from a thread of its own."""
    report = yield
    started = item.stash.get(_process_starts, [])
    if started and call.when in ("setup", "call") and not item.stash.get(_reported, False):
        item.stash[_reported] = True
        report.outcome = "failed"
        report.longrepr = started[0]
    return report


@pytest.fixture
def fresh_store(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An empty run store of the test's own (`$STEPSCOPE_DB`), and Streamlit's caches emptied, for
    app tests (`pytestmark = pytest.mark.usefixtures("fresh_store")`)."""
    import streamlit as st

    db = tmp_path / "runs.sqlite3"
    monkeypatch.setenv("STEPSCOPE_DB", str(db))
    st.cache_data.clear()
    st.cache_resource.clear()
    return db


LAID_OUT_STAND_IN = '<svg width="160pt" height="120pt" viewBox="0 0 160 120"></svg>'
"""What `drawing_without_graphviz` hands the page instead of graphviz's layout: an empty drawing."""


@pytest.fixture
def drawing_without_graphviz(monkeypatch: pytest.MonkeyPatch) -> None:
    """The pages draw their graph without graphviz's `dot` process (an empty SVG instead of its layout),
    so a test of a page's words and buttons runs in `make check`, which starts no process. The layout
    itself is tested by the slow tests/test_drawing.py and tests/test_app.py, and in the browser."""
    from debugger.views import widgets  # imports streamlit: only for the page tests that ask for it

    monkeypatch.setattr(widgets, "_svg", lambda dot: LAID_OUT_STAND_IN)
