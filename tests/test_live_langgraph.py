"""Live runs of apps written with the real `langgraph` (`debugger/runtimes/langgraph/live.py`): step mode,
breakpoints, the state at a pause against what the node really received, an edit against langgraph's
own `update_state`, Stop, `interrupt()` answered, and `stepscope run --follow` on a langgraph file."""

from __future__ import annotations

import operator
import textwrap
import threading
import time
from typing import Annotated, TypedDict

import pytest

pytest.importorskip("langgraph.graph")

from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402
from langgraph.graph import END, START, StateGraph  # noqa: E402
from langgraph.types import interrupt  # noqa: E402

from debugger.cli import main  # noqa: E402
from debugger.diagnostics.replay import Replay  # noqa: E402
from debugger.live import Breakpoints, EditError, LiveRun, start_live_run  # noqa: E402
from debugger.runtimes.langgraph.live import LangGraphSegments  # noqa: E402
from debugger.stores.sqlite import RunStore  # noqa: E402

INPUT = {"log": [], "count": 1}


class State(TypedDict):
    log: Annotated[list[str], operator.add]
    count: int


def pipeline(received: dict | None = None, gate: threading.Event | None = None, fail: str = "", checkpointer=None):
    """a -> b -> c; each node logs its name and doubles count; `received` keeps what each node got."""

    def make(name: str):
        def node(state: State) -> dict:
            if received is not None:
                received[name] = {"log": list(state["log"]), "count": state["count"]}
            if gate is not None and name == "b":
                gate.wait(10)
            if name == fail:
                raise ValueError(f"{name} broke")
            return {"log": [name], "count": state["count"] * 2}

        return node

    builder = StateGraph(State)
    for name in "abc":
        builder.add_node(name, make(name))
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    builder.add_edge("b", "c")
    builder.add_edge("c", END)
    return builder.compile(checkpointer=checkpointer)


def paused(run: LiveRun):
    snap = run.wait_until(lambda s: s.status == "paused")
    assert snap.status == "paused", snap.message
    return snap


def test_start_live_run_picks_the_langgraph_driven_run_and_supplies_a_checkpointer() -> None:
    graph = pipeline()
    run = start_live_run(graph, dict(INPUT), store=False)
    assert isinstance(run.driven.segments, LangGraphSegments) and run.graph is graph
    assert graph.checkpointer is None and isinstance(
        run.driven.segments.runnable.checkpointer, InMemorySaver
    )  # the user's graph is untouched
    assert run.join(10).status == "done"


def test_step_mode_runs_one_superstep_per_step_and_shows_what_the_next_node_receives() -> None:
    received: dict = {}
    run = start_live_run(
        pipeline(received), dict(INPUT), target="pipeline", store=False, breakpoints=Breakpoints.of(every_step=True)
    )
    snap = paused(run)
    assert [t.name for t in snap.pause.tasks] == ["a"] and "step mode" in snap.pause.reasons[0]
    assert snap.committed_steps == [0] and received == {}
    seen = [snap.pause]
    for expected_steps in ([0, 1], [0, 1, 2]):
        run.step()
        snap = paused(run)
        assert snap.committed_steps == expected_steps  # exactly one superstep per Step
        assert snap.pause.reasons == ("Step: ran one superstep",)
        seen.append(snap.pause)
    run.step()  # c, the last superstep: nothing is left to pause before, so the run ends
    final = run.join(10)
    assert final.status == "done", final.message
    assert final.trace.output == {"log": ["a", "b", "c"], "count": 8}
    for pause, name in zip(seen, "abc"):
        assert [t.name for t in pause.tasks] == [name]
        assert pause.state == received[name] == pause.tasks[0].input  # the state shown is what the node got
    assert [s.step for s in final.trace.steps] == [-1, 0, 1, 2, 3]
    assert Replay(final.trace).state_after(3) == {"log": ["a", "b", "c"], "count": 8}


def test_breakpoints_before_and_after_a_node_say_why() -> None:
    run = start_live_run(pipeline(), dict(INPUT), store=False, breakpoints=Breakpoints.of(after=["a"], before=["c"]))
    snap = paused(run)
    assert snap.pause.reasons == ("breakpoint after a",) and [t.name for t in snap.pause.tasks] == ["b"]
    assert snap.pause.state == {"log": ["a"], "count": 2}
    run.resume()
    snap = run.wait_until(lambda s: s.status == "paused" and s.pause.step == 3)
    assert snap.pause.reasons == ("breakpoint before c",) and snap.pause.tasks[0].why == "edge from b"
    run.resume()
    assert run.join(10).status == "done"


