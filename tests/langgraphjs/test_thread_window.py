"""A LangGraph.js thread costs what is shown (issue 26, 1), as a Python one does: its first view decodes
only its newest steps and `show --step N` only step N and the newest checkpoint. Node is never asked
to decode the others, so the checkpoints outside what is shown are damaged here on purpose: the window
still opens, the same steps as the whole thread's, while a whole read of the damaged thread is refused.
Decoding is shown by what the read survives, never timed."""

from __future__ import annotations

import sqlite3

import pytest

from debugger.cli import main
from debugger.runtimes.checkpointers.open import load_app, open_thread
from debugger.runtimes.langgraphjs import record_js_app
from debugger.runtimes.threads_api import CheckpointerError, ThreadRead

from .conftest import app
from .test_threads import SAVER_APP, js_savers, run_app  # noqa: F401 (a fixture)

pytestmark = pytest.mark.slow

ITEMS = 30
LOOP = "thread_loop.mjs"


@pytest.fixture
def loop_thread(js_savers, tmp_path, monkeypatch):  # noqa: F811 (the fixture imported above)
    """A thread `t1` of `ITEMS` replies of the loop app on its own SqliteSaver file: (file, App)."""
    where = tmp_path / "loop.sqlite"
    monkeypatch.setenv("STEPSCOPE_TEST_THREADS", str(where))
    config = {"configurable": {"thread_id": "t1"}, "recursionLimit": ITEMS + 10}
    assert record_js_app(app(LOOP), "graph", {"steps": ITEMS}, config, timeout=120).status == "done"
    return where, load_app(f"{app(LOOP)}:graph")


def root_ids(where) -> list[str]:
    """The thread's root checkpoint ids, oldest first (one per step, from step -1)."""
    with sqlite3.connect(where) as db:
        return [r[0] for r in db.execute("SELECT checkpoint_id FROM checkpoints WHERE checkpoint_ns = '' ORDER BY 1")]


def damage_all_but(where, kept: list[str]) -> None:
    """Every checkpoint and write outside `kept` made undecodable (its bytes no longer JSON)."""
    marks = ",".join("?" * len(kept))
    with sqlite3.connect(where) as db:
        db.execute(f"UPDATE checkpoints SET checkpoint = X'7B6E6F74' WHERE checkpoint_id NOT IN ({marks})", kept)
        db.execute(f"UPDATE writes SET value = X'7B6E6F74' WHERE checkpoint_id NOT IN ({marks})", kept)


def same_steps(mine, theirs) -> None:
    assert [s.step for s in mine] == [s.step for s in theirs]
    for a, b in zip(mine[1:], theirs[1:]):  # the first is the state the window starts from
        assert [t.name for t in a.tasks] == [t.name for t in b.tasks]
        assert [(c.channel, c.writer_name, c.write, c.after) for c in a.reducer_calls] == [
            (c.channel, c.writer_name, c.write, c.after) for c in b.reducer_calls
        ]
        assert not a.mismatches


def test_the_first_view_of_a_js_thread_decodes_only_its_newest_steps(loop_thread) -> None:
    where, loaded = loop_thread
    whole = open_thread(str(where), loaded, ThreadRead("t1"))
    assert whole.status == "done" and len(whole.steps) == ITEMS + 2  # input, __start__, one per item
    damage_all_but(where, root_ids(where)[-6:])  # the 5 newest steps and the checkpoint before them
    newest = open_thread(str(where), loaded, ThreadRead("t1", newest=5))
    same_steps(newest.steps, whole.steps[-6:])
    assert (newest.status, newest.output) == (whole.status, whole.output)
    assert newest.run_id != whole.run_id  # a part of the thread is not the whole thread's run
    with pytest.raises(CheckpointerError, match="damaged data"):  # the older ones were never decoded
        open_thread(str(where), loaded, ThreadRead("t1"))


