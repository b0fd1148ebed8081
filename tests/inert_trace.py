"""A graph whose trace is hostile to a page: its state key, node name, values and error message hold
Markdown images and links, HTML and bare URLs. `tests/test_trace_is_text.py` (AppTest) and
`tests/e2e/test_trace_is_text_browser.py` (Chromium) open its runs and check that none of it became
markup and that the page fetched nothing from outside."""

from __future__ import annotations

from typing import Annotated, TypedDict

from engine import END, START, StateGraph

IMAGE_KEY = "![k](http://evil.invalid/k.png)"
IMAGE_NODE = "![n](//evil.invalid/n.png) www.evil.invalid"  # langgraph refuses `:` in node names
LINKS = "see [here](http://evil.invalid/a) or www.evil.invalid or http://evil.invalid/b <img src=http://evil.invalid/c>"
ERROR = "boom ![e](http://evil.invalid/e.png) `x`\n\n![after a blank line](http://evil.invalid/f.png)"


def _keep_last(current, new):
    return new


State = TypedDict("State", {IMAGE_KEY: Annotated[str, _keep_last], "note": Annotated[str, _keep_last]})


def _hostile(state: dict) -> dict:
    return {IMAGE_KEY: LINKS, "note": "![v](http://evil.invalid/v.png)"}


def _fails(state: dict) -> dict:
    raise ValueError(ERROR)


def build():
    """hostile node writes the hostile values; `fails` then raises an error whose message is Markdown."""
    builder = StateGraph(State)
    builder.add_node(IMAGE_NODE, _hostile)
    builder.add_node("fails", _fails)
    builder.add_edge(START, IMAGE_NODE)
    builder.add_edge(IMAGE_NODE, "fails")
    builder.add_edge("fails", END)
    return builder.compile()


graph = build()
example_input = {IMAGE_KEY: "http://evil.invalid/input", "note": "[n](http://evil.invalid/n)"}
