"""The recording hooks: every moment a debugger needs, in a deterministic order."""

import operator
import threading
import time
from typing import Annotated, TypedDict

import pytest

from engine import END, START, Command, Hooks, InvalidUpdateError, Send, StateGraph
from engine.channels import MISSING


class Log(TypedDict):
    log: Annotated[list, operator.add]
    v: int


class Recorder(Hooks):
    def __init__(self):
        self.events = []

    def run_started(self, *, ns, run):
        self.events.append(("run", ns, run.input))

    def step_planned(self, *, ns, step, tasks):
        self.events.append(("planned", ns, step, [(t.name, t.fired, dict(t.seen_versions)) for t in tasks]))

    def task_finished(self, *, ns, step, task):
        self.events.append(
            (
                "task",
                ns,
                step,
                task.name,
                task.result,
                list(task.writes),
                task.routes,
                type(task.error).__name__ if task.error else None,
            )
        )

    def reducer_called(self, *, ns, call):
        self.events.append(
            (
                "reduce",
                ns,
                call.step,
                call.channel,
                call.reducer,
                call.before,
                call.write,
                call.writer_name,
                call.after,
                call.error is not None,
            )
        )

    def step_committed(self, *, ns, commit):
        self.events.append(
            ("commit", ns, commit.step, sorted(commit.updated_channels), dict(commit.versions), commit.read(None))
        )

    def run_finished(self, *, ns, status, output, error, step):
        self.events.append(("end", ns, status, output, type(error).__name__ if error else None))

    def of(self, kind):
        return [e for e in self.events if e[0] == kind]


def fan_graph(slow_a=0.0):
    def a(s):
        time.sleep(slow_a)
        return {"log": ["a"]}

    g = StateGraph(Log)
    g.add_node("a", a)
    g.add_node("b", lambda s: {"log": ["b"]})
    g.add_node("c", lambda s: {"log": ["c"]})
    g.add_edge(START, "a")
    g.add_edge(START, "b")
    g.add_edge(["a", "b"], "c")
    g.add_edge("c", END)
    return g.compile()


def test_reducer_calls_report_before_write_writer_after_in_application_order():
    rec = Recorder()
    fan_graph(slow_a=0.02).invoke({"log": ["in"]}, hooks=rec)
    calls = [(e[2], e[3], e[4], e[5], e[6], e[7], e[8]) for e in rec.of("reduce")]
    assert calls == [
        (0, "log", "operator.add", [], ["in"], "__start__", ["in"]),
        (1, "log", "operator.add", ["in"], ["a"], "a", ["in", "a"]),
        (1, "log", "operator.add", ["in", "a"], ["b"], "b", ["in", "a", "b"]),
        (2, "log", "operator.add", ["in", "a", "b"], ["c"], "c", ["in", "a", "b", "c"]),
    ]


def test_planned_tasks_carry_triggers_and_the_versions_they_saw():
    rec = Recorder()
    fan_graph().invoke({"log": []}, hooks=rec)
    planned = rec.of("planned")
    assert [p[2] for p in planned] == [0, 1, 2]
    assert planned[0][3] == [("__start__", ("__start__",), {"__start__": 1})]
    step1 = planned[1][3]
    assert [t[0] for t in step1] == ["a", "b"]
    assert step1[0][1] == ("branch:to:a",) and step1[0][2] == {"branch:to:a": 2}
    assert planned[2][3] == [("c", ("join:a+b:c",), {"join:a+b:c": 3})]


def test_task_finished_has_raw_return_and_writes_including_edges():
    rec = Recorder()
    fan_graph().invoke({"log": []}, hooks=rec)
    task_a = next(e for e in rec.of("task") if e[3] == "a")
    assert task_a[4] == {"log": ["a"]}
    assert task_a[5] == [("log", ["a"]), ("join:a+b:c", "a")]


def test_versions_follow_one_global_clock():
    rec = Recorder()
    fan_graph().invoke({"log": []}, hooks=rec)
    commits = rec.of("commit")
    assert [c[2] for c in commits] == [-1, 0, 1, 2]
    assert commits[0][4] == {"__start__": 1}
    after_step1 = commits[2][4]
    assert after_step1["log"] == after_step1["join:a+b:c"] == 3


