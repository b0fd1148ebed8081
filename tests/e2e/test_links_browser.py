"""Issue 24, items 1, 4 and 5, in Debian's chromium: a URL is the whole truth of what is on screen.

Each test walks the reproduction, then opens the same URL in a new browser context (a new session, as a
link pasted into another window) and checks that the same thing is on screen: the gallery's Open and the
step buttons write the URL and the sidebar follows; a graph-file run and a checkpointer thread reopened
from their link get their code back (Time travel works), or say in one line why not; the Live run page
names its run in its URL and has a sidebar of its own."""

from __future__ import annotations

import re
import textwrap

import pytest
from playwright.sync_api import expect

from tests.e2e.conftest import SIDEBAR

FAN_OUT_TITLE = "Fan-out, fan-in: two searches in parallel, one merge"


def _expect_fan_out_at(app, step: int) -> None:
    page = app.page
    app.expect_step(step)
    expect(page).to_have_url(re.compile(r"[?&]sample=fan_out_search(&|$)"))
    expect(page.get_by_role("heading", name=FAN_OUT_TITLE)).to_be_visible()
    expect(page.get_by_role("heading", name=f"Superstep {step}")).to_be_visible()
    sample_box = page.locator(SIDEBAR).get_by_role("combobox", name="Sample")
    expect(sample_box).to_have_value(FAN_OUT_TITLE)  # the sidebar's Sample box follows the gallery, by its title


def test_gallery_open_then_next_and_prev_stay_on_the_opened_sample_and_the_link_reopens_it(app, new_session, shot):
    page = app.open("/?sample=subgraph_trap&step=1").page
    page.get_by_role("button", name=re.compile("Next")).click()
    app.expect_step(2)
    page.locator(SIDEBAR).get_by_role("link", name="Gallery").click()
    app.idle()
    page.locator(".st-key-gallery-fan_out_search button").click()
    app.idle()
    app.graph.first.wait_for()
    _expect_fan_out_at(app, 0)
    page.get_by_role("button", name=re.compile("Next")).click()
    _expect_fan_out_at(app, 1)
    page.get_by_role("button", name=re.compile("Next")).click()
    _expect_fan_out_at(app, 2)
    page.get_by_role("button", name=re.compile("Prev")).click()
    _expect_fan_out_at(app, 1)
    shot("links-01-gallery-then-next")

    page.go_back()  # history navigation, one entry a move: the step before Prev, and it is what is shown
    _expect_fan_out_at(app, 2)
    page.go_forward()
    _expect_fan_out_at(app, 1)

    again = new_session("/?sample=fan_out_search&step=1")
    _expect_fan_out_at(again, 1)
    again.save("links-02-same-url-new-session")


LANGGRAPH_APP = textwrap.dedent("""
    import operator
    from typing import Annotated, TypedDict

    from langgraph.graph import END, START, StateGraph

    class State(TypedDict):
        log: Annotated[list, operator.add]

    def plan(state: State):
        return {"log": ["plan"]}

    def act(state: State):
        return {"log": ["act"]}

    builder = StateGraph(State)
    builder.add_node("plan", plan)
    builder.add_node("act", act)
    builder.add_edge(START, "plan")
    builder.add_edge("plan", "act")
    builder.add_edge("act", END)
    graph = builder.compile()
    example_input = {"log": ["hi"]}
""")


def test_a_langgraph_file_run_reopened_from_its_link_gets_time_travel_back(app, new_session, tmp_path, shot):
    pytest.importorskip("langgraph")
    path = tmp_path / "two_steps.py"
    path.write_text(LANGGRAPH_APP)
    page = app.open_graph_file(f"{path}:graph")
    expect(page).to_have_url(re.compile(r"[?&]run=\w+"))
    url = page.url

    again = new_session(url)
    expect(again.page.locator(SIDEBAR).get_by_role("radio", name="Graph file")).to_be_checked()
    panel = again.tab("Time travel")
    expect(panel.get_by_text(re.compile(r"Fork at step"))).to_be_visible()
    expect(panel.get_by_text(re.compile("needs the graph's code"))).to_have_count(0)
    again.save("links-03-graph-file-run")

    path.write_text(
        LANGGRAPH_APP.replace(
            'builder.add_edge("act", END)', 'builder.add_node("extra", act)\nbuilder.add_edge("act", END)'
        )
    )
    changed = new_session(url)
    panel = changed.tab("Time travel")
    expect(panel.get_by_text(re.compile(r"has changed since the run \(new node extra\)"))).to_be_visible()
    path.unlink()
    gone = new_session(url)
    panel = gone.tab("Time travel")
    expect(panel.get_by_text(re.compile(r"did not come back: .*two_steps\.py: no such file"))).to_be_visible()
    expect(gone.page.locator('[data-testid="stException"]')).to_have_count(0)


