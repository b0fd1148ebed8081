"""The app in a real browser (Debian's chromium via Playwright): what AppTest cannot see.

The graph is laid out by Graphviz on the server (`debugger/views/widgets.py`); `debugger.model.drawing`
gives each node `id=node_<name>` and the class `stepscope-node <state>`, which come through to the
SVG as `<g id="node_child" class="node stepscope-node ran">`, so the tests read the highlight from the
SVG itself: the class, the fill and pen width of the node's shape and the ▶ marker in its label. Keyboard shortcuts,
tabs and page navigation are exercised as a user would. Each test saves screenshots (see conftest.py).
"""

from __future__ import annotations

import re

from playwright.sync_api import expect

RAN_FILL = "#ffd45e"


def expect_ran(app, name: str) -> None:
    """The node is drawn as the one that ran: class, gold fill, thick border, ▶ marker."""
    node = app.node(name)
    expect(node).to_have_class(re.compile(r"\bstepscope-node ran\b"))
    shape = node.locator("path, polygon, ellipse").first
    expect(shape).to_have_attribute("fill", RAN_FILL)
    expect(shape).to_have_attribute("stroke-width", "3")
    expect(node.locator("text").first).to_have_text("▶")


def ran_nodes(app) -> list[str]:
    return sorted(app.page.locator("g.stepscope-node.ran").evaluate_all("nodes => nodes.map(n => n.id)"))


def test_step_through_subgraph_trap_with_buttons_and_keys(app, shot):
    page = app.open("/?sample=subgraph_trap").page
    app.expect_step(0)
    expect_ran(app, "__start__")
    expect(app.node("p1")).to_have_class(re.compile(r"\bnext\b"))
    expect(page.get_by_text("In step 0, __start__ ran.")).to_be_visible()

    page.get_by_role("button", name=re.compile("Next")).click()
    app.expect_step(1)
    expect_ran(app, "p1")

    app.press("ArrowRight")
    app.expect_step(2)
    expect_ran(app, "child-3a-s1")
    assert ran_nodes(app) == ["node_child-3a-s1"], "exactly one node (the subgraph's, in its cluster) is highlighted"
    p1 = app.node("p1")
    expect(p1).to_have_class(re.compile(r"\bvisited\b"))
    expect(p1.locator("path").first).not_to_have_attribute("fill", RAN_FILL)
    expect(app.graph.locator("g#edge_p1-to-child-3a-s1 path").first).to_have_attribute("stroke-width", "3")

    merge = page.get_by_role("tabpanel", name="Merge")
    warning = merge.get_by_text(
        "Item 2 'parent' (written by p1 in step 1) of the result repeats what was already there"
    )
    expect(warning).to_be_visible()
    expect(
        merge.get_by_text("operator.add appended ['parent', 'sub-1'] to ['parent'] (1 of them already there")
    ).to_be_visible()
    expect(page.get_by_text("now holds items twice")).to_be_visible()
    shot("01-subgraph-trap-step-2")
    warning.scroll_into_view_if_needed()
    shot("02-subgraph-trap-merge-panel", page.locator('[data-testid="stTabs"]'))

    app.press("Home")
    app.expect_step(0)
    expect_ran(app, "__start__")
    app.press("End")
    app.expect_step(2)
    expect_ran(app, "child-3a-s1")
    app.press("ArrowLeft")
    app.expect_step(1)
    expect_ran(app, "p1")


def test_step_into_the_subgraph_and_back_out(app, shot):
    page = app.open("/?sample=subgraph_trap&step=2").page
    page.get_by_role("tab", name="Subgraphs").click()
    page.get_by_role("button", name="Step into child").click()
    expect(page).to_have_url(re.compile(r"scope=2\."))
    app.idle()
    expect(page.get_by_text("Inside a subgraph:")).to_be_visible()
    expect(app.node("s1")).to_have_count(1)
    expect(app.node("p1")).to_have_count(0)
    page.get_by_role("button", name=re.compile("Next")).click()
    app.expect_step(1)
    expect_ran(app, "s1")
    shot("03-inside-the-subgraph")

    page.get_by_role("button", name=re.compile("Back out")).click()
    app.expect_step(2)
    expect(page).not_to_have_url(re.compile("scope="))
    expect_ran(app, "child-3a-s1")
    expect(page.get_by_text("Inside a subgraph:")).to_have_count(0)


def test_errors_tab_shows_both_writers_of_a_concurrent_update(app, shot):
    page = app.open("/?sample=refund_concurrent_update&step=1").page
    for name in ("lookup_order", "lookup_user_history"):
        expect(app.node(name)).to_have_class(re.compile(r"\bfailed\b"))
        expect(app.node(name).locator("text").first).to_have_text("✖")
    page.get_by_role("tab", name=re.compile("Errors")).click()
    panel = page.get_by_role("tabpanel", name=re.compile("Errors"))
    expect(
        panel.get_by_text("lookup_order and lookup_user_history wrote the plain key 'v' in one superstep")
    ).to_be_visible()
    expect(panel.get_by_text("Who wrote v in step 1:")).to_be_visible()
    writers = panel.locator('[data-testid="stColumn"] strong').filter(
        has_text=re.compile(r"^lookup_(order|user_history)$")
    )
    expect(writers).to_have_text(["lookup_order", "lookup_user_history"])
    expect(writers.nth(1)).to_be_visible()
    expect(panel.get_by_text(re.compile(r"^Fix:"))).to_have_count(1)  # the first fix, then the others
    expect(panel.get_by_text(re.compile(r"^Or:"))).to_have_count(2)
    expect(panel.get_by_text(re.compile(r"^Caused by:"))).to_be_visible()
    shot("04-refund-errors-tab", panel)
    shot("05-refund-concurrent-update")


def test_gallery_opens_a_sample(app, shot):
    page = app.open("/gallery", graph=False).page
    expect(page.get_by_role("heading", name="Gallery of lessons")).to_be_visible()
    shot("06-gallery")
    page.locator(".st-key-gallery-map_reduce_send button").click()
    expect(page.get_by_role("heading", name="Map-reduce with Send")).to_be_visible()  # Open goes to the step page
    expect(page).to_have_url(re.compile(r"sample=map_reduce_send"))
    app.idle()
    app.graph.first.wait_for()
    expect(app.node("write_joke")).to_have_count(1)


def test_stored_runs_page_lists_the_runs(app, shot, e2e_db):
    from debugger.sources import runs as sources

    sources.open_sample("fan_out_search", db=str(e2e_db))  # as `stepscope run` or the sidebar would store it
    page = app.open("/runs", graph=False).page
    expect(page.get_by_role("heading", name="Stored runs")).to_be_visible()
    cells = page.locator('[data-testid="stDataFrame"] [role="gridcell"]')
    expect(cells.filter(has_text="fan_out_search").first).to_be_attached()
    expect(page.locator(".st-key-runs_open button")).to_be_visible()
    shot("07-stored-runs")
