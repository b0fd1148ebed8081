"""The app's Compare page (issue 27, item 1) and the step page's HTML download, with AppTest: the open run
is A, a stored run is B, and the page shows `debugger.model.compare`'s verdict, steps and findings."""

from __future__ import annotations

import pytest

from debugger.stores.sqlite import RunStore
from engine.trace import Recorder
from tests.test_app import goto_page, plain, start

pytestmark = pytest.mark.usefixtures("fresh_store", "drawing_without_graphviz")  # tests/conftest.py


def stored(fresh_store, graph, graph_input) -> str:
    recorder = Recorder()
    graph.invoke(graph_input, hooks=recorder)
    recorder.trace.target = "subgraph_trap (fixed)"
    return RunStore(str(fresh_store)).save(recorder.trace)


def test_the_open_run_beside_its_fixed_version_and_beside_itself(fresh_store):
    from sample_graphs.subgraph_trap import example_input, fixed_graph, fixed_input, graph

    fixed_id = stored(fresh_store, fixed_graph, fixed_input)
    same_id = stored(fresh_store, graph, example_input)
    at = start()  # the default sample, subgraph_trap, is A
    goto_page(at, "compare")
    assert at.title[0].value == "Compare two runs"
    at.selectbox(key="compare_b_stored").select(fixed_id).run()
    assert not at.exception, at.exception
    assert plain(at.warning[0].value).startswith("The runs first differ at step 0.")
    assert any("subgraph duplication on `log` at step 2 is gone in B" in plain(s.value) for s in at.success)
    steps = at.dataframe[0].value
    assert list(steps["verdict"]) == ["✱ differs", "✱ differs", "✱ differs"]
    assert at.selectbox(key="compare_step").value == 0, "the detail opens at the first step where they part"
    at.selectbox(key="compare_step").select(2).run()
    tables = [t.value for t in at.table]
    calls = [plain(what) for what in tables[1]["what"]]
    assert "log ← child" in calls and "log ← call_child" in calls
    assert r"log ← call\_child" in list(tables[1]["what"]), "a table reads Markdown: its cells are escaped"
    at.selectbox(key="compare_b_stored").select(same_id).run()
    assert plain(at.success[0].value) == "The runs agree at every one of their 3 steps."


def test_the_url_names_b_and_the_step_shown_and_a_link_reopens_them(fresh_store):
    from sample_graphs.subgraph_trap import fixed_graph, fixed_input

    fixed_id = stored(fresh_store, fixed_graph, fixed_input)
    at = start()
    goto_page(at, "compare")
    at.selectbox(key="compare_b_stored").select(fixed_id).run()
    at.selectbox(key="compare_step").select(2).run()
    assert at.query_params["b"] == fixed_id and at.query_params["b_step"] == "2"
    assert at.query_params["sample"] == "subgraph_trap", "A, the open run, is named beside B"
    link = dict(at.query_params)

    again = start()  # a new session opening the link on the Compare page
    again.query_params.clear()
    again.query_params.update(link)
    goto_page(again, "compare")
    assert again.selectbox(key="compare_b_stored").value == fixed_id
    assert again.selectbox(key="compare_step").value == 2
    assert again.query_params["b_step"] == "2"
    again.radio(key="compare_b_kind").set_value("file").run()
    assert "b" not in again.query_params, "an uploaded trace cannot be linked"


def test_the_step_page_offers_the_run_as_one_html_page(fresh_store):
    at = start()
    button = at.get("download_button")[0]
    assert button.proto.label == "⬇ Download as one HTML page"
    at.toggle(key="learn_mode").set_value(True).run()
    assert not at.get("download_button"), "in learn mode the page would tell every merge's answer"
