"""The one-file HTML report (issue 27, item 3) in headless Chromium, opened from `file://`: no request but
the file itself, the arrow keys step through the run, and the subgraph trap's merge is on the page.

Uses pytest-playwright's `browser` with a context of its own: no Streamlit server is needed."""

from __future__ import annotations

from pathlib import Path

import pytest

from debugger.model.html_report import html_report
from debugger.runtimes.targets import load_target
from engine.trace import Recorder


def _page_file(tmp_path: Path, target: str) -> Path:
    loaded = load_target(target)
    recorder = Recorder()
    try:
        loaded.graph.invoke(loaded.example_input, hooks=recorder)
    except Exception:  # a failing run is reported too
        pass
    path = tmp_path / "report.html"
    path.write_text(html_report(recorder.trace), encoding="utf-8")
    return path


@pytest.fixture
def opened(browser):
    """opened(path) -> (page, requests): the file in a fresh context, with every request it made."""
    contexts = []

    def open_file(path: Path):
        context = browser.new_context(viewport={"width": 1300, "height": 1000})
        contexts.append(context)
        page = context.new_page()
        requests: list[str] = []
        errors: list[str] = []
        page.on("request", lambda request: requests.append(request.url))
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(path.as_uri())
        page.locator(".stepscope-stepper .at").wait_for()
        assert errors == [], errors
        return page, requests

    yield open_file
    for context in contexts:
        context.close()


def test_the_report_steps_with_the_arrow_keys_and_shows_the_subgraph_traps_merge(tmp_path, opened):
    from playwright.sync_api import expect

    path = _page_file(tmp_path, "subgraph_trap")
    page, requests = opened(path)
    expect(page.locator(".stepscope-stepper .at")).to_have_text("Step 0 (1 of 3)")
    page.mouse.click(5, 5)  # nothing focused: the page's own keys
    page.keyboard.press("ArrowRight")
    expect(page.locator(".stepscope-stepper .at")).to_have_text("Step 1 (2 of 3)")
    expect(page.locator("svg g#node_p1")).to_have_attribute("data-state", "ran")
    page.keyboard.press("ArrowRight")
    expect(page.locator(".stepscope-stepper .at")).to_have_text("Step 2 (3 of 3) 🔎")
    repeated = page.locator(".stepscope-stepper table.merge tr.repeated")
    expect(repeated).to_have_count(1)
    expect(repeated).to_contain_text("['parent', 'parent', 'sub-1']")
    expect(repeated).to_contain_text("(1 of them already there: duplicated)")
    expect(page.locator('svg g[id="node_child-3a-s1"]')).to_have_attribute("data-state", "ran")
    expect(page.locator(".stepscope-stepper .step-findings")).to_contain_text("Subgraph node child re-appended 'log'")
    expect(page.locator(".stepscope-stepper .inside")).to_contain_text("child (step 2) › step 1")
    page.keyboard.press("ArrowLeft")
    expect(page.locator(".stepscope-stepper .at")).to_have_text("Step 1 (2 of 3)")
    page.keyboard.press("Home")
    expect(page.locator(".stepscope-stepper .at")).to_have_text("Step 0 (1 of 3)")
    expect(page.locator('button[data-move="prev"]')).to_be_disabled()
    page.locator('button[data-move="last"]').click()
    expect(page.locator(".stepscope-stepper .at")).to_have_text("Step 2 (3 of 3) 🔎")
    expect(page.locator("svg g#node_p1 text.marker")).to_have_text("✓")
    assert requests == [path.as_uri()], f"the page asked for more than itself: {requests}"


def test_a_hostile_run_is_text_in_the_report(tmp_path, opened):
    path = _page_file(tmp_path, str(Path(__file__).resolve().parents[1] / "inert_trace.py") + ":graph")
    page, requests = opened(path)
    for _ in range(3):
        assert page.get_by_text("evil.invalid").count() > 0, "the hostile data is on the page, as text"
        assert page.locator("[href], [src], img, image, iframe").count() == 0
        page.mouse.click(5, 5)
        page.keyboard.press("ArrowRight")
    assert requests == [path.as_uri()], f"the page asked for more than itself: {requests}"


def test_a_nodes_sends_are_one_line_each_beside_it_and_clear_of_the_next_node(tmp_path, opened):
    """map_reduce_send's step 2: write_joke ran three Sends. Their note was one SVG text (newlines
    collapsed, cut off by the drawing's edge, across the edge to pick_best); now a line each, right of the
    node, inside the page and touching no other node."""
    from playwright.sync_api import expect

    page, _ = opened(_page_file(tmp_path, "map_reduce_send"))
    page.mouse.click(5, 5)
    for _ in range(2):
        page.keyboard.press("ArrowRight")
    expect(page.locator(".stepscope-stepper .at")).to_have_text("Step 2 (3 of 4)")
    note = page.locator("g.stepscope-node text.note").filter(has_text="owl")
    assert note.locator("tspan").evaluate_all("spans => spans.map(s => s.textContent)") == [
        '[0] {"subject": "owl"}',
        '[1] {"subject": "cat"}',
        '[2] {"subject": "dog"}',
    ]
    boxes = page.evaluate(
        """() => [...document.querySelectorAll('g.stepscope-node')].map(g => {
            const r = (g.querySelector('text.note').textContent ? g.querySelector('text.note')
                       : g.querySelector('path, polygon, ellipse')).getBoundingClientRect();
            const s = g.querySelector('path, polygon, ellipse').getBoundingClientRect();
            return {id: g.id, note: !!g.querySelector('text.note').textContent,
                    box: [r.left, r.top, r.right, r.bottom], shape: [s.left, s.top, s.right, s.bottom]};
        })"""
    )
    (noted,) = [b for b in boxes if b["note"]]
    left, top, right, bottom = noted["box"]
    assert right <= page.viewport_size["width"] and right - left > 100, noted  # whole, not clipped
    for other in boxes:
        if other["id"] != noted["id"]:
            o_left, o_top, o_right, o_bottom = other["shape"]
            assert right < o_left or left > o_right or bottom < o_top or top > o_bottom, (noted, other)
