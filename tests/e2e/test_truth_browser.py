"""Issue 24, items 2, 3 and 8 in a real browser: a time-travel edit of one key keeps the node's other
writes on a real langgraph file (and the re-run's new message ids raise no "not deterministic" box; "As
node" follows the step); an `interrupt()` on the Live run page is paused (⏸), never failed (✖); a
checkpointer thread lists its turns, turn 2 opens with its new input, and its config holds only what the
user set."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest
from conftest import wait_idle
from playwright.sync_api import expect
from test_live_browser import ASKING_FILE, main, node, start

from debugger.runtimes.targets import load_target

pytest.importorskip("langgraph.graph")

GRAPHS = Path(__file__).parent / "graphs"
SIDEBAR = '[data-testid="stSidebar"]'


def test_a_fork_of_log_as_plan_keeps_plans_reply_and_is_not_called_nondeterministic(app, shot) -> None:
    page = app.open_graph_file(GRAPHS / "chat_plan.py")
    expect(page).to_have_url(re.compile(r"[?&]run=\w+"))
    page.get_by_role("button", name=re.compile("Next")).click()
    app.expect_step(1)
    page.get_by_role("button", name=re.compile("Next")).click()
    app.expect_step(2)
    panel = app.tab("Time travel")
    expect(panel.locator(".st-key-tt_node input")).to_have_value("act")  # the node that ran in step 2
    page.get_by_role("button", name=re.compile("Prev")).click()
    app.expect_step(1)
    panel = app.tab("Time travel")
    expect(panel.locator(".st-key-tt_node input")).to_have_value("plan")  # follows the step, not the last one
    panel.locator(".st-key-tt_key input").click()
    page.get_by_role("option", name="log", exact=True).click()
    app.idle()
    panel.locator(".st-key-tt_value textarea").fill('["EDITED"]')
    panel.locator(".st-key-tt_fork button").click()
    app.idle()
    expect(panel.get_by_text(re.compile(r"differs from the original at steps 1-2\."))).to_be_visible()
    expect(panel.get_by_text(re.compile("not deterministic"))).to_have_count(0)
    shot("24-2-fork-keeps-reply")
    panel.locator(".st-key-tt_open button").click()
    app.idle()
    expect(page).to_have_url(re.compile(r"[?&]step=1(&|$)"))  # the branch opens at its fork
    merge = app.tab("Merge")
    expect(merge.get_by_text(re.compile(r"from plan wrote \[ai: 'a plan: look it up'")).first).to_be_visible()
    expect(merge.get_by_text(re.compile(r"from plan wrote \['EDITED'\]")).first).to_be_visible()
    shot("24-2-branch-merge")


ASKING_LANGGRAPH = ASKING_FILE.replace(
    "from engine import END, START, StateGraph, interrupt",
    "from langgraph.graph import END, START, StateGraph\nfrom langgraph.types import interrupt",
)


def test_an_interrupt_on_the_live_page_is_paused_not_failed(page, tmp_path, shot) -> None:
    path = tmp_path / "asking_lg.py"
    path.write_text(textwrap.dedent(ASKING_LANGGRAPH), encoding="utf-8")
    start(page, path, nodes="plan, ask")
    expect(main(page).get_by_role("heading", name="ask asks, in step 2")).to_be_visible(timeout=20_000)
    wait_idle(page)
    expect(node(page, "ask")).to_have_class(re.compile(r"\bstepscope-node paused\b"))
    expect(node(page, "ask").locator("text").first).to_have_text("⏸")
    status = main(page).locator('[data-testid="stAlert"]').first
    expect(status).to_contain_text(re.compile(r"paused: step 2: ask ⏸ asked"))  # was "paused: step 2: ask ✖"
    assert "✖" not in status.inner_text()
    expect(main(page).get_by_text(re.compile(r"⏸ asked \(its interrupt\(\) waits for an answer\)"))).to_be_visible()
    shot("24-3-interrupt-paused")


def test_a_thread_lists_its_turns_and_turn_two_opens_with_its_input(app, tmp_path, shot) -> None:
    db = tmp_path / "prod.sqlite"
    load_target(str(GRAPHS / "two_turns.py")).module.conversation(str(db))
    sidebar = app.open_thread(db, f"{GRAPHS / 'two_turns.py'}:graph")
    page = app.page
    app.graph.first.wait_for()
    expect(sidebar.get_by_text("Turns of this thread")).to_be_visible()
    expect(sidebar.get_by_text(re.compile("recursion_limit"))).to_have_count(0)  # never set by the user
    second = sidebar.get_by_role("button", name=re.compile(r"Turn 2 · step 3 · new input .*and send it"))
    second.click()
    app.expect_step(3)
    expect(page.get_by_role("heading", name="Turn 2 · new input (step 3)")).to_be_visible()
    expect(page.get_by_text(re.compile("The thread was given")).first).to_be_visible()
    expect(page.get_by_text(re.compile("No node ran in step 3"))).to_have_count(0)
    shot("24-8-turns")
    page.get_by_role("button", name=re.compile("Next")).click()
    app.expect_step(4)
    page.get_by_role("button", name=re.compile("Next")).click()
    app.expect_step(5)
    expect(page.get_by_role("heading", name="Turn 2 · superstep 5")).to_be_visible()
    panel = app.tab("Time travel")
    expect(panel.locator(".st-key-tt_thread_node input")).to_have_value("plan")  # the node that ran in step 5
    expect(panel.locator(".st-key-tt_thread_key input")).to_have_value("messages")
    page.get_by_role("button", name=re.compile("Next")).click()
    app.expect_step(6)  # where approve asked: paused on the step page too, never a failure
    expect(app.node("approve")).to_have_class(re.compile(r"\bstepscope-node paused\b"))
    tasks = app.tab("Tasks")
    expect(tasks.get_by_text(re.compile(r"^⏸ approve")).first).to_be_visible()
    expect(tasks.get_by_text(re.compile(r"It asked with")).first).to_be_visible()
    expect(tasks.get_by_text(re.compile("bystander"))).to_have_count(0)
