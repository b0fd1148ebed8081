"""A thread costs what is shown (issue 26, 1): the app's first view decodes only the newest steps,
`show --step N` only step N and the newest checkpoint (how the thread ended), and a whole thread decodes
each stored value once: on PostgreSQL each `checkpoint_blobs` row and each write once, on SQLite each
checkpoint row once, with every stored message built once however many checkpoints hold it. Counted,
never timed; both backends."""

from __future__ import annotations

import importlib.util
import sys

import pytest

from debugger.cli import main
from debugger.runtimes.checkpointers import tables
from debugger.runtimes.checkpointers.savers import open_checkpointer
from debugger.runtimes.langgraph.threads.reader import read_thread
from debugger.runtimes.threads_api import CheckpointerError, ThreadRead
from debugger.sources import checkpointer_threads

pytestmark = pytest.mark.slow  # starts PostgreSQL and runs real langgraph apps: `make test`, not `make check`

REPLIES = 30

APP = """
from typing import Annotated, TypedDict

from langchain_core.messages import AIMessage
from langgraph.checkpoint.memory import MemorySaver
from langgraph.graph import START, StateGraph
from langgraph.graph.message import add_messages
import operator


class Chat(TypedDict):
    messages: Annotated[list, add_messages]
    turns: int
    log: Annotated[list, operator.add]


def reply(state):
    n = state.get("turns", 0) + 1
    return {"messages": [AIMessage(f"reply {n}", id=f"m{n}")], "turns": n, "log": [n]}


builder = StateGraph(Chat)
builder.add_node("reply", reply)
builder.add_edge(START, "reply")
builder.add_conditional_edges("reply", lambda s: "reply" if s["turns"] < LIMIT else "__end__")
graph = builder.compile(checkpointer=MemorySaver())
"""


@pytest.fixture
def chat(backend, tmp_path, monkeypatch):
    """A thread `t` of `REPLIES` replies on `backend`, and the module file of the app's graph."""
    module = tmp_path / "chat_app.py"
    module.write_text(APP.replace("LIMIT", str(REPLIES)))
    spec = importlib.util.spec_from_file_location("chat_app", module)
    app = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "chat_app", app)  # its TypedDict's hints are read from its module
    spec.loader.exec_module(app)
    graph = app.builder.compile(checkpointer=backend.saver)
    graph.invoke({"messages": [("user", "hi")], "turns": 0}, {"configurable": {"thread_id": "t"}})
    return backend, graph, module


class Counts:
    """How many checkpoints, checkpoint values, writes and stored objects a read decoded."""

    def __init__(self, monkeypatch) -> None:
        self.checkpoints: set[tuple[str, str]] = set()
        self.values = self.writes = self.objects = 0
        shared, plain, extension = (
            tables.SharedDecoder.shared,
            tables.SharedDecoder.plain,
            tables.SharedDecoder._extension,
        )
        counts = self

        def count_shared(decoder, kind, blob):
            counts.values += 1
            return shared(decoder, kind, blob)

        def count_plain(decoder, kind, blob):
            counts.writes += 1
            return plain(decoder, kind, blob)

        def count_objects(decoder, code, data):
            if (code, data) not in decoder.built:
                counts.objects += 1
            return extension(decoder, code, data)

        monkeypatch.setattr(tables.SharedDecoder, "shared", count_shared)
        monkeypatch.setattr(tables.SharedDecoder, "plain", count_plain)
        monkeypatch.setattr(tables.SharedDecoder, "_extension", count_objects)
        for name in ("_sqlite_tuple", "_postgres_tuple"):
            made = getattr(tables, name)

            def counting(*args, _made=made):
                saved = _made(*args)
                conf = saved.config["configurable"]
                counts.checkpoints.add((conf["checkpoint_ns"], conf["checkpoint_id"]))
                return saved

            monkeypatch.setattr(tables, name, counting)


