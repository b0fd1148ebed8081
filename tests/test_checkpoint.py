"""Checkpointing on its own: the savers, ids, hooks, bad input, and SQLite across a killed process.

The behaviour of checkpointed runs is compared with LangGraph in
tests/differential/test_checkpoint_differential.py; these tests cover what LangGraph cannot tell
us: our savers' contract, determinism, the hook, our clear errors, and durability.
"""

import operator
import signal
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path
from typing import Annotated, TypedDict

import pytest

from engine import (
    START,
    Command,
    EmptyInputError,
    Hooks,
    InMemorySaver,
    Interrupt,
    InvalidUpdateError,
    MemorySaver,
    SqliteSaver,
    StateGraph,
    StateSnapshot,
    interrupt,
)
from engine.errors import GraphInterrupt
from engine.savers import NULL_TASK_ID, empty_checkpoint, read_task_statuses, sequential_ids, uuid6
from engine.state_api import UnknownKeyWarning

ROOT = Path(__file__).resolve().parents[1]


class Log(TypedDict):
    log: Annotated[list, operator.add]


def chain(names: str, runs: list | None = None) -> StateGraph:
    g = StateGraph(Log)

    def node(name):
        def fn(state):
            if runs is not None:
                runs.append(name)
            return {"log": [name]}

        return fn

    for n in names:
        g.add_node(n, node(n))
    g.add_edge(START, names[0])
    for a, b in zip(names, names[1:]):
        g.add_edge(a, b)
    return g


def cfg(thread: str = "t", **extra) -> dict:
    return {"configurable": {"thread_id": thread, **extra}}


# ---- the savers alone ---------------------------------------------------------------------------


@pytest.fixture(params=["memory", "sqlite"])
def saver(request, tmp_path):
    if request.param == "memory":
        yield InMemorySaver(ids=sequential_ids())
    else:
        s = SqliteSaver(tmp_path / "cp.db", ids=sequential_ids())
        yield s
        s.close()


def put(saver, thread, parent, step, source="loop", ns="", **values):
    checkpoint = empty_checkpoint(saver.new_id(step), saver.now())
    checkpoint["channel_values"] = dict(values)
    checkpoint["channel_versions"] = {k: 1 for k in values}
    config = {"configurable": {"thread_id": thread, "checkpoint_ns": ns, "checkpoint_id": parent}}
    return saver.put(config, checkpoint, {"source": source, "step": step, "parents": {}}, {})


def ids(tuples) -> list[str]:
    return [t.config["configurable"]["checkpoint_id"][-3:] for t in tuples]


def test_put_then_get_latest_and_by_id(saver):
    first = put(saver, "a", None, -1, "input", x=1)
    second = put(saver, "a", first["configurable"]["checkpoint_id"], 0, x=2)
    latest = saver.get_tuple(cfg("a"))
    assert latest.checkpoint["channel_values"] == {"x": 2}
    assert latest.config == second and latest.parent_config == {
        "configurable": {"thread_id": "a", "checkpoint_ns": "", "checkpoint_id": first["configurable"]["checkpoint_id"]}
    }
    by_id = saver.get_tuple(first)
    assert by_id.checkpoint["channel_values"] == {"x": 1} and by_id.parent_config is None
    assert saver.get(first)["id"] == first["configurable"]["checkpoint_id"]
    assert saver.get_tuple(cfg("a", checkpoint_id="nope")) is None
    assert saver.get_tuple(cfg("other")) is None


