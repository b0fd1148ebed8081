"""A LangGraph.js app's checkpointer thread opened in the app, in Debian's chromium: the sidebar's
"Checkpointer thread" form lists the threads of the app's SqliteSaver file, opens one with the app's
graph (rebuilt by LangGraph.js in node), and the Time travel tab answers its interrupt on a local copy."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from playwright.sync_api import expect

from debugger.runtimes.langgraphjs import record_js_app

ROOT = Path(__file__).resolve().parents[2]
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        shutil.which("node") is None
        or not (ROOT / "node_modules" / "@langchain" / "langgraph-checkpoint-sqlite").exists(),
        reason="needs node and the LangGraph.js packages in node_modules (`npm ci` at the repository root)",
    ),
]

APP = """
import {{ SqliteSaver }} from "@langchain/langgraph-checkpoint-sqlite";
import {{ Annotation, START, StateGraph, interrupt }} from "@langchain/langgraph";

const State = Annotation.Root({{ question: Annotation(), answer: Annotation() }});

export const graph = new StateGraph(State)
  .addNode("prepare", () => ({{ question: "Refund order 17?" }}))
  .addNode("ask", (state) => ({{ answer: interrupt({{ ask: state.question }}) }}))
  .addEdge(START, "prepare")
  .addEdge("prepare", "ask")
  .compile({{ checkpointer: SqliteSaver.fromConnString({db!r}) }});
"""


@pytest.fixture
def production(tmp_path):
    """A JS app whose thread `refund-17` waits at an interrupt in its own SqliteSaver file."""
    (tmp_path / "node_modules").symlink_to(ROOT / "node_modules")  # the app resolves LangGraph.js as node does
    db = tmp_path / "prod.sqlite"
    module = tmp_path / "my_app.mjs"
    module.write_text(APP.format(db=str(db)))
    asked = record_js_app(str(module), "graph", {}, {"configurable": {"thread_id": "refund-17"}}, timeout=60)
    assert asked.status == "interrupted"
    return db, module


def test_a_javascript_thread_opens_from_the_sidebar_and_is_resumed_on_a_local_copy(app, shot, production):
    db, module = production
    before = db.read_bytes()
    sidebar = app.list_threads(db, f"{module}:graph")
    page = app.page
    expect(sidebar.get_by_role("combobox", name="Thread")).to_have_value(re.compile("^refund-17 · interrupted"))
    sidebar.get_by_role("button", name="Open thread").click()
    app.idle()
    app.graph.first.wait_for()
    expect(sidebar.get_by_text(re.compile(r"thread refund-17"))).to_be_visible()
    expect(sidebar.get_by_text("interrupted", exact=True)).to_be_visible()
    expect(app.node("ask")).to_be_visible()
    shot("js-threads-01-opened")
    app.tab("Time travel")
    page.get_by_role("textbox", name=re.compile("Answer to the interrupt")).fill('"yes"')
    page.get_by_role("button", name="Resume on a local copy").click()
    app.idle()
    expect(sidebar.get_by_text(re.compile("fork at step .* \\(local copy\\)")).first).to_be_visible(timeout=30_000)
    expect(sidebar.get_by_text("done", exact=True)).to_be_visible()
    shot("js-threads-02-resumed")
    assert db.read_bytes() == before, "the app's checkpointer must not change"