def langgraph_reference(values: dict, as_node: str) -> dict:
    """The same graph in plain langgraph: paused before c, `update_state(values, as_node)`, resumed."""
    graph = pipeline(checkpointer=InMemorySaver())
    config = {"configurable": {"thread_id": "reference"}}
    graph.invoke(dict(INPUT), config, interrupt_before=["c"])
    graph.update_state(config, values, as_node=as_node)
    return graph.invoke(None, config)


@pytest.mark.parametrize("as_node", ["b", "a"])
def test_edit_at_a_pause_gives_langgraphs_own_update_state_result_and_is_recorded(as_node: str) -> None:
    received: dict = {}
    values = {"log": ["human"], "count": 100}
    run = start_live_run(pipeline(received), dict(INPUT), store=False, breakpoints=Breakpoints.of(before=["c"]))
    snap = paused(run)
    assert snap.pause.default_as == "b"
    run.edit(values, as_node=as_node)
    after = run.snapshot()
    assert after.status == "paused" and after.pause.state == {"log": ["a", "b", "human"], "count": 100}
    assert after.pause.reasons[-1] == f"you edited log, count as {as_node}"
    run.set_breakpoints(Breakpoints())
    run.resume()
    final = run.join(10)
    expected = langgraph_reference(values, as_node)
    assert final.status == "done" and final.trace.output == expected
    if as_node == "b":
        assert received["c"] == {"log": ["a", "b", "human"], "count": 100}
    edit = next(s for s in final.trace.steps if s.kind == "update")
    assert edit.step == 3 and not edit.tasks
    assert [(c.channel, c.writer_name) for c in edit.reducer_calls] == [("log", as_node), ("count", as_node)]
    replay = Replay(final.trace)
    assert replay.state_after(3) == {"log": ["a", "b", "human"], "count": 100}  # replay shows the edit
    assert replay.state_after(final.trace.steps[-1].step) == expected


def test_an_edit_as_the_last_node_ends_the_run_as_langgraph_does() -> None:
    """Edited as `c` before `c` runs, nothing is left to run: the run ends `done` with langgraph's output."""
    run = start_live_run(pipeline(), dict(INPUT), store=False, breakpoints=Breakpoints.of(before=["c"]))
    paused(run)
    run.edit({"count": 100}, as_node="c")
    run.resume()
    final = run.join(10)
    expected = langgraph_reference({"count": 100}, "c")
    assert final.status == "done", final.message
    assert final.trace.output == expected == {"log": ["a", "b"], "count": 100}


def test_a_refused_edit_leaves_the_run_paused_and_unchanged() -> None:
    run = start_live_run(pipeline(), dict(INPUT), store=False, breakpoints=Breakpoints.of(before=["c"]))
    before = paused(run)
    with pytest.raises(EditError, match="not a state key"):
        run.edit({"nope": 1}, as_node="b")
    with pytest.raises(EditError):
        run.edit({"count": 3}, as_node="zz")
    assert run.snapshot().pause == before.pause
    run.resume()
    assert run.join(10).trace.output == {"log": ["a", "b", "c"], "count": 8}


def test_running_node_shows_and_stop_answers_at_once_and_stores_a_reopenable_run(tmp_path) -> None:
    gate = threading.Event()
    db = tmp_path / "runs.sqlite3"
    run = start_live_run(pipeline(gate=gate), dict(INPUT), target="pipeline", db=str(db))
    snap = run.wait_until(lambda s: any(t.name == "b" and t.state == "running" for t in s.running))
    assert snap.step == 2 and snap.committed_steps == [0, 1]
    started = time.monotonic()
    final = run.stop()
    assert time.monotonic() - started < 2  # b still waits: Stop does not
    assert final.status == "cancelled" and final.stored == str(db)
    stored = RunStore(db).load(final.run_id)
    assert stored.status == "cancelled" and "still running: b" in stored.error["message"]
    assert [s.step for s in stored.steps if s.committed] == [-1, 0, 1]
    assert Replay(stored).state_after(1) == {"log": ["a"], "count": 2}
    gate.set()