def test_list_is_newest_first_and_filters(saver):
    parent = None
    for step, source in [(-1, "input"), (0, "loop"), (1, "loop"), (2, "update"), (3, "loop")]:
        parent = put(saver, "a", parent, step, source, x=step)["configurable"]["checkpoint_id"]
    put(saver, "b", None, -1, "input", x=0)
    listed = list(saver.list(cfg("a")))
    assert [t.metadata["step"] for t in listed] == [3, 2, 1, 0, -1]
    assert [t.metadata["step"] for t in saver.list(cfg("a"), filter={"source": "loop"})] == [3, 1, 0]
    assert [t.metadata["step"] for t in saver.list(cfg("a"), limit=2)] == [3, 2]
    assert [t.metadata["step"] for t in saver.list(cfg("a"), before=listed[1].config)] == [1, 0, -1]
    assert [
        t.metadata["step"] for t in saver.list(cfg("a"), before=listed[1].config, limit=1, filter={"source": "loop"})
    ] == [1]
    assert [t.metadata["step"] for t in saver.list(cfg("a", checkpoint_id=listed[2].checkpoint["id"]))] == [1]
    assert len(list(saver.list(None))) == 6


def test_namespaces_are_separate(saver):
    put(saver, "a", None, -1, "input", x="root")
    put(saver, "a", None, -1, "input", ns="sub:1", x="sub")
    assert saver.get_tuple(cfg("a")).checkpoint["channel_values"] == {"x": "root"}
    assert saver.get_tuple(cfg("a", checkpoint_ns="sub:1")).checkpoint["channel_values"] == {"x": "sub"}
    assert len(list(saver.list(cfg("a", checkpoint_ns="")))) == 1


def test_pending_writes_order_and_control_slots(saver):
    config = put(saver, "a", None, 0, x=1)
    saver.put_writes(config, [("log", ["z"])], "task-z", "~__pregel_pull, z")
    saver.put_writes(config, [("log", ["a1"]), ("log", ["a2"])], "task-a", "~__pregel_pull, a")
    saver.put_writes(config, [("log", ["again"])], "task-a", "~__pregel_pull, a")  # regular writes are kept once
    saver.put_writes(config, [("__interrupt__", ["first"])], "task-q", "~__pregel_pull, q")
    saver.put_writes(config, [("__interrupt__", ["second"]), ("__resume__", ["A"])], "task-q", "~__pregel_pull, q")
    saver.put_writes(config, [("__resume__", "R")], NULL_TASK_ID)
    pending = saver.get_tuple(config).pending_writes
    assert pending == [
        (NULL_TASK_ID, "__resume__", "R"),
        ("task-a", "log", ["a1"]),
        ("task-a", "log", ["a2"]),
        ("task-q", "__resume__", ["A"]),
        ("task-q", "__interrupt__", ["second"]),
        ("task-z", "log", ["z"]),
    ]
    statuses = read_task_statuses(pending)
    assert statuses["task-q"].pending_interrupts == ("second",) and statuses["task-q"].resume == ("A",)
    assert statuses["task-a"].finished and not statuses["task-q"].finished


def test_metadata_merges_scalar_config_keys(saver):
    checkpoint = empty_checkpoint(saver.new_id(0), saver.now())
    config = {
        "configurable": {
            "thread_id": "a",
            "checkpoint_ns": "",
            "checkpoint_id": None,
            "user": "u",
            "n": 2,
            "obj": {"x": 1},
            "__secret": 1,
        },
        "metadata": {"run": "r1", "step": 99},
    }
    saver.put(config, checkpoint, {"source": "loop", "step": 0, "parents": {}}, {})
    assert saver.get_tuple(cfg("a")).metadata == {
        "source": "loop",
        "step": 0,
        "parents": {},
        "run": "r1",
        "user": "u",
        "n": 2,
    }


def test_delete_thread(saver):
    config = put(saver, "a", None, 0, x=1)
    saver.put_writes(config, [("x", 2)], "t1")
    put(saver, "b", None, 0, x=1)
    saver.delete_thread("a")
    assert saver.get_tuple(cfg("a")) is None and saver.get_tuple(cfg("b")) is not None


def test_saved_values_do_not_change_when_the_live_value_does(saver):
    value = ["a"]
    config = put(saver, "a", None, 0, log=value)
    value.append("MUTATED")
    loaded = saver.get_tuple(config).checkpoint["channel_values"]["log"]
    assert loaded == ["a"]
    loaded.append("again")
    assert saver.get_tuple(config).checkpoint["channel_values"]["log"] == ["a"]


