"""Trace data is text, never markup (issue 25, attack 1): a run whose key, node name, values and error
message hold Markdown images and links, HTML and bare URLs is opened by `?run=` and walked step by
step with AppTest; every Markdown body, caption, alert, heading and widget label on the page must hold
that data only as escaped text or inside a code span (where Markdown is inert).

`tests/e2e/test_trace_is_text_browser.py` opens the same run in Chromium and checks that no request
leaves 127.0.0.1."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from debugger.sources import runs as sources
from debugger.views import widgets

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "debugger" / "app.py")
TARGET = str(Path(__file__).with_name("inert_trace.py")) + ":graph"

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("fresh_store")]  # AppTest runs the whole app

INERT_TYPES = {"code", "json", "html", "arrow_data_frame", "dataframe", "text", "selectbox", "multiselect"}
"""Elements whose body Streamlit does not read as Markdown (a selectbox's options are plain text; its
label is still checked)."""


def live_markup(markdown: str) -> list[str]:
    """What in a Markdown body could still become a link, an image, HTML or an autolink: the body
    without its backslash-escaped characters and its code spans, searched for the hostile pieces."""
    unescaped = re.sub(r"\\.", "", markdown)
    outside_code = re.sub(r"`[^`]*`", "", unescaped)
    return [piece for piece in ("](", "<img", "://", "www.", "evil.invalid") if piece in outside_code]


def markdown_texts(node, where: str = "") -> list[tuple[str, str]]:
    """Every (element, text) of the page that Streamlit renders as Markdown: bodies, labels, help."""
    found = []
    proto = getattr(node, "proto", None)
    kind = getattr(node, "type", "")
    if proto is not None and hasattr(proto, "ListFields"):
        for field, value in proto.ListFields():
            if not isinstance(value, str):
                continue
            if field.name in ("label", "help") or (field.name == "body" and kind not in INERT_TYPES):
                found.append((f"{where}/{kind}.{field.name}", value))
    children = getattr(node, "children", None)
    if isinstance(children, dict):
        for child in children.values():
            found += markdown_texts(child, f"{where}/{kind}")
    return found


def assert_inert(at: AppTest, page: str, *, shown: bool = True) -> None:
    assert not at.exception, at.exception
    texts = markdown_texts(at._tree)
    if shown:  # in Markdown (escaped) or in the stepper's data (text it sets with textContent)
        stepper = [e.proto.json for e in at.get("bidi_component")]
        on_page = any("evil" in text for _, text in texts) or any("evil" in data for data in stepper)
        assert on_page, f"{page}: the hostile data should be on the page"
    bad = [(where, text, live_markup(text)) for where, text in texts if live_markup(text)]
    assert not bad, f"{page}: trace data rendered as markup: {bad[:3]}"


def test_markdown_escaping_leaves_no_link_image_or_autolink():
    for hostile in ("![k](http://evil.invalid/k.png)", "www.evil.invalid", "<img src=x>", "a\n\n![b](//c)"):
        assert not live_markup(widgets.md(hostile)), hostile
        assert not live_markup(f"`{widgets.code(hostile)}`"), hostile
    assert widgets.code("a`b\n\nc") == "a'b\\x0a\\x0ac", "a code span can neither end nor be split"


def test_a_hostile_trace_is_shown_as_text_on_every_step_tab_and_the_stored_runs_page(fresh_store):
    opened = sources.open_target(TARGET, db=str(fresh_store))
    assert opened.trace.status == "error"
    steps = [s.step for s in opened.trace.steps]
    for step in steps:
        at = AppTest.from_file(APP, default_timeout=30)
        at.query_params.update({"run": opened.trace.run_id, "step": str(step)})
        at.run()
        assert_inert(at, f"step {step}")
    at._page_hash = next(h for h, info in at._registered_pages.items() if info.get("url_pathname") == "runs")
    at.run()
    assert_inert(at, "stored runs", shown=False)  # its table and list hold the run as plain text
