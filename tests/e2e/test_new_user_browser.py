"""Issue 24 walked as a new user would, in chromium: a silent lost update is said in the step summary
(item 6), learn mode gives no answer away before the learner has guessed (item 7), and the first paint
and the zoom buttons leave the graph alone (items 10 and 11)."""

from __future__ import annotations

import re

from playwright.sync_api import expect

from tests.e2e.test_debugger_truth import GRAPHS


def test_a_lost_update_is_said_in_the_step_summary_and_the_merge_words_it_right(app, shot):
    page = app.open("/?sample=parallel_append_race&step=1").page
    lost = page.get_by_text(re.compile(r"^Lost update: 'from A' \(written by node_a\) is not in 'messages'"))
    expect(lost).to_be_visible()
    expect(lost).to_contain_text("keep_last keeps one write, so node_b's ['hi', 'from B'] replaced the others")
    merge = app.tab("Merge")
    expect(merge.get_by_text(re.compile(r"keep_last returned the write itself, \['hi', 'from A'\]"))).to_be_visible()
    expect(merge.get_by_text(re.compile(r"appended \['from A'\]"))).to_have_count(0)
    shot("24-6-lost-update")


def guess(app, value: str) -> None:
    merge = app.tab("Merge")
    merge.locator("input[type=text]").first.fill(value)
    merge.get_by_role("button", name="Check").click()
    app.idle()


def test_learn_mode_keeps_the_lesson_and_the_duplicate_back_until_every_call_is_guessed(app, shot):
    page = app.open("/?sample=subgraph_trap&step=0").page
    merge = app.tab("Merge")
    merge.get_by_text("Learn mode").click()
    app.idle()
    expect(page.get_by_text("The lesson (kept back in learn mode)")).to_be_visible()
    guess(app, "['parent']")  # step 0: the input writes log = [] ... any guess counts as a guess
    for step in (1, 2):
        page.get_by_role("button", name=re.compile("Next")).click()
        app.expect_step(step)
        if step == 2:  # the trap's step, its merge still hidden: nothing on the page says what it gives
            expect(page.get_by_text(re.compile("appears twice"))).to_have_count(0)
            expect(page.get_by_text(re.compile("now holds items twice"))).to_have_count(0)
            expect(page.get_by_text(re.compile(r"Learn mode: what this step.s merge gave"))).to_be_visible()
            shot("24-7-learn-hidden")
        guess(app, "['parent', 'sub-1']")
    lesson = page.locator(".stepscope-stepper .aside")  # beside the step's summary
    expect(lesson.get_by_text(re.compile("appears twice")).first).to_be_visible()  # every call guessed
    expect(page.get_by_text(re.compile("now holds items twice")).first).to_be_visible()
    shot("24-7-learn-revealed")


def overlaps(a: dict, b: dict) -> bool:
    return not (
        a["x"] + a["width"] <= b["x"]
        or b["x"] + b["width"] <= a["x"]
        or a["y"] + a["height"] <= b["y"]
        or b["y"] + b["height"] <= a["y"]
    )


def test_the_zoom_buttons_cover_no_node_this_step_marks(app):
    app.open_graph_file(GRAPHS / "big.py")
    frame = app.page.locator(".stepscope-graph").first
    marked = frame.locator("g.stepscope-node.ran, g.stepscope-node.next")
    expect(marked.first).to_be_visible()
    app.idle()  # the page finishes its run (a drawing replaced while it is measured has no box)
    strip = _box(app, frame.locator(".stepscope-zoom"))
    boxes = [_box(app, marked.nth(i)) for i in range(marked.count())]
    assert strip is not None and boxes
    assert not [box for box in boxes if box and overlaps(strip, box)]


def _box(app, locator):
    """The element's box, read again while a rerun is still replacing the drawing (then it has none)."""
    for _ in range(50):
        box = locator.bounding_box()
        if box is not None:
            return box
        app.page.wait_for_timeout(100)
    return None


def test_a_new_session_can_step_as_soon_as_its_graph_is_drawn(app):
    page = app.page
    page.goto("/?sample=fan_out_search&step=0")
    app.graph.first.wait_for()
    expect(page.locator('button[data-move="next"]')).to_be_enabled()  # a real button, not a grey placeholder
    page.locator('button[data-move="next"]').click()
    app.expect_step(1)
