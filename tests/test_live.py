"""Live runs (`debugger/live`): a graph running on a background thread that is watched, paused at
breakpoints, stepped one superstep at a time, edited at a pause and stopped; `stepscope run --follow`."""

from __future__ import annotations

import operator
import threading
import time
from typing import Annotated, TypedDict

import pytest

from debugger.cli import main
from debugger.diagnostics.replay import Replay
from debugger.live import Breakpoints, EditError, LiveRun, start_live_run
from debugger.stores.sqlite import RunStore
from engine import END, START, InMemorySaver, StateGraph
from engine.tracefile import from_json, to_json


class State(TypedDict):
    log: Annotated[list[str], operator.add]
    draft: str


def pipeline(
    seen: dict[str, list] | None = None,
    gate: threading.Event | None = None,
    fail: str = "",
    builder_class=StateGraph,
    start=START,
    end=END,
):
    """a -> (b, c in parallel) -> d -> END; `seen[node]` gets each node's input; `gate` holds `b`."""

    def node(name: str):
        def run(state: State) -> dict:
            if seen is not None:
                seen.setdefault(name, []).append(dict(state))
            if name == "b" and gate is not None:
                gate.wait(10)
            if name == fail:
                raise ValueError(f"{name} broke")
            return {"log": [name], "draft": f"by {name}"} if name in ("a", "d") else {"log": [name]}

        return run

    builder = builder_class(State)
    for name in "abcd":
        builder.add_node(name, node(name))
    builder.add_edge(start, "a")
    builder.add_edge("a", "b")
    builder.add_edge("a", "c")
    builder.add_edge(["b", "c"], "d")
    builder.add_edge("d", end)
    return builder


INPUT = {"log": [], "draft": ""}


def live(graph, breakpoints: Breakpoints | None = None, **kw) -> LiveRun:
    return start_live_run(graph, dict(INPUT), target="pipeline", breakpoints=breakpoints, store=False, **kw)


def paused(run: LiveRun):
    snap = run.wait_until(lambda s: s.status == "paused")
    assert snap.status == "paused", snap.message
    return snap


def test_running_node_shows_before_it_finishes_and_its_step_is_not_yet_in_the_trace() -> None:
    gate = threading.Event()
    run = live(pipeline(gate=gate).compile())
    snap = run.wait_until(lambda s: any(t.name == "b" and t.state == "running" for t in s.running))
    states = {t.name: t.state for t in snap.running}
    assert snap.step == 2 and states["b"] == "running"
    snap = run.wait_until(lambda s: {t.name: t.state for t in s.running}.get("c") == "done")
    assert {t.name: t.state for t in snap.running} == {"b": "running", "c": "done"}
    assert snap.committed_steps == [0, 1]  # step 2 has not committed: it is not in the trace yet
    gate.set()
    final = run.join(10)
    assert final.status == "done" and final.committed_steps == [0, 1, 2, 3]
    assert final.trace.output == {"log": ["a", "b", "c", "d"], "draft": "by d"}


def test_step_mode_pauses_before_every_superstep_and_step_runs_exactly_one() -> None:
    seen: dict[str, list] = {}
    run = live(pipeline(seen).compile(), Breakpoints.of(every_step=True))
    pauses = []
    snap = paused(run)
    while snap.status == "paused":
        pauses.append(snap.pause.step)
        committed = snap.committed_steps
        assert committed[-1] == snap.pause.step - 1  # nothing of the paused step has run
        for task in snap.pause.tasks:  # the state shown is exactly what the node then receives
            assert task.input == snap.pause.state
        expected_inputs = {t.name: t.input for t in snap.pause.tasks}
        run.step()
        snap = run.wait_until(lambda s, v=snap.version: s.version > v and s.status in ("paused", "done"))
        assert snap.committed_steps[-1] == pauses[-1]  # exactly one more superstep
        for name, shown in expected_inputs.items():
            assert seen[name][-1] == shown
    assert pauses == [1, 2, 3] and snap.status == "done"


def test_pause_explains_the_next_tasks() -> None:
    run = live(pipeline().compile(), Breakpoints.of(before=["d"]))
    snap = paused(run)
    assert snap.pause.reasons == ("breakpoint before d",)
    assert [(t.name, t.why) for t in snap.pause.tasks] == [("d", "all of b, c finished (last: b, c)")]
    run.resume()
    assert run.join(10).status == "done"


