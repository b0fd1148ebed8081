"""Issue 12 in a real browser, one test (or two) per numbered point, on gallery samples and on graph
files of our own (tests/e2e/graphs/): a failed superstep applies nothing, every failing action answers
in place, time travel makes a stored branch, every view comes back from its URL, diagnose's findings
are in the app, learn mode hides answers, Sends are named, words are plain, trace text is text, and
big graphs zoom, pan and fit the screen."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from playwright.sync_api import expect

GRAPHS = Path(__file__).parent / "graphs"
NO_TRACEBACK = '[data-testid="stException"]'


# ---- 1. a failed superstep ---------------------------------------------------------------------------


def test_a_failed_step_applies_nothing_and_tells_culprits_from_bystanders(app, shot):
    page = app.open_graph_file(GRAPHS / "bystander.py")
    expect(page).to_have_url(re.compile(r"[?&]step=1(&|$)"))  # a failed run opens at its failure
    for culprit in ("a", "b"):
        expect(app.node(culprit)).to_have_class(re.compile(r"\bfailed\b"))
    expect(app.node("c")).not_to_have_class(re.compile(r"\bfailed\b"))
    expect(page.get_by_text(re.compile(r"The barrier applied none of the 2 writes"))).to_be_visible()
    merge = app.tab("Merge")
    expect(merge.get_by_text(re.compile(r"the barrier applied none\s+of it"))).to_be_visible()
    expect(merge.get_by_text("✅")).to_have_count(0)
    expect(merge.get_by_text(re.compile(r"^After:"))).to_have_count(0)
    tasks = app.tab("Tasks")
    expect(tasks.get_by_text(re.compile(r"○ c")).first).to_be_visible()
    errors = app.tab("Errors")
    expect(errors.get_by_text(re.compile(r"Caused by: a, b"))).to_be_visible()
    expect(errors.get_by_text(re.compile(r"Bystanders.*c"))).to_be_visible()
    state = app.tab("State")
    expect(state.get_by_text("The step failed, so the state is unchanged")).to_be_visible()
    shot("12-1-failed-step")


# ---- 2. every failing action answers in place ---------------------------------------------------------


def test_a_fork_with_a_value_the_reducer_cannot_take_answers_in_one_line(app, shot):
    page = app.open("/?sample=subgraph_trap&step=1").page
    panel = app.tab("Time travel")
    panel.locator(".st-key-tt_value textarea").fill('"hello"')
    panel.locator(".st-key-tt_fork button").click()
    app.idle()
    expect(panel.get_by_text(re.compile(r"operator\.add cannot merge \"hello\" into 'log'"))).to_be_visible()
    expect(page.locator(NO_TRACEBACK)).to_have_count(0)
    expect(page.locator('[data-testid="stSidebar"]')).to_be_visible()
    page.get_by_role("button", name=re.compile("Next")).click()
    app.expect_step(2)  # the page keeps working
    shot("12-2-fork-refused")


def test_a_node_that_raises_is_one_line_with_the_traceback_folded(app, tmp_path):
    path = tmp_path / "raises.py"
    path.write_text(
        "from typing import TypedDict\nfrom engine import StateGraph, START, END\n"
        "class S(TypedDict):\n    x: int\n"
        "def boom(s):\n    raise ValueError('the node broke')\n"
        "b = StateGraph(S)\nb.add_node('boom', boom)\nb.add_edge(START, 'boom')\nb.add_edge('boom', END)\n"
        "graph = b.compile()\nexample_input = {'x': 1}\n"
    )
    page = app.open_graph_file(path)
    tasks = app.tab("Tasks")
    expect(tasks.get_by_text("ValueError: the node broke").first).to_be_visible()
    expect(page.locator(NO_TRACEBACK)).to_have_count(0)


# ---- 3. time travel -----------------------------------------------------------------------------------


def test_a_branch_opens_at_its_edited_write_is_stored_and_reopens_from_its_url(app, shot):
    page = app.open("/?sample=subgraph_trap&step=1").page
    panel = app.tab("Time travel")
    expect(panel.locator(".st-key-tt_node input")).to_have_value("p1")  # the node that ran is the default
    panel.locator(".st-key-tt_value textarea").fill('["EDITED"]')
    panel.locator(".st-key-tt_fork button").click()
    app.idle()
    expect(panel.get_by_text(re.compile(r"differs from the original at steps 1-2\."))).to_be_visible()
    panel.locator(".st-key-tt_open button").click()
    app.idle()
    expect(page).to_have_url(re.compile(r"run=\w+&parent=sample%3Asubgraph_trap&step=1"))
    merge = app.tab("Merge")
    expect(merge.get_by_text(re.compile(r"#0 from p1 wrote \['EDITED'\]"))).to_be_visible()
    shot("12-3-branch")
    page.reload()
    app.idle()
    expect(page.get_by_role("heading", name=re.compile("fork at step 1"))).to_be_visible()
    panel = app.tab("Time travel")
    expect(panel.get_by_text("You are looking at a branch made by time travel")).to_be_visible()
    panel.locator(".st-key-tt_back button").click()
    app.idle()
    expect(page).to_have_url(re.compile(r"sample=subgraph_trap.*step=1"))  # back at the fork step


# ---- 4. every view from its URL -----------------------------------------------------------------------


def test_an_edited_input_is_a_stored_run_named_in_the_url(app):
    page = app.open("/?sample=subgraph_trap").page
    page.get_by_text("Edit the input and run again").click()
    page.locator(".st-key-rerun_input textarea").fill('{"log": ["mine"]}')
    page.locator(".st-key-rerun button").click()
    app.idle()
    expect(page).to_have_url(re.compile(r"[?&]run=\w+"))
    url = page.url
    page.goto(url)
    app.idle()
    expect(page.get_by_role("heading", name=re.compile("edited input|re-appends"))).to_be_visible()
    state = app.tab("State")
    expect(state.get_by_text(re.compile("mine")).first).to_be_visible()


def test_a_graph_file_run_reloads_with_its_code_and_its_sidebar(app):
    page = app.open_graph_file(GRAPHS / "big.py")
    expect(page).to_have_url(re.compile(r"[?&]run=\w+"))
    page.reload()
    app.idle()
    expect(page.locator('[data-testid="stSidebar"]').get_by_role("radio", name="Graph file")).to_be_checked()
    panel = app.tab("Time travel")
    expect(panel.get_by_text(re.compile(r"Fork at step"))).to_be_visible()


# ---- 5. findings --------------------------------------------------------------------------------------


def test_a_lost_update_found_by_diagnose_is_marked_in_the_app(app, shot):
    page = app.open("/?sample=parallel_append_race").page
    findings = app.tab("Findings")
    expect(findings.get_by_text(re.compile("lost|read-modify-write|writes back", re.I)).first).to_be_visible()
    findings.get_by_role("button", name=re.compile(r"^Go to step")).first.click()
    app.idle()
    merge = app.tab("Merge")
    expect(merge.get_by_text(re.compile(r"\(see Findings\)")).first).to_be_visible()
    expect(page.locator(".stepscope-stepper .at")).to_contain_text("🔎")  # the step with the finding
    expect(page.locator(".stepscope-stepper datalist option").first).to_be_attached()  # its tick on the slider
    shot("12-5-findings")


# ---- 6. learn mode ------------------------------------------------------------------------------------


def test_learn_mode_hides_results_until_guessed_also_after_next(app, shot):
    page = app.open("/?sample=fan_out_search&step=1").page
    merge = app.tab("Merge")
    merge.get_by_text("Learn mode").click()
    app.idle()
    expect(merge.get_by_text("✅")).to_have_count(0)
    page.get_by_role("button", name=re.compile("Next")).click()
    app.expect_step(2)
    merge = app.tab("Merge")
    expect(merge.get_by_text("✅")).to_have_count(0)
    expect(merge.get_by_text(re.compile(r"What will .* be after call #"))).to_be_visible()
    merge.locator("input[type=text]").first.fill("['nothing']")
    merge.get_by_role("button", name="Check").click()
    app.idle()
    expect(merge.get_by_text(re.compile(r"^Not quite"))).to_be_visible()
    expect(merge.get_by_text("✅")).to_have_count(1)
    shot("12-6-learn")


# ---- 7. Sends -----------------------------------------------------------------------------------------


def test_send_tasks_are_named_with_index_and_argument(app, shot):
    page = app.open("/?sample=map_reduce_send&step=2").page
    expect(page.get_by_text('write_joke[1] {"subject": "cat"}').first).to_be_visible()
    expect(app.node("write_joke")).to_contain_text('[1] {"subject": "cat"}')
    merge = app.tab("Merge")
    expect(merge.get_by_text(re.compile(r'from write_joke\[2\] \{"subject": "dog"\}'))).to_be_visible()
    shot("12-7-sends")


# ---- 8. plain words, hostile text ---------------------------------------------------------------------


def test_plain_words_and_an_empty_input_refused_with_what_the_graph_expects(app):
    page = app.open("/?sample=subgraph_trap&step=2").page
    expect(page.get_by_text("child runs because p1 finished (edge p1 → child)")).to_be_visible()
    versions = app.tab("Versions")
    expect(versions.get_by_text(re.compile("A version is a counter"))).to_be_visible()
    app.open_graph_file(GRAPHS / "needs_input.py")
    sidebar = app.page.locator('[data-testid="stSidebar"]')
    expect(sidebar.get_by_text(re.compile(r"The input is empty.*keys question, answer"))).to_be_visible()


def test_markdown_in_a_stored_run_is_shown_as_text(app, e2e_db):
    from debugger.sources import runs as sources
    from debugger.stores.sqlite import RunStore

    trace = sources.open_sample("subgraph_trap", store=False).trace
    trace.target = "![pwned](http://127.0.0.1:9/x.png) **bold**"
    RunStore(str(e2e_db)).save(trace)
    requests = []
    app.page.on("request", lambda r: requests.append(r.url))
    page = app.open(f"/?run={trace.run_id}").page
    expect(page.get_by_role("heading", name=re.compile(r"!\[pwned\]"))).to_be_visible()
    expect(page.locator('img[src*="x.png"]')).to_have_count(0)
    assert not [u for u in requests if "x.png" in u]


# ---- 9. big graphs ------------------------------------------------------------------------------------


def test_a_big_graph_zooms_and_pans_and_collapses_subgraphs(app, shot):
    page = app.open_graph_file(GRAPHS / "big.py")
    frame = page.locator(".stepscope-graph").first
    canvas = frame.locator(".stepscope-canvas")
    before = canvas.evaluate("c => c.style.transform")
    frame.locator("button[data-zoom=in]").click()
    after = canvas.evaluate("c => c.style.transform")
    assert before != after
    expect(frame).to_be_visible()  # the zoom click may re-render the page: wait for the drawing to be back
    box = frame.bounding_box()
    assert box is not None
    page.mouse.move(box["x"] + 100, box["y"] + 200)
    page.mouse.down()
    page.mouse.move(box["x"] + 160, box["y"] + 260)
    page.mouse.up()
    assert canvas.evaluate("c => c.style.transform") != after
    shot("12-9-big-graph")
    trap = app.open("/?sample=subgraph_trap&step=2").page
    trap.locator(".st-key-collapse_subgraphs").get_by_text("Collapse subgraphs").click()
    app.idle()
    expect(app.node("child")).to_have_count(1)
    expect(app.node("child-3a-s1")).to_have_count(0)


@pytest.mark.parametrize("sample", ["subgraph_trap", "refund_concurrent_update"])
def test_summary_graph_and_tabs_fit_a_1280x800_screen(app, shot, sample):
    app.page.set_viewport_size({"width": 1280, "height": 800})
    page = app.open(f"/?sample={sample}").page
    for locator in (
        page.get_by_role("heading", name=re.compile("^Superstep")),
        page.locator(".stepscope-graph"),
        page.get_by_role("tab", name="Merge"),
    ):
        box = locator.first.bounding_box()
        assert box is not None and box["y"] + min(box["height"], 40) <= 800, locator
    shot(f"12-9-{sample}-1280x800")