def test_the_first_view_decodes_only_the_newest_steps(chat, monkeypatch):
    backend, graph, _ = chat
    with open_checkpointer(backend.url) as checkpointer:
        whole = read_thread(checkpointer, graph, ThreadRead("t"))
        counts = Counts(monkeypatch)
        newest = read_thread(checkpointer, graph, ThreadRead("t", newest=5))
    assert len(counts.checkpoints) == 6, "the 5 newest steps and the checkpoint before them, nothing else"
    assert [s.step for s in newest.steps] == [s.step for s in whole.steps[-6:]]
    assert newest.status == whole.status == "done" and newest.output == whole.output
    for mine, theirs in zip(newest.steps[1:], whole.steps[-5:]):
        assert [t.name for t in mine.tasks] == [t.name for t in theirs.tasks]
        assert [(c.channel, c.writer_name, c.write) for c in mine.reducer_calls] == [
            (c.channel, c.writer_name, c.write) for c in theirs.reducer_calls
        ]
        assert not mine.mismatches


def test_show_step_n_of_a_thread_decodes_step_n_and_the_ending_only(chat, monkeypatch, capsys):
    backend, graph, module = chat
    args = ["show", f"{module}:graph", "--checkpointer", backend.url, "--thread", "t"]
    assert main(args) == 0
    whole = capsys.readouterr().out.splitlines()
    for step in (3, REPLIES // 2, REPLIES):
        counts = Counts(monkeypatch)
        assert main([*args, "--step", str(step)]) == 0
        out = capsys.readouterr().out.splitlines()
        # step N's checkpoint, its parent's and the newest (how the thread ended); the last step's parent and newest
        assert len(counts.checkpoints) == (3 if step < REPLIES else 2), (step, counts.checkpoints)
        mine = [line for line in out if line.startswith("step ")]
        assert [line.split(":")[0] for line in mine] == [f"step {step}"]
        at = whole.index(mine[0])  # the same lines as the whole thread's show prints for that step
        assert out[1 : 1 + len(out) - 2] == whole[at : at + len(out) - 2]
        assert out[0].split("status")[1] == whole[0].split("status")[1] and out[-1] == whole[-1], "the thread's end"
    assert main([*args, "--step", "999"]) == 2
    assert f"has no step 999; it has steps up to {REPLIES}." in capsys.readouterr().err


def test_the_app_opens_a_thread_at_its_newest_steps_and_reads_older_ones_on_demand(chat):
    backend, _, module = chat
    first = checkpointer_threads.open_for_app(f"{module}:graph", "t", backend.url, newest=5)
    assert first.older_steps and len(first.trace.steps) == 6
    whole = checkpointer_threads.open_for_app(f"{module}:graph", "t", backend.url, newest=10 * REPLIES)
    assert not whole.older_steps and whole.trace.steps[0].step == -1
    assert whole.trace.run_id != first.trace.run_id, "a window is its own stored run"


def test_a_whole_thread_decodes_each_stored_value_once(chat, monkeypatch):
    backend, graph, _ = chat
    counts = Counts(monkeypatch)
    with open_checkpointer(backend.url) as checkpointer:
        trace = read_thread(checkpointer, graph, ThreadRead("t"))
    assert trace.status == "done" and not any(s.mismatches for s in trace.steps)
    if backend.kind == "postgres":
        blobs = backend.conn.execute("SELECT count(*) AS n FROM checkpoint_blobs WHERE type <> 'empty'").fetchone()["n"]
        writes = backend.conn.execute("SELECT count(*) AS n FROM checkpoint_writes").fetchone()["n"]
        assert counts.values <= blobs, (counts.values, blobs)
    else:
        rows = backend.conn.execute("SELECT count(*) FROM checkpoints").fetchone()[0]
        writes = backend.conn.execute("SELECT count(*) FROM writes").fetchone()[0]
        assert counts.values == rows
    assert counts.writes == writes
    # every stored message built once: the thread's messages, each written once and stored in every later
    # checkpoint, would be built REPLIES^2 / 2 times by the saver's own `list()`
    assert counts.objects <= 2 * (REPLIES + 2), counts.objects


def test_a_layout_the_queries_do_not_know_is_refused_by_name(chat, monkeypatch):
    backend, graph, _ = chat
    if backend.kind == "sqlite":
        pytest.skip("SQLite's layout refusal is in test_sqlite_layout_is_checked")
    monkeypatch.setattr("debugger.runtimes.checkpointers.savers.postgres_layout_problem", lambda v: "at migration X")
    with open_checkpointer(backend.url) as checkpointer:
        with pytest.raises(CheckpointerError, match="cannot be read whole: at migration X"):
            read_thread(checkpointer, graph, ThreadRead("t"))
        newest = read_thread(checkpointer, graph, ThreadRead("t", newest=3))
        assert newest.status == "done", "through the saver's own reads"
    backend.conn.execute("ALTER TABLE checkpoint_writes DROP COLUMN task_path")
    with pytest.raises(CheckpointerError, match="checkpoint_writes has no column task_path"):
        open_checkpointer(backend.url)


def test_sqlite_layout_is_checked(tmp_path):
    import sqlite3

    path = tmp_path / "odd.sqlite"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE checkpoints (thread_id TEXT, checkpoint_ns TEXT, checkpoint_id TEXT)")
    conn.execute("CREATE TABLE writes (thread_id TEXT)")
    conn.commit()
    conn.close()
    with pytest.raises(CheckpointerError, match="layout StepScope does not read .*checkpoints has no column"):
        open_checkpointer(str(path))


def test_an_engine_saver_file_is_named_as_one(tmp_path):
    """The engine's own SqliteSaver file is refused as what it is, not with advice to install another
    langgraph-checkpoint-sqlite (its tables lack langgraph's `type` columns)."""
    from engine import SqliteSaver

    path = tmp_path / "engine.sqlite"
    SqliteSaver(path).conn.close()
    with pytest.raises(CheckpointerError, match="tables of StepScope's engine SqliteSaver") as refused:
        open_checkpointer(str(path))
    assert "Install" not in str(refused.value)


def test_reopening_a_thread_costs_only_its_new_checkpoints(backend, tmp_path, monkeypatch):
    monkeypatch.setenv("STEPSCOPE_THREAD_CACHE", str(tmp_path / "cache"))
    module = tmp_path / "chat_app.py"
    module.write_text(APP.replace("LIMIT", "s.get('stop', 10)").replace("turns: int", "turns: int\n    stop: int"))
    spec = importlib.util.spec_from_file_location("chat_app", module)
    app = importlib.util.module_from_spec(spec)
    monkeypatch.setitem(sys.modules, "chat_app", app)
    spec.loader.exec_module(app)
    graph = app.builder.compile(checkpointer=backend.saver)
    config = {"configurable": {"thread_id": "t"}}
    graph.invoke({"messages": [("user", "hi")], "turns": 0, "stop": 10}, config)
    with open_checkpointer(backend.url) as checkpointer:
        first = read_thread(checkpointer, graph, ThreadRead("t"))
        counts = Counts(monkeypatch)
        again = read_thread(checkpointer, graph, ThreadRead("t"))
    assert not counts.checkpoints, "the same thread again: nothing decoded"
    assert tables_json(again) == tables_json(first)
    graph.invoke({"messages": [("user", "more")], "stop": 14}, config)  # the conversation goes on
    new = len(list(backend.saver.list(config))) - len(first.steps)
    with open_checkpointer(backend.url) as checkpointer:
        counts.checkpoints.clear()
        grown = read_thread(checkpointer, graph, ThreadRead("t"))
        assert len(counts.checkpoints) == new + 1, "the new checkpoints and the one they follow"
        monkeypatch.setenv("STEPSCOPE_THREAD_CACHE", "off")
        rebuilt = read_thread(checkpointer, graph, ThreadRead("t"))
    assert len(counts.checkpoints) > new + 1
    assert tables_json(grown) == tables_json(rebuilt), "spliced from the cache = rebuilt from the start"
    assert grown.status == "done" and grown.steps[-1].step == rebuilt.steps[-1].step


def tables_json(trace) -> dict:
    """The trace as stored, without how long reading it took."""
    from engine.tracefile import to_dict

    data = to_dict(trace)
    data.pop("duration", None)
    return data