def test_breakpoint_after_a_node_and_continue_runs_to_the_next_one() -> None:
    run = live(pipeline().compile(), Breakpoints.of(after=["a", "d"], before=["c"]))
    first = paused(run)
    assert first.pause.step == 2 and set(first.pause.reasons) == {"breakpoint after a", "breakpoint before c"}
    run.resume()
    second = run.wait_until(lambda s: s.status == "paused" and s.pause.step != 2)
    assert second.pause is None or second.status != "paused" or second.pause.step == 4
    run.resume()
    assert run.join(10).status == "done"


def test_graph_compiled_breakpoints_become_the_live_runs_breakpoints() -> None:
    run = start_live_run(pipeline().compile(interrupt_before=["d"]), dict(INPUT), store=False)
    assert paused(run).pause.reasons == ("breakpoint before d",)
    run.resume()
    assert run.join(10).status == "done"


def langgraph_reference(as_node: str, values: dict) -> dict:
    """The same graph in real langgraph: paused before d, `update_state(values, as_node)`, resumed."""
    graph_module = pytest.importorskip("langgraph.graph")
    from langgraph.checkpoint.memory import InMemorySaver as LangGraphSaver

    builder = pipeline(builder_class=graph_module.StateGraph, start=graph_module.START, end=graph_module.END)
    graph = builder.compile(checkpointer=LangGraphSaver(), interrupt_before=["d"])
    config = {"configurable": {"thread_id": "t"}}
    graph.invoke(dict(INPUT), config)
    graph.update_state(config, values, as_node=as_node)
    return resume_to_the_end(graph, config)


def resume_to_the_end(graph, config: dict) -> dict:
    """Resumes a thread at every breakpoint until nothing is left to run."""
    output = graph.invoke(None, config)
    while graph.get_state(config).next:
        output = graph.invoke(None, config)
    return output


def continue_to_the_end(run: LiveRun):
    """Presses Continue at every pause until the run ends."""
    snap = run.snapshot()
    while not snap.finished:
        if snap.status == "paused":
            run.resume()
        snap = run.wait(snap.version, timeout=10)
    return snap


@pytest.mark.parametrize("as_node", ["c", "d", "a"])
def test_edit_at_a_pause_changes_the_final_state_as_langgraphs_update_state(as_node: str) -> None:
    values = {"log": ["human"], "draft": "mine"}
    run = live(pipeline().compile(), Breakpoints.of(before=["d"]))
    snap = paused(run)
    run.edit(values, as_node=as_node)
    after = run.snapshot()
    assert after.status == "paused" and after.pause.step == snap.pause.step + 1
    assert after.pause.state == {"log": ["a", "b", "c", "human"], "draft": "mine"}
    final = continue_to_the_end(run)
    expected = langgraph_reference(as_node, values)
    assert final.trace.output == expected

    engine_reference = pipeline().compile(checkpointer=InMemorySaver(), interrupt_before=["d"])
    config = {"configurable": {"thread_id": "t"}}
    engine_reference.invoke(dict(INPUT), config)
    engine_reference.update_state(config, values, as_node=as_node)
    assert resume_to_the_end(engine_reference, config) == expected

    edit = next(s for s in final.trace.steps if s.kind == "update")
    assert edit.step == snap.pause.step and not edit.tasks
    assert [(c.channel, c.writer_name) for c in edit.reducer_calls] == [("log", as_node), ("draft", as_node)]
    assert Replay(final.trace).state_after(final.trace.steps[-1].step) == expected
    assert from_json(to_json(final.trace)).steps == final.trace.steps  # the edit survives a trace file


def test_refused_edit_leaves_the_run_paused_and_unchanged() -> None:
    run = live(pipeline().compile(), Breakpoints.of(before=["d"]))
    before = paused(run)
    with pytest.raises(EditError, match="TypeError"):
        run.edit({"log": 5}, as_node="c")  # operator.add cannot add an int to a list
    with pytest.raises(EditError, match="not a state key"):
        run.edit({"nope": 1}, as_node="c")
    with pytest.raises(EditError, match="not a node"):
        run.edit({"draft": "x"}, as_node="zz")
    assert run.snapshot().pause == before.pause
    run.resume()
    assert run.join(10).trace.output == {"log": ["a", "b", "c", "d"], "draft": "by d"}