def test_state_after_each_step_is_reported():
    rec = Recorder()
    fan_graph().invoke({"log": ["in"]}, hooks=rec)
    assert [c[5]["log"] for c in rec.of("commit")[1:]] == [["in"], ["in", "a", "b"], ["in", "a", "b", "c"]]


def test_routes_chosen_by_conditional_edges_are_reported():
    g = StateGraph(Log)
    g.add_node("a", lambda s: {"v": 1})
    g.add_node("b", lambda s: None)
    g.add_edge(START, "a")
    g.add_conditional_edges("a", lambda s: "go" if s["v"] == 1 else "stop", {"go": "b", "stop": END})
    rec = Recorder()
    g.compile().invoke({}, hooks=rec)
    task_a = next(e for e in rec.of("task") if e[3] == "a")
    assert task_a[6] == [("condition", "go")]
    assert ("branch:to:b", None) in task_a[5]


def test_concurrent_update_error_is_reported_as_refused_reducer_calls():
    g = StateGraph(Log)
    g.add_node("x", lambda s: {"v": 1})
    g.add_node("y", lambda s: {"v": 2})
    g.add_edge(START, "x")
    g.add_edge(START, "y")
    rec = Recorder()
    with pytest.raises(InvalidUpdateError):
        g.compile().invoke({}, hooks=rec)
    refused = [e for e in rec.of("reduce") if e[9]]
    assert [(e[3], e[6], e[7]) for e in refused] == [("v", 1, "x"), ("v", 2, "y")]
    assert rec.of("end")[-1][2:] == ("error", None, "InvalidUpdateError")


def test_failing_node_ends_the_run_with_status_error_and_keeps_sibling_results():
    def boom(s):
        raise RuntimeError("kaput")

    g = StateGraph(Log)
    g.add_node("ok", lambda s: {"log": ["ok"]})
    g.add_node("boom", boom)
    g.add_edge(START, "ok")
    g.add_edge(START, "boom")
    rec = Recorder()
    with pytest.raises(RuntimeError, match="kaput") as err:
        g.compile().invoke({}, hooks=rec)
    assert any(note.startswith("During task with name 'boom' and id '") for note in err.value.__notes__)
    tasks = {e[3]: e for e in rec.of("task")}
    assert tasks["ok"][5] == [("log", ["ok"])] and tasks["boom"][7] == "RuntimeError"
    assert rec.of("end")[-1][2] == "error"


def test_recursion_limit_status():
    g = StateGraph(Log)
    g.add_node("spin", lambda s: {"log": [1]})
    g.add_edge(START, "spin")
    g.add_edge("spin", "spin")
    rec = Recorder()
    with pytest.raises(Exception):
        g.compile().invoke({}, {"recursion_limit": 3}, hooks=rec)
    assert rec.of("end")[-1][2] == "recursion_limit"
    assert len([e for e in rec.of("task") if e[3] == "spin"]) == 3


def test_optional_reducer_channel_reports_missing_before_first_write():
    class Opt(TypedDict):
        items: Annotated[list[str] | None, operator.add]

    g = StateGraph(Opt)
    g.add_node("a", lambda s: {"items": ["x"]})
    g.add_edge(START, "a")
    rec = Recorder()
    assert g.compile().invoke({}, hooks=rec) == {"items": ["x"]}
    (call,) = rec.of("reduce")
    assert call[5] is MISSING and call[8] == ["x"]


def test_subgraph_events_are_nested_under_the_parent_task():
    sub = StateGraph(Log)
    sub.add_node("s1", lambda s: {"log": ["sub-1"]})
    sub.add_edge(START, "s1")
    parent = StateGraph(Log)
    parent.add_node("p1", lambda s: {"log": ["parent"]})
    parent.add_node("child", sub.compile())
    parent.add_edge(START, "p1")
    parent.add_edge("p1", "child")
    rec = Recorder()
    out = parent.compile().invoke({"log": []}, hooks=rec)
    assert out == {"log": ["parent", "parent", "sub-1"]}
    child_task_id = next(t for e in rec.of("planned") if e[1] == () for t in [e] if e[3][0][0] == "child")
    nested = {e[1] for e in rec.events if e[1] != ()}
    assert len(nested) == 1
    (ns,) = nested
    assert ns[0].startswith("child:")
    parent_merge = [e for e in rec.of("reduce") if e[1] == () and e[7] == "child"]
    assert [(e[5], e[6], e[8]) for e in parent_merge] == [
        (["parent"], ["parent", "sub-1"], ["parent", "parent", "sub-1"])
    ]
    assert child_task_id


