"""What the app does with langgraph runs: run a graph file on a thread, answer an interrupt (the answer
continues the thread as a new run), and list the runs of one thread in order. No Streamlit here:
`debugger/views/threads.py` renders it.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from engine.trace import Trace

from .runs import RunResult, RunSetupError, parse_value, run_in_background


class AppRunError(Exception):
    """A thread action that cannot be done; the message says why and what to do."""


def run_for_app(
    graph: Any,
    graph_input: Any,
    *,
    target: str,
    config: dict[str, Any] | None,
    thread: str | None,
    db: str | None,
    timeout: float,
    resume: Any = None,
    resuming: bool = False,
) -> Trace:
    """Runs a langgraph graph for the app (on a worker thread, at most `timeout` seconds) and stores it."""
    from debugger.sources import OpenError
    from debugger.stores.opening import local_db_path, open_store
    from debugger.stores.protocol import StoreError

    try:
        store = open_store(db)
    except StoreError:
        store = None  # a broken database must not stop the run from being shown
    kwargs: dict[str, Any] = dict(
        target=target, config=config, thread=thread or None, db=store if store else False, db_path=local_db_path(db)
    )
    if resuming:
        kwargs["resume"] = resume
    try:
        done = run_in_background(graph, graph_input, timeout=timeout, **kwargs)
    except RunSetupError as exc:
        raise OpenError(f"{target}: {exc}") from None
    return done.trace if isinstance(done, RunResult) else done


def answer_interrupt(
    trace: Trace, graph: Any, answer_text: str, *, config: dict[str, Any] | None, db: str | None, timeout: float
) -> Trace:
    """Continues the interrupted run's thread with `Command(resume=answer)`: a new run of the same thread."""
    if trace.status != "interrupted" or not trace.interrupts:
        raise AppRunError(f"This run is not waiting for an answer (its status is {trace.status!r}).")
    if not trace.thread_id:
        raise AppRunError("This run has no thread to continue: its graph was compiled without a checkpointer.")
    if graph is None:
        graph = _load(trace.target)
    return run_for_app(
        graph,
        None,
        target=trace.target,
        config=config,
        thread=trace.thread_id,
        db=db,
        timeout=timeout,
        resume=parse_value(answer_text),
        resuming=True,
    )


def _load(target: str) -> Any:
    from debugger.targets import TargetError, load_target

    if not target:
        raise AppRunError("Answering re-runs the graph, so it needs the graph's code; this stored run names none.")
    try:
        return load_target(target).graph
    except TargetError as exc:
        raise AppRunError(f"Answering needs the graph's code: {exc}") from None


@dataclass(frozen=True)
class ThreadTurn:
    run_id: str
    started_at: str
    status: str


def thread_runs(thread_id: str, target: str, db: str | None = None) -> list[ThreadTurn]:
    """The stored runs of one thread of one target, oldest first: the turns of a conversation."""
    from debugger.stores.opening import open_store
    from debugger.stores.protocol import StoreError

    if not thread_id:
        return []
    try:
        return [ThreadTurn(*row) for row in open_store(db).thread_runs(target, thread_id)]
    except StoreError:
        return []


def describe_interrupts(trace: Trace) -> list[str]:
    """Each interrupt of a run as text: where it was raised and its value."""
    return [
        (f"{item['node']}: " if item.get("node") else "")
        + json.dumps(item.get("value"), ensure_ascii=False, default=str)
        for item in trace.interrupts
    ]


def config_text(trace: Trace) -> str:
    return json.dumps(trace.config or {}, ensure_ascii=False, default=str)


def is_langgraph_run(trace: Trace) -> bool:
    return (trace.graph or {}).get("source") == "langgraph"


def default_db(db: str | None) -> Path | None:
    return Path(db) if db else None
