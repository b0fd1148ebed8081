"""Runs are kept however they end, and the command line answers every hostile case in one line
(issue 14, parts 4 and 6): Ctrl-C, a timeout, a node that raises, an error before the first step,
sys.exit at import, an unknown channel, escape codes in a trace, a pipe closed early."""

import contextlib
import io
import json
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from debugger.sources.trace_check import read_trace_file
from debugger.stores.sqlite import RunStore

ROOT = Path(__file__).resolve().parents[1]

SLOW = """
import time, operator
from typing import TypedDict, Annotated
from engine import StateGraph, START
class S(TypedDict):
    n: Annotated[list, operator.add]
def tick(state):
    time.sleep(0.2)
    return {"n": [len(state["n"])]}
g = StateGraph(S)
g.add_node("tick", tick)
g.add_edge(START, "tick")
g.add_conditional_edges("tick", lambda s: "tick")
graph = g.compile()
example_input = {"n": []}
"""

RAISES = """
from typing import TypedDict
from engine import StateGraph, START
class S(TypedDict):
    v: int
def fine(state):
    return {"v": 1}
def broken(state):
    raise KeyError("no such customer")
g = StateGraph(S)
g.add_node("fine", fine)
g.add_node("broken", broken)
g.add_edge(START, "fine")
g.add_edge("fine", "broken")
graph = g.compile()
example_input = {"v": 0}
"""


