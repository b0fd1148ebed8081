"""Replay from a Trace alone, the run store, the DataFrames and the command line."""

import operator
import subprocess
import sys
from pathlib import Path
from typing import Annotated, TypedDict

import pytest

from debugger.diagnostics.order import candidate_orders
from debugger.diagnostics.replay import Replay, channel_calls, refold
from debugger.model.frames import reducer_calls_frame, tasks_frame, versions_frame, writes_frame
from debugger.model.present import explain_call


def order_sensitivity(replay, step, key, reducer):
    """The orders `diagnose` and the What-if panel try (`candidate_orders`) that change the result."""
    count = len(channel_calls(replay.steps[step], key))
    return [
        o for o in candidate_orders(count) if o != tuple(range(count)) and refold(replay, step, key, reducer, o).differs
    ]


from debugger.stores.protocol import StoreError
from debugger.stores.sqlite import RunStore
from engine import START, StateGraph
from engine.trace import Recorder
from engine.tracefile import from_json, to_json

ROOT = Path(__file__).resolve().parents[1]


class Text(TypedDict):
    s: Annotated[str, operator.add]
    log: Annotated[list, operator.add]


def recorded(graph, graph_input, **kw):
    recorder = Recorder(**kw)
    try:
        graph.invoke(graph_input, hooks=recorder)
    except Exception:
        pass
    return recorder.trace


def concat_graph():
    g = StateGraph(Text)
    for name in ["b", "c", "a"]:
        g.add_node(name, lambda s, n=name: {"s": n, "log": [n]})
        g.add_edge(START, name)
    return g.compile()


def trap_trace():
    from sample_graphs.subgraph_trap import example_input, graph

    return recorded(graph, example_input)


def test_state_after_each_step_and_inside_a_merge():
    replay = Replay(from_json(to_json(recorded(concat_graph(), {"s": "", "log": []}))))
    assert replay.state_after(1) == {"s": "abc", "log": ["a", "b", "c"]}
    assert replay.state_at_call(1, 0) == {"s": "", "log": []}
    assert replay.state_at_call(1, 1) == {"s": "a", "log": []}
    assert replay.state_at_call(1, 4) == {"s": "abc", "log": ["a"]}  # channel by channel


def test_provenance_names_the_call_that_put_each_item_there():
    replay = Replay(trap_trace())
    origins = replay.provenance(2, "log")
    assert [o.task for o in origins] == ["p1", "child", "child"]
    assert origins[0].step == 1 and origins[1].step == 2


def test_refold_in_another_order_and_without_a_write():
    replay = Replay(recorded(concat_graph(), {"s": "", "log": []}))
    assert refold(replay, 1, "s", operator.add).differs is False
    reversed_order = refold(replay, 1, "s", operator.add, (2, 1, 0))
    assert reversed_order.value == "cba" and reversed_order.differs
    without_b = refold(replay, 1, "log", operator.add, skip=1)
    assert without_b.value == ["a", "c"] and without_b.differs
    assert len(order_sensitivity(replay, 1, "s", operator.add)) == 5


def test_refold_of_a_commutative_reducer_is_order_insensitive():
    class N(TypedDict):
        n: Annotated[int, operator.add]

    g = StateGraph(N)
    for name in "xyz":
        g.add_node(name, lambda s, k=ord(name): {"n": k})
        g.add_edge(START, name)
    replay = Replay(recorded(g.compile(), {"n": 0}))
    assert order_sensitivity(replay, 1, "n", operator.add) == []


def test_refold_reports_a_failing_reducer_instead_of_raising():
    replay = Replay(recorded(concat_graph(), {"s": "", "log": []}))
    result = refold(replay, 1, "s", lambda a, b: 1 / 0)
    assert result.error.startswith("ZeroDivisionError") and result.value is None


def test_explanations_say_what_each_reducer_call_did():
    replay = Replay(trap_trace())
    ((call, before, after),) = list(replay.call_values(2))
    assert explain_call(call, before, after) == (
        "operator.add appended ['parent', 'sub-1'] to ['parent'] (1 of them already there: duplicated)"
    )


def test_store_saves_lists_loads_exports_imports_and_deletes(tmp_path):
    store = RunStore(tmp_path / "runs.sqlite3")
    trace = recorded(concat_graph(), {"s": "", "log": []}, target="concat")
    failing = trap_trace()
    failing.status = "error"
    store.save(trace)
    store.save(failing)
    assert {r.run_id for r in store.list()} == {trace.run_id, failing.run_id}
    assert [r.run_id for r in store.list(status="error")] == [failing.run_id]
    assert store.load(trace.run_id[:8]) == trace
    exported = store.export(trace.run_id, tmp_path / "t.json")
    store.delete(trace.run_id)
    assert [r.run_id for r in store.list()] == [failing.run_id]
    assert store.import_file(exported) == trace.run_id
    with pytest.raises(StoreError, match="no stored run"):
        store.load("zzz")