def test_event_sequence_is_identical_run_after_run_with_threads():
    def events():
        rec = Recorder()
        g = StateGraph(Log)
        for i, delay in enumerate([0.01, 0.0, 0.005, 0.0]):
            g.add_node(f"n{i}", lambda s, i=i, d=delay: (time.sleep(d), {"log": [i]})[1])
            g.add_edge(START, f"n{i}")
        g.add_node("fan", lambda s: Command(goto=[Send("w", {"x": k}) for k in range(3)]))
        g.add_node("w", lambda s: {"log": [f"w{s['x']}"]})
        g.add_edge(START, "fan")
        g.compile().invoke({"log": []}, hooks=rec)
        return [e for e in rec.events]

    first = events()
    for _ in range(5):
        assert events() == first


def test_nodes_of_one_step_run_concurrently():
    """Eight nodes that can only finish if all eight are running at the same time."""
    barrier = threading.Barrier(8, timeout=10)

    class S(TypedDict):
        log: Annotated[list, operator.add]

    g = StateGraph(S)
    for i in range(8):
        g.add_node(f"n{i}", lambda s, i=i: (barrier.wait(), {"log": [i]})[1])
        g.add_edge(START, f"n{i}")
    assert g.compile().invoke({}) == {"log": list(range(8))}


def test_max_concurrency_one_runs_tasks_one_at_a_time():
    active, peak = [0], [0]
    lock = threading.Lock()

    def node(s):
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        time.sleep(0.005)
        with lock:
            active[0] -= 1
        return None

    g = StateGraph(Log)
    for i in range(4):
        g.add_node(f"n{i}", node)
        g.add_edge(START, f"n{i}")
    g.compile().invoke({}, {"max_concurrency": 1})
    assert peak[0] == 1


def test_parallel_subgraphs_inside_workers_do_not_deadlock():
    inner = StateGraph(Log)
    for i in range(4):
        inner.add_node(f"i{i}", lambda s, i=i: {"log": [f"i{i}"]})
        inner.add_edge(START, f"i{i}")
    inner_app = inner.compile()
    outer = StateGraph(Log)
    for i in range(70):
        outer.add_node(f"o{i:02d}", lambda s: {"log": inner_app.invoke({"log": []})["log"][:1]})
        outer.add_edge(START, f"o{i:02d}")
    assert outer.compile().invoke({"log": []}) == {"log": ["i0"] * 70}


def test_no_hook_means_no_observation_cost_path():
    """Without hooks the channels are updated through the plain path (observe=None)."""
    from engine.channels import BinaryOperatorAggregate

    seen = []
    original = BinaryOperatorAggregate.update

    def spy(self, values, observe=None):
        seen.append(observe)
        return original(self, values, observe)

    BinaryOperatorAggregate.update = spy
    try:
        fan_graph().invoke({"log": []})
    finally:
        BinaryOperatorAggregate.update = original
    assert seen and all(o is None for o in seen)


def test_stream_yields_a_step_before_running_the_next():
    """LangGraph yields queued chunks once the next step is planned, before it runs."""
    ran = []

    def node(name):
        def run(state):
            ran.append(name)
            return {"log": [name]}

        return run

    g = StateGraph(Log)
    g.add_node("a", node("a"))
    g.add_node("b", node("b"))
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    for chunk in g.compile().stream({"log": []}, stream_mode="updates"):
        assert chunk == {"a": {"log": ["a"]}}
        break
    assert ran == ["a"]