def test_a_finished_tasks_writes_are_read_from_langgraphs_own_task_results() -> None:
    """What a task wrote is kept from langgraph's `tasks` stream result (for a step stopped before it
    committed); the result is built here by langgraph's own `map_task_result_writes`. (A live test of
    a stopped parallel step cannot be made reliable: langgraph sometimes runs the slow task on the
    stream's own thread and reports the quick one only after it.)"""
    from langgraph.pregel.debug import map_task_result_writes

    from debugger.runtimes.langgraph.live import _result_writes

    result = map_task_result_writes([("log", ["quick"]), ("count", 5), ("log", ["again"])])
    assert _result_writes(result) == (("log", ["quick"]), ("log", ["again"]), ("count", 5))
    assert _result_writes(map_task_result_writes([("count", 5)])) == (("count", 5),)
    assert _result_writes(None) == () and _result_writes([("count", 5)]) == ()


def test_stop_at_a_pause_keeps_the_steps_and_a_failing_node_is_recorded(tmp_path) -> None:
    db = tmp_path / "runs.sqlite3"
    run = start_live_run(pipeline(), dict(INPUT), db=str(db), breakpoints=Breakpoints.of(before=["b"]))
    paused(run)
    final = run.stop()
    assert final.status == "cancelled" and "before step 2" in final.message
    assert [s.step for s in RunStore(db).load(final.run_id).steps] == [-1, 0, 1]

    failing = start_live_run(pipeline(fail="b"), dict(INPUT), db=str(db)).join(10)
    assert failing.status == "error" and "b broke" in failing.message
    assert RunStore(db).load(failing.run_id).status == "error"


def test_interrupt_pauses_with_the_question_and_the_answer_resumes_with_command_resume() -> None:
    def ask(state: State) -> dict:
        return {"log": [f"answer: {interrupt('Approve the plan?')}"]}

    builder = StateGraph(State)
    builder.add_node("plan", lambda state: {"log": ["plan"]})
    builder.add_node("ask", ask)
    builder.add_edge(START, "plan")
    builder.add_edge("plan", "ask")
    builder.add_edge("ask", END)
    run = start_live_run(builder.compile(), dict(INPUT), store=False)
    snap = paused(run)
    assert snap.pause.interrupts == ("Approve the plan?",)
    assert snap.pause.reasons == ("interrupt() in ask asks a question",)
    with pytest.raises(EditError, match="Answer the question first"):
        run.edit({"count": 2}, as_node="plan")
    run.answer("yes")
    final = run.join(10)
    assert final.status == "done" and final.trace.output == {"log": ["plan", "answer: yes"], "count": 1}


def test_an_apps_own_checkpointer_runs_on_a_fresh_thread() -> None:
    saver = InMemorySaver()
    graph = pipeline(checkpointer=saver)
    graph.invoke(dict(INPUT), {"configurable": {"thread_id": "mine"}})
    final = start_live_run(graph, dict(INPUT), {"configurable": {"thread_id": "mine"}}, store=False).join(10)
    assert final.status == "done" and final.trace.output == {"log": ["a", "b", "c"], "count": 8}
    mine = graph.get_state({"configurable": {"thread_id": "mine"}})
    assert mine.values == {"log": ["a", "b", "c"], "count": 8}  # the user's thread was not continued


def test_follow_on_a_langgraph_file_prints_each_superstep_and_stores_it(tmp_path, capsys) -> None:
    app = tmp_path / "lg_app.py"
    app.write_text(
        textwrap.dedent("""
        import operator
        from typing import Annotated, TypedDict
        from langgraph.graph import END, START, StateGraph

        class State(TypedDict):
            log: Annotated[list[str], operator.add]

        builder = StateGraph(State)
        builder.add_node("fetch", lambda s: {"log": ["fetch"]})
        builder.add_node("write", lambda s: {"log": ["write"]})
        builder.add_edge(START, "fetch")
        builder.add_edge("fetch", "write")
        builder.add_edge("write", END)
        graph = builder.compile()
        example_input = {"log": []}
    """),
        encoding="utf-8",
    )
    code = main(["run", f"{app}:graph", "--follow", "--db", str(tmp_path / "r.db")])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "step 1: fetch -> log" in out and "step 2: write -> log" in out
    assert "status: done" in out and RunStore(tmp_path / "r.db").list()[0].status == "done"
    assert main(["run", f"{app}:graph", "--follow", "--thread", "t1"]) == 2
    assert "--follow runs on a fresh thread" in capsys.readouterr().err


