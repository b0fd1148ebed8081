"""`stepscope threads`, and `show` / `diagnose` with `--checkpointer URL --thread ID`, on an app module
that compiles its own production checkpointer in (which StepScope must ignore and never write to)."""

from __future__ import annotations

import hashlib
import sqlite3
from pathlib import Path

import pytest
from apps import conflict_graph, drive, interrupt_graph
from langgraph.checkpoint.sqlite import SqliteSaver

from debugger.cli import main
from tests.approval_app import APPROVAL_NO_SAVER

pytestmark = pytest.mark.slow  # runs real langgraph apps and reads their checkpointers: `make test`, not `make check`

APP = """
import sqlite3, sys
sys.path.insert(0, {tests!r})
from langgraph.checkpoint.sqlite import SqliteSaver
from apps import conflict_graph, interrupt_graph

saver = SqliteSaver(sqlite3.connect({db!r}, check_same_thread=False))
graph = conflict_graph(saver)
tickets = interrupt_graph(saver)
"""


@pytest.fixture
def production(tmp_path):
    """A checkpointer file with two threads, and an app module that compiles a saver on it."""
    db = tmp_path / "prod.sqlite"
    conn = sqlite3.connect(db, check_same_thread=False)
    saver = SqliteSaver(conn)
    drive(conflict_graph(saver), [{"order": "A-17", "log": []}], "refund-17")
    drive(interrupt_graph(saver), [{"request": "upgrade", "log": []}], "ticket-9")
    conn.close()
    app = tmp_path / "my_app.py"
    app.write_text(APP.format(tests=str(Path(__file__).parent), db=str(db)))
    return db, app


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_threads_lists_newest_first_with_status(production, capsys):
    db, _ = production
    assert main(["threads", "--checkpointer", str(db)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:2] == ["thread", "updated"]
    assert lines[2].startswith("ticket-9") and "interrupted" in lines[2]
    assert lines[3].startswith("refund-17") and "stopped in step 2" in lines[3]


def test_show_and_diagnose_a_thread(production, capsys):
    db, app = production
    before = _digest(db)
    assert main(["show", f"{app}:graph", "--checkpointer", str(db), "--thread", "refund-17"]) == 0
    out = capsys.readouterr().out
    assert "status error" in out
    assert "status [LastValue] from approve" in out and "REFUSED" in out
    assert main(["diagnose", f"{app}:graph", "--checkpointer", str(db), "--thread", "refund-17"]) == 1
    out = capsys.readouterr().out
    assert "thread refund-17" in out and "status" in out and "approve" in out and "fraud_check" in out
    assert main(["show", f"{app}:tickets", "--checkpointer", str(db), "--thread", "ticket-9", "--step", "2"]) == 0
    out = capsys.readouterr().out
    assert "status interrupted" in out and "sub-check" in out
    assert _digest(db) == before


def test_mistakes_are_named(production, capsys):
    db, app = production
    assert main(["show", f"{app}:graph", "--checkpointer", str(db)]) == 2
    assert "needs --thread" in capsys.readouterr().err
    assert main(["show", f"{app}:graph", "--checkpointer", str(db), "--thread", "nope"]) == 2
    assert "no thread 'nope'" in capsys.readouterr().err
    assert main(["threads", "--checkpointer", str(db.parent / "nothing.sqlite")]) == 2
    assert "does not exist" in capsys.readouterr().err
    assert main(["show", "sample_graphs/subgraph_trap.py", "--checkpointer", str(db), "--thread", "ticket-9"]) == 2
    assert "langgraph app" in capsys.readouterr().err


def test_the_app_opens_a_thread_named_by_its_address(production, monkeypatch, tmp_path):
    """`stepscope app my_app.py:graph --checkpointer URL --thread ID` passes the URL in the environment
    and the thread in the address; the opened thread is kept in the run store, so a link reopens it."""
    from debugger.commands.app_server import launch
    from debugger.runtimes.checkpointers.open import CHECKPOINTER_ENV
    from debugger.sources import runs as sources
    from debugger.sources.checkpointer_threads import open_for_app
    from debugger.stores.opening import open_store

    db, app = production
    calls = {}
    monkeypatch.setattr(
        "debugger.commands.app_server.serve", lambda command, env: calls.update(command=command, env=env) or 0
    )
    assert launch(sample=f"{app}:graph", checkpointer=str(db), thread="refund-17") == 0
    assert calls["env"][CHECKPOINTER_ENV] == str(db)
    monkeypatch.setenv("STEPSCOPE_DB", str(tmp_path / "runs.sqlite3"))
    with pytest.raises(sources.OpenError, match="Name the checkpointer"):
        open_for_app(f"{app}:graph", "refund-17", "")
    monkeypatch.setenv(CHECKPOINTER_ENV, str(db))
    opened = open_for_app(f"{app}:graph", "refund-17")
    assert opened.trace.status == "error" and opened.title == "my_app.py:graph · thread refund-17"
    assert open_store().load(opened.trace.run_id).run_id == opened.trace.run_id
    with pytest.raises(sources.OpenError, match="no thread 'nope'"):
        open_for_app(f"{app}:graph", "nope")


def test_fork_resumes_a_thread_on_a_local_copy(production, capsys, tmp_path, monkeypatch):
    db, app = production
    before = _digest(db)
    monkeypatch.setenv("STEPSCOPE_DB", str(tmp_path / "runs.sqlite3"))
    out = tmp_path / "forks" / "ticket.sqlite"
    assert (
        main(
            [
                "fork",
                f"{app}:tickets",
                "--checkpointer",
                str(db),
                "--thread",
                "ticket-9",
                "--resume",
                '"no"',
                "--out",
                str(out),
            ]
        )
        == 0
    )
    printed = capsys.readouterr().out
    assert "status: done" in printed and str(out) in printed
    assert _digest(db) == before
    assert main(["show", f"{app}:tickets", "--checkpointer", str(out), "--thread", "ticket-9"]) == 0
    assert "decided no" in capsys.readouterr().out
    assert main(["fork", f"{app}:tickets", "--checkpointer", str(db), "--thread", "ticket-9", "--resume", "{no"]) == 2
    assert "take JSON" in capsys.readouterr().err


def test_show_stops_at_a_chosen_checkpoint(production, capsys):
    db, app = production
    with sqlite3.connect(db) as conn:
        (first_loop,) = conn.execute(
            "SELECT checkpoint_id FROM checkpoints WHERE thread_id = 'ticket-9' AND "
            "checkpoint_ns = '' ORDER BY checkpoint_id LIMIT 1 OFFSET 2"
        ).fetchone()
    assert (
        main(["show", f"{app}:tickets", "--checkpointer", str(db), "--thread", "ticket-9", "--checkpoint", first_loop])
        == 0
    )
    out = capsys.readouterr().out
    assert "status unfinished" in out and "step 1: triage" in out and "step 2" not in out
    assert "opened at a checkpoint before its end" in out and "ended with status" not in out


def test_langgraph_run_on_a_postgres_checkpointer_is_resumed_and_listed_there(tmp_path, capsys, pg_url) -> None:
    """`run --checkpointer postgresql://...` (issue 41, item 1): the saver's tables are made in the empty
    database, the thread is kept there, `--resume` on the same URL continues it, `threads` lists it."""
    app, db = tmp_path / "approve.py", str(tmp_path / "runs.sqlite3")
    app.write_text(APPROVAL_NO_SAVER, encoding="utf-8")
    assert main(["run", str(app), "--checkpointer", pg_url, "--db", db]) == 0
    thread = capsys.readouterr().out.split("thread: ")[1].split()[0]
    assert main(["run", str(app), "--thread", thread, "--resume", "yes", "--checkpointer", pg_url, "--db", db]) == 0
    assert "'decision': 'yes'" in capsys.readouterr().out
    assert main(["threads", "--checkpointer", pg_url]) == 0
    assert f"{thread}  " in capsys.readouterr().out