def test_a_config_without_thread_id_is_refused(saver):
    with pytest.raises(ValueError, match="Checkpointer requires one or more of the following 'configurable' keys"):
        saver.get_tuple({"configurable": {}})


def test_memory_saver_is_the_in_memory_saver():
    assert MemorySaver is InMemorySaver


# ---- ids ----------------------------------------------------------------------------------------


def test_uuid6_ids_sort_by_creation_time():
    made = [uuid6(step) for step in range(-1, 200)]
    assert made == sorted(made) and len(set(made)) == len(made)
    assert all(len(i) == 36 and i[14] == "6" for i in made)


def test_injected_ids_and_clock_make_history_reproducible():
    def run():
        saver = InMemorySaver(ids=sequential_ids(), clock=lambda: "2024-01-01T00:00:00+00:00")
        g = chain("ab").compile(checkpointer=saver)
        g.invoke({"log": []}, cfg())
        return [(s.config, s.created_at, [t.id for t in s.tasks]) for s in g.get_state_history(cfg())]

    first = run()
    assert first == run()
    assert [c["configurable"]["checkpoint_id"] for c, _, _ in first] == [
        f"00000000-0000-0000-0000-{n:012d}" for n in (4, 3, 2, 1)
    ]


def test_interrupt_ids_depend_on_where_they_were_raised():
    def run(thread):
        g = StateGraph(Log)
        g.add_node("ask", lambda s: {"log": [interrupt("q")]})
        g.add_edge(START, "ask")
        graph = g.compile(checkpointer=InMemorySaver(ids=sequential_ids()))
        return graph.invoke({"log": []}, cfg(thread))["__interrupt__"][0]

    a, b = run("t1"), run("t2")
    assert a == b  # same graph, same checkpoint ids: same task ids, same interrupt ids
    assert isinstance(a, Interrupt) and len(a.id) == 32 and int(a.id, 16) >= 0


# ---- hooks ----------------------------------------------------------------------------------------


class Seen(Hooks):
    def __init__(self):
        self.events = []

    def step_committed(self, *, ns, commit):
        self.events.append(("commit", ns, commit.step, commit.kind))

    def task_finished(self, *, ns, step, task):
        self.events.append(("task", ns, step, task.name, task.restored, tuple(i.value for i in task.interrupts)))

    def checkpoint_saved(self, *, ns, step, config, metadata):
        self.events.append(
            ("saved", ns, step, metadata["source"], metadata["step"], config["configurable"]["checkpoint_id"])
        )

    def run_finished(self, *, ns, status, output, error, step):
        interrupts = tuple(i.value for i in error.interrupts) if isinstance(error, GraphInterrupt) else None
        self.events.append(("end", ns, status, interrupts))


def asking_graph(runs):
    g = StateGraph(Log)

    def ask(state):
        runs.append("ask")
        return {"log": [interrupt("q?")]}

    def sib(state):
        runs.append("sib")
        return {"log": ["sib"]}

    g.add_node("ask", ask)
    g.add_node("sib", sib)
    g.add_edge(START, "ask")
    g.add_edge(START, "sib")
    return g.compile(checkpointer=InMemorySaver())


def test_checkpoint_saved_follows_the_commit_of_its_step():
    seen = Seen()
    chain("ab").compile(checkpointer=InMemorySaver()).invoke({"log": []}, cfg(), hooks=seen)
    commits = [e for e in seen.events if e[0] in ("commit", "saved")]
    assert [e[:4] for e in commits] == [
        ("commit", (), -1, "input"),
        ("saved", (), -1, "input"),
        ("commit", (), 0, "loop"),
        ("saved", (), 0, "loop"),
        ("commit", (), 1, "loop"),
        ("saved", (), 1, "loop"),
        ("commit", (), 2, "loop"),
        ("saved", (), 2, "loop"),
    ]
    assert all(e[2] == e[4] for e in commits if e[0] == "saved")


