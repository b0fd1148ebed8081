"""A stored run of a LangGraph.js app reopened from its link gets the app back (`sources/reopen.py`), as a
Python graph file's does, so Time travel works on it again; it is loaded (described by node), not run."""

from __future__ import annotations

import pytest

from debugger.sources import runs as sources
from tests.langgraphjs.conftest import app

pytestmark = pytest.mark.slow  # starts node


def test_a_javascript_app_run_gets_its_code_back_from_its_link(langgraph_js, tmp_path):
    db = str(tmp_path / "runs.sqlite3")
    made = sources.open_target(app("command_goto.mjs"), db=db)
    reopened = sources.open_stored(made.trace.run_id, db=db, with_code=True)
    assert reopened.no_code == ""
    assert type(reopened.graph).__name__ == "JSGraph"
    assert reopened.title == app("command_goto.mjs")  # the app names no title of its own