class Progress(Hooks):
    """Hears each task start and end as it happens, with the names of the tasks running then."""

    def __init__(self):
        self.events = []
        self.running = set()
        self.lock = threading.Lock()

    def task_started(self, *, ns, step, task):
        with self.lock:
            self.running.add(task.name)
            self.events.append(("started", ns, step, task.name, threading.current_thread().name))

    def task_ended(self, *, ns, step, task):
        with self.lock:
            self.running.discard(task.name)
            self.events.append(("ended", ns, step, task.name, sorted(self.running), list(task.writes)))


def test_task_started_and_ended_report_each_task_as_it_happens_on_its_own_thread():
    """`a` is slow: `b` has ended (while `a` still runs) before the step's hooks hear of either."""
    progress = Progress()
    fan_graph(slow_a=0.5).invoke({"log": []}, hooks=progress)  # long enough that b ends first on a loaded machine
    step1 = [e for e in progress.events if e[2] == 1]
    assert sorted(e[:4] for e in step1 if e[0] == "started") == [("started", (), 1, "a"), ("started", (), 1, "b")]
    ended = [e for e in step1 if e[0] == "ended"]
    assert ended[0][3:5] == ("b", ["a"]) and ended[1][3:5] == ("a", [])
    assert ended[0][5][0] == ("log", ["b"]) and ended[1][5][0] == ("log", ["a"])  # what each wrote, as it ended
    threads = {e[3]: e[4] for e in progress.events if e[0] == "started" and e[2] == 1}
    assert threads["a"] != threads["b"]  # started on the threads that ran them
    assert [e[3] for e in progress.events if e[0] == "ended"] == ["__start__", "b", "a", "c"]


def test_task_started_reaches_every_hook_combined_and_nested_runs_name_their_ns():
    from engine.hooks import combine, listens

    first, second = Progress(), Progress()
    outer = StateGraph(Log)
    outer.add_node("child", fan_graph())
    outer.add_edge(START, "child")
    outer.compile().invoke({"log": []}, hooks=combine([first, Recorder(), second]))
    assert first.events == second.events
    started = {e[3]: e[1] for e in first.events if e[0] == "started" and e[3] != "__start__"}
    assert sorted(started) == ["a", "b", "c", "child"] and started["child"] == ()
    assert all(len(started[n]) == 1 and started[n][0].startswith("child:") for n in "abc")
    assert listens(combine([Recorder(), first]), "task_started") and not listens(Recorder(), "task_started")


def asking_graph(calls):
    from engine import interrupt

    def ask(state):
        calls.append("ask")
        first = interrupt("Approve?")
        second = interrupt({"question": "Why?"})
        return {"log": [f"{first} because {second}"]}

    g = StateGraph(Log)
    g.add_node("ask", ask)
    g.add_node("other", lambda s: {"log": ["other"]})
    for name in ("ask", "other"):  # siblings: the one that finished is not run again
        g.add_edge(START, name)
    return g.compile()


def test_an_asker_answers_interrupt_on_the_tasks_thread_and_the_node_runs_again_from_its_top():
    calls, asked = [], []
    answers = iter(["yes", "cheap"])

    def asker(task, question):
        asked.append((task.name, question, threading.current_thread().name))
        return next(answers)

    rec = Recorder()
    loop = asking_graph(calls).loop({"log": []}, hooks=rec, asker=asker)
    assert loop.run() == {"log": ["yes because cheap", "other"]}
    assert [(name, question) for name, question, _ in asked] == [("ask", "Approve?"), ("ask", {"question": "Why?"})]
    assert calls == ["ask", "ask", "ask"]  # from the top once per answer, as a LangGraph resume re-runs it
    assert loop.status == "done" and rec.of("end")[-1][2] == "done"
    ask_task = next(e for e in rec.of("task") if e[3] == "ask")
    assert ask_task[7] is None  # the task the hooks hear of is the one that finished


def test_an_asker_that_gives_no_answer_leaves_the_interrupt_as_without_one():
    from engine.stepping import NO_ANSWER

    calls = []
    loop = asking_graph(calls).loop({"log": []}, asker=lambda task, question: NO_ANSWER)
    loop.run()
    plain = asking_graph([]).invoke({"log": []})
    assert loop.status == "interrupted" and [i.value for i in loop.interrupts] == ["Approve?"]
    assert calls == ["ask"] and plain["__interrupt__"][0].value == "Approve?"