def test_an_interrupt_is_visible_to_hooks_and_a_resume_restores_the_sibling():
    runs: list = []
    graph = asking_graph(runs)
    seen = Seen()
    out = graph.invoke({"log": []}, cfg(), hooks=seen)
    assert out == {"log": ["sib"], "__interrupt__": [out["__interrupt__"][0]]}
    assert ("task", (), 1, "ask", False, ("q?",)) in seen.events
    assert seen.events[-1] == ("end", (), "interrupted", ("q?",))
    assert ("commit", (), 1, "interrupt") in seen.events  # the sibling's writes, in memory only
    assert not [e for e in seen.events if e[0] == "saved" and e[2] == 1]

    seen = Seen()
    assert graph.invoke(Command(resume="A"), cfg(), hooks=seen) == {"log": ["A", "sib"]}
    assert seen.events[0] == ("commit", (), 0, "resume")  # at the step of the checkpoint it resumes
    assert ("task", (), 1, "sib", True, ()) in seen.events and sorted(runs) == ["ask", "ask", "sib"]
    assert seen.events[-1] == ("end", (), "done", None)


def test_replay_reports_the_fork_checkpoint():
    graph = chain("abc").compile(checkpointer=InMemorySaver())
    graph.invoke({"log": []}, cfg())
    before_b = next(s for s in graph.get_state_history(cfg()) if s.next == ("b",))
    seen = Seen()
    graph.invoke(None, before_b.config, hooks=seen)
    assert [e[:5] for e in seen.events if e[0] == "saved"] == [
        ("saved", (), 2, "fork", 2),
        ("saved", (), 3, "loop", 3),
        ("saved", (), 4, "loop", 4),
    ]
    assert seen.events[0] == ("commit", (), 2, "resume")


def test_subgraph_checkpoints_are_reported_under_their_namespace():
    sub = chain("xy").compile()
    g = StateGraph(Log)
    g.add_node("sub", sub)
    g.add_edge(START, "sub")
    seen = Seen()
    g.compile(checkpointer=InMemorySaver()).invoke({"log": []}, cfg(), hooks=seen)
    nested = [e for e in seen.events if e[0] == "saved" and e[1]]
    assert [e[2:4] for e in nested] == [(-1, "input"), (0, "loop"), (1, "loop"), (2, "loop")]
    assert nested[0][1][0].startswith("sub:")


# ---- bad input ----------------------------------------------------------------------------------


def test_resuming_a_thread_without_checkpoints():
    graph = chain("a").compile(checkpointer=InMemorySaver())
    with pytest.raises(EmptyInputError, match="Received no input for __start__") as err:
        graph.invoke(None, cfg("new"))
    assert "Thread 'new' has no checkpoint to resume" in err.value.__notes__[0]
    # LangGraph runs the graph with the Command as input here; we name the mistake instead.
    with pytest.raises(
        ValueError,
        match="Command\\(resume=...\\) answers an interrupt of a paused run, and thread 'new' has no checkpoint",
    ):
        graph.invoke(Command(resume="x"), cfg("new"))


def test_unknown_checkpoint_id():
    graph = chain("ab").compile(checkpointer=InMemorySaver())
    graph.invoke({"log": []}, cfg())
    bad = cfg(checkpoint_id="1ef00000-0000-6000-8000-000000000000")
    with pytest.raises(EmptyInputError, match="Received no input for __start__") as err:
        graph.invoke(None, bad)  # LangGraph's error and text ...
    assert "has no checkpoint '1ef00000-0000-6000-8000-000000000000'" in err.value.__notes__[0]  # ... and the fix
    # LangGraph would silently start over from an empty state; both of these name the fix instead.
    with pytest.raises(ValueError, match="Thread 't' has no checkpoint '1ef00000.*get_state_history"):
        graph.invoke({"log": []}, bad)
    with pytest.raises(ValueError, match="Thread 't' has no checkpoint '1ef00000"):
        graph.update_state(bad, {"log": ["x"]}, as_node="a")
    assert graph.get_state(bad).values == {}  # reading is LangGraph's: an empty snapshot


