"""The user's own tests (copied into a temporary project by test_plugin.py as test_user.py)."""

import operator
from typing import Annotated, TypedDict

import pytest
from app_under_test import build

from engine import END, START, StateGraph


class Counter(TypedDict):
    total: Annotated[int, operator.add]


def test_engine_graph_counts():
    graph = StateGraph(Counter)
    graph.add_node("one", lambda state: {"total": 1})
    graph.add_edge(START, "one")
    graph.add_edge("one", END)
    assert graph.compile().invoke({"total": 1}) == {"total": 2}


def test_fixed_search_finds_both():
    assert sorted(build(fixed=True).invoke({"query": "q", "hits": []})["hits"]) == ["docs", "web"]


def test_broken_search_answers():
    result = build(fixed=False).invoke({"query": "q", "hits": []})
    assert result["answer"]


def test_no_graph_at_all():
    assert 1 + 1 == 2


def test_broken_search_is_refused():
    from langgraph.errors import InvalidUpdateError

    with pytest.raises(InvalidUpdateError):
        build(fixed=False).invoke({"query": "q", "hits": []})
