"""Recording real LangGraph apps by watching langgraph's own run (the optional `stepscope[langgraph]`).

    record(graph, db=...)      a compiled graph whose invoke/ainvoke/stream/astream runs are stored
    recording(db=...)          a context manager: every langgraph run inside it is recorded
    superstep                  langgraph supersteps as the trace writer takes them, whatever the source (live or stored)

Modules: `patches.py` (the hooks in langgraph's loop), `probe.py` (what they record, per loop: its
tasks in `probe_tasks.py`, its barrier in `probe_barrier.py`),
`watched.py` (a task's runnable, watched), `superstep.py` (langgraph's tasks, merge and commit as the
trace writer takes them, one write at a time), `calls.py` (one reducer call, with what spares the
writer comparing a long list again), `names.py` (describing a langgraph graph), `record.py` (sessions
and the one-liner), `runs.py` (a recorded run on a thread, as the langgraph runtime starts it:
`debugger/runtimes/langgraph/`), `thread_files.py` (InMemorySaver threads kept on disk),
`static_view.py` (the structure the checks before running read).
Importing this package does not import langgraph; recording does.
"""

from __future__ import annotations

from .names import is_langgraph_builder, is_langgraph_graph
from .record import RecordedGraph, Session, record, recording

__all__ = ["RecordedGraph", "Session", "is_langgraph_builder", "is_langgraph_graph", "record", "recording"]
