"""A damaged checkpoint is named, not a traceback (issue 25, 5): one corrupt blob in a SqliteSaver file
(langgraph's `loads_typed` raises on it) leaves the thread list whole, with that thread marked
damaged, and the thread opens with that checkpoint as a damaged step, the rest readable. A corrupt
write blob that decodes to 0 (which the list reducer refuses) is damaged data, never the app's bug."""

from __future__ import annotations

import sqlite3

import pytest
from apps import drive, fan_out_app

from debugger.cli import main
from debugger.diagnostics import diagnose
from debugger.runtimes.checkpointers.savers import open_checkpointer
from debugger.runtimes.langgraph.threads.reader import read_thread
from debugger.runtimes.threads_api import ThreadRead


@pytest.fixture
def damaged_file(tmp_path):
    """Two threads; the newest checkpoint of thread `bad` cut to its first bytes."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    path = tmp_path / "app.sqlite"
    conn = sqlite3.connect(path, check_same_thread=False)
    saver = SqliteSaver(conn)
    saver.setup()
    graph, _ = fan_out_app(saver, "good")
    drive(graph, [{"topic": "x"}], "bad")
    conn.execute(
        "UPDATE checkpoints SET checkpoint = substr(checkpoint, 1, 7) WHERE thread_id = 'bad' AND checkpoint_id = "
        "(SELECT MAX(checkpoint_id) FROM checkpoints WHERE thread_id = 'bad' AND checkpoint_ns = '')"
    )
    conn.commit()
    conn.close()
    return path, graph


def test_a_damaged_checkpoint_leaves_the_thread_list_whole(damaged_file, capsys):
    path, _ = damaged_file
    with open_checkpointer(str(path)) as checkpointer:
        listed = {t.thread_id: t.status for t in checkpointer.threads()}
    assert listed["good"] == "done"
    assert listed["bad"].startswith("damaged checkpoint: "), listed
    assert main(["threads", "--checkpointer", str(path)]) == 0
    out = capsys.readouterr().out
    assert "good" in out and "damaged checkpoint" in out


def _damaged_steps(trace):
    return [(s.step, m["damaged"]) for s in trace.steps for m in s.mismatches if m.get("damaged")]


def test_the_damaged_newest_checkpoint_is_a_damaged_step_and_the_rest_reads(damaged_file):
    path, graph = damaged_file
    with open_checkpointer(str(path)) as checkpointer:
        trace = read_thread(checkpointer, graph, ThreadRead("bad"))
        good = read_thread(checkpointer, graph, ThreadRead("good"))
    assert good.status == "done", "the other threads still open"
    damaged = _damaged_steps(trace)
    assert len(damaged) == 1 and "is damaged data, not an app bug" in damaged[0][1], damaged
    assert damaged[0][0] == trace.steps[-1].step, "the newest checkpoint is the damaged one"
    readable = [s for s in trace.steps if not s.mismatches]
    assert [s.step for s in trace.steps] == list(range(-1, trace.steps[-1].step + 1)), "every step before it is there"
    assert len(readable) == len(trace.steps) - 1
    assert sum(len(s.reducer_calls) for s in readable) > 0
    assert trace.status == "running" and trace.error["class"] == "DamagedData", "its end is not known, not failed"
    assert trace.error["message"].startswith(f"Cut off at step {damaged[0][0]}: its checkpoint ")
    findings = diagnose(None, trace)
    assert [f.kind for f in findings if f.severity == "error"] == ["damaged_data"], findings


def test_a_damaged_checkpoint_in_the_middle_leaves_the_steps_around_it(tmp_path, capsys):
    from langgraph.checkpoint.sqlite import SqliteSaver

    path = tmp_path / "app.sqlite"
    conn = sqlite3.connect(path, check_same_thread=False)
    saver = SqliteSaver(conn)
    saver.setup()
    graph, _ = fan_out_app(saver, "t")
    ids = [r[0] for r in conn.execute("SELECT checkpoint_id FROM checkpoints WHERE checkpoint_ns = '' ORDER BY 1")]
    middle = ids[len(ids) // 2]
    conn.execute("UPDATE checkpoints SET checkpoint = x'c1c1c1' WHERE checkpoint_id = ?", (middle,))
    conn.commit()
    conn.close()
    with open_checkpointer(str(path)) as checkpointer:
        trace = read_thread(checkpointer, graph, ThreadRead("t"))
    damaged = _damaged_steps(trace)
    assert len(damaged) == 1 and middle in damaged[0][1]
    assert trace.status == "done", "the thread's end is read from its newest checkpoint"
    assert any(s.step > damaged[0][0] for s in trace.steps), "steps after the damaged one are shown"
    assert main(["show", f"{_app_file(tmp_path)}:graph", "--checkpointer", str(path), "--thread", "t"]) == 2
    out, err = capsys.readouterr()
    assert "The run finished (done)." in out, "the app's ending is read from the newest checkpoint"
    assert f"step {damaged[0][0]}: cannot be replayed" in out
    _assert_one_line_naming(err, path, "t", middle)


def test_a_corrupt_write_that_decodes_to_zero_is_damaged_data_not_an_app_bug(tmp_path):
    from langgraph.checkpoint.sqlite import SqliteSaver

    path = tmp_path / "app.sqlite"
    conn = sqlite3.connect(path, check_same_thread=False)
    saver = SqliteSaver(conn)
    saver.setup()
    graph, _ = fan_out_app(saver, "t")
    changed = conn.execute(
        "UPDATE writes SET type = 'msgpack', value = x'00' WHERE channel = 'findings' AND task_id = "
        "(SELECT MIN(task_id) FROM writes WHERE channel = 'findings')"
    ).rowcount
    conn.commit()
    conn.close()
    assert changed == 1
    with open_checkpointer(str(path)) as checkpointer:
        trace = read_thread(checkpointer, graph, ThreadRead("t"))
    damaged = _damaged_steps(trace)
    assert len(damaged) == 1 and "damaged data, not an app bug" in damaged[0][1] and "0" in damaged[0][1], damaged
    assert not any(c.error for s in trace.steps for c in s.reducer_calls), "no refused merge blamed on the app"
    kinds = [f.kind for f in diagnose(None, trace) if f.severity == "error"]
    assert kinds == ["damaged_data"], kinds


def _assert_one_line_naming(err, path, thread, checkpoint_id):
    """The refusal of a damaged thread: one line naming the file, the thread, the checkpoint and the fix."""
    lines = err.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"error: the checkpointer {path} is damaged: thread {thread!r}"), err
    assert checkpoint_id in lines[0] and "delete_thread" in lines[0] and "backup" in lines[0], err


def _corrupt_root(path, thread, which, blob):
    """Overwrites the root checkpoints of `thread` at positions `which` (oldest first) with `blob`; their ids."""
    conn = sqlite3.connect(path)
    ids = [
        r[0]
        for r in conn.execute(
            "SELECT checkpoint_id FROM checkpoints WHERE thread_id = ? AND checkpoint_ns = '' ORDER BY 1", (thread,)
        )
    ]
    for i in which:
        conn.execute("UPDATE checkpoints SET checkpoint = ? WHERE checkpoint_id = ?", (blob, ids[i]))
    conn.commit()
    conn.close()
    return [ids[i] for i in which]


@pytest.fixture
def fan_file(tmp_path):
    """Thread `t` of the fan-out app, two turns, in a SqliteSaver file; and `show`'s target for it."""
    from langgraph.checkpoint.sqlite import SqliteSaver

    path = tmp_path / "app.sqlite"
    conn = sqlite3.connect(path, check_same_thread=False)
    saver = SqliteSaver(conn)
    saver.setup()
    fan_out_app(saver, "t")
    conn.close()
    return path, f"{_app_file(tmp_path)}:graph"


