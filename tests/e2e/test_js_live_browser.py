"""The Live run page on a LangGraph.js lesson in a real browser: the lesson's .mjs file is started from the
page with a breakpoint (one long-lived node process driven a superstep at a time), stepped once, continued,
and seen to finish; what each pause shows is LangGraph.js's own state, and the stored run is node's."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import expect
from test_live_browser import main, shown_state, start

from debugger.stores.sqlite import RunStore

ROOT = Path(__file__).resolve().parents[2]
LESSON = ROOT / "sample_graphs" / "js" / "fan_out_search.mjs"
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        shutil.which("node") is None or not (ROOT / "node_modules" / "@langchain" / "langgraph").exists(),
        reason="needs node and @langchain/langgraph in node_modules (`npm ci` at the repository root)",
    ),
]


def test_a_javascript_lesson_runs_live_steps_continues_and_finishes(page, e2e_db, shot) -> None:
    start(page, LESSON, before=["search_db"], nodes="start, search_web, search_db, merge")
    expect(page.get_by_role("heading", name="Paused before step 2")).to_be_visible(timeout=30_000)  # the breakpoint
    expect(page.get_by_text(re.compile(r"^search_db: "))).to_be_visible()
    assert shown_state(page)["query"] == "langgraph"  # step 1 ran in node: start's write is in the state
    shot("js-live-paused-before-step-2")
    page.get_by_role("button", name=re.compile("Step$")).click()
    expect(page.get_by_role("heading", name="Paused before step 3")).to_be_visible(timeout=30_000)
    expect(page.get_by_text(re.compile(r"^merge: "))).to_be_visible()
    assert shown_state(page)["results"] == ["db: 3 design notes", "web: the LangGraph docs"]  # in task order
    page.get_by_role("button", name=re.compile("Continue$")).click()
    expect(main(page).get_by_role("heading", name="The run is over")).to_be_visible(timeout=30_000)
    shot("js-live-over")
    store = RunStore(e2e_db)
    trace = store.load(store.list()[0].run_id)
    assert trace.status == "done"
    assert trace.output["answer"] == "2 sources: db: 3 design notes | web: the LangGraph docs"
    assert [sorted(t.name for t in s.tasks) for s in trace.steps if s.step >= 1] == [
        ["start"],
        ["search_db", "search_web"],
        ["merge"],
    ]
