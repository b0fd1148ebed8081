"""What a new session's first paint does not wait for (issue 24, item 11), and the fork comparison's
cells (item 10): a linked sample is recorded once per server, the drawing needs no findings, only the
open tab and an unfolded timeline are built; the comparison is a table whose cells are whole. A new
browser's first view sends the stepper alone, the rest once it has drawn (issue 39, item 2)."""

from __future__ import annotations

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from debugger.model.trace_view import Scope, TraceView
from debugger.sources.runs import open_sample
from debugger.views import session
from tests import stepper_shown
from tests.test_app import APP, plain, tab


def new_session(**params: str) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=30)
    at.query_params.update(params)
    at.run()
    assert not at.exception, at.exception
    return at


pytestmark = pytest.mark.usefixtures("drawing_without_graphviz")  # the page logic, not the layout


def test_a_linked_sample_is_recorded_once_and_shared_by_new_sessions():
    st.cache_resource.clear()
    first = new_session(sample="fan_out_search")
    second = new_session(sample="fan_out_search")
    one, other = first.session_state[session.RUN], second.session_state[session.RUN]
    assert one is other, "the second session reuses the first one's recorded and analysed run"
    assert new_session(sample="subgraph_trap").session_state[session.RUN] is not one


def test_the_drawing_and_the_stepper_need_no_findings():
    opened = open_sample("subgraph_trap", store=False)
    traces = TraceView(opened.trace, opened.graph)
    view = traces.view(Scope())
    view.dot(2)
    view.highlight(2)
    view.neighbour(2, -1)
    assert not traces.findings_by_language, "diagnose has not run"
    assert [f.kind for f in view.findings] == ["subgraph_duplication"]  # asked for: computed then


def test_only_the_open_tab_and_an_unfolded_timeline_are_built():
    at = new_session(sample="subgraph_trap", step="2")
    assert not at.dataframe, "no table on the first paint: Merge is open, the timeline folded"
    tab(at, "State")
    assert [t.label for t in at.tabs if t.dataframe] == ["State"], "opened, the State tab builds its tables"


def test_a_browser_gets_the_stepper_alone_until_it_says_it_has_drawn(monkeypatch):
    monkeypatch.setattr(session, "in_browser", lambda: True)  # a browser asked; its stepper says when it drew
    at = new_session(sample="fan_out_search", step="1")
    assert stepper_shown.model(at)["report_drawn"] is True
    assert stepper_shown.shown_step(at)["nodes"], "the drawing's first step, node states included"
    assert not at.tabs and not at.expander, "the tabs, the code and the timeline wait for the drawing"
    assert not at.sidebar.radio and not at.sidebar.selectbox, "the sidebar's forms wait too"
    assert at.session_state[session.SAMPLE_CHOICE] == "fan_out_search", "kept for the picker that follows"
    at.session_state[stepper_shown.STEPPER] = {"move": None, "drawn": True}  # as its JavaScript says it
    at.run()
    assert "report_drawn" not in stepper_shown.model(at) and at.tabs, "the whole page follows"
    assert at.sidebar.selectbox(key=session.SAMPLE_CHOICE).value == "fan_out_search"
    at.run()
    assert at.tabs, "the session's later runs are whole at once"


def test_a_run_with_no_browser_behind_it_is_the_whole_page_at_once():
    at = new_session(sample="fan_out_search")
    assert "report_drawn" not in stepper_shown.model(at) and at.tabs


def test_the_fork_comparison_is_a_table_of_whole_cells():
    at = new_session(sample="subgraph_trap", step="1")
    tab(at, "Time")
    at.text_area(key=session.TT_VALUE).input('["EDITED"]')
    at.button(key="tt_fork").click().run()
    assert not at.exception, at.exception
    (table,) = tab(at, "Time").table
    frame = table.value
    assert list(frame.columns) == ["differs", "original", "branch"]
    # whole, not cut at a column's width; escaped, as a table reads Markdown
    assert plain(frame.loc[2, "branch"]) == "{'log': ['EDITED', 'EDITED', 'sub-1']}"