def test_store_refuses_an_unusable_database_with_the_fix(tmp_path):
    not_a_db = tmp_path / "x.sqlite3"
    not_a_db.write_text("this is not sqlite " * 100)
    with pytest.raises(StoreError, match="--db PATH"):
        RunStore(not_a_db)


def test_store_import_of_a_bad_file_names_it(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text('{"schema_version": 1, "steps": [')
    with pytest.raises(StoreError, match="bad.json is truncated"):
        RunStore(tmp_path / "db.sqlite3").import_file(bad)


def test_frames():
    trace = recorded(concat_graph(), {"s": "", "log": []})
    assert list(tasks_frame(trace)["task"]) == ["__start__", "a", "b", "c"]
    assert len(writes_frame(trace)) == (2 + 3) + 3 * 2  # __start__: 2 keys and 3 edges; each node: 2 keys
    calls = reducer_calls_frame(trace)
    assert list(calls[calls.step == 1]["writer"]) == ["a", "b", "c", "a", "b", "c"]
    versions = versions_frame(trace)
    assert set(versions[(versions.step == 1) & versions.changed]["channel"]) >= {"s", "log"}


def cli(*args, db):
    return subprocess.run(
        [sys.executable, "-m", "debugger.cli", *args, "--db", str(db)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
    )


def test_cli_run_show_and_runs(tmp_path):
    db = tmp_path / "runs.sqlite3"
    out = tmp_path / "trap.json"
    run = cli("run", "subgraph_trap", "--out", str(out), db=db)
    assert run.returncode == 0, run.stderr
    assert "final state: {'log': ['parent', 'parent', 'sub-1']}" in run.stdout
    assert "child (+1 subgraph run)" in run.stdout
    show = cli("show", str(out), "--step", "2", db=db)
    assert "from child: ['parent'] -> ['parent', 'sub-1'] -> ['parent', 'parent', 'sub-1']" in show.stdout
    runs = cli("runs", db=db)
    assert "subgraph_trap" in runs.stdout and "done" in runs.stdout


def test_cli_failing_run_is_stored_and_exits_non_zero(tmp_path):
    graph_file = tmp_path / "race.py"
    graph_file.write_text(
        "from typing import TypedDict\nfrom engine import StateGraph, START\n"
        "class S(TypedDict):\n    v: int\n"
        "g = StateGraph(S)\ng.add_node('x', lambda s: {'v': 1})\ng.add_node('y', lambda s: {'v': 2})\n"
        "g.add_edge(START, 'x')\ng.add_edge(START, 'y')\ngraph = g.compile()\n"
    )
    db = tmp_path / "runs.sqlite3"
    run = cli("run", f"{graph_file}:graph", "--input", "{}", db=db)
    assert run.returncode == 1
    assert "At key 'v': Can receive only one value per step." in run.stderr
    assert "error" in cli("runs", "--status", "error", db=db).stdout


def test_cli_bad_target_names_file_and_line(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("x = 1\ndef f(:\n")
    result = cli("run", str(broken), db=tmp_path / "db.sqlite3")
    assert result.returncode == 2
    assert f"{broken}, line 2: SyntaxError" in result.stderr and "Traceback" not in result.stderr
    raising = tmp_path / "raising.py"
    raising.write_text("import os\nvalue = 1 / 0\n")
    result = cli("run", str(raising), db=tmp_path / "db.sqlite3")
    assert f"{raising}, line 2: ZeroDivisionError" in result.stderr
    unknown = cli("run", "no_such_sample", db=tmp_path / "db.sqlite3")
    assert "no such sample" in unknown.stderr


def test_a_run_being_recorded_is_live_until_its_recorder_lets_go_without_finishing(tmp_path):
    """A `running` row is live while some open file holds its lock (here: this very process, as the
    app does when it records in a worker thread); once nobody holds it, it reads as cut off."""
    from debugger.stores.protocol import CUT_OFF

    store = RunStore(tmp_path / "runs.db")
    recorder = Recorder(run_id="live-run")
    g = StateGraph(Text)
    g.add_node("a", lambda s: {"log": ["a"]})
    g.add_edge(START, "a")
    g.compile().invoke({"s": "", "log": []}, hooks=recorder)
    head = recorder.trace
    head.status = "running"
    store.start_run(head)
    reader = RunStore(tmp_path / "runs.db")  # another handle, as another thread or process opens it
    (summary,) = reader.list()
    assert summary.status == "running" and summary.error == "" and reader.load("live-run").error is None
    store.dialect.stop_recording("live-run")  # what a killed recorder leaves: the row, and nobody holding its lock
    (summary,) = reader.list()
    assert summary.status == "running" and summary.error == CUT_OFF
    assert reader.load("live-run").error["class"] == "RunCutOff"
    head.status = "done"
    store.start_run(head)
    store.finish_run(head)  # a finished run: no lock file left behind, nothing to mark
    (summary,) = reader.list()
    assert summary.status == "done" and summary.error == ""
    assert not list((tmp_path / "runs.db.recording").iterdir())
