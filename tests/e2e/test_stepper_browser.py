"""The stepper itself in Debian's chromium (issue 39, items 4 and 5): every word it writes in the page's
language (`?lang=zh`), and (below) stepping a long run and a big graph."""

from __future__ import annotations

import re

from conftest import SIDEBAR
from playwright.sync_api import expect

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
    expect(stepper.locator(".summary")).to_contain_text("接下来： 没有了。运行已完成。")
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
    expect(summary).to_contain_text("运行失败了：At key 'v'")  # LangGraph's own words for the error, as it says them
    expect(summary).not_to_contain_text("(error)")
    expect(summary).not_to_contain_text("（error）")
    expect(summary).to_contain_text("lookup_order、lookup_user_history")  # names listed with 、
