"""A langgraph app's interrupted run, answered in the app in a real browser: the thread continues as
a new run, and the runs of the thread are listed together."""

from __future__ import annotations

import re
import textwrap

import pytest
from playwright.sync_api import expect

pytest.importorskip("langgraph")

APP = textwrap.dedent("""
    from typing import TypedDict
    from langgraph.checkpoint.memory import InMemorySaver
    from langgraph.graph import START, StateGraph
    from langgraph.types import interrupt

    class State(TypedDict):
        request: str
        decision: str

    def ask(state: State):
        answer = interrupt({"question": f"approve {state['request']}?"})
        return {"decision": f"answered {answer}"}

    builder = StateGraph(State)
    builder.add_node("ask", ask)
    builder.add_edge(START, "ask")
    graph = builder.compile(checkpointer=InMemorySaver())
    example_input = {"request": "refund 42"}
""")


def test_answering_an_interrupt_continues_the_thread(app, shot, e2e_db, tmp_path):
    from debugger.runtimes.langgraph.recorder.runs import run_graph
    from debugger.runtimes.targets import load_target
    from debugger.stores.sqlite import RunStore

    path = tmp_path / "approve_app.py"
    path.write_text(APP)
    target = f"{path}:graph"
    store = RunStore(e2e_db)
    stopped = run_graph(
        load_target(target).graph,
        {"request": "refund 42"},
        target=target,
        thread="browser-thread",
        db=store,
        db_path=store.path,
    ).trace  # as `stepscope run` stores it
    assert stopped.status == "interrupted"

    page = app.open(f"/?run={stopped.run_id}").page
    sidebar = page.locator('[data-testid="stSidebar"]')
    expect(sidebar.get_by_text("Waiting for an answer")).to_be_visible()
    expect(sidebar.get_by_text('"approve refund 42?"')).to_be_visible()
    expect(sidebar.get_by_text("browser-thread", exact=True)).to_be_visible()
    shot("langgraph-01-interrupted")

    sidebar.get_by_label("Answer (JSON, or plain text)").fill("yes")
    sidebar.get_by_label("Answer (JSON, or plain text)").press("Enter")
    app.idle()
    sidebar.get_by_role("button", name="Answer and continue the thread").click()
    app.idle()
    expect(sidebar.get_by_text("done", exact=False).first).to_be_visible()
    expect(sidebar.get_by_text("Runs of this thread")).to_be_visible()
    expect(sidebar.get_by_role("button", name=re.compile(r"^1\. interrupted"))).to_be_visible()
    expect(sidebar.get_by_role("button", name=re.compile(r"^2\. done.*\(open\)"))).to_be_visible()
    shot("langgraph-02-answered")

    runs = [r for r in store.list() if r.target == target]
    assert [r.status for r in runs] == ["done", "interrupted"]
    answered = store.load(runs[0].run_id)
    assert answered.thread_id == "browser-thread" and '"answered yes"' in str(answered.output).replace("'", '"')
