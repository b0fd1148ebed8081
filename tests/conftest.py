"""Markers by folder, so `make check` can leave out what is slow to start: every test under tests/e2e
is `e2e` (a real browser), every test under tests/differential and the langgraph import tests are
`reference` (the real langgraph beside the engine). Tests that start a Python process of their own
(`test_cli_*`, a killed-process resume) are `slow`; a test can also say `@pytest.mark.slow` itself.

The samples that sleep to be watched live (`slow_research`) do not sleep in tests unless a test asks
for it (`monkeypatch.setenv("STEPSCOPE_SAMPLE_DELAY", ...)`)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("STEPSCOPE_SAMPLE_DELAY", "0")


@pytest.fixture(autouse=True, scope="session")
def _runs_stay_out_of_the_users_data_folder(tmp_path_factory: pytest.TempPathFactory):
    """Runs and thread files a test makes without naming a database go to a temporary one, never to
    ~/.local/share/stepscope (a test of the default location sets its own environment)."""
    previous = os.environ.get("STEPSCOPE_DB")
    os.environ["STEPSCOPE_DB"] = str(tmp_path_factory.mktemp("default-store") / "runs.sqlite3")
    yield
    if previous is None:
        os.environ.pop("STEPSCOPE_DB", None)
    else:
        os.environ["STEPSCOPE_DB"] = previous


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
