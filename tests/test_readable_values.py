"""Values shown whole in the app (State, Tasks, the live page) read as people write them: a message
is `{"type": "human", "content": ...}`, not the trace's `{"$type": "message", "message": {"data": ...}}`."""

from __future__ import annotations

import json

import pytest
import streamlit as st
from streamlit.testing.v1 import AppTest

from debugger.model.present import readable
from engine.codec import MISSING_ENCODED, encode
from engine.messages import AIMessage, HumanMessage
from tests.test_app import APP

pytestmark = pytest.mark.usefixtures("drawing_without_graphviz")  # tests/conftest.py: no `dot` process


def test_messages_tuples_and_empty_keys_read_plainly():
    state = encode({"messages": [HumanMessage("hi", id="1"), AIMessage("hello", id="2")], "pair": (1, 2)})
    assert readable(state) == {
        "messages": [{"type": "human", "content": "hi", "id": "1"}, {"type": "ai", "content": "hello", "id": "2"}],
        "pair": [1, 2],
    }
    assert readable(MISSING_ENCODED) == "(empty)"
    assert readable({"$type": "repr", "class": "x.Y", "repr": "Y()"}) == {
        "$type": "repr",
        "class": "x.Y",
        "repr": "Y()",
    }


def test_the_state_tab_shows_messages_without_the_trace_encoding(tmp_path, monkeypatch):
    monkeypatch.setenv("STEPSCOPE_DB", str(tmp_path / "runs.sqlite3"))
    st.cache_data.clear()
    st.cache_resource.clear()
    at = AppTest.from_file(APP, default_timeout=30)
    at.query_params.update({"sample": "add_messages_basics", "step": "1", "tab": "state"})  # only the open tab is drawn
    at.run()
    assert not at.exception, at.exception
    shown = [c.value for c in at.code if c.language == "json" and '"type": "human"' in c.value]  # not the lesson's code
    assert shown, [c.value[:80] for c in at.code]
    assert all("$type" not in text for text in shown)
    json.loads(shown[0])  # still JSON
