"""The reducer playground in chromium: fold operator.add over two writers, switch to a plain key and see
LangGraph's error, then "Make it a graph" opens the graph that ran on the Step-through page."""

from __future__ import annotations

import re

from playwright.sync_api import expect


def test_fold_a_plain_key_error_and_make_it_a_graph(app, shot):
    page = app.open("/playground", graph=False).page
    expect(page.get_by_text("operator.add appended ['x'] to []")).to_be_visible()
    expect(page.get_by_text("operator.add appended ['y'] to ['x']")).to_be_visible()
    expect(page.get_by_text(re.compile(r"B then A"))).to_be_visible()
    shot("28-1-playground-add")
    page.locator('[data-testid="stMain"]').get_by_role("combobox", name="Reducer").click()
    page.get_by_role("option", name="no reducer (a plain key)").click()
    app.idle()
    expect(page.get_by_text(re.compile("Can receive only one value per step")).first).to_be_visible()
    shot("28-1-playground-plain-key")
    page.get_by_role("button", name="Make it a graph").click()
    app.idle()
    expect(page.locator(".stepscope-graph svg").first).to_be_visible()
    expect(page.get_by_text(re.compile(r"Playground: no reducer \(a plain key\) with 2 writer")).first).to_be_visible()
    expect(app.node("A")).to_be_visible()
    shot("28-1-playground-made-graph")


def test_a_lessons_exercise_says_why_a_try_is_wrong_then_that_the_answer_solves_it(app, shot):
    from sample_graphs.exercises import EXERCISES

    page = app.open("/?sample=subgraph_trap&step=0").page
    panel = app.tab("Exercise")
    expect(panel.get_by_text(re.compile("Stop the subgraph re-appending"))).to_be_visible()
    panel.get_by_role("button", name="Check my code").click()
    app.idle()
    expect(page.get_by_text(re.compile(r"Not solved yet \(try 1\)"))).to_be_visible()
    expect(page.get_by_text(re.compile("Hint:"))).to_be_visible()
    shot("28-2-exercise-unsolved")
    editor = panel.locator("textarea")
    editor.fill(EXERCISES["subgraph_trap"].answer())
    editor.press("Control+Enter")
    app.idle()
    panel.get_by_role("button", name="Check my code").click()
    app.idle()
    expect(page.get_by_text(re.compile("^Solved:"))).to_be_visible()
    shot("28-2-exercise-solved")