def test_pause_while_running_stops_between_supersteps_and_continue_finishes_the_run() -> None:
    gate = threading.Event()
    received: dict = {}
    run = start_live_run(pipeline(received, gate=gate), dict(INPUT), store=False)
    run.wait_until(lambda s: any(t.name == "b" and t.state == "running" for t in s.running))
    run.pause()
    gate.set()
    snap = paused(run)
    assert snap.pause.reasons == ("you pressed Pause",) and [t.name for t in snap.pause.tasks] == ["c"]
    assert "c" not in received and snap.committed_steps == [0, 1, 2]
    run.resume()
    final = run.join(10)
    assert final.status == "done" and final.trace.output == {"log": ["a", "b", "c"], "count": 8}
    assert [s.step for s in final.trace.steps] == [-1, 0, 1, 2, 3]


def test_two_parallel_interrupts_are_asked_one_at_a_time() -> None:
    def asker(name: str):
        return lambda state: {"log": [f"{name}: {interrupt(f'{name}?')}"]}

    builder = StateGraph(State)
    builder.add_node("left", asker("left"))
    builder.add_node("right", asker("right"))
    builder.add_edge(START, "left")
    builder.add_edge(START, "right")
    run = start_live_run(builder.compile(), dict(INPUT), store=False)
    first = paused(run)
    assert len(first.pause.interrupts) == 1
    run.answer("one")
    second = run.wait_until(lambda s: s.status == "paused" and s.version > first.version + 1)
    assert second.status == "paused" and second.pause.interrupts != first.pause.interrupts
    run.answer("two")
    final = run.join(10)
    answers = {first.pause.interrupts[0][:-1]: "one", second.pause.interrupts[0][:-1]: "two"}
    assert final.status == "done"
    assert sorted(final.trace.output["log"]) == sorted(f"{name}: {answer}" for name, answer in answers.items())


def test_follow_ctrl_c_on_a_langgraph_app_stops_stores_and_says_how_to_reopen(tmp_path, capsys, monkeypatch) -> None:
    from debugger.commands import follow as follow_module

    app = tmp_path / "lg_slow.py"
    app.write_text(
        textwrap.dedent("""
        import operator, time
        from typing import Annotated, TypedDict
        from langgraph.graph import END, START, StateGraph

        class State(TypedDict):
            log: Annotated[list[str], operator.add]

        builder = StateGraph(State)
        builder.add_node("fetch", lambda s: {"log": ["fetch"]})
        builder.add_node("slow", lambda s: time.sleep(3) or {"log": ["slow"]})
        builder.add_edge(START, "fetch")
        builder.add_edge("fetch", "slow")
        builder.add_edge("slow", END)
        graph = builder.compile()
        example_input = {"log": []}
    """),
        encoding="utf-8",
    )
    original = follow_module.LiveRun.wait

    def wait_then_ctrl_c(self, after_version=-1, timeout=None):
        snap = original(self, after_version, timeout)
        if any(t.name == "slow" for t in snap.running):  # slow is running: the user presses Ctrl-C
            raise KeyboardInterrupt
        return snap

    monkeypatch.setattr(follow_module.LiveRun, "wait", wait_then_ctrl_c)
    code = main(["run", f"{app}:graph", "--follow", "--db", str(tmp_path / "r.db")])
    out = capsys.readouterr().out
    assert code == 130, out
    assert "step 1: fetch -> log" in out and "stopped by Ctrl-C" in out
    run_id = RunStore(tmp_path / "r.db").list()[0].run_id
    assert f"stepscope show {run_id[:12]}" in out
    stored = RunStore(tmp_path / "r.db").load(run_id)
    assert stored.status == "cancelled" and [s.step for s in stored.steps if s.committed] == [-1, 0, 1]


def counting_loop():
    class Count(TypedDict):
        n: int

    builder = StateGraph(Count)
    builder.add_node("inc", lambda state: {"n": state["n"] + 1})
    builder.add_edge(START, "inc")
    builder.add_conditional_edges("inc", lambda state: "inc" if state["n"] < 100 else END)
    return builder.compile()


