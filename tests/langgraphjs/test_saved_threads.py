"""A `MemorySaver` thread of a LangGraph.js app outlives the node process (`saved_thread.mjs`):
`stepscope run app.mjs:graph --thread T` saves it beside the run store, and `--thread T --resume VALUE`
from a later process answers the interrupt it stopped at, with the real @langchain/langgraph."""

from __future__ import annotations

import json

import pytest

from debugger.cli import main
from debugger.runtimes.capabilities import Threads
from debugger.runtimes.langgraphjs.runtime import LANGGRAPHJS, describe
from debugger.runtimes.runtime import RunRequest
from debugger.sources import runs as sources
from debugger.stores.opening import thread_runs
from debugger.stores.sqlite import RunStore

from .conftest import app

pytestmark = pytest.mark.slow


def test_an_interrupt_is_answered_from_a_later_process(langgraph_js, tmp_path, capsys) -> None:
    db = tmp_path / "runs.sqlite3"
    target = f"{app('interrupt_ask.mjs')}:graph"
    assert main(["run", target, "--thread", "t1", "--db", str(db)]) == 0
    first = capsys.readouterr().out
    assert "status: interrupted" in first and "--resume" in first, first  # it says how to answer
    saved = list((tmp_path / "langgraph-threads").glob("*-t1.json"))
    assert len(saved) == 1 and json.loads(saved[0].read_text())["thread_id"] == "t1"
    assert main(["run", target, "--thread", "t1", "--resume", '"yes"', "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "status: done" in out and "'answer': 'yes'" in out, out
    runs = sorted(RunStore(db).list(), key=lambda r: r.started_at)
    assert [r.status for r in runs] == ["interrupted", "done"]


def test_another_thread_does_not_see_it_and_a_broken_file_is_one_line(langgraph_js, tmp_path, capsys) -> None:
    db = tmp_path / "runs.sqlite3"
    target = f"{app('interrupt_ask.mjs')}:graph"
    main(["run", target, "--thread", "t1", "--db", str(db)])
    capsys.readouterr()
    main(["run", target, "--thread", "other", "--resume", '"yes"', "--db", str(db)])
    assert "'answer': 'yes'" not in capsys.readouterr().out  # nothing to resume on a fresh thread
    saved = next((tmp_path / "langgraph-threads").glob("*-t1.json"))
    saved.write_text("{not json")
    assert main(["run", target, "--thread", "t1", "--resume", '"yes"', "--db", str(db)]) == 2
    err = capsys.readouterr().err.strip()
    assert "cannot read the saved thread t1" in err and "Delete the file" in err and "\n" not in err


def test_the_thread_panels_answer_continues_the_thread_and_lists_its_turns(langgraph_js, tmp_path, monkeypatch) -> None:
    """What the app's thread panel (`views/threads.py`) does on a LangGraph.js run: the answer continues
    the thread as a new stored run (`sources.answer_interrupt`), and both runs are the thread's turns."""
    monkeypatch.setenv("STEPSCOPE_DB", str(tmp_path / "runs.sqlite3"))
    graph = describe(app("interrupt_ask.mjs"), "graph")
    target = f"{app('interrupt_ask.mjs')}:graph"
    first = LANGGRAPHJS.record(RunRequest(graph, {}, {}, target, thread="t2")).trace
    assert first.status == "interrupted" and first.thread_id == "t2" and Threads in LANGGRAPHJS.capabilities
    RunStore(str(tmp_path / "runs.sqlite3")).save(first)
    answered = sources.answer_interrupt(first, graph, "yes", config={}, db=None, timeout=60)
    assert answered.status == "done" and answered.output == {"question": "Refund order 17?", "answer": "yes"}
    assert [turn.status for turn in thread_runs("t2", target)] == ["interrupted", "done"]


@pytest.mark.parametrize("name", ["interrupt_ask.mjs", "interrupt_subgraph.mjs"])
def test_configurable_thread_id_is_the_thread_resume_answers(langgraph_js, tmp_path, capsys, name) -> None:
    """As in LangGraph.js, the thread is the config's `configurable.thread_id` (issue 41, item 1): the pause
    (in a node, or in a compiled subgraph) is kept and `--resume` with the same `--config` answers it;
    `--thread` is its short form."""
    db, target = str(tmp_path / "runs.sqlite3"), f"{app(name)}:graph"
    config = '{"configurable": {"thread_id": "t-1"}}'
    assert main(["run", target, "--config", config, "--db", db]) == 0
    first = capsys.readouterr().out
    assert "thread: t-1\n" in first and "--thread t-1 --resume ANSWER" in first and "no checkpointer" not in first
    assert main(["run", target, "--resume", '"yes"', "--config", config, "--db", db]) == 0
    out = capsys.readouterr().out
    assert "status: done" in out and "'answer': 'yes'" in out, out
    assert main(["run", target, "--resume", '"yes"', "--config", config, "--thread", "t-2", "--db", db]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'t-2'" in err and "'t-1'" in err, err


def test_an_app_with_a_memory_saver_and_no_thread_gets_a_new_one(langgraph_js, tmp_path, capsys) -> None:
    """LangGraph.js itself refuses a checkpointer without a thread_id; StepScope gives the run a fresh thread,
    as it does a langgraph app, and says so, and the saver it found is named, never guessed."""
    db, target = str(tmp_path / "runs.sqlite3"), f"{app('interrupt_ask.mjs')}:graph"
    assert LANGGRAPHJS.checkpointer_class(describe(app("interrupt_ask.mjs"), "graph")) == "MemorySaver"
    assert LANGGRAPHJS.checkpointer_class(describe(app("values.mjs"), "graph")) is None
    assert main(["run", target, "--db", db]) == 0
    out = capsys.readouterr().out
    thread = out.split("thread: ", 1)[1].split(" ", 1)[0]
    assert f"(new; continue it with --thread {thread})" in out and "status: interrupted" in out, out
    assert main(["run", target, "--thread", thread, "--resume", '"no"', "--db", db]) == 0
    assert "'answer': 'no'" in capsys.readouterr().out
    assert main(["run", target, "--resume", '"no"', "--db", db]) == 2
    assert "configurable.thread_id in --config" in capsys.readouterr().err
    plain = f"{app('values.mjs')}:graph"  # compiled without one: refused before node runs, as for a langgraph app
    assert main(["run", plain, "--thread", "x", "--resume", '"no"', "--db", db]) == 2
    err = capsys.readouterr().err
    assert "values.mjs:graph was compiled without a checkpointer" in err and "new MemorySaver()" in err, err
    assert err.count("\n") == 1


def test_an_app_without_a_saver_runs_on_a_checkpointer_file_and_resumes_there(langgraph_js, tmp_path, capsys) -> None:
    """`--checkpointer FILE` (issue 41, item 1): a LangGraph.js app compiled without a saver runs on
    LangGraph.js's own SqliteSaver of FILE, `--resume` with the same file answers it from a later node process,
    and `stepscope threads` lists the thread; an app with a saver of its own is refused by what was found."""
    db, saver = str(tmp_path / "runs.sqlite3"), str(tmp_path / "threads.sqlite")
    target = f"{app('ask_no_saver.mjs')}:graph"
    assert main(["run", target, "--checkpointer", saver, "--db", db]) == 0
    first = capsys.readouterr().out
    thread = first.split("thread: ", 1)[1].split(" ", 1)[0]
    assert f"--thread {thread} --resume ANSWER --checkpointer {saver}" in first, first
    assert not (tmp_path / "langgraph-threads").exists(), "the thread is in the checkpointer, not in a file of ours"
    assert main(["run", target, "--thread", thread, "--resume", '"yes"', "--checkpointer", saver, "--db", db]) == 0
    assert "'answer': 'yes'" in capsys.readouterr().out
    assert main(["threads", "--checkpointer", saver]) == 0
    assert thread in capsys.readouterr().out
    own = f"{app('interrupt_ask.mjs')}:graph"
    assert main(["run", own, "--checkpointer", saver, "--db", db]) == 2
    assert "compiled with its own checkpointer (MemorySaver)" in capsys.readouterr().err
