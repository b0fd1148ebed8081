"""A recorded langgraph `stream()`/`astream()` that its caller stops reading (a `break`, an exception in
the loop body, a generator dropped) is the caller's doing: stored as `cancelled`, saying after which
step the caller stopped, and never diagnosed as an error in the graph. Run on the real langgraph."""

# No `from __future__ import annotations`: langgraph reads the schema below through its annotations.
import asyncio
import contextlib
import gc
import io
import operator
from typing import Annotated, TypedDict

import pytest

pytest.importorskip("langgraph")

from langgraph.graph import END, START, StateGraph  # noqa: E402

from debugger.cli import main  # noqa: E402
from debugger.runtimes.langgraph.recorder import record, recording  # noqa: E402
from debugger.stores.sqlite import RunStore  # noqa: E402


class State(TypedDict):
    log: Annotated[list[str], operator.add]


def chain():
    """START -> a -> b -> c -> END, each node appending its name."""
    g = StateGraph(State)
    for name in "abc":
        g.add_node(name, lambda state, name=name: {"log": [name]})
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    g.add_edge("b", "c")
    g.add_edge("c", END)
    return g.compile()


def test_a_stream_left_by_break_is_cancelled_after_the_step_it_read():
    with recording(db=False) as session:
        for chunk in chain().stream({"log": []}):
            assert chunk == {"a": {"log": ["a"]}}
            break
    (trace,) = session.traces
    assert trace.status == "cancelled"
    assert trace.error["class"] == "RunCancelled"
    message = trace.error["message"]
    assert "stopped reading the stream after step 1" in message
    assert "step 2 (b) did not complete" in message
    assert "Nothing in the graph failed" in message
    assert "GeneratorExit" not in str(trace.error)
    assert [t.name for s in trace.steps if s.committed for t in s.tasks] == ["__start__", "a"]


def test_a_stream_whose_loop_body_raises_is_cancelled_not_an_error():
    with recording(db=False) as session:
        with pytest.raises(ValueError):
            for _chunk in chain().stream({"log": []}):
                raise ValueError("a bug in the caller's loop")
        gc.collect()  # the dropped generator is closed by now
    (trace,) = session.traces
    assert trace.status == "cancelled"
    assert "stopped reading the stream after step 1" in trace.error["message"]


def test_an_astream_left_by_break_is_cancelled():
    async def read_one():
        async for _chunk in chain().astream({"log": []}):
            break

    with recording(db=False) as session:
        asyncio.run(read_one())
    (trace,) = session.traces
    assert trace.status == "cancelled"
    assert "stopped reading `astream()`" in trace.error["message"]
    assert "after step 1" in trace.error["message"]


def test_a_stream_read_to_its_end_is_still_done():
    with recording(db=False) as session:
        chunks = list(chain().stream({"log": []}))
    assert len(chunks) == 3
    assert session.traces[0].status == "done" and not session.traces[0].error


def test_a_stored_abandoned_stream_is_diagnosed_without_an_error(tmp_path):
    db = tmp_path / "runs.sqlite3"
    graph = record(chain(), db=str(db))
    for _chunk in graph.stream({"log": []}):
        break
    gc.collect()
    (summary,) = RunStore(db).list()
    assert summary.status == "cancelled"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        code = main(["diagnose", summary.run_id, "--db", str(db)])
    assert code == 0, out.getvalue()
    assert "error" not in out.getvalue().lower().replace("0 errors", "")
    assert "(run status: cancelled)" in out.getvalue()
    assert "The caller stopped reading the stream after step 1" in out.getvalue()