def test_stop_while_a_node_hangs_answers_at_once_and_stores_a_reopenable_run(tmp_path) -> None:
    gate = threading.Event()
    db = tmp_path / "runs.sqlite3"
    run = start_live_run(pipeline(gate=gate).compile(), dict(INPUT), target="pipeline", db=str(db))
    run.wait_until(lambda s: any(t.name == "b" and t.state == "running" for t in s.running))
    started = time.monotonic()
    final = run.stop()
    assert time.monotonic() - started < 2  # b still hangs: Stop does not wait for it
    assert final.status == "cancelled" and final.stored == str(db)
    stored = RunStore(db).load(final.run_id)
    assert stored.status == "cancelled" and "still running: b" in stored.error["message"]
    assert [s.step for s in stored.steps if s.committed] == [-1, 0, 1]
    last = stored.steps[-1]
    assert last.step == 2 and not last.committed and {t.name for t in last.tasks} == {"b", "c"}
    assert Replay(stored).state_after(1) == {"log": ["a"], "draft": "by a"}
    gate.set()
    time.sleep(0.1)
    assert RunStore(db).load(final.run_id).steps[-1].committed is False  # the late step changes nothing


def test_stop_at_a_pause(tmp_path) -> None:
    run = start_live_run(
        pipeline().compile(), dict(INPUT), breakpoints=Breakpoints.of(before=["d"]), db=str(tmp_path / "r.db")
    )
    paused(run)
    final = run.stop()
    assert final.status == "cancelled" and "before step 3" in final.message
    assert RunStore(tmp_path / "r.db").load(final.run_id).status == "cancelled"


def test_pause_button_pauses_before_the_next_superstep() -> None:
    gate = threading.Event()
    run = live(pipeline(gate=gate).compile())
    run.wait_until(lambda s: s.step == 2)
    run.pause()
    gate.set()
    snap = paused(run)
    assert snap.pause.step == 3 and snap.pause.reasons == ("you pressed Pause",)
    run.resume()
    assert run.join(10).status == "done"


def test_a_failing_node_ends_the_live_run_as_a_stored_error(tmp_path) -> None:
    run = start_live_run(pipeline(fail="c").compile(), dict(INPUT), db=str(tmp_path / "r.db"))
    final = run.join(10)
    assert final.status == "error" and "c broke" in final.message
    assert RunStore(tmp_path / "r.db").load(final.run_id).status == "error"


def test_follow_prints_each_superstep_and_stores_the_run(tmp_path, capsys, monkeypatch) -> None:
    monkeypatch.setenv("STEPSCOPE_SAMPLE_DELAY", "0.05")
    code = main(["run", "slow_research", "--follow", "--db", str(tmp_path / "r.db")])
    out = capsys.readouterr().out
    assert code == 0
    assert "step 2: running search_docs, search_web ..." in out
    assert "step 4: review -> notes, verdict" in out
    assert "status: done" in out and RunStore(tmp_path / "r.db").list()[0].status == "done"


def test_follow_ctrl_c_stops_stores_and_says_how_to_reopen(tmp_path, capsys, monkeypatch) -> None:
    from debugger.commands import follow as follow_module

    monkeypatch.setenv("STEPSCOPE_SAMPLE_DELAY", "5")
    waits = {"n": 0}
    original = LiveRun.wait

    def wait_then_ctrl_c(self, after_version=-1, timeout=None):
        snap = original(self, after_version, timeout)
        if snap.step == 1:  # plan is running (it sleeps 5 s): the user presses Ctrl-C
            waits["n"] += 1
            raise KeyboardInterrupt
        return snap

    monkeypatch.setattr(follow_module.LiveRun, "wait", wait_then_ctrl_c)
    code = main(["run", "slow_research", "--follow", "--db", str(tmp_path / "r.db")])
    out = capsys.readouterr().out
    assert code == 130 and waits["n"] == 1
    run_id = RunStore(tmp_path / "r.db").list()[0].run_id
    assert "stopped by Ctrl-C" in out and f"stepscope show {run_id[:12]}" in out
    assert RunStore(tmp_path / "r.db").load(run_id).status == "cancelled"


