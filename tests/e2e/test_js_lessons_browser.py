"""A lesson's JavaScript twin in a real browser: the gallery's Python | JavaScript switch opens the
LangGraph.js lesson (recorded in node), its link names the language, and its merges step one reducer
call at a time as a Python run's do."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import expect

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        shutil.which("node") is None or not (ROOT / "node_modules" / "@langchain" / "langgraph").exists(),
        reason="needs node and @langchain/langgraph in node_modules (`npm ci` at the repository root)",
    ),
]


def test_the_gallery_opens_a_javascript_lesson_and_steps_through_its_merges(app, shot):
    page = app.open("/gallery", graph=False).page
    card = page.locator(".st-key-gallery-lang-fan_out_search")
    card.get_by_role("radio", name="JavaScript").click()
    app.idle()
    page.locator(".st-key-gallery-fan_out_search button").click()
    expect(page).to_have_url(re.compile(r"sample=fan_out_search&runtime=js"))
    app.idle()
    app.graph.first.wait_for()
    code = page.get_by_text("The code (JavaScript)")
    expect(code).to_be_visible()
    code.click()
    expect(page.get_by_text("new StateGraph(", exact=False).first).to_be_visible()  # the lesson's own source

    app.press("End")
    app.expect_step(3)
    app.press("ArrowLeft")
    app.expect_step(2)  # search_db and search_web, both appending to `results`
    page.get_by_role("tab", name="Merge").click()
    merge = page.get_by_role("tabpanel", name="Merge")
    expect(merge.get_by_text("reducer (prev, next) => prev.concat(next)")).to_be_visible()
    merge.get_by_role("button", name="◀ call").click()
    app.idle()
    expect(merge.get_by_text("Showing 1 of 2")).to_be_visible()
    expect(page).to_have_url(re.compile(r"call=1"))
    shot("js-01-fan-out-merge-call-1", merge)
    merge.get_by_role("button", name="◀ call").click()
    app.idle()
    expect(merge.get_by_text("Showing 0 of 2")).to_be_visible()
    merge.get_by_role("button", name="call ▶").click()
    app.idle()
    merge.get_by_role("button", name="call ▶").click()
    app.idle()
    expect(merge.get_by_text("Showing 2 of 2")).to_be_visible()
    shot("js-02-fan-out-merge-call-2")

    page.reload()  # the link is the whole truth: the JavaScript lesson again, at the same step
    app.idle()
    app.graph.first.wait_for()
    app.expect_step(2)
    expect(page.get_by_text("The code (JavaScript)")).to_be_visible()
    expect(page.locator(".st-key-lesson_language").get_by_role("radio", name="JavaScript")).to_have_attribute(
        "aria-checked", "true"
    )
