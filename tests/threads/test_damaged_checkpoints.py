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
from debugger.runtimes.langgraph.threads.reader import read_thread
from debugger.runtimes.langgraph.threads.savers import open_checkpointer
from debugger.runtimes.runtime import ThreadRead


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
    assert trace.status == "error" and trace.error["class"] == "DamagedData"
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
    assert main(["show", f"{_app_file(tmp_path)}:graph", "--checkpointer", str(path), "--thread", "t"]) == 0
    assert "Traceback" not in capsys.readouterr().err


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


def _app_file(tmp_path):
    """A module whose `graph` is the fan-out app's graph (for `show`)."""
    module = tmp_path / "fan_app.py"
    module.write_text(
        "from langgraph.checkpoint.memory import MemorySaver\nfrom apps import fan_out_graph\n"
        "graph = fan_out_graph(MemorySaver())\n"
    )
    return module
