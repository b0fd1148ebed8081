"""A damaged checkpoint is named, not a traceback (issue 25, 5): one corrupt blob in a SqliteSaver file
(langgraph's `loads_typed` raises on it) leaves the thread list whole, with that thread marked
damaged, and opening that thread is one line that names the checkpoint and says it is damaged data."""

from __future__ import annotations

import sqlite3

import pytest
from apps import drive, fan_out_app

from debugger.cli import main
from debugger.runtimes.langgraph.threads.rebuild import read_thread
from debugger.runtimes.langgraph.threads.savers import CheckpointerError, open_checkpointer


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


def test_opening_the_damaged_thread_names_the_checkpoint_in_one_line(damaged_file, capsys):
    path, graph = damaged_file
    with open_checkpointer(str(path)) as checkpointer:
        with pytest.raises(CheckpointerError, match=r"checkpoint \S+ is damaged data, not an app bug"):
            read_thread(checkpointer, "bad", graph)
        assert read_thread(checkpointer, "good", graph).status == "done", "the other threads still open"