def _show(target, path, *more):
    return main(["show", target, "--checkpointer", str(path), "--thread", "t", *more])


@pytest.mark.parametrize("blob", [b"\xc1\xc1\xc1", b"\x00\xff\x00\xff"], ids=["undecodable", "decodes-to-0"])
def test_show_of_a_step_with_a_damaged_newest_checkpoint_is_exit_2_never_a_run_status(fan_file, capsys, blob):
    path, target = fan_file
    (newest,) = _corrupt_root(path, "t", [-1], blob)
    assert _show(target, path, "--step", "1") == 2
    out, err = capsys.readouterr()
    assert "step 1:" in out, "the step asked for still reads"
    assert "The run failed" not in out and "DamagedData" not in out, "the file failed, not the app"
    _assert_one_line_naming(err, path, "t", newest)
    assert _show(target, path) == 2
    out, err = capsys.readouterr()
    assert "status unknown: a damaged checkpoint" in out and "The run " not in out, out
    _assert_one_line_naming(err, path, "t", newest)


def test_a_thread_damaged_everywhere_is_one_line_not_an_assertion(fan_file, capsys):
    path, target = fan_file
    with sqlite3.connect(path) as conn:
        count = conn.execute(
            "SELECT COUNT(*) FROM checkpoints WHERE thread_id = 't' AND checkpoint_ns = ''"
        ).fetchone()[0]
    ids = _corrupt_root(path, "t", range(count), b"\xc1")
    for more in ([], ["--step", "1"], ["--step", "0"]):
        assert _show(target, path, *more) == 2, more
        out, err = capsys.readouterr()
        _assert_one_line_naming(err, path, "t", ids[-1])
        assert f"{count - 1} more damaged" in err