def cli(*args, db, env=None, **kw):
    import os

    return subprocess.run(
        [sys.executable, "-m", "debugger.cli", *args, "--db", str(db)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
        env={**os.environ, **(env or {})},
        **kw,
    )


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def only_run(db):
    runs = RunStore(db).list()
    assert len(runs) == 1
    return runs[0], RunStore(db).load(runs[0].run_id)


@pytest.mark.slow  # runs `stepscope` in a process of its own
def test_ctrl_c_keeps_the_partial_run_and_says_how_to_reopen_it(tmp_path):
    db = tmp_path / "runs.sqlite3"
    ticks = tmp_path / "ticks"
    slow = write(
        tmp_path, "slow.py", SLOW.replace("time.sleep(0.2)", f"open({str(ticks)!r}, 'a').write('.'); time.sleep(0.2)")
    )
    proc = subprocess.Popen(
        [sys.executable, "-m", "debugger.cli", "run", str(slow), "--db", str(db)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline and not (ticks.exists() and len(ticks.read_text()) >= 3):
        time.sleep(0.1)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert "Traceback" not in err and "KeyboardInterrupt" not in err
    summary, trace = only_run(db)
    assert summary.status == trace.status == "cancelled"
    assert "Ctrl-C" in trace.error["message"] and len([s for s in trace.steps if s.step >= 1]) >= 2
    assert f"reopen: stepscope show {trace.run_id[:12]}" in out


@pytest.mark.slow  # runs `stepscope` in a process of its own
def test_timeout_flag_and_environment_keep_what_was_recorded(tmp_path):
    db = tmp_path / "runs.sqlite3"
    slow = write(tmp_path, "slow.py", SLOW)
    out = tmp_path / "slow.json"
    result = cli("run", str(slow), "--timeout", "1", "--out", str(out), db=db)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "did not finish within 1 s" in result.stderr and "status: timeout" in result.stdout
    assert read_trace_file(out).status == "timeout"
    env = cli("run", str(slow), db=db, env={"STEPSCOPE_RUN_TIMEOUT": "0.8"})
    assert "did not finish within 0.8 s" in env.stderr
    assert sorted(r.status for r in RunStore(db).list()) == ["timeout", "timeout"]
    bad = cli("run", str(slow), db=db, env={"STEPSCOPE_RUN_TIMEOUT": "soon"})
    assert bad.returncode == 2 and "STEPSCOPE_RUN_TIMEOUT='soon' is not a number" in bad.stderr


@pytest.mark.slow  # runs `stepscope` in a process of its own
def test_a_node_that_raises_is_stored_with_the_steps_before_it(tmp_path):
    db = tmp_path / "runs.sqlite3"
    result = cli("run", str(write(tmp_path, "raises.py", RAISES)), db=db)
    assert result.returncode == 1 and "KeyError: 'no such customer'" in result.stderr
    summary, trace = only_run(db)
    assert summary.status == "error" and "no such customer" in summary.error
    assert [t.name for s in trace.steps for t in s.tasks] == ["__start__", "fine", "broken"]


@pytest.mark.slow  # runs `stepscope` in a process of its own
def test_an_error_before_the_first_step_is_stored_with_its_real_message(tmp_path):
    db = tmp_path / "runs.sqlite3"
    # the flag refuses 0 itself (tests/test_newcomer_cli.py); the config reaches the engine as it is
    result = cli("run", "subgraph_trap", "--config", '{"recursion_limit": 0}', db=db)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert "recursion_limit must be at least 1" in result.stderr and "NoneType" not in result.stderr
    summary, trace = only_run(db)
    assert summary.status == "error" and trace.steps == [] and trace.graph["name"]
    assert "reopen: stepscope show" in result.stdout
    show = cli("show", summary.run_id, db=db)
    assert show.returncode == 0 and "recursion_limit must be at least 1" in show.stdout


@pytest.mark.slow  # runs `stepscope` in a process of its own
def test_sys_exit_at_import_gets_a_message(tmp_path):
    result = cli("run", str(write(tmp_path, "script.py", "import sys\nsys.exit(3)\n")), db=tmp_path / "db")
    assert result.returncode == 2
    assert "called sys.exit(3) while being imported" in result.stderr and 'if __name__ == "__main__":' in result.stderr


@pytest.mark.slow  # runs `stepscope` in a process of its own
def test_show_with_an_unknown_channel_says_so(tmp_path):
    db = tmp_path / "runs.sqlite3"
    out = tmp_path / "t.json"
    assert cli("run", "subgraph_trap", "--out", str(out), db=db).returncode == 0
    result = cli("show", str(out), "--channel", "nosuchkey", db=db)
    assert result.returncode == 2 and "no state key 'nosuchkey'; its keys are: log" in result.stderr


@pytest.mark.slow  # runs `stepscope` in a process of its own
def test_the_store_is_checked_before_the_run_and_out_is_written_when_saving_fails(tmp_path):
    not_a_db = write(tmp_path, "x.sqlite3", "not sqlite " * 500)
    marker = tmp_path / "ran"
    graph = write(
        tmp_path, "g.py", SLOW.replace("time.sleep(0.2)", f"open({str(marker)!r}, 'w').close(); time.sleep(0.2)")
    )
    result = cli("run", str(graph), "--timeout", "5", db=not_a_db)
    assert result.returncode == 2 and "not an SQLite database" in result.stderr
    assert not marker.exists()  # refused before the graph ran: nothing lost

    from debugger import cli as cli_module
    from debugger.commands import run as run_command
    from debugger.stores.protocol import StoreError

    class FailsMidRun(RunStore):
        calls = 0

        def append_steps(self, run_id, steps):
            # The run was started in the store; its steps come in batches (a 3-step run in one), and
            # the disk fills when the first batch is written.
            FailsMidRun.calls += 1
            raise StoreError("disk full")

    out = tmp_path / "kept.json"
    original = run_command.open_store
    run_command.open_store = FailsMidRun
    err = io.StringIO()
    try:
        with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
            code = cli_module.main(["run", "parallel_append_race", "--out", str(out), "--db", str(tmp_path / "d")])
    finally:
        run_command.open_store = original
    assert code == 3 and "is not stored whole: disk full" in err.getvalue()
    assert f"stepscope import {out} --replace --db {tmp_path / 'd'}" in err.getvalue()
    whole = read_trace_file(out)
    expected = cli("run", "parallel_append_race", "--out", str(tmp_path / "ref.json"), db=tmp_path / "ref.sqlite3")
    assert expected.returncode == 0
    assert [s.step for s in whole.steps] == [s.step for s in read_trace_file(tmp_path / "ref.json").steps]
    assert whole.status == "done" and len(whole.steps) == 3


@pytest.mark.slow  # runs `stepscope` in a process of its own
def test_terminal_output_never_carries_control_characters_from_a_trace(tmp_path):
    db = tmp_path / "runs.sqlite3"
    out = tmp_path / "t.json"
    assert cli("run", "subgraph_trap", "--out", str(out), db=db).returncode == 0
    data = json.loads(out.read_text())
    data["run_id"] = "evil\x1b]0;pwned\x07id"
    data["error"] = {"$type": "error", "class": "E\x1b[2J", "message": "clear\x1b[2Jscreen\r\x9b31m", "notes": []}
    data["status"] = "error"
    evil = tmp_path / "evil.json"
    evil.write_text(json.dumps(data))
    shown = cli("show", str(evil), db=db)
    assert shown.returncode == 0
    assert not any(ch in shown.stdout for ch in "\x1b\x07\r\x9b")
    assert "\\x1b[2J" in shown.stdout
    assert cli("import", str(evil), db=db).returncode == 0
    listed = cli("runs", db=db)
    assert "\x1b" not in listed.stdout and "\\x1b" in listed.stdout


@pytest.mark.slow  # runs `stepscope` in a process of its own
def test_a_pipe_closed_early_ends_quietly(tmp_path):
    from engine.trace import Recorder
    from engine.tracefile import to_json

    graph = {}
    exec(compile(SLOW.replace("time.sleep(0.2)", "pass"), "slow", "exec"), graph)
    recorder = Recorder()
    try:
        graph["graph"].invoke({"n": []}, {"recursion_limit": 600}, hooks=recorder)
    except Exception:  # the loop ends at the recursion limit: a long trace is what we want
        pass
    long_trace = tmp_path / "long.json"
    long_trace.write_text(to_json(recorder.trace))
    for command in (f"show {long_trace}", "samples"):
        result = subprocess.run(
            f"{sys.executable} -m debugger.cli {command} --db {tmp_path / 'db'} | head -n 1",
            shell=True,
            cwd=ROOT,
            capture_output=True,
            text=True,
            timeout=60,
        )
        assert result.stdout.count("\n") == 1 and result.stderr == "", (command, result.stderr)


def test_main_survives_a_closed_stdout(monkeypatch, capsys):
    from debugger import cli as cli_module

    class Closed:
        def write(self, text):
            raise BrokenPipeError(32, "Broken pipe")

        def flush(self):
            raise BrokenPipeError(32, "Broken pipe")

        def fileno(self):
            raise ValueError("not a file")

    monkeypatch.setattr(sys, "stdout", Closed())
    assert cli_module.main(["samples"]) == 0


HANGS = """
import time
from typing import TypedDict
from engine import StateGraph, START
class S(TypedDict):
    n: int
def wait(state):
    time.sleep(30)
    return {"n": 1}
g = StateGraph(S)
g.add_node("wait", wait)
g.add_edge(START, "wait")
graph = g.compile()
"""


LOOPS = """
import time
from typing import TypedDict
from engine import StateGraph, START, END
class S(TypedDict):
    n: int
def tick(state):
    time.sleep(0.2)
    return {"n": state["n"] + 1}
g = StateGraph(S)
g.add_node("tick", tick)
g.add_edge(START, "tick")
g.add_conditional_edges("tick", lambda s: "tick" if s["n"] < 100 else END)
graph = g.compile()
"""


@pytest.mark.slow  # runs `stepscope` in a process of its own
def test_follow_ends_a_run_of_short_steps_at_its_timeout_and_keeps_the_steps_committed(tmp_path):
    """--timeout limits the whole followed run, as it does without --follow: no single step is slow here,
    so the live run's per-step limit would never stop it."""
    loops = write(tmp_path, "loops.py", LOOPS)
    db = tmp_path / "runs.sqlite3"
    said = cli(
        "run", str(loops), "--follow", "--timeout", "1.5", "--input", '{"n": 0}', "--recursion-limit", "200", db=db
    )
    assert said.returncode == 1, said.stderr
    assert "error: The run did not finish within 1.5 s (--timeout or STEPSCOPE_RUN_TIMEOUT); stopped " in said.stderr, (
        said.stderr
    )
    assert "status: timeout" in said.stdout
    stored = RunStore(db).load(RunStore(db).list()[0].run_id)
    assert 2 <= len([s for s in stored.steps if s.step >= 0 and s.committed]) < 20


@pytest.mark.slow  # runs `stepscope` in a process of its own
def test_follow_says_why_the_live_run_stopped_in_the_language_asked(tmp_path):
    hangs = write(tmp_path, "hangs.py", HANGS)
    said = cli(
        "run", str(hangs), "--follow", "--lang", "zh", db=tmp_path / "runs.sqlite3", env={"STEPSCOPE_RUN_TIMEOUT": "1"}
    )
    assert said.returncode == 1 and "status: timeout" in said.stdout
    # the Live run page's sentence, word for word (debugger/live/ending.py), where the CLI printed its English
    assert "error: 这一步没有在 1 秒内完成；已在第 1 步进行中（仍在运行：wait）停止。" in said.stderr, said.stderr
    assert "did not finish" not in said.stderr
