"""The Live run page on an app written with the real `langgraph`: the graph file is started from the
page in step mode and stepped one superstep per click; what the page shows at each pause is what the
node then receives (each node logs its input to `inputs.jsonl`)."""

from __future__ import annotations

from pathlib import Path

import pytest
from playwright.sync_api import expect
from test_live_browser import graph_file, main, start, step_through

from debugger.stores.sqlite import RunStore

pytest.importorskip("langgraph.graph")


def test_a_langgraph_app_runs_live_in_step_mode_one_superstep_per_click(page, tmp_path: Path, e2e_db, shot) -> None:
    path = graph_file(tmp_path, langgraph=True)
    start(page, path, step_mode=True)
    step_through(page, path, lambda step: step == 3 and shot("live-langgraph-step-mode"), timeout=20_000)
    expect(main(page).get_by_role("heading", name="The run is over")).to_be_visible(timeout=20_000)
    trace = RunStore(e2e_db).load(RunStore(e2e_db).list()[0].run_id)
    assert trace.status == "done" and trace.output == {"log": ["fetch", "slow", "write", "review"], "draft": "by write"}