@pytest.mark.parametrize("how", ["step mode", "continue", "no breakpoints"])
def test_a_live_run_keeps_to_the_recursion_limit_as_one_invoke_does(how: str) -> None:
    from debugger.runtimes.langgraph.recorder.record import recording

    config = {"recursion_limit": 6}
    with recording(db=False) as session:
        with pytest.raises(Exception, match="Recursion limit of 6 reached"):
            counting_loop().invoke({"n": 0}, config)
    plain = session.traces[-1]
    breakpoints = {
        "step mode": Breakpoints.of(every_step=True),
        "continue": Breakpoints.of(after=["inc"]),
        "no breakpoints": Breakpoints(),
    }[how]
    run = start_live_run(counting_loop(), {"n": 0}, config, store=False, breakpoints=breakpoints)
    for _ in range(20):
        snap = run.wait_until(lambda s: s.status == "paused")
        if snap.finished:
            break
        if how == "continue":
            run.set_breakpoints(Breakpoints())
            run.resume()
        else:
            run.step()
    final = run.join(10)
    assert final.status == plain.status == "recursion_limit"
    assert "Recursion limit of 6 reached" in final.message
    assert [s.step for s in final.trace.steps] == [s.step for s in plain.steps]
    assert final.trace.output == plain.output


def test_a_breakpoint_set_while_the_run_goes_pauses_it_there() -> None:
    gate = threading.Event()
    run = start_live_run(pipeline(gate=gate), dict(INPUT), store=False)
    run.wait_until(lambda s: any(t.name == "b" and t.state == "running" for t in s.running))
    run.set_breakpoints(Breakpoints.of(before=["c"]))
    gate.set()
    snap = paused(run)
    assert snap.pause.reasons == ("breakpoint before c",) and snap.committed_steps == [0, 1, 2]
    run.set_breakpoints(Breakpoints())
    run.resume()
    assert run.join(10).trace.output == {"log": ["a", "b", "c"], "count": 8}


def test_an_interrupt_inside_a_subgraph_is_asked_and_answered() -> None:
    class Inner(TypedDict):
        log: Annotated[list[str], operator.add]

    inner = StateGraph(Inner)
    inner.add_node("check", lambda state: {"log": [f"checked: {interrupt('Looks right?')}"]})
    inner.add_edge(START, "check")
    outer = StateGraph(Inner)
    outer.add_node("prepare", lambda state: {"log": ["prepare"]})
    outer.add_node("review", inner.compile())
    outer.add_edge(START, "prepare")
    outer.add_edge("prepare", "review")
    run = start_live_run(outer.compile(), {"log": []}, store=False)
    snap = paused(run)
    assert snap.pause.interrupts == ("Looks right?",)
    run.answer("yes")
    final = run.join(10)
    assert final.status == "done" and final.trace.output["log"][-1] == "checked: yes"


def async_pipeline(received: dict, checkpointer=None):
    """a -> b -> c as `async def` nodes (b also sleeps), plus a sync router: run with `astream`."""
    import asyncio

    def make(name: str):
        async def node(state: State) -> dict:
            received[name] = {"log": list(state["log"]), "count": state["count"]}
            await asyncio.sleep(0.01 if name == "b" else 0)
            return {"log": [name], "count": state["count"] * 2}

        return node

    builder = StateGraph(State)
    for name in "abc":
        builder.add_node(name, make(name))
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    builder.add_conditional_edges("b", lambda s: "c" if s["count"] < 100 else END, ["c", END])
    builder.add_edge("c", END)
    return builder.compile(checkpointer=checkpointer)


