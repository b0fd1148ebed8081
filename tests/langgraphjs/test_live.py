"""Live runs of LangGraph.js apps (`debugger/runtimes/langgraphjs/live.py`) against the real
@langchain/langgraph, as `tests/test_live_langgraph.py` tests them for Python apps: step mode, breakpoints
(set and compiled in), an edit against LangGraph.js's own `updateState`, an `interrupt()` answered with
`new Command({resume})`, a failing node, Stop (node killed, committed steps kept), and `run --follow`."""

from __future__ import annotations

import time

import pytest

from debugger.cli import main
from debugger.diagnostics.replay import Replay
from debugger.live import Breakpoints, EditError, LiveRun, start_live_run
from debugger.runtimes.driven import LiveRunError
from debugger.runtimes.langgraphjs.live import JSSegments
from debugger.runtimes.langgraphjs.runtime import LANGGRAPHJS, describe
from debugger.stores.sqlite import RunStore

from .conftest import app

pytestmark = pytest.mark.slow

INPUT = {"log": [], "count": 1}
APP = "live_pipeline.mjs"


def graph_of(export: str = "graph"):
    """The test pipeline's export, loaded as the debugger loads a LangGraph.js target."""
    return describe(app(APP), export)


def paused(run: LiveRun, after: int = 0):
    """The run's next pause after snapshot version `after`."""
    snap = run.wait_until(lambda s: s.version > after and s.status != "running", timeout=30)
    assert snap.status == "paused", snap.message
    return snap


def test_step_mode_runs_one_superstep_per_step_on_a_saver_of_its_own(langgraph_js) -> None:
    graph = graph_of()
    run = start_live_run(
        graph, dict(INPUT), target="pipeline", store=False, breakpoints=Breakpoints.of(every_step=True)
    )
    assert isinstance(run.driven.segments, JSSegments) and run.driven.thread_id.startswith("stepscope-live-")
    seen, order = 0, []
    while True:
        snap = run.wait_until(lambda s, v=seen: s.version > v and s.status != "running", timeout=30)
        seen = snap.version
        if snap.status != "paused":
            break
        order.append([t.name for t in snap.pause.tasks])
        if order[-1] == ["b"]:
            assert snap.pause.state == {"log": ["a"], "count": 2} and snap.pause.tasks[0].input == snap.pause.state
            assert snap.pause.tasks[0].why == "edge from a" and snap.pause.channels["count"] == "LastValue"
        run.step()
    assert order == [["a"], ["b"], ["c"]]
    assert snap.status == "done" and snap.trace.output == {"log": ["a", "b", "c"], "count": 8}
    assert [s.step for s in snap.trace.steps if s.tasks and s.tasks[0].name != "__start__"] == [1, 2, 3]


def test_breakpoints_and_an_edit_through_langgraphjs_update_state_are_recorded(langgraph_js) -> None:
    run = start_live_run(graph_of(), dict(INPUT), store=False, breakpoints=Breakpoints.of(before=["c"]))
    snap = paused(run)
    assert snap.pause.reasons == ("breakpoint before c",) and snap.pause.default_as == "b"
    run.edit({"log": ["human"], "count": 100}, as_node="b")
    after = run.snapshot()
    assert after.status == "paused" and after.pause.state == {"log": ["a", "b", "human"], "count": 100}
    with pytest.raises(EditError, match="not a state key"):
        run.edit({"nope": 1}, as_node="b")
    with pytest.raises(EditError, match="not a node"):
        run.edit({"count": 3}, as_node="zz")
    run.set_breakpoints(Breakpoints())
    run.resume()
    final = run.join(30)
    assert final.status == "done" and final.trace.output == {"log": ["a", "b", "human", "c"], "count": 200}
    edit = next(s for s in final.trace.steps if s.kind == "update")
    assert [(c.channel, c.writer_name) for c in edit.reducer_calls] == [("log", "b"), ("count", "b")]
    assert Replay(final.trace).state_after(edit.step) == {"log": ["a", "b", "human"], "count": 100}


def test_an_interrupt_is_asked_and_the_answer_resumes_with_command_resume(langgraph_js) -> None:
    run = start_live_run(graph_of("asking"), dict(INPUT), store=False)
    snap = paused(run)
    assert snap.pause.interrupts == ("Approve the plan?",)
    assert snap.pause.reasons == ("interrupt() in b asks a question",)
    run.answer("yes")
    final = run.join(30)
    assert final.status == "done", final.message
    assert final.trace.output == {"log": ["a", "answer: yes", "c"], "count": 4}


def test_follow_ends_at_an_interrupt_and_says_how_to_answer(langgraph_js, tmp_path, capsys) -> None:
    code = main(["run", f"{app(APP)}:asking", "--follow", "--db", str(tmp_path / "r.db")])
    out = capsys.readouterr().out
    assert "step 1: a -> count, log" in out and "interrupted" in out, out
    assert code in (0, 1) and RunStore(tmp_path / "r.db").list()[0].status == "interrupted"