def test_missing_thread_id_names_the_keys():
    graph = chain("a").compile(checkpointer=InMemorySaver())
    for call in (
        lambda: graph.invoke({"log": []}),
        lambda: graph.get_state({"configurable": {}}),
        lambda: graph.update_state({}, {"log": []}),
    ):
        with pytest.raises(
            ValueError, match="Checkpointer requires one or more of the following 'configurable' keys: thread_id"
        ):
            call()


def test_update_state_unknown_node_lists_the_nodes_and_unknown_keys_warn():
    graph = chain("ab").compile(checkpointer=InMemorySaver())
    graph.invoke({"log": []}, cfg())
    with pytest.raises(InvalidUpdateError) as err:
        graph.update_state(cfg(), {"log": []}, as_node="zz")
    assert str(err.value) == "Node zz does not exist"  # LangGraph's text; the note adds the fix
    assert err.value.__notes__ == [
        "as_node must be one of: __start__, a, b (or __input__, __copy__, or END with values=None)."
    ]
    with pytest.warns(UnknownKeyWarning, match="update_state ignored 'lgo': not a state key of this graph \\(log\\)"):
        graph.update_state(cfg(), {"lgo": ["typo"]}, as_node="b")
    assert graph.get_state(cfg()).values == {"log": ["a", "b"]}


def test_interrupt_outside_a_graph():
    with pytest.raises(RuntimeError, match="interrupt\\(\\) was called outside a running graph"):
        interrupt("q")


def test_get_state_returns_a_state_snapshot():
    graph = chain("a").compile(checkpointer=InMemorySaver())
    graph.invoke({"log": []}, cfg())
    state = graph.get_state(cfg())
    assert isinstance(state, StateSnapshot) and state.values == {"log": ["a"]} and state.next == ()


# ---- SQLite -------------------------------------------------------------------------------------


def test_sqlite_thread_survives_the_saver(tmp_path):
    path = tmp_path / "run.db"
    runs: list = []
    with SqliteSaver.from_conn_string(str(path)) as saver:
        graph = asking_graph(runs)
        graph.checkpointer = saver
        first = graph.invoke({"log": ["in"]}, cfg())
        assert first["__interrupt__"][0].value == "q?"
    with SqliteSaver.from_conn_string(str(path)) as saver:  # a new connection, as after a restart
        graph = asking_graph(runs)
        graph.checkpointer = saver
        assert graph.get_state(cfg()).next == ("ask",)
        assert graph.invoke(Command(resume="A"), cfg()) == {"log": ["in", "A", "sib"]}
        assert [s.metadata["step"] for s in graph.get_state_history(cfg())] == [1, 0, -1]
    assert sorted(runs) == ["ask", "ask", "sib"]


def test_sqlite_saver_on_a_given_connection_commits_every_save(tmp_path):
    conn = sqlite3.connect(tmp_path / "given.db", check_same_thread=False)
    graph = chain("ab").compile(checkpointer=SqliteSaver(conn))
    graph.invoke({"log": []}, cfg())
    with sqlite3.connect(tmp_path / "given.db") as other:  # another connection sees every checkpoint
        assert other.execute("SELECT COUNT(*) FROM checkpoints").fetchone() == (4,)
    conn.close()


def test_sqlite_refuses_unpicklable_values_with_the_fix(tmp_path):
    class Local:  # defined in a function: pickle cannot find it again
        pass

    class S(TypedDict):
        v: object

    g = StateGraph(S)
    g.add_node("a", lambda s: {"v": Local()})
    g.add_edge(START, "a")
    with SqliteSaver(tmp_path / "x.db") as saver:
        with pytest.raises(TypeError, match="SqliteSaver cannot store .*define their classes at module level"):
            g.compile(checkpointer=saver).invoke({}, cfg())