def test_async_nodes_step_pause_and_take_edits_as_langgraphs_ainvoke_and_aupdate_state_do() -> None:
    import asyncio

    received: dict = {}
    run = start_live_run(
        async_pipeline(received),
        dict(INPUT),
        target="app.py:graph",
        store=False,
        breakpoints=Breakpoints.of(before=["b"]),
    )
    snap = paused(run)
    assert snap.pause.reasons == ("breakpoint before b",) and [t.name for t in snap.pause.tasks] == ["b"]
    assert snap.pause.state == {"log": ["a"], "count": 2} and received == {"a": {"log": [], "count": 1}}
    run.edit({"count": 10}, as_node="a")
    snap = run.wait_until(lambda s: s.status == "paused" and s.pause.state.get("count") == 10)
    assert snap.pause.state == {"log": ["a"], "count": 10}
    run.step()
    snap = paused(run)
    assert [t.name for t in snap.pause.tasks] == ["c"] and received["b"] == {"log": ["a"], "count": 10}
    run.resume()
    final = run.join(10)
    assert final.status == "done", final.message
    assert final.trace.output == {"log": ["a", "b", "c"], "count": 40}
    assert [s.kind for s in final.trace.steps].count("update") == 1

    async def reference() -> dict:  # the same run, by hand, with langgraph's own async calls
        graph = async_pipeline({}, checkpointer=InMemorySaver())
        config = {"configurable": {"thread_id": "t"}}
        await graph.ainvoke(dict(INPUT), config, interrupt_before=["b"])
        await graph.aupdate_state(config, {"count": 10}, as_node="a")
        return await graph.ainvoke(None, config)

    assert final.trace.output == asyncio.run(reference())


def test_send_tasks_at_a_pause_show_the_argument_each_receives() -> None:
    from langgraph.types import Send

    class Items(TypedDict):
        items: Annotated[list[int], operator.add]

    got: list = []
    builder = StateGraph(Items)
    builder.add_node("plan", lambda state: {})
    builder.add_node("work", lambda arg: got.append(arg) or {"items": [arg["v"] * 2]})
    builder.add_edge(START, "plan")
    builder.add_conditional_edges("plan", lambda state: [Send("work", {"v": 1}), Send("work", {"v": 5})])
    run = start_live_run(builder.compile(), {"items": []}, store=False, breakpoints=Breakpoints.of(before=["work"]))
    snap = paused(run)
    assert [(t.name, t.input) for t in snap.pause.tasks] == [("work", {"v": 1}), ("work", {"v": 5})]
    assert all(t.why == "a Send from plan" for t in snap.pause.tasks)
    run.resume()
    final = run.join(10)
    assert final.trace.output == {"items": [2, 10]} and got == [{"v": 1}, {"v": 5}]


def test_a_graph_compiled_with_breakpoints_starts_with_them() -> None:
    builder = StateGraph(State)
    builder.add_node("a", lambda state: {"log": ["a"]})
    builder.add_node("b", lambda state: {"log": ["b"]})
    builder.add_edge(START, "a")
    builder.add_edge("a", "b")
    run = start_live_run(builder.compile(interrupt_before=["b"]), dict(INPUT), store=False)
    assert run.snapshot().breakpoints == Breakpoints.of(before=["b"])
    snap = paused(run)
    assert snap.pause.reasons == ("breakpoint before b",)
    run.set_breakpoints(Breakpoints())
    run.resume()
    assert run.join(10).trace.output == {"log": ["a", "b"], "count": 1}


def test_a_live_run_that_fails_keeps_its_failing_step_for_the_views_and_diagnose(tmp_path, capsys) -> None:
    """Two parallel nodes writing a plain key: langgraph refuses the step. The stored live run has that
    step, with both writers marked ✖ and the refused writes, so `diagnose` finds what `stepscope run`
    finds (it used to end at the step before, and `diagnose` said "no findings")."""
    from tests.test_interrupt_marks import live_nodes

    class Plain(TypedDict):
        result: str

    builder = StateGraph(Plain)
    builder.add_node("search", lambda s: {"result": "found"})
    builder.add_node("summarize", lambda s: {"result": "summary"})
    builder.add_edge(START, "search")
    builder.add_edge(START, "summarize")
    builder.add_edge("search", END)
    builder.add_edge("summarize", END)
    db = tmp_path / "runs.sqlite3"
    final = start_live_run(builder.compile(), {"result": ""}, db=str(db)).join(10)
    assert final.status == "error" and "Can receive only one value per step" in final.message
    failed = final.trace.steps[-1]
    assert not failed.committed and {t.name for t in failed.tasks} == {"search", "summarize"}
    nodes = live_nodes(final, failed.step)  # as the Live run page's stepper shows the step
    assert {n for n, state in nodes.items() if state == "failed"} == {"node_search", "node_summarize"}
    stored = RunStore(db).load(final.run_id)
    assert [s.step for s in stored.steps][-1] == failed.step
    assert main(["diagnose", final.run_id, "--db", str(db)]) == 1
    assert "[concurrent_update] search and summarize wrote the plain key 'result'" in capsys.readouterr().out