def test_follow_prints_each_superstep_and_stores_the_run(langgraph_js, tmp_path, capsys) -> None:
    code = main(["run", f"{app(APP)}:graph", "--follow", "--db", str(tmp_path / "r.db")])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "step 1: a -> count, log" in out and "step 3: c -> count, log" in out and "status: done" in out
    assert RunStore(tmp_path / "r.db").list()[0].status == "done"


def test_stop_while_a_node_runs_kills_node_and_keeps_the_committed_steps(langgraph_js, tmp_path) -> None:
    db = tmp_path / "runs.sqlite3"
    run = start_live_run(graph_of("slow"), dict(INPUT), target="slow", db=str(db))
    snap = run.wait_until(lambda s: any(t.name == "b" and t.state == "running" for t in s.running), timeout=30)
    assert snap.step == 2
    process = run.driven.segments.node.process
    started = time.monotonic()
    final = run.stop()
    assert time.monotonic() - started < 5  # b still sleeps: Stop does not wait for it
    assert final.status == "cancelled" and final.stored == str(db)
    assert process.wait(10) is not None  # node is gone
    stored = RunStore(db).load(final.run_id)
    assert stored.status == "cancelled" and "still running: b" in stored.error["message"]
    assert [s.step for s in stored.steps if s.committed] == [-1, 0, 1]
    assert Replay(stored).state_after(1) == {"log": ["a"], "count": 2}


def test_a_failing_node_ends_the_run_with_its_own_error(langgraph_js, tmp_path) -> None:
    db = tmp_path / "runs.sqlite3"
    final = start_live_run(graph_of("failing"), dict(INPUT), db=str(db)).join(30)
    assert final.status == "error" and "b broke" in final.message
    stored = RunStore(db).load(final.run_id)
    assert stored.status == "error" and stored.steps[-1].tasks[0].name == "b"


def test_compiled_breakpoints_start_the_run_and_an_apps_own_saver_is_used(langgraph_js) -> None:
    graph = graph_of("withBreakpoints")
    assert graph.interrupt_before_nodes == ["c"] and graph.interrupt_after_nodes == ["a"]
    run = start_live_run(graph, dict(INPUT), store=False)
    first = paused(run)
    assert first.pause.reasons == ("breakpoint after a",)
    run.resume()
    assert paused(run, first.version).pause.reasons == ("breakpoint before c",)
    run.resume()
    assert run.join(30).status == "done"  # compiled breakpoints are the live run's, not node's own
    final = start_live_run(graph_of("saved"), dict(INPUT), {"configurable": {"thread_id": "mine"}}, store=False)
    assert final.join(30).trace.output == {"log": ["a", "b", "c"], "count": 8}


def test_an_app_that_cannot_load_is_one_line(langgraph_js) -> None:
    graph = graph_of()
    graph.export = "nope"
    with pytest.raises(LiveRunError, match='has no export "nope"') as refused:
        LANGGRAPHJS.drive(graph, dict(INPUT), None, target="pipeline")
    assert "\n" not in str(refused.value)


def test_node_gone_in_the_middle_of_a_live_run_is_one_line_and_the_steps_are_kept(langgraph_js) -> None:
    graph = describe(app("exits.mjs"), "graph")
    final = start_live_run(graph, {}, store=False).join(30)
    assert final.status == "error" and "\n" not in final.message
    assert "process.exit(3) after step 1, while quits ran" in final.message
    assert Replay(final.trace).state_after(1) == {"n": 1}


def test_a_node_that_hangs_in_a_live_run_ends_it_at_the_step_limit_in_one_line(
    langgraph_js, monkeypatch, tmp_path, capsys
) -> None:
    monkeypatch.setenv("STEPSCOPE_RUN_TIMEOUT", "3")  # the app's run limit is the live run's per-step limit
    run = start_live_run(describe(app("hangs.mjs"), "graph"), {}, store=False)
    final = run.join(30)
    assert final.finished and final.status == "timeout" and "\n" not in final.message
    assert "did not finish within 3 s; stopped during step 2 (still running: hangs)" in final.message
    assert "STEPSCOPE_RUN_TIMEOUT" in final.message
    assert Replay(final.trace).state_after(1) == {"n": 1}
    assert run.driven.segments.node.process.wait(10) is not None  # node is gone
    db = tmp_path / "r.db"
    assert main(["run", f"{app('hangs.mjs')}:graph", "--follow", "--db", str(db)]) == 1  # --follow too
    error = capsys.readouterr().err
    assert error.count("\n") == 1 and "did not finish within 3 s" in error
    assert RunStore(db).list()[0].status == "timeout"