def test_a_graph_no_runtime_runs_is_refused_in_words(capsys) -> None:
    from debugger.commands.follow import follow
    from debugger.live import LiveRunError

    class Foreign:
        interrupt_before_nodes = interrupt_after_nodes = ()

    with pytest.raises(
        LiveRunError, match=r"app.py:graph: Foreign is not a compiled graph \(StepScope's or langgraph's\)"
    ):
        start_live_run(Foreign(), {}, target="app.py:graph")
    assert follow("app.py:graph", Foreign(), {}, {}) == 2
    assert "Foreign is not a compiled graph" in capsys.readouterr().err


def test_interrupt_ends_a_run_that_does_not_ask_with_the_question() -> None:
    from engine import interrupt

    def ask(state: State) -> dict:
        return {"log": [f"answer: {interrupt('Approve the plan?')}"]}

    builder = StateGraph(State)
    builder.add_node("plan", lambda state: {"log": ["plan"]})
    builder.add_node("ask", ask)
    builder.add_edge(START, "plan")
    builder.add_edge("plan", "ask")
    builder.add_edge("ask", END)
    final = live(builder.compile(), ask=False).join(10)
    assert final.status == "interrupted" and "'Approve the plan?'" in final.message


def asking_graph(calls: list[str]):
    """plan -> ask (interrupt() twice) -> END; `calls` records each run of ask's body."""
    from engine import interrupt

    def ask(state: State) -> dict:
        calls.append("ask")
        first = interrupt("Approve the plan?")
        second = interrupt({"question": "Why?"})
        return {"log": [f"{first} because {second}"]}

    builder = StateGraph(State)
    builder.add_node("plan", lambda state: {"log": ["plan"]})
    builder.add_node("ask", ask)
    builder.add_edge(START, "plan")
    builder.add_edge("plan", "ask")
    builder.add_edge("ask", END)
    return builder


def test_interrupt_pauses_with_the_question_and_the_answer_reruns_the_node_as_langgraph_does() -> None:
    calls: list[str] = []
    run = live(asking_graph(calls).compile())
    first = paused(run)
    assert first.pause.interrupts == ("Approve the plan?",) and first.pause.tasks[0].name == "ask"
    with pytest.raises(EditError, match="Answer the question first"):
        run.edit({"draft": "x"}, as_node="plan")
    run.answer("yes")
    second = run.wait_until(lambda s: s.status == "paused" and s.pause.interrupts != first.pause.interrupts)
    assert second.pause.interrupts == ({"question": "Why?"},)
    run.answer("it is cheap")
    final = run.join(10)
    assert final.status == "done" and calls == ["ask", "ask", "ask"]  # from the top, once per answer

    graph_module = pytest.importorskip("langgraph.graph")
    from langgraph.checkpoint.memory import InMemorySaver as LangGraphSaver
    from langgraph.types import Command
    from langgraph.types import interrupt as lg_interrupt

    lg_calls: list[str] = []

    def lg_ask(state: State) -> dict:
        lg_calls.append("ask")
        return {"log": [f"{lg_interrupt('Approve the plan?')} because {lg_interrupt({'question': 'Why?'})}"]}

    builder = graph_module.StateGraph(State)
    builder.add_node("plan", lambda state: {"log": ["plan"]})
    builder.add_node("ask", lg_ask)
    builder.add_edge(graph_module.START, "plan")
    builder.add_edge("plan", "ask")
    builder.add_edge("ask", graph_module.END)
    graph = builder.compile(checkpointer=LangGraphSaver())
    config = {"configurable": {"thread_id": "q"}}
    graph.invoke(dict(INPUT), config)
    graph.invoke(Command(resume="yes"), config)
    expected = graph.invoke(Command(resume="it is cheap"), config)
    assert final.trace.output == expected and lg_calls == calls


def test_stop_while_a_question_waits() -> None:
    run = live(asking_graph([]).compile())
    paused(run)
    final = run.stop()
    assert final.status == "cancelled" and "still running: ask" in final.message


def test_follow_does_not_wait_for_answers(tmp_path, capsys) -> None:
    from debugger.commands.follow import follow

    code = follow("asking", asking_graph([]).compile(), dict(INPUT), {}, db=str(tmp_path / "r.db"))
    assert code == 0 and "status: interrupted" in capsys.readouterr().out