def test_a_checkpointer_thread_reopened_from_its_link_keeps_time_travel(app, new_session, production_threads, shot):
    db, module = production_threads
    app.open_thread(db, f"{module}:tickets")  # ticket-9, the newest, waits at an interrupt
    page = app.page
    expect(page).to_have_url(re.compile(r"[?&]run=\w+.*checkpointer="))
    url = page.url

    again = new_session(url)
    sidebar = again.page.locator(SIDEBAR)
    expect(sidebar.get_by_role("radio", name="Checkpointer thread")).to_be_checked()
    expect(sidebar.get_by_text(re.compile(r"thread ticket-9"))).to_be_visible()
    panel = again.tab("Time travel")
    expect(panel.get_by_text(re.compile("Time travel on a local copy"))).to_be_visible()
    panel.get_by_role("textbox", name=re.compile("Answer to the interrupt")).fill('"no"')
    panel.get_by_role("button", name="Resume on a local copy").click()
    again.idle()
    expect(sidebar.get_by_text(re.compile(r"fork at step .* \(local copy\)")).first).to_be_visible()
    again.save("links-04-thread")

    unnamed = new_session(re.sub(r"&checkpointer=[^&]*", "", url))  # no checkpointer: said in one line
    panel = unnamed.tab("Time travel")
    expect(panel.get_by_text(re.compile("needs its checkpointer"))).to_be_visible()


def test_the_live_page_has_its_own_url_and_sidebar_and_a_new_session_shows_that_run(app, new_session, e2e_db, shot):
    from debugger.stores.sqlite import RunStore

    page = app.open("/?sample=fan_out_search").page
    page.locator(SIDEBAR).get_by_role("link", name="Live run").click()
    app.idle()
    sidebar = page.locator(SIDEBAR)
    expect(sidebar.get_by_text("No live run on this page yet")).to_be_visible()
    expect(sidebar.get_by_role("radio", name="Sample")).to_have_count(0)  # not the Step-through form
    page.locator(".st-key-live_step_mode input").check(force=True)
    app.idle()
    page.locator(".st-key-live_start button").click()
    app.idle()
    expect(page).to_have_url(re.compile(r"/live\?run=\w+"))
    run_id = re.search(r"run=(\w+)", page.url).group(1)
    expect(sidebar.get_by_text(re.compile(r"Live run of slow_research"))).to_be_visible()
    expect(sidebar.get_by_text(run_id[:8])).to_be_visible()
    expect(page.get_by_role("heading", name=re.compile(r"Paused before step"))).to_be_visible()
    shot("links-05-live")
    stored_before = len(RunStore(e2e_db).list(limit=1000))

    again = new_session(page.url, graph=False)
    other = again.page
    other.locator(".stepscope-graph svg").first.wait_for()
    expect(other).to_have_url(re.compile(rf"/live\?run={run_id}&step=0$"))  # the run, at the step the link named
    expect(other.locator(SIDEBAR).get_by_text(re.compile(r"Live run of slow_research"))).to_be_visible()
    expect(other.locator(SIDEBAR).get_by_text(run_id[:8])).to_be_visible()
    expect(other.locator(SIDEBAR).get_by_role("radio", name="Sample")).to_have_count(0)
    expect(other.get_by_role("heading", name=re.compile(r"Paused before step"))).to_be_visible()
    again.save("links-06-live-same-url")
    assert len(RunStore(e2e_db).list(limit=1000)) == stored_before, "a new session recorded a run"

    other.get_by_role("button", name="⏹ Stop", exact=True).click()  # one run, seen from two sessions
    again.idle()
    expect(other.get_by_role("heading", name="The run is over")).to_be_visible()

    missing = new_session("/live?run=0123456789abcdef", graph=False)
    expect(missing.page.get_by_text(re.compile(r"is not live in this server"))).to_be_visible()
    expect(missing.page.locator('[data-testid="stException"]')).to_have_count(0)


def test_the_playgrounds_set_up_is_in_its_link_and_a_new_window_shows_the_same_fold(app, new_session, shot):
    page = app.open("/playground", graph=False).page
    main = page.locator('[data-testid="stMain"]')
    main.get_by_role("combobox", name="Reducer").click()
    page.get_by_role("option", name="no reducer (a plain key)").click()
    app.idle()
    expect(page.get_by_text(re.compile("Can receive only one value per step")).first).to_be_visible()
    expect(page).to_have_url(re.compile(r"[?&]reducer=none(&|$)"))
    link = page.url.split(page.url.split("/playground")[0], 1)[1]
    shot("26-playground-linked")

    again = new_session(link, graph=False)
    expect(again.page.locator('[data-testid="stMain"]').get_by_role("combobox", name="Reducer")).to_have_value(
        "no reducer (a plain key)"
    )
    expect(again.page.get_by_text(re.compile("Can receive only one value per step")).first).to_be_visible()
    again.save("26-playground-linked-reopened")


def test_the_open_tab_is_in_the_link_and_back_goes_to_the_tab_before(app, new_session, shot):
    page = app.open("/?sample=fan_out_search&step=2").page
    panel = app.tab("State")
    expect(page).to_have_url(re.compile(r"[?&]tab=state(&|$)"))
    expect(panel.get_by_text(re.compile("compared with the state before the step")).first).to_be_visible()
    link = "/" + page.url.split("/", 3)[3]
    app.tab("Versions")
    expect(page).to_have_url(re.compile(r"[?&]tab=versions(&|$)"))
    page.go_back()
    app.idle()
    expect(page.get_by_role("tab", name=re.compile("^State"))).to_have_attribute("aria-selected", "true")

    again = new_session(link)
    expect(again.page.get_by_role("tab", name=re.compile("^State"))).to_have_attribute("aria-selected", "true")
    again.expect_step(2)
    again.save("26-tab-linked-reopened")