def test_a_damaged_first_checkpoint_is_named_too(fan_file, capsys):
    path, target = fan_file
    (first,) = _corrupt_root(path, "t", [0], b"\xc1")
    assert _show(target, path) == 2
    out, err = capsys.readouterr()
    assert "step -1: cannot be replayed" in out and "step 1:" in out, out
    _assert_one_line_naming(err, path, "t", first)
    assert _show(target, path, "--step", "2") == 0, "a step whose checkpoints decode is shown as it is"
    assert "The run finished (done)." in capsys.readouterr().out


def _app_file(tmp_path):
    """A module whose `graph` is the fan-out app's graph (for `show`)."""
    module = tmp_path / "fan_app.py"
    module.write_text(
        "from langgraph.checkpoint.memory import MemorySaver\nfrom apps import fan_out_graph\n"
        "graph = fan_out_graph(MemorySaver())\n"
    )
    return module


def test_no_assert_statement_in_the_shipped_code():
    """`python -O` strips `assert`: control flow in one would change what StepScope does under -O."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    found = [
        f"{path.relative_to(root)}:{node.lineno}"
        for folder in ("engine", "debugger")
        for path in sorted((root / folder).rglob("*.py"))
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.Assert)
    ]
    assert not found, f"replace each with an explicit check raising a named error: {found}"


@pytest.mark.slow
def test_python_dash_o_shows_the_same(fan_file, tmp_path):
    """`show` of a whole thread, of one step, of a damaged thread, of a trace file, and `diagnose`, in `python`
    and `python -O` processes: the same output and exit codes (nothing rests on an `assert`)."""
    import os
    import subprocess
    import sys

    path, target = fan_file
    damaged = tmp_path / "damaged.sqlite"
    damaged.write_bytes(path.read_bytes())
    _corrupt_root(damaged, "t", [-1], b"\xc1")
    db, trace_file = str(tmp_path / "runs.db"), str(tmp_path / "trap.json")
    assert main(["run", "subgraph_trap", "--db", db, "--out", trace_file]) == 0
    env = {**os.environ, "STEPSCOPE_THREAD_CACHE": "off", "PYTHONPATH": os.pathsep.join(sys.path)}
    thread = ["--thread", "t"]
    cases = [
        (["show", target, "--checkpointer", str(path), *thread], 0),
        (["show", target, "--checkpointer", str(path), *thread, "--step", "1"], 0),
        (["show", target, "--checkpointer", str(damaged), *thread], 2),
        (["show", target, "--checkpointer", str(damaged), *thread, "--step", "2"], 2),
        (["show", trace_file], 0),
        (["diagnose", trace_file], 1),  # the sample's trap is an error-level finding
        (["show", trace_file, "--step", "99"], 2),
    ]
    for args, expected in cases:
        plain, optimized = (
            subprocess.run(
                [sys.executable, *flags, "-m", "debugger.cli", *args], capture_output=True, text=True, env=env
            )
            for flags in ([], ["-O"])
        )
        assert (optimized.returncode, optimized.stdout, optimized.stderr) == (
            plain.returncode,
            plain.stdout,
            plain.stderr,
        ), args
        assert plain.returncode == expected, (args, plain.stderr)
        assert "Traceback" not in plain.stderr


@pytest.mark.slow
def test_a_damaged_postgres_blob_is_the_same_one_line(pg_url, tmp_path, capsys):
    """PostgresSaver keeps channel values in `checkpoint_blobs`: one overwritten there damages every
    checkpoint that names it, and `show` refuses as for a SQLite file, naming the database (masked)."""
    import psycopg
    from langgraph.checkpoint.postgres import PostgresSaver

    with psycopg.connect(pg_url, autocommit=True, prepare_threshold=0) as conn:
        saver = PostgresSaver(conn)
        saver.setup()
        fan_out_app(saver, "t")
        ids = [r[0] for r in conn.execute("SELECT checkpoint_id FROM checkpoints WHERE thread_id = 't'")]
        changed = conn.execute(
            "UPDATE checkpoint_blobs SET blob = '\\xc1'::bytea WHERE thread_id = 't' AND channel = 'findings'"
        ).rowcount
    assert changed >= 1
    assert main(["show", f"{_app_file(tmp_path)}:graph", "--checkpointer", pg_url, "--thread", "t"]) == 2
    out, err = capsys.readouterr()
    assert "The run failed" not in out and "Traceback" not in err
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "is damaged: thread 't'" in lines[0] and "delete_thread" in lines[0], err
    assert any(f"checkpoint {i}" in lines[0] for i in ids), err