def test_an_asker_answers_an_async_node_off_the_event_loop():
    import asyncio

    from engine import interrupt

    async def ask(state):
        return {"log": [f"{interrupt('Approve?')}"]}

    g = StateGraph(Log)
    g.add_node("ask", ask)
    g.add_edge(START, "ask")
    threads = []

    def asker(task, question):
        threads.append(threading.current_thread() is threading.main_thread())
        return "ok"

    loop = g.compile().loop({"log": []}, asker=asker)

    async def drive():
        return await loop.arun()

    assert asyncio.run(drive()) == {"log": ["ok"]} and threads == [False]


def test_preview_shows_the_next_superstep_and_changes_nothing():
    rec = Recorder()
    loop = fan_graph().loop({"log": ["in"]}, hooks=rec)
    assert loop.preview() == []  # not started
    loop.start()
    steps = []
    while loop.status == "running":
        before = (loop.step, dict(loop.state.versions), len(rec.events))
        preview = loop.preview()
        assert (loop.step, dict(loop.state.versions), len(rec.events)) == before  # pure
        if not loop.plan():
            assert preview == []
            break
        assert [(t.id, t.name, t.input) for t in preview] == [(t.id, t.name, t.input) for t in loop.tasks]
        steps.append([t.name for t in preview])
        loop.execute()
    assert steps == [["__start__"], ["a", "b"], ["c"]] and loop.preview() == []


def test_watching_attaches_a_fresh_hook_to_each_root_run_and_none_to_nested_runs():
    """`engine.hooks.watching` is how the pytest plugin records runs it did not start: each root run in the
    block gets a new hook of its own; a subgraph run reports to its parent's (no second recorder)."""
    from engine.hooks import watching

    inner = StateGraph(Log)
    inner.add_node("leaf", lambda s: {"log": ["leaf"]})
    inner.add_edge(START, "leaf")
    inner.add_edge("leaf", END)
    outer = StateGraph(Log)
    outer.add_node("child", inner.compile())
    outer.add_edge(START, "child")
    outer.add_edge("child", END)
    graph = outer.compile()

    made: list[Recorder] = []

    def make() -> Recorder:
        made.append(Recorder())
        return made[-1]

    with watching(make):
        graph.invoke({"log": []})
        graph.invoke({"log": ["again"]})
    graph.invoke({"log": []})  # outside the block: nothing attached

    assert len(made) == 2
    for hook in made:
        runs = [e[1] for e in hook.events if e[0] == "run"]
        assert runs[0] == () and len(runs) == 2 and runs[1][0].startswith("child:")
    assert made[1].events[0][2] == {"log": ["again"]}


def test_a_subgraph_run_is_whole_in_the_step_a_sink_is_handed():
    """With a sink the root's steps are handed over as they end; a subgraph run inside one of them must be
    built by then (it used to be handed over with no steps: `stepscope run subgraph_trap --out` lost them)."""
    import copy

    from engine.trace import Recorder

    inner = StateGraph(Log)
    inner.add_node("leaf", lambda s: {"log": ["leaf"]})
    inner.add_edge(START, "leaf")
    outer = StateGraph(Log)
    outer.add_node("first", lambda s: {"log": ["first"]})
    outer.add_node("child", inner.compile())
    outer.add_edge(START, "first")
    outer.add_edge("first", "child")
    outer.add_edge("child", END)

    class KeepingSink:
        def __init__(self):
            self.steps = []

        def flush(self, record):
            self.steps += copy.deepcopy(record.steps)  # what a store writes down at this moment
            del record.steps[:]

    graph = outer.compile()
    sink = KeepingSink()
    graph.invoke({"log": []}, hooks=Recorder(sink=sink))
    whole = Recorder()
    graph.invoke({"log": []}, hooks=whole)
    handed = next(t for s in sink.steps for t in s.tasks if t.name == "child")
    kept = next(t for s in whole.trace.steps for t in s.tasks if t.name == "child")
    assert [len(run.steps) for run in handed.subgraphs] == [len(run.steps) for run in kept.subgraphs] != [0]
    assert [s.step for s in handed.subgraphs[0].steps] == [s.step for s in kept.subgraphs[0].steps]