def test_show_step_n_of_a_js_thread_decodes_step_n_and_the_ending_only(loop_thread, capsys) -> None:
    where, loaded = loop_thread
    args = ["show", loaded.target, "--checkpointer", str(where), "--thread", "t1"]
    assert main(args) == 0
    whole = capsys.readouterr().out.splitlines()
    ids = root_ids(where)  # ids[k] is step k - 1's checkpoint
    step = ITEMS // 2
    damage_all_but(where, [ids[step], ids[step + 1], ids[-1]])
    assert main([*args, "--step", str(step)]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line for line in out if line.startswith("step ")] == [f"step {step}: reply"]
    at = whole.index(out[1])  # the step's lines, as the whole thread's show prints them
    assert out[1:-1] == whole[at : at + len(out) - 2]
    assert out[0].split("status")[1] == whole[0].split("status")[1] and out[-1] == whole[-1], "the thread's end"
    assert main([*args, "--step", "999"]) == 2
    assert f"has no step 999; it has steps up to {ITEMS}." in capsys.readouterr().err


def test_a_window_reads_the_subgraphs_its_steps_ran(js_savers, tmp_path, monkeypatch) -> None:  # noqa: F811
    where = tmp_path / "saver.sqlite"
    run_app(SAVER_APP, str(where), monkeypatch, example_input=True)
    loaded = load_app(f"{app(SAVER_APP)}:graph")
    whole = open_thread(str(where), loaded, ThreadRead("t1"))
    newest = open_thread(str(where), loaded, ThreadRead("t1", newest=1))  # the child's step: its subgraph nested
    same_steps(newest.steps, whole.steps[-2:])
    (task,) = newest.steps[-1].tasks
    (inner,) = task.subgraphs
    assert [t.name for s in inner.steps for t in s.tasks] == [
        t.name for s in whole.steps[-1].tasks[0].subgraphs[0].steps for t in s.tasks
    ]


SAME_DECODING = """
import { SqliteSaver } from "@langchain/langgraph-checkpoint-sqlite";
import Database from "better-sqlite3";
import { sharingDecodes } from "%(module)s";

const own = new SqliteSaver(new Database(process.argv[2], { readonly: true }));
const shared = new SqliteSaver(new Database(process.argv[2], { readonly: true }));
shared.serde = sharingDecodes(shared.serde);
const config = { configurable: { thread_id: "t1" } };
const text = (tuple) => JSON.stringify([tuple.checkpoint, tuple.metadata, tuple.pendingWrites]);
const classes = (tuple) => (tuple.checkpoint.channel_values.messages ?? []).map((m) => m.constructor.name);
const mine = [], theirs = [];
for await (const tuple of shared.list(config)) mine.push(tuple);
for await (const tuple of own.list(config)) theirs.push(tuple);
let same = mine.length === theirs.length && mine.length > 2;
for (let i = 0; same && i < mine.length; i++)
  same = text(mine[i]) === text(theirs[i]) && JSON.stringify(classes(mine[i])) === JSON.stringify(classes(theirs[i]));
// the newest two checkpoints hold the same first message: decoded once, the same object
const shares = mine[0].checkpoint.channel_values.messages[0] === mine[1].checkpoint.channel_values.messages[0];
console.log(JSON.stringify({ same, shares, checkpoints: mine.length }));
"""


def test_a_thread_decoded_sharing_its_messages_is_the_thread_the_saver_decodes(loop_thread, tmp_path):
    """Each message of a thread is revived once (shared_decode.mjs), and every checkpoint, its metadata and
    its pending writes decode to what the saver's own decoding gives, message classes included."""
    import json
    import subprocess
    from pathlib import Path

    import debugger.runtimes.langgraphjs as js

    where, _ = loop_thread
    root = Path(__file__).resolve().parents[2]
    script = root / "node_modules" / ".stepscope-same-decoding.mjs"  # resolves the packages at the repo root
    script.write_text(SAME_DECODING % {"module": (Path(js.__file__).parent / "shared_decode.mjs").as_uri()})
    try:
        out = subprocess.run(["node", str(script), str(where)], capture_output=True, text=True, timeout=120, cwd=root)
    finally:
        script.unlink()
    assert out.returncode == 0, out.stderr[-600:]
    assert json.loads(out.stdout) == {"same": True, "shares": True, "checkpoints": ITEMS + 2}
