"""LangGraph.js checkpointer threads today: a SQLite file written by `@langchain/langgraph-checkpoint-sqlite`
is listed as a Python saver's is (the tables are the same); opening one of its threads with the JS app is
refused in one line when it is opened (its steps must be rebuilt by LangGraph.js's own reducers, in node:
not built yet)."""

from __future__ import annotations

import pytest

from debugger.runtimes.langgraph.threads.open import list_threads, load_app, open_thread
from debugger.runtimes.langgraphjs import record_js_app
from debugger.runtimes.targets import TargetError

from .conftest import app


@pytest.mark.slow
def test_a_langgraphjs_sqlite_thread_is_listed_and_opening_it_is_refused_in_words(langgraph_js, tmp_path, monkeypatch):
    if not (langgraph_js / "@langchain" / "langgraph-checkpoint-sqlite").exists():
        pytest.skip("@langchain/langgraph-checkpoint-sqlite is not installed at the repo root: run `npm ci` there")
    threads_file = tmp_path / "threads.db"
    monkeypatch.setenv("STEPSCOPE_TEST_THREADS", str(threads_file))
    config = {"configurable": {"thread_id": "refund-17"}}
    asked = record_js_app(app("interrupt_sqlite.mjs"), "graph", {}, config, timeout=60)
    assert asked.status == "interrupted"
    (thread,) = list_threads(str(threads_file))
    assert (thread.thread_id, thread.status, thread.checkpoints) == ("refund-17", "interrupted", 3)
    loaded = load_app(f"{app('interrupt_sqlite.mjs')}:graph")  # its runs live on threads (MemorySaver files)
    with pytest.raises(TargetError, match="Reading checkpointer threads of LangGraph.js apps is not available yet"):
        open_thread(str(threads_file), "refund-17", loaded)
