"""A `MemorySaver` thread of a LangGraph.js app outlives the node process (`saved_thread.mjs`):
`stepscope run app.mjs:graph --thread T` saves it beside the run store, and `--thread T --resume VALUE`
from a later process answers the interrupt it stopped at, with the real @langchain/langgraph."""

from __future__ import annotations

import json

import pytest

from debugger.cli import main
from debugger.stores.sqlite import RunStore

from .conftest import app

pytestmark = pytest.mark.slow


def test_an_interrupt_is_answered_from_a_later_process(langgraph_js, tmp_path, capsys) -> None:
    db = tmp_path / "runs.sqlite3"
    target = f"{app('interrupt_ask.mjs')}:graph"
    assert main(["run", target, "--thread", "t1", "--db", str(db)]) in (0, 1)
    assert "status: interrupted" in capsys.readouterr().out
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
