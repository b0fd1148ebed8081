"""A run is stored superstep by superstep while it is recorded, in both run stores: a recording process
killed with SIGKILL mid-run leaves every superstep it had finished, readable from another process; a
recording keeps working when the database fails under it; and the PostgreSQL store's steps are
written as they come, never rewritten at the end."""

from __future__ import annotations

import operator
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Annotated, TypedDict

import psycopg
import pytest

from debugger.diagnostics.replay import Replay
from debugger.sources import store_sink
from debugger.sources.recording import StoreSink
from debugger.stores.opening import open_store
from debugger.stores.postgres import CUT_OFF, PostgresRunStore
from debugger.stores.protocol import StoreError
from debugger.stores.sqlite import RunStore
from engine import END, START, StateGraph
from engine.blobs import BLOB_MIN
from engine.codec import decode
from engine.trace import Recorder
from tests import stepper_shown

ROOT = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.slow  # starts PostgreSQL and subprocesses: `make test`, not `make check`

LONG_RUN = """
import operator, time
from typing import Annotated, TypedDict
from engine import START, StateGraph

class S(TypedDict):
    doc: str
    n: Annotated[list, operator.add]

def tick(state):
    time.sleep(0.05)
    return {"n": [len(state["n"])]}

g = StateGraph(S)
g.add_node("tick", tick)
g.add_edge(START, "tick")
g.add_conditional_edges("tick", lambda s: "tick")  # never ends by itself: only the kill stops it
graph = g.compile()
example_input = {"doc": "%s", "n": []}
"""
DOC = "large input " * (BLOB_MIN // 6)
"""Big enough to be pooled as a blob: a cut-off run's head must still find it."""


def _db(kind: str, tmp_path: Path, request) -> str:
    return request.getfixturevalue("pg_url") if kind == "postgres" else str(tmp_path / "runs.sqlite3")


def _cli(*args: str, db: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "debugger.cli", *args, "--db", db],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=120,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )


@pytest.mark.parametrize("kind", ["sqlite", "postgres"])
def test_a_recording_killed_mid_run_keeps_every_finished_superstep(kind, tmp_path, request):
    db = _db(kind, tmp_path, request)
    graph = tmp_path / "long_run.py"
    graph.write_text(LONG_RUN % DOC)
    proc = subprocess.Popen(
        [sys.executable, "-m", "debugger.cli", "run", str(graph), "--db", db],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    store = open_store(db)
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            runs = store.list()
            if runs and runs[0].steps >= 8:
                break
            time.sleep(0.1)
        assert proc.poll() is None, proc.stderr.read()
        alive = store.list()[0]
        assert alive.status == "running" and alive.error == ""  # being recorded: not cut off
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stderr.close()
    assert proc.returncode == -signal.SIGKILL

    (summary,) = store.list()
    assert summary.status == "running" and summary.steps >= 8
    trace = open_store(db).load(summary.run_id)
    numbers = [s.step for s in trace.steps]
    assert numbers == list(range(-1, summary.steps))  # every stored superstep, in order, none missing
    assert decode(trace.input["doc"]) == DOC
    last = numbers[-1]
    assert Replay(trace).state_after(last)["n"] == list(range(last))  # each merge replays as recorded (step 0: input)

    # the dead recorder's lock is gone (the server's advisory lock, the kernel's flock): it was cut off
    assert summary.error == CUT_OFF and trace.error["class"] == "RunCutOff"
    shown = _cli("show", summary.run_id[:10], db=db)
    assert shown.returncode == 0, shown.stderr
    label = "cut off"  # both stores know the recording process is gone (its lock went with it)
    assert f"run {summary.run_id}" in shown.stdout and f"status {label}" in shown.stdout
    assert f"nothing after step {last} is known" in shown.stdout and "ended with status" not in shown.stdout
    assert f"step {last}: tick" in shown.stdout
    listed = _cli("runs", db=db)
    assert summary.run_id[:12] in listed.stdout and label in listed.stdout
    assert "Cut off" in shown.stdout and "Cut off" in listed.stdout
    diagnosed = _cli("diagnose", summary.run_id, db=db)
    assert "Traceback" not in diagnosed.stderr and summary.run_id[:8] in diagnosed.stdout + diagnosed.stderr
    assert f"(run status: {label})" in diagnosed.stdout and f"nothing after step {last} is known" in diagnosed.stdout


FAST_RUN = """
import operator, time
from typing import Annotated, TypedDict
from engine import START, StateGraph

class S(TypedDict):
    n: Annotated[list, operator.add]

def tick(state):
    time.sleep(0.01)
    with open(%r, "a") as done:  # what the node saw, written before its superstep commits
        done.write(f"{len(state['n'])}\\n")
    return {"n": [len(state["n"])]}

g = StateGraph(S)
g.add_node("tick", tick)
g.add_edge(START, "tick")
g.add_conditional_edges("tick", lambda s: "tick")
graph = g.compile()
example_input = {"n": []}
"""


def test_sigterm_writes_the_steps_of_the_open_batch_before_the_recording_ends(tmp_path):
    """A run of 0.01 s steps gathers about 20 in a batch's 0.2 s; SIGTERM (a `kill`, a CI job's end) writes
    them before the process ends as SIGTERM ends it: every superstep before the one running is stored."""
    db, seen = str(tmp_path / "runs.sqlite3"), tmp_path / "seen.txt"
    graph = tmp_path / "fast_run.py"
    graph.write_text(FAST_RUN % str(seen))
    proc = subprocess.Popen(
        [sys.executable, "-m", "debugger.cli", "run", str(graph), "--db", db],
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and proc.poll() is None:
            if os.path.exists(db) and (runs := open_store(db).list()) and runs[0].steps >= 30:
                break
            time.sleep(0.05)
        assert proc.poll() is None, proc.stderr.read()
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.stderr.close()
    assert proc.returncode == -signal.SIGTERM
    (summary,) = open_store(db).list()
    assert summary.status == "running" and summary.error == CUT_OFF
    # the node of superstep last_seen + 1 had run, so superstep last_seen had ended and was handed over
    last_seen = int(seen.read_text().split()[-1])
    assert summary.steps >= last_seen + 1  # supersteps 0..last_seen: none of the open batch lost
    numbers = [s.step for s in open_store(db).load(summary.run_id).steps]
    assert numbers == list(range(-1, summary.steps))


class Counting(TypedDict):
    doc: str
    n: Annotated[list, operator.add]


def _looping_graph(steps: int):
    g = StateGraph(Counting)
    g.add_node("tick", lambda s: {"n": [len(s["n"])]})
    g.add_edge(START, "tick")
    g.add_conditional_edges("tick", lambda s: "tick" if len(s["n"]) < steps else END)
    return g.compile()


def _data(url: str, query: str) -> list[tuple]:
    with psycopg.connect(url) as conn:
        return conn.execute(query).fetchall()


def test_postgres_steps_are_written_as_they_come_and_never_rewritten(pg_url):
    """Supersteps are committed rows within `BATCH_SECONDS` of their end, a batch per transaction; finishing
    only adds the head, the output and the last steps (the rows' physical ids, `ctid`, stay the same)."""
    import time as clock

    from debugger.sources.store_sink import BATCH_SECONDS

    store = PostgresRunStore(pg_url)
    seen_during: list[int] = []

    class Watching(StoreSink):
        def flush(self, record):
            super().flush(record)
            seen_during.append(_data(pg_url, "SELECT count(*) FROM stepscope_steps")[0][0])

    sink = Watching(store)
    recorder = Recorder(sink=sink)
    slow = StateGraph(Counting)  # 20 steps of 0.05 s: about five batches' windows
    slow.add_node("tick", lambda s: (clock.sleep(BATCH_SECONDS / 4), {"n": [len(s["n"])]})[1])
    slow.add_edge(START, "tick")
    slow.add_conditional_edges("tick", lambda s: "tick" if len(s["n"]) < 20 else END)
    output = slow.compile().invoke({"doc": DOC, "n": []}, hooks=recorder)
    before_finish = _data(pg_url, "SELECT seq, ctid::text FROM stepscope_steps ORDER BY seq")
    sink.finish(recorder.trace)
    assert seen_during == sorted(seen_during) and len(set(seen_during)) >= 3  # visible to another connection
    assert seen_during[-1] >= 10 and sink.writes < 20  # written as the run went, in fewer transactions than steps
    after = _data(pg_url, "SELECT seq, ctid::text FROM stepscope_steps ORDER BY seq")
    assert after[: len(before_finish)] == before_finish and len(after) == 22  # steps -1..20
    assert _data(pg_url, "SELECT count(*) FROM stepscope_blobs WHERE key <> '$rows'")[0][0] == 1  # the doc, once
    stored = store.load(recorder.trace.run_id)
    plain = Recorder(run_id=recorder.trace.run_id)
    _looping_graph(20).invoke({"doc": DOC, "n": []}, hooks=plain)
    whole = plain.trace

    def content(trace):  # all but timings
        return [(s.step, [(t.name, t.writes, t.result) for t in s.tasks], s.reducer_calls) for s in trace.steps]

    assert content(stored) == content(whole) and stored.output == whole.output and stored.input == whole.input
    assert decode(stored.output["n"]) == output["n"] and stored.status == "done" and stored.error is None
    (summary,) = store.list()
    assert (summary.status, summary.steps, summary.error) == ("done", 21, "")


def test_postgres_going_away_mid_run_keeps_the_run_for_out_and_names_the_cause(pg_server, tmp_path, capsys):
    """The server is stopped while a run is recorded into it: the run goes on, `--out` gets every step
    (those stored before too) and the message says what failed; started again, the server holds the
    steps written before it stopped, as a run that was cut off."""
    from debugger import cli as cli_module
    from debugger.sources.trace_check import read_trace_file

    url = pg_server.create_database("going_away")
    stop = pg_server.pause()
    graph = tmp_path / "g.py"
    graph.write_text(
        (LONG_RUN % "small")
        .replace('lambda s: "tick")', 'lambda s: "tick" if len(s["n"]) < 30 else "__end__")')
        .replace(  # steps 0..9 committed (a batch's window) before the server stops
            "time.sleep(0.05)",
            f"len(state['n']) == 10 and (time.sleep(0.5), __import__('subprocess').run({stop!r}, check=True))",
        )
    )
    out = tmp_path / "kept.json"
    try:
        code = cli_module.main(["run", str(graph), "--out", str(out), "--db", url])
    finally:
        pg_server.restart()
    captured = capsys.readouterr()
    assert code == 3, captured.err  # the run database failed during the run
    assert "is not stored whole: cannot store" in captured.err  # a batch of steps, or the run's end
    assert f"stepscope import {out} --replace --db" in captured.err
    kept = read_trace_file(out)
    assert [s.step for s in kept.steps] == list(range(-1, 31)) and kept.status == "done"
    assert Replay(kept).state_after(30)["n"] == list(range(30))
    stored = PostgresRunStore(url).load(kept.run_id)
    assert stored.status == "running" and stored.error["class"] == "RunCutOff"
    assert [s.step for s in stored.steps] == [s.step for s in kept.steps[: len(stored.steps)]]
    assert len(stored.steps) >= 10


def test_sqlite_failing_mid_run_keeps_the_run(tmp_path, monkeypatch):
    """The SQLite store under the same sink: a database that turns unwritable mid-run."""
    monkeypatch.setattr(store_sink, "BATCH_STEPS", 1)  # a transaction per step: the fourth one fails
    store = RunStore(tmp_path / "runs.sqlite3")
    sink = StoreSink(store)
    calls = []
    original = store.append_steps

    def append_steps(run_id, steps):
        calls.append(run_id)
        if len(calls) > 3:
            raise StoreError("disk full")
        original(run_id, steps)

    store.append_steps = append_steps
    recorder = Recorder(sink=sink)
    _looping_graph(10).invoke({"doc": "x", "n": []}, hooks=recorder)
    sink.finish(recorder.trace)
    assert str(sink.error) == "disk full"
    whole = sink.whole_trace(recorder.trace)
    assert [s.step for s in whole.steps] == list(range(-1, 11)) and whole.status == "done"


def test_a_run_stopped_after_the_database_failed_keeps_each_step_once_and_counts_them_all(tmp_path, monkeypatch):
    """A time limit ends a run whose database failed mid-way: the whole run has each superstep once
    (stored, kept in memory, and the one running when it stopped), and the message counts them all."""
    import time as clock

    monkeypatch.setattr(store_sink, "BATCH_STEPS", 1)  # a transaction per step: the fourth one fails

    from debugger.sources.recording import record_run

    class FailsAfterThree(RunStore):
        calls = 0

        def append_steps(self, run_id, steps):
            FailsAfterThree.calls += 1
            if FailsAfterThree.calls > 3:
                raise StoreError("disk full")
            super().append_steps(run_id, steps)

    g = StateGraph(Counting)
    g.add_node("tick", lambda s: (clock.sleep(0.02), {"n": [len(s["n"])]})[1])
    g.add_edge(START, "tick")
    g.add_conditional_edges("tick", lambda s: "tick")
    for keep_stored in (False, True):
        sink = StoreSink(FailsAfterThree(tmp_path / f"runs-{keep_stored}.sqlite3"), keep_stored=keep_stored)
        FailsAfterThree.calls = 0
        recorder = Recorder(sink=sink)
        outcome = record_run(g.compile(), {"doc": "", "n": []}, {}, target="t", timeout=1.0, recorder=recorder)
        sink.finish(outcome.trace)
        whole = sink.whole_trace(outcome.trace)
        numbers = [s.step for s in whole.steps]
        assert numbers == list(range(-1, len(numbers) - 1)) and len(numbers) > 10, numbers
        assert (
            whole.status == "timeout" and f"stopped after step {numbers[-2]}, while tick ran" in whole.error["message"]
        )


def test_the_app_opens_and_lists_a_cut_off_postgres_run(pg_url, monkeypatch):
    """A run whose recording connection ended after three supersteps (what the server sees when the
    recording process dies): the app opens it at its last stored step and lists it as cut off."""
    import dataclasses

    import streamlit as st
    from streamlit.testing.v1 import AppTest

    from debugger.sources.runs import record
    from sample_graphs import gallery

    module = gallery.load_sample("fan_out_search")
    trace = record(module.graph, module.example_input, {}, "fan_out_search")
    store = PostgresRunStore(pg_url)
    store.start_run(dataclasses.replace(trace, steps=[], status="running", output=None))
    store.append_steps(trace.run_id, trace.steps[:3])  # steps -1, 0, 1
    store.dialect.held[trace.run_id].close()  # the connection ends without finish_run, as when killed
    store.dialect.held.clear()
    monkeypatch.setenv("STEPSCOPE_DB", pg_url)
    st.cache_data.clear()
    st.cache_resource.clear()

    at = AppTest.from_file(str(ROOT / "debugger" / "app.py"), default_timeout=30)
    at.query_params.update({"run": trace.run_id, "step": "1"})
    at.run()
    assert not at.exception, at.exception
    opened = at.session_state["stepscope_run"]
    assert opened.source == "stored" and [s.step for s in opened.trace.steps] == [-1, 0, 1]
    assert opened.trace.error["class"] == "RunCutOff"
    summary = next(text for _, text in stepper_shown.summary(at) if text.startswith("Next:"))
    assert summary.startswith("Next: unknown. Cut off after step 1:"), summary
    at._page_hash = next(h for h, info in at._registered_pages.items() if info.get("url_pathname") == "runs")
    at.run()
    assert not at.exception, at.exception
    frame = at.dataframe[0].value
    assert list(frame["status"]) == ["cut off"] and frame["error"][0].startswith("Cut off after 2 supersteps")
