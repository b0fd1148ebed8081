"""The Live run page on an app written with the real `langgraph`: the graph file is started from the
page in step mode and stepped one superstep per click; what the page shows at each pause is what the
node then receives (each node logs its input to `inputs.jsonl`)."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest
from playwright.sync_api import expect
from test_live_browser import inputs, main, shown_state, start

from debugger.stores.sqlite import RunStore

pytest.importorskip("langgraph.graph")

LANGGRAPH_FILE = """
import json, operator, os, time
from typing import Annotated, TypedDict
from langgraph.graph import END, START, StateGraph

LOG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "inputs.jsonl")


class State(TypedDict):
    log: Annotated[list[str], operator.add]
    draft: str


def make(name):
    def node(state):
        with open(LOG, "a") as f:
            f.write(json.dumps({"node": name, "input": state}) + "\\n")
        time.sleep(0.1)
        return {"log": [name], "draft": "by " + name} if name == "write" else {"log": [name]}
    return node


builder = StateGraph(State)
for name in ("fetch", "slow", "write", "review"):
    builder.add_node(name, make(name))
builder.add_edge(START, "fetch")
builder.add_edge("fetch", "slow")
builder.add_edge("slow", "write")
builder.add_edge("write", "review")
builder.add_edge("review", END)
graph = builder.compile()
example_input = {"log": [], "draft": ""}
"""


def test_a_langgraph_app_runs_live_in_step_mode_one_superstep_per_click(page, tmp_path: Path, e2e_db, shot) -> None:
    path = tmp_path / "lg_live_graph.py"
    path.write_text(textwrap.dedent(LANGGRAPH_FILE), encoding="utf-8")
    start(page, path, step_mode=True)
    for step, name in ((1, "fetch"), (2, "slow"), (3, "write"), (4, "review")):
        expect(page.get_by_role("heading", name=f"Paused before step {step}")).to_be_visible(timeout=20_000)
        expect(page.get_by_text(re.compile(rf"^{name}: "))).to_be_visible()
        state = shown_state(page)
        ran = [entry["node"] for entry in inputs(path)]
        assert len(ran) == step - 1  # nothing of the paused step has run
        if step == 3:
            shot("live-langgraph-step-mode")
        page.get_by_role("button", name=re.compile("Step$")).click()
        expect(
            page.get_by_role("heading", name=f"Paused before step {step + 1}").or_(
                main(page).get_by_role("heading", name="The run is over")
            )
        ).to_be_visible(timeout=20_000)
        received = inputs(path)
        assert [entry["node"] for entry in received] == [*ran, name]  # exactly one more superstep
        assert received[-1]["input"] == state  # what the page showed is what the node received
    expect(main(page).get_by_role("heading", name="The run is over")).to_be_visible(timeout=20_000)
    trace = RunStore(e2e_db).load(RunStore(e2e_db).list()[0].run_id)
    assert trace.status == "done" and trace.output == {"log": ["fetch", "slow", "write", "review"], "draft": "by write"}
