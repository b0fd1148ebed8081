"""A langgraph app's production thread opened in the app, in Debian's chromium: the sidebar's
"Checkpointer thread" form lists the threads of a SqliteSaver file and opens one with the app's graph."""

from __future__ import annotations

import re
import sys

from playwright.sync_api import expect


def test_open_a_checkpointer_thread_from_the_sidebar(app, shot, production_threads):
    db, module = production_threads
    sidebar = app.list_threads(db, f"{module}:graph")
    page = app.page
    choice = sidebar.get_by_role("combobox", name="Thread")
    expect(choice).to_have_value(re.compile("^ticket-9 · interrupted"))  # the newest thread first
    shot("threads-01-listed")

    choice.click()
    expect(page.get_by_role("option", name=re.compile("ticket-9 · interrupted"))).to_be_visible()
    page.get_by_role("option", name=re.compile("refund-17 · stopped in step 2")).click()
    app.idle()
    sidebar.get_by_role("button", name="Open thread").click()
    app.idle()
    app.graph.first.wait_for()
    expect(sidebar.get_by_text(re.compile(r"thread refund-17"))).to_be_visible()
    expect(sidebar.get_by_text("error", exact=True)).to_be_visible()
    app.expect_step(2)  # a failed run opens at its failing step
    expect(app.node("approve")).to_have_class(re.compile(r"\bstepscope-node (ran|failed)\b"))
    expect(
        page.get_by_text(re.compile("a key without a reducer, which takes one write per step")).first
    ).to_be_visible()
    shot("threads-02-opened-at-the-conflict")
    app.press("Home")
    app.expect_step(0)


def test_a_thread_that_cannot_be_opened_says_why_and_the_page_keeps_working(app, production_threads):
    db, module = production_threads
    app.list_threads(db.parent / "missing.sqlite")
    page = app.page
    expect(page.get_by_text(re.compile("does not exist"))).to_be_visible()
    expect(app.graph.first).to_be_visible()


def test_time_travel_resumes_a_production_thread_on_a_local_copy(app, shot, production_threads):
    db, module = production_threads
    before = db.read_bytes()
    sidebar = app.open_thread(db, f"{module}:tickets")  # ticket-9, the newest, waits at an interrupt
    page = app.page
    expect(sidebar.get_by_text("interrupted", exact=True)).to_be_visible()
    app.tab("Time travel")
    page.get_by_role("textbox", name=re.compile("Answer to the interrupt")).fill('"no"')
    page.get_by_role("button", name="Resume on a local copy").click()
    app.idle()
    expect(sidebar.get_by_text(re.compile("fork at step .* \\(local copy\\)")).first).to_be_visible()
    expect(sidebar.get_by_text("done", exact=True)).to_be_visible()
    shot("threads-04-fork-resumed")
    assert db.read_bytes() == before, "the production checkpointer must not change"


LONG_APP = """
import operator, sqlite3
from typing import Annotated, TypedDict

from langgraph.checkpoint.sqlite import SqliteSaver
from langgraph.graph import START, StateGraph


class Count(TypedDict):
    turns: int
    log: Annotated[list, operator.add]


def tick(state):
    return {{"turns": state["turns"] + 1, "log": [state["turns"] + 1]}}


builder = StateGraph(Count)
builder.add_node("tick", tick)
builder.add_edge(START, "tick")
builder.add_conditional_edges("tick", lambda s: "tick" if s["turns"] < 40 else "__end__")
graph = builder.compile(checkpointer=SqliteSaver(sqlite3.connect({db!r}, check_same_thread=False)))
"""


def test_a_long_thread_opens_at_its_newest_steps_and_reads_older_ones_on_demand(app, tmp_path):
    db = tmp_path / "long.sqlite"
    module = tmp_path / "long_app.py"
    module.write_text(LONG_APP.format(db=str(db)))
    sys.path.insert(0, str(tmp_path))
    try:
        import long_app

        long_app.graph.checkpointer.setup()
        long_app.graph.invoke({"turns": 0, "log": []}, {"configurable": {"thread_id": "long"}})
    finally:
        sys.path.remove(str(tmp_path))
        sys.modules.pop("long_app", None)
    sidebar = app.open_thread(db, f"{module}:graph")
    page = app.page
    app.graph.first.wait_for()
    expect(sidebar.get_by_text(re.compile(r"Steps 21–40 read: the newest"))).to_be_visible()
    sidebar.get_by_role("button", name="Read older steps").click()
    app.idle()
    expect(sidebar.get_by_role("button", name="Read older steps")).to_have_count(0)  # the whole thread now
    app.idle()
    # the First button, not the Home key: a key pressed while the reopened thread's page still mounts is lost
    page.get_by_role("button", name=re.compile("First")).click()
    app.expect_step(0)
