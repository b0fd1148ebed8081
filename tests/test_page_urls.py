"""Each page's URL names only what is on that page, and the sidebar names only what is on screen (issue 39,
item 4), under AppTest: the Step-through page's `sample=` and `step=` never ride into the Playground,
Gallery and Stored runs URLs, nor the Playground's `reducer=` and `custom=` back; Compare names the open run
as its A, without the step."""

from __future__ import annotations

import pytest

from tests.test_app import goto_page, plain, start, url

pytestmark = pytest.mark.usefixtures("fresh_store", "drawing_without_graphviz")  # tests/conftest.py

STEP_KEYS = {"sample", "run", "step", "call", "scope", "tab"}
PLAYGROUND_KEYS = {"reducer", "start", "A", "B", "C", "D", "E", "custom"}


def sidebar_text(at) -> str:
    """What the sidebar's text and pickers say."""
    picked = [str(box.value).replace("_", " ") for box in at.sidebar.selectbox]
    return plain("\n".join([m.value for m in at.sidebar.markdown] + picked)).lower()


def test_each_page_names_only_its_own_parameters_there_and_back():
    at = start(sample="subgraph_trap", step="2", tab="state")
    assert url(at) == {"sample": "subgraph_trap", "step": "2", "tab": "state"}
    goto_page(at, "playground")
    at.selectbox(key="playground-reducer").set_value("none").run()  # a reducer of one's own would start a process
    assert not at.exception, at.exception
    assert {"reducer", "A", "B"} <= set(url(at)) and not STEP_KEYS & set(url(at)), url(at)
    goto_page(at, "")
    assert url(at) == {"sample": "subgraph_trap", "step": "2", "tab": "state"}, "nothing of the playground's"
    goto_page(at, "gallery")
    assert url(at) == {}
    goto_page(at, "runs")
    assert url(at) == {}
    goto_page(at, "compare")
    assert url(at) == {"sample": "subgraph_trap"}, "A, the open run, without where the step page stood"
    goto_page(at, "")
    assert url(at) == {"sample": "subgraph_trap", "step": "2", "tab": "state"}


def test_an_old_link_that_mixed_pages_is_cleaned_to_the_pages_own():
    at = start(sample="subgraph_trap", step="2")
    at.query_params.clear()
    at.query_params.update({"sample": "fan_out_search", "step": "1", "reducer": "none", "b": "x"})
    goto_page(at, "playground")
    assert url(at)["reducer"] == "none" and not (STEP_KEYS | {"b"}) & set(url(at)), url(at)


def test_the_sidebar_names_the_playground_run_on_screen_not_the_step_pages():
    at = start(sample="subgraph_trap")
    assert "subgraph trap" in sidebar_text(at) and "a subgraph re-appends its parent's list" in sidebar_text(at)
    goto_page(at, "playground")
    at.selectbox(key="playground-reducer").set_value("none").run()
    assert "playground: no reducer (a plain key) with 2 writers" in sidebar_text(at), sidebar_text(at)
    assert "subgraph" not in sidebar_text(at), "no word of the Step-through run, nor a picker naming it"
    goto_page(at, "gallery")
    assert "subgraph" not in sidebar_text(at) and "playground" not in sidebar_text(at)
    goto_page(at, "compare")
    assert "a subgraph re-appends" in sidebar_text(at), "Compare shows the open run as A: the sidebar names it"


def test_make_it_a_graph_opens_the_step_page_with_its_own_url():
    at = start(sample="subgraph_trap", step="2")
    goto_page(at, "playground")
    at.button(key="playground-make").click().run()
    assert not at.exception, at.exception
    assert set(url(at)) == {"run", "step"}, url(at)
    assert "playground: operator.add with 2 writers" in sidebar_text(at), "the run opened is the one named"