def test_follow_says_a_step_that_never_committed_failed_or_was_stopped() -> None:
    from debugger.commands.follow import step_line
    from engine.trace import StepRecord, TaskRecord

    def task(name: str, cls: str) -> TaskRecord:
        error = {"$type": "error", "class": cls, "module": "m", "message": "x", "notes": [], "traceback": ""}
        return TaskRecord(f"id-{name}", name, ["__pregel_pull", name], [], [], {}, None, error=error)

    failed = StepRecord(2, tasks=[task("boom", "ValueError")], committed=False)
    assert step_line(failed) == "step 2: boom -> never committed (failed, ValueError): nothing written"
    stopped = StepRecord(2, tasks=[task("slow", "RunCancelled")], committed=False)
    assert step_line(stopped) == "step 2: slow -> never committed (stopped): nothing written"


_EDIT_RELEASE = threading.Event()


def _hangs_on_hang(old: str, new: str) -> str:
    """A reducer that waits (for `_EDIT_RELEASE`) when `hang` is written: an edit that never ends."""
    if new == "hang":
        _EDIT_RELEASE.wait()
    return new


class Drafts(TypedDict):
    draft: Annotated[str, _hangs_on_hang]


def hanging_graph(release: threading.Event, builder_class=StateGraph, start=START, end=END):
    """a -> stuck -> END; `stuck` waits for `release` (set at the end of the test, so its thread ends)."""

    def stuck(state: State) -> dict:
        release.wait()
        return {"log": ["stuck"]}

    builder = builder_class(State)
    builder.add_node("a", lambda state: {"log": ["a"]})
    builder.add_node("stuck", stuck)
    builder.add_edge(start, "a")
    builder.add_edge("a", "stuck")
    builder.add_edge("stuck", end)
    return builder


@pytest.mark.slow
def test_a_node_that_never_returns_ends_the_live_run_at_the_step_limit_for_every_python_runtime(
    monkeypatch, tmp_path
) -> None:
    monkeypatch.setenv("STEPSCOPE_RUN_TIMEOUT", "1")  # the app's run limit is the live run's per-step limit
    release = threading.Event()
    graphs = {"engine": hanging_graph(release).compile()}
    lg = pytest.importorskip("langgraph.graph")
    graphs["langgraph"] = hanging_graph(release, lg.StateGraph, lg.START, lg.END).compile()
    try:
        for runtime, graph in graphs.items():
            db = tmp_path / f"{runtime}.db"
            started = time.monotonic()
            final = start_live_run(graph, dict(INPUT), target="hangs", db=str(db)).join(20)
            assert final.status == "timeout", (runtime, final.message)
            assert time.monotonic() - started < 10
            assert "\n" not in final.message and "The step did not finish within 1 s" in final.message
            assert "(still running: stuck)" in final.message and "STEPSCOPE_RUN_TIMEOUT" in final.message
            stored = RunStore(db).load(final.run_id)
            assert stored.status == "timeout" and stored.error["class"] == "RunTimeout"
            last = max(s.step for s in stored.steps if s.committed)
            assert Replay(stored).state_after(last) == {"log": ["a"], "draft": ""}, runtime
            assert not stored.steps[-1].committed and stored.steps[-1].tasks[0].name == "stuck"
    finally:
        release.set()


@pytest.mark.slow
def test_the_step_limit_leaves_out_a_questions_wait_and_covers_an_edit(monkeypatch) -> None:
    monkeypatch.setenv("STEPSCOPE_RUN_TIMEOUT", "0.5")
    run = live(asking_graph([]).compile())
    paused(run)
    time.sleep(1.0)  # longer than the limit: the user thinks about the answer
    assert run.snapshot().status == "paused"
    run.answer("yes")
    run.wait_until(lambda s: s.status == "paused" and s.pause.interrupts == ({"question": "Why?"},))
    run.answer("because")
    assert run.join(10).status == "done"

    builder = StateGraph(Drafts)
    builder.add_node("a", lambda state: {"draft": "a"})
    builder.add_node("b", lambda state: {"draft": "b"})
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    builder.add_edge("b", END)
    run = start_live_run(builder.compile(), {"draft": ""}, breakpoints=Breakpoints.of(after=["a"]), store=False)
    paused(run)
    try:
        with pytest.raises(EditError):
            run.edit({"draft": "hang"}, as_node="a", timeout=2)
        final = run.join(10)
        assert final.status == "timeout" and "Your edit did not finish within 0.5 s" in final.message
    finally:
        _EDIT_RELEASE.set()
