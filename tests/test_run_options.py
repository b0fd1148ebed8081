"""One set of options makes a run (issue 41, item 1): `run` and `diagnose` take the same ones, defined once
(`debugger/runtimes/run_options.py`); the thread is the config's `configurable.thread_id`, `--thread` its short
form, and both given and different is one line; the app's Graph file form reads its fields the same way."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

import pytest

from debugger.cli import build_parser, main
from debugger.commands.run import _print_interrupts
from debugger.runtimes.langgraphjs.runtime import LANGGRAPHJS
from debugger.runtimes.registry import ENGINE, LANGGRAPH
from debugger.runtimes.run_options import RUN_OPTIONS
from debugger.runtimes.runtime import RunSetupError, TargetError, run_thread
from debugger.sources import runs as sources
from debugger.stores.sqlite import RunStore
from engine.trace import Trace
from tests.approval_app import APPROVAL, APPROVAL_NO_SAVER

LOOP = """
import operator, time
from typing import Annotated, TypedDict
from engine import START, StateGraph

class S(TypedDict):
    n: Annotated[list, operator.add]

def tick(state):
    time.sleep(SLEEP)
    return {"n": [len(state["n"])]}

g = StateGraph(S)
g.add_node("tick", tick)
g.add_edge(START, "tick")
g.add_conditional_edges("tick", lambda s: "tick" if len(s["n"]) < 6 else "__end__")
graph = g.compile()
example_input = {"n": []}
"""


def _flags(command: str) -> set[str]:
    parser = build_parser(command)
    sub = next(a for a in parser._actions if a.dest == "command").choices[command]
    return {flag for action in sub._actions for flag in action.option_strings}


def _diagnosed(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, dict]:
    code = main(["diagnose", *args, "--json"])
    return code, json.loads(capsys.readouterr().out)


def _loop(tmp_path: Path, sleep: float = 0.0) -> str:
    path = tmp_path / "loop.py"
    path.write_text(LOOP.replace("SLEEP", repr(sleep)), encoding="utf-8")
    return str(path)


def test_run_and_diagnose_take_every_option_of_the_one_definition() -> None:
    expected = {"--" + option.name.replace("_", "-") for option in RUN_OPTIONS}
    assert expected == {
        "--input",
        "--config",
        "--thread",
        "--context",
        "--resume",
        "--recursion-limit",
        "--timeout",
        "--checkpointer",
    }
    assert expected <= _flags("run") and expected <= _flags("diagnose")


def test_diagnose_passes_the_recursion_limit_to_the_run(tmp_path, capsys) -> None:
    target, db = _loop(tmp_path), str(tmp_path / "runs.sqlite3")
    code, whole = _diagnosed(capsys, target, "--db", db)
    assert whole["status"] == "done", whole
    code, limited = _diagnosed(capsys, target, "--recursion-limit", "3", "--db", db)
    assert limited["status"] == "recursion_limit", limited
    code, enough = _diagnosed(capsys, target, "--recursion-limit", "10", "--db", db)  # 6 ticks fit in 10
    assert enough["status"] == "done", enough


def test_diagnose_passes_the_timeout_to_the_run(tmp_path, capsys) -> None:
    target, db = _loop(tmp_path, sleep=0.4), str(tmp_path / "runs.sqlite3")
    code, timed = _diagnosed(capsys, target, "--timeout", "0.5", "--db", db)
    assert timed["status"] == "timeout", timed
    assert main(["diagnose", target, "--timeout", "0", "--db", db]) == 2
    err = capsys.readouterr().err.strip()
    assert err == "error: --timeout must be a positive number of seconds, not 0.0."


def test_compare_runs_both_graph_targets_with_the_shared_options(tmp_path, capsys) -> None:
    target, db = _loop(tmp_path), str(tmp_path / "runs.sqlite3")
    assert main(["compare", target, target, "--json", "--db", db]) == 0
    whole = json.loads(capsys.readouterr().out)
    assert (whole["a"]["status"], whole["b"]["status"]) == ("done", "done")
    assert main(["compare", target, target, "--recursion-limit", "3", "--json", "--db", db]) == 0
    limited = json.loads(capsys.readouterr().out)
    assert (limited["a"]["status"], limited["b"]["status"]) == ("recursion_limit", "recursion_limit")
    assert main(["compare", target, target, "--config", '{"recursion_limit": 2}', "--json", "--db", db]) == 0
    assert json.loads(capsys.readouterr().out)["a"]["status"] == "recursion_limit"


def test_an_engine_graph_takes_a_config_and_still_refuses_a_thread(tmp_path, capsys) -> None:
    db = str(tmp_path / "runs.sqlite3")
    assert main(["run", _loop(tmp_path), "--config", '{"recursion_limit": 2}', "--db", db]) == 1
    store = RunStore(db)
    assert store.load(store.list()[0].run_id).recursion_limit == 2
    capsys.readouterr()
    assert main(["run", _loop(tmp_path), "--thread", "t-1", "--db", db]) == 2
    assert "--thread: only for langgraph apps" in capsys.readouterr().err


def test_langgraph_app_runs_on_a_checkpointer_file_and_resumes_there(tmp_path, capsys) -> None:
    """`run --checkpointer FILE`: an app compiled without a saver keeps its thread in FILE, `--resume` with the
    same file continues it, and `stepscope threads` lists it (issue 41, item 1)."""
    pytest.importorskip("langgraph.checkpoint.sqlite")
    app = tmp_path / "approve.py"
    app.write_text(APPROVAL_NO_SAVER, encoding="utf-8")
    saver, db = str(tmp_path / "threads.sqlite"), str(tmp_path / "runs.sqlite3")
    assert main(["run", str(app), "--checkpointer", saver, "--db", db]) == 0
    first = capsys.readouterr().out
    thread = first.split("thread: ")[1].split()[0]
    assert f"--thread {thread} --resume ANSWER --checkpointer {saver}" in first, first
    assert main(["run", str(app), "--thread", thread, "--resume", "yes", "--checkpointer", saver, "--db", db]) == 0
    assert "'decision': 'yes'" in capsys.readouterr().out
    assert main(["threads", "--checkpointer", saver]) == 0
    listed = capsys.readouterr().out
    assert thread in listed and " done" in listed, listed


def test_a_checkpointer_that_is_not_one_is_refused_in_one_line_and_left_alone(tmp_path, capsys) -> None:
    pytest.importorskip("langgraph.checkpoint.sqlite")
    app = tmp_path / "approve.py"
    app.write_text(APPROVAL_NO_SAVER, encoding="utf-8")
    db = tmp_path / "other-runs.sqlite3"  # a run database: a SQLite file of another kind
    assert main(["run", _loop(tmp_path), "--db", str(db)]) == 0
    text = tmp_path / "notes.txt"
    text.write_text("not a database", encoding="utf-8")
    before = {path: path.read_bytes() for path in (db, text)}
    capsys.readouterr()
    for given, found in [
        (text, "is not a SQLite database"),
        (db, "is not a langgraph SqliteSaver database"),
        (tmp_path / "no" / "x.sqlite", "does not exist"),
        ("postgresql://u:secret@127.0.0.1:1/db", "cannot connect to postgresql://u:***@127.0.0.1:1/db"),
    ]:
        assert main(["run", str(app), "--checkpointer", str(given), "--db", str(tmp_path / "runs.sqlite3")]) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and found in err and "secret" not in err, err
    assert {path: path.read_bytes() for path in (db, text)} == before
    (tmp_path / "own.py").write_text(APPROVAL, encoding="utf-8")
    assert main(["run", str(tmp_path / "own.py"), "--checkpointer", str(tmp_path / "x.sqlite")]) == 2
    assert "compiled with its own checkpointer (InMemorySaver)" in capsys.readouterr().err
    assert main(["run", _loop(tmp_path), "--checkpointer", str(tmp_path / "x.sqlite")]) == 2
    assert "--checkpointer: only for langgraph apps" in capsys.readouterr().err
    assert not (tmp_path / "x.sqlite").exists()


def test_the_thread_is_configurable_thread_id_and_thread_is_its_short_form() -> None:
    config = {"configurable": {"thread_id": "t-1"}}
    assert run_thread(config, None) == "t-1"
    assert run_thread({}, "t-2") == "t-2"
    assert run_thread(config, "t-1") == "t-1"
    assert run_thread({"configurable": {"thread_id": ""}}, None) is None
    with pytest.raises(RunSetupError) as refused:
        run_thread(config, "t-2")
    assert str(refused.value) == (
        "--thread 't-2' and configurable.thread_id 't-1' in --config name two threads: "
        "give one of them, or the same id in both."
    )


@pytest.mark.parametrize("command", ["run", "diagnose"])
def test_two_different_threads_are_one_line_naming_both(tmp_path, capsys, command) -> None:
    pytest.importorskip("langgraph")
    (tmp_path / "approve.py").write_text(APPROVAL, encoding="utf-8")
    config = '{"configurable": {"thread_id": "t-1"}}'
    args = [command, str(tmp_path / "approve.py"), "--config", config, "--thread", "t-2"]
    assert main([*args, "--db", str(tmp_path / "runs.sqlite3")]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "'t-2'" in err and "'t-1'" in err, err


def test_configurable_thread_id_is_the_thread_resume_answers_on_a_python_app(tmp_path, capsys) -> None:
    pytest.importorskip("langgraph")
    (tmp_path / "approve.py").write_text(APPROVAL, encoding="utf-8")
    target, db = str(tmp_path / "approve.py"), str(tmp_path / "runs.sqlite3")
    config = '{"configurable": {"thread_id": "t-1"}}'
    assert main(["run", target, "--config", config, "--db", db]) == 0
    first = capsys.readouterr().out
    assert "thread: t-1\n" in first and "--thread t-1 --resume ANSWER" in first, first
    assert main(["run", target, "--resume", "yes", "--config", config, "--db", db]) == 0
    answered = capsys.readouterr().out
    assert "status: done" in answered and "'decision': 'yes'" in answered, answered


def test_the_graph_file_form_reads_its_thread_and_config_as_the_command_line_does(tmp_path) -> None:
    pytest.importorskip("langgraph")
    (tmp_path / "approve.py").write_text(APPROVAL, encoding="utf-8")
    target, db = str(tmp_path / "approve.py"), str(tmp_path / "runs.sqlite3")
    config = '{"configurable": {"thread_id": "t-1"}}'
    opened = sources.open_target(target, "", db=db, config_json=config, thread="")
    assert opened.trace.thread_id == "t-1" and opened.trace.status == "interrupted"
    with pytest.raises(sources.OpenError) as refused:
        sources.open_target(target, "", db=db, config_json=config, thread="t-2")
    assert str(refused.value) == (
        "The thread 't-2' and configurable.thread_id 't-1' in the config name two threads: "
        "give one of them, or the same id in both."
    )
    with pytest.raises(sources.OpenError, match=r"^The config must be a JSON object"):
        sources.open_target(target, "", db=db, config_json="[1]")
    with pytest.raises(sources.OpenError, match=r"^The config is not valid JSON \(line 1, column 2\)"):
        sources.open_target(target, "", db=db, config_json="{oops")


def test_a_langgraphjs_app_refuses_context_by_name() -> None:
    with pytest.raises(
        TargetError, match="^--context: not for app.mjs:graph, a LangGraph.js app: give its context inside"
    ):
        LANGGRAPHJS.check_run_options({"context": "--context"}, "app.mjs:graph")
    with pytest.raises(TargetError, match="^The context: not for app.mjs:graph"):  # as the app's form names it
        LANGGRAPHJS.check_run_options({"context": "The context"}, "app.mjs:graph")
    LANGGRAPHJS.check_run_options({"config": "--config", "thread": "--thread", "resume": "--resume"}, "app.mjs:graph")


def test_each_runtime_says_which_checkpointer_it_found() -> None:
    from engine import START, InMemorySaver, StateGraph

    builder = StateGraph(dict)
    builder.add_node("a", lambda state: {})
    builder.add_edge(START, "a")
    assert ENGINE.checkpointer_class(builder.compile(checkpointer=InMemorySaver())) == "InMemorySaver"
    assert ENGINE.checkpointer_class(builder.compile()) is None
    pytest.importorskip("langgraph")
    from langgraph.checkpoint.memory import InMemorySaver as LangGraphSaver
    from langgraph.graph import StateGraph as LangGraphBuilder

    other = LangGraphBuilder(dict)
    other.add_node("a", lambda state: {})
    other.add_edge("__start__", "a")
    assert LANGGRAPH.checkpointer_class(other.compile(checkpointer=LangGraphSaver())) == "InMemorySaver"
    assert LANGGRAPH.checkpointer_class(other.compile()) is None


def test_an_unanswerable_interrupt_says_the_checkpointer_found(capsys) -> None:
    trace = Trace("", {}, {}, {}, interrupts=[{"node": "ask", "value": {"q": 1}}], status="interrupted")
    args = argparse.Namespace(target="app.mjs:graph", db=None)
    _print_interrupts(args, trace, "", None)
    assert "app.mjs:graph has no checkpointer" in capsys.readouterr().out
    _print_interrupts(args, trace, "", "MemorySaver")
    out = capsys.readouterr().out
    assert "has a checkpointer of class MemorySaver" in out and "no checkpointer" not in out, out


def test_the_app_says_why_an_interrupt_without_a_thread_cannot_be_answered_from_what_it_found() -> None:
    pytest.importorskip("langgraph")
    from langgraph.checkpoint.memory import InMemorySaver as LangGraphSaver
    from langgraph.graph import StateGraph as LangGraphBuilder

    builder = LangGraphBuilder(dict)
    builder.add_node("a", lambda state: {})
    builder.add_edge("__start__", "a")
    trace = Trace("", {"source": "langgraph"}, {}, {}, interrupts=[{"node": "a", "value": 1}], status="interrupted")
    assert sources.no_thread_why(trace, None) == "This run went on no thread, so there is none to continue."
    assert "compiled without a checkpointer" in sources.no_thread_why(trace, builder.compile())
    found = sources.no_thread_why(trace, builder.compile(checkpointer=LangGraphSaver()))
    assert found.startswith("The graph has a checkpointer (InMemorySaver), but this run went on no thread"), found
    with pytest.raises(sources.OpenError, match="compiled without a checkpointer"):
        sources.answer_interrupt(trace, builder.compile(), "yes", config={}, db=None, timeout=5)
