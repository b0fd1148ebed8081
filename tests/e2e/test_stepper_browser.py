"""The stepper itself in Debian's chromium (issue 39, items 4 and 5): every word it writes in the page's
language (`?lang=zh`), and (below) stepping a long run and a big graph."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TypedDict

from conftest import SIDEBAR
from playwright.sync_api import expect

GRAPHS = Path(__file__).resolve().parent / "graphs"
STEPPER = ".stepscope-stepper"
KEY_CAPS_AND_CODE = {"Ctrl", "Home", "End", "interrupt"}
"""Latin words a Chinese page still writes: keys as their caps say, and the function `interrupt()`."""
SUBGRAPH_TRAP_DATA = {"child", "p1", "s1", "__start__", "__end__", "log", "parent", "sub", "operator", "add"}
"""The subgraph trap's own names and values: its nodes, its key, what was written and its reducer."""


def latin_words(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z_][A-Za-z_0-9]*", text))


def test_the_stepper_speaks_chinese_with_no_english_word_left(app, shot):
    page = app.open("/?sample=subgraph_trap&step=2&lang=zh").page
    stepper = page.locator(STEPPER)
    expect(stepper.locator(".at")).to_have_text("第 2 步（共 3 步中的第 3 步） 🔎")
    shot("39-stepper-zh", stepper)
    expect(stepper.locator("button[data-zoom=fit]")).to_have_text("适应窗口")
    expect(stepper.locator("button[data-zoom=in]")).to_have_attribute("title", "放大")
    expect(stepper.locator(".summary")).to_contain_text("接下来：没有了。运行已完成。")
    written = stepper.evaluate(
        "s => { let text = s.innerText;"
        " s.querySelectorAll('.aside').forEach(a => text = text.replace(a.innerText, ''));"
        " return text + ' ' + [...s.querySelectorAll('button[title]')].map(b => b.title).join(' '); }"
    )  # the lesson's own text aside: the catalogs check it
    assert latin_words(written) <= KEY_CAPS_AND_CODE | SUBGRAPH_TRAP_DATA, latin_words(written) - SUBGRAPH_TRAP_DATA
    picker = page.locator(SIDEBAR).get_by_role("combobox").first
    expect(picker).to_have_value("子图把父图的列表又追加了一遍")  # the sample by its lesson's title


def test_a_failed_run_says_how_it_ended_in_chinese(app):
    page = app.open("/?sample=refund_concurrent_update&lang=zh").page
    summary = page.locator(f"{STEPPER} .summary")
    # LangGraph's own words for the error, as it says them, after its class
    expect(summary).to_contain_text("运行失败了：InvalidUpdateError: At key 'v'")
    expect(summary).not_to_contain_text("(error)")
    expect(summary).not_to_contain_text("（error）")
    expect(summary).to_contain_text("lookup_order、lookup_user_history")  # names listed with 、


# ---- a long run and a big graph (item 5) ----------------------------------------------------------------

LONG_RUN = 5_000


def _counter_loop(steps: int):
    """A stored run of `steps` supersteps: one node adding 1 until n reaches `steps`."""
    import engine
    from engine.trace import Recorder

    g = engine.StateGraph(Counter)
    g.add_node("inc", lambda state: {"n": state["n"] + 1})
    g.add_edge(engine.START, "inc")
    g.add_conditional_edges("inc", lambda state: "inc" if state["n"] < steps else engine.END)
    recorder = Recorder()
    g.compile().invoke({"n": 0}, {"recursion_limit": steps + 10}, hooks=recorder)
    return recorder.trace


class Counter(TypedDict):
    n: int


def _at(page, step: int, index: int, count: int):
    expect(page.locator(f"{STEPPER} .at")).to_have_text(re.compile(rf"^Step {step} \({index} of {count}\)"))


def test_a_5000_step_run_steps_to_its_end_and_back_in_windows_of_steps(app, e2e_db, shot):
    from debugger.model.stepper_data import WINDOW
    from debugger.model.trace_view import Scope, TraceView
    from debugger.stores.sqlite import RunStore

    trace = _counter_loop(LONG_RUN)
    steps = TraceView(trace).view(Scope()).steps
    count, last = len(steps), steps[-1]
    assert count > LONG_RUN > 20 * WINDOW  # the page holds a window of the run, never the whole of it
    RunStore(e2e_db).save(trace)
    frames: list[int] = []
    app.page.on("websocket", lambda ws: ws.on("framereceived", lambda payload: frames.append(len(payload))))
    page = app.open(f"/?run={trace.run_id}&step=0").page
    _at(page, 0, steps.index(0) + 1, count)
    opened = max(frames)
    app.press("End")
    _at(page, last, count, count)
    expect(page.locator(f"{STEPPER} .summary h3")).to_have_text(f"Superstep {last}")  # its window came
    app.expect_step(last)
    for back in range(1, 4):
        app.press("ArrowLeft")
        _at(page, last - back, count - back, count)
        expect(page.locator(f"{STEPPER} .summary h3")).to_have_text(f"Superstep {last - back}")
    app.expect_step(last - 3)
    expect(app.node("inc")).to_have_attribute("data-state", "ran")
    shot("39-stepper-5000-steps")
    # each model sent is one window: the run's whole would be about count / WINDOW times the first
    assert max(frames) < 3 * opened, (opened, max(frames))
    assert opened < 2_000_000, f"the first model sent was {opened:,} bytes"


def test_a_200_node_graph_steps_with_the_keys_and_marks_each_steps_nodes(app, shot):
    app.open_graph_file(GRAPHS / "big.py")
    page = app.page
    expect(page.locator(f"{STEPPER} svg g.node")).to_have_count(203)  # 200, the join, START and END
    app.press("Home")
    expect(page.locator(f"{STEPPER} .at")).to_have_text(re.compile(r"^Step 0 \(1 of 22\)"))
    app.press("ArrowRight")  # step 1: the first node of each of the ten chains
    expect(page.locator(f"{STEPPER} .at")).to_have_text(re.compile(r"^Step 1 \("))
    for chain in (0, 9):
        expect(app.node(f"c{chain}_n0")).to_have_attribute("data-state", "ran")
        expect(app.node(f"c{chain}_n1")).to_have_attribute("data-state", "next")
    app.press("End")
    expect(app.node("join")).to_have_attribute("data-state", "ran")
    expect(app.node("c3_n19")).to_have_attribute("data-state", "visited")
    app.press("ArrowLeft")
    expect(app.node("join")).to_have_attribute("data-state", "next")
    expect(app.node("c3_n19")).to_have_attribute("data-state", "ran")
    app.expect_step(20)
    shot("39-stepper-200-nodes")
