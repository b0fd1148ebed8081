"""A stored run reopened from its link gets its code back only when it is still the code it was made from
(`debugger/sources/reopen.py`); otherwise one line says why. The browser walk is in
tests/e2e/test_links_browser.py."""

from __future__ import annotations

import textwrap

from debugger.sources import reopen
from debugger.sources import runs as sources
from engine.trace import Trace

GRAPH_FILE = textwrap.dedent("""
    import operator
    from typing import Annotated, TypedDict

    from engine import END, START, StateGraph

    class State(TypedDict):
        log: Annotated[list, operator.add]

    def plan(state):
        return {"log": ["plan"]}

    builder = StateGraph(State)
    builder.add_node("plan", plan)
    builder.add_edge(START, "plan")
    builder.add_edge("plan", END)
    graph = builder.compile()
    example_input = {"log": []}
""")


def _run_of_file(tmp_path, db):
    path = tmp_path / "one_node.py"
    path.write_text(GRAPH_FILE)
    return path, sources.open_target(f"{path}:graph", db=db)


def test_a_graph_file_run_gets_its_code_back_while_the_file_is_the_same(tmp_path):
    db = str(tmp_path / "runs.sqlite3")
    _, made = _run_of_file(tmp_path, db)
    reopened = sources.open_stored(made.trace.run_id, db=db, with_code=True)
    assert reopened.graph is not None and reopened.no_code == ""
    assert reopened.graph_input == {"log": []}


def test_a_changed_or_deleted_file_is_refused_in_one_line(tmp_path):
    db = str(tmp_path / "runs.sqlite3")
    path, made = _run_of_file(tmp_path, db)
    path.write_text(
        GRAPH_FILE.replace(
            'builder.add_node("plan", plan)',
            'builder.add_node("plan", plan)\nbuilder.add_node("act", plan)\nbuilder.add_edge("plan", "act")',
        )
    )
    changed = sources.open_stored(made.trace.run_id, db=db, with_code=True)
    assert changed.graph is None
    assert changed.no_code.endswith("has changed since the run (new node act); run it again to debug the new code.")
    path.unlink()
    gone = sources.open_stored(made.trace.run_id, db=db, with_code=True)
    assert gone.graph is None and "\n" not in gone.no_code
    assert gone.no_code.startswith("The code of this run did not come back: ") and "no such file" in gone.no_code


def test_a_run_that_names_no_code_has_nothing_to_say():
    trace = Trace(ns=[], graph={"name": "g", "nodes": [{"name": "a"}]}, input=None, config=None, target="")
    assert reopen.code_back(trace, "") == reopen.CodeBack()


def test_a_thread_run_names_its_app_graph_and_a_link_carries_only_a_checkpointer_without_secrets():
    trace = Trace(ns=[], graph={}, input=None, config=None, target="app.py:graph thread t-1", thread_id="t-1")
    assert reopen.thread_target(trace) == "app.py:graph"
    assert reopen.thread_target(Trace(ns=[], graph={}, input=None, config=None, target="app.py:graph")) == ""
    assert reopen.linkable_checkpointer("/data/checkpoints.sqlite") == "/data/checkpoints.sqlite"
    assert reopen.linkable_checkpointer("postgresql://me:secret@db/app") == ""


def test_a_thread_run_without_a_checkpointer_says_how_to_name_one(monkeypatch):
    monkeypatch.delenv("STEPSCOPE_CHECKPOINTER", raising=False)
    trace = Trace(ns=[], graph={}, input=None, config=None, target="app.py:graph thread t-1", thread_id="t-1")
    back = reopen.thread_back(trace, "")
    assert back.origin is None and "needs its checkpointer" in back.why_not
