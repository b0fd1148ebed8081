"""Issue 26 item 2, in Debian's chromium: a long run opens at once and its findings come later, by themselves.

A counter loop of four times `LONG_RUN_STEPS` steps, stored, is opened from its link at its last
step: the page says in one line that its steps are still being checked, and without a click (the waiting
fragment reruns the page once the background check is done) the line goes and the Findings tab loses its ⏳.
"""

from __future__ import annotations

import re
from typing import TypedDict

from playwright.sync_api import expect

import engine
from debugger.model import background
from debugger.stores.sqlite import RunStore
from engine.trace import Recorder


class Counter(TypedDict):
    n: int


def _counter_loop(steps: int) -> engine.trace.Trace:
    g = engine.StateGraph(Counter)
    g.add_node("inc", lambda state: {"n": state["n"] + 1})
    g.add_edge(engine.START, "inc")
    g.add_conditional_edges("inc", lambda state: "inc" if state["n"] < steps else engine.END)
    recorder = Recorder()
    g.compile().invoke({"n": 0}, {"recursion_limit": steps + 10}, hooks=recorder)
    return recorder.trace


def test_a_long_run_opens_then_shows_its_findings_without_a_click(app, e2e_db, shot):
    steps = 4 * background.LONG_RUN_STEPS  # checked for a few seconds: long enough to be seen waiting
    trace = _counter_loop(steps)
    RunStore(e2e_db).save(trace)
    page = app.open(f"/?run={trace.run_id}&step={steps}").page
    waiting = page.get_by_text(re.compile(rf"The run's {steps + 1:,} steps are still being checked for problems"))
    findings_tab = page.get_by_role("tab", name=re.compile(r"^Findings"))
    expect(findings_tab).to_have_text(re.compile("⏳"))
    expect(waiting.first).to_be_visible()
    shot("long-run-checking")
    expect(waiting).to_have_count(0, timeout=120_000)  # no click: the page reran by itself
    expect(findings_tab).not_to_have_text(re.compile("⏳"))
    expect(page.get_by_role("heading", name=f"Superstep {steps}")).to_be_visible()
    shot("long-run-checked")