def test_sqlite_keeps_an_unpicklable_node_error_as_text(tmp_path):
    class LocalError(Exception):
        def __init__(self, a, b):
            super().__init__(f"{a}/{b}")

    def boom(state):
        raise LocalError(1, 2)

    g = StateGraph(Log)
    g.add_node("boom", boom)
    g.add_edge(START, "boom")
    with SqliteSaver(tmp_path / "e.db") as saver:
        graph = g.compile(checkpointer=saver)
        with pytest.raises(LocalError):
            graph.invoke({"log": []}, cfg())
        error = graph.get_state(cfg()).tasks[0].error
        assert isinstance(error, RuntimeError) and str(error) == "LocalError: 1/2"


SLOW_GRAPH = textwrap.dedent(
    """
    import operator, sys, time
    from typing import Annotated, TypedDict
    sys.path.insert(0, {root!r})
    from engine import START, SqliteSaver, StateGraph

    class Log(TypedDict):
        log: Annotated[list, operator.add]

    NAMES = [f"n{{i}}" for i in range(12)]

    def build(db, ran):
        def node(name):
            def fn(state):
                time.sleep(0.1)
                with open(ran, "a") as f:
                    f.write(name + "\\n")
                return {{"log": [name]}}
            return fn
        g = StateGraph(Log)
        for name in NAMES:
            g.add_node(name, node(name))
        g.add_edge(START, NAMES[0])
        for a, b in zip(NAMES, NAMES[1:]):
            g.add_edge(a, b)
        return g.compile(checkpointer=SqliteSaver(db))

    if __name__ == "__main__":
        build(sys.argv[1], sys.argv[2]).invoke({{"log": []}}, {{"configurable": {{"thread_id": "slow"}}}})
    """
)


def checkpoint_steps(db: Path) -> list[int]:
    if not db.exists():
        return []
    try:
        with sqlite3.connect(db) as conn:
            return [r[0] for r in conn.execute("SELECT checkpoint_id FROM checkpoints")]
    except sqlite3.OperationalError:  # the child is still creating the tables
        return []


def test_sqlite_resumes_a_killed_process_losing_at_most_one_superstep(tmp_path):
    script = tmp_path / "slow_graph.py"
    script.write_text(SLOW_GRAPH.format(root=str(ROOT)))
    db, ran = tmp_path / "slow.db", tmp_path / "ran.txt"
    child = subprocess.Popen([sys.executable, str(script), str(db), str(ran)])
    try:
        deadline = time.monotonic() + 30
        while len(checkpoint_steps(db)) < 6 and time.monotonic() < deadline:  # input, __start__, n0..n3
            assert child.poll() is None, "the child finished or failed before it could be killed"
            time.sleep(0.02)
        assert len(checkpoint_steps(db)) >= 6, "the child saved no checkpoints in time"
        child.send_signal(signal.SIGKILL)
    finally:
        child.kill()
        child.wait()

    namespace: dict = {"__name__": "slow_graph"}
    exec(compile(script.read_text(), str(script), "exec"), namespace)
    graph = namespace["build"](str(db), str(ran))
    config = cfg("slow")
    state = graph.get_state(config)
    done = state.metadata["step"]  # checkpoint step k holds nodes n0 .. n(k-1)
    ran_before = ran.read_text().split()
    assert state.values["log"] == namespace["NAMES"][:done]
    assert ran_before[:done] == state.values["log"]
    lost = len(ran_before) - done
    assert 0 <= lost <= 1, f"{lost} supersteps lost"
    assert state.next == (namespace["NAMES"][done],)

    assert graph.invoke(None, config) == {"log": namespace["NAMES"]}
    ran_after = ran.read_text().split()
    assert ran_after[len(ran_before) :] == namespace["NAMES"][done:]  # only the lost step runs again
    assert [s.metadata["step"] for s in graph.get_state_history(config)][0] == len(namespace["NAMES"])
    graph.checkpointer.close()
