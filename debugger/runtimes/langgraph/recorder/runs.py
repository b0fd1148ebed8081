"""One recorded run of a langgraph app, as `stepscope run`, `stepscope diagnose` and the app start it.

`run_graph(graph, input, target=..., thread=..., resume=..., context=..., config=...)`:

- a graph with a checkpointer and no thread gets a fresh thread id (`RunResult.new_thread`);
- `resume=` continues an interrupted thread with `Command(resume=value)`;
- a graph compiled with `InMemorySaver` gets its thread back from the file `thread_files.py` saved after
  the previous run, in whatever process that was, and saves it again afterwards; an `InMemoryStore`
  is carried the same way (one file per target: every thread shares it);
- `context=` (a dict) becomes the graph's `context_schema` object;
- the Trace is stored (`db`), named after the target, with its thread id, so the runs of one thread
  list together as the turns of a conversation. A run langgraph refuses before its first superstep
  is stored too, with no steps and the error (`RunResult.before_start`).
"""

from __future__ import annotations

import asyncio
import contextvars
import copy
import dataclasses
import threading
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from debugger.runtimes.runtime import NO_RESUME, RunSetupError
from debugger.runtimes.threads_api import thread_file
from debugger.sources.recording import RUN_TIMEOUT_ENV, frozen_copy
from debugger.stores.opening import local_db_path
from engine.trace import Trace, mark_ended, stepscope_error, where_stopped

from . import probe, thread_files
from .names import state_keys
from .patches import install
from .record import Session, _store
from .superstep import UnrecordableChannel, check_recordable


@dataclass
class RunResult:
    trace: Trace
    output: Any
    error: BaseException | None
    thread_id: str
    """'' for a graph without a checkpointer."""
    new_thread: bool
    before_start: bool
    """True when the run failed before any node of the graph ran: langgraph refused it (the trace
    has no steps) or rejected its input (only the hidden `__start__` task ran)."""

    @property
    def interrupts(self) -> list[dict[str, Any]]:
        return self.trace.interrupts


def checkpointer_of(graph: Any) -> Any:
    saver = getattr(graph, "checkpointer", None)
    return saver if saver not in (None, False, True) else None


def build_context(graph: Any, data: Any) -> Any:
    """The run context for `context=`, made from a dict the way the graph's `context_schema` wants."""
    schema = getattr(getattr(graph, "builder", None), "context_schema", None)
    if data is None or schema is None or not isinstance(data, dict):
        return data
    try:
        if dataclasses.is_dataclass(schema):
            return schema(**data)
        if hasattr(schema, "model_validate"):
            return schema.model_validate(data)
        return data  # a TypedDict: the dict is the context
    except Exception as exc:  # noqa: BLE001 - any validation error of the user's schema
        raise RunSetupError(
            f"--context does not fit the graph's context_schema {schema.__name__}: {type(exc).__name__}: {exc}"
        ) from None


def run_coroutine(make: Any) -> Any:
    """`asyncio.run(make())`, on a thread of its own when this thread already runs an event loop
    (a notebook, a test driving a browser), where `asyncio.run` is refused."""
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(make())
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["value"] = asyncio.run(make())
        except BaseException as exc:  # noqa: BLE001 - re-raised in the caller's thread
            box["error"] = exc

    context = contextvars.copy_context()  # the recording session (a context variable) goes along
    worker = threading.Thread(target=context.run, args=(work,), name="stepscope-async-run")
    worker.start()
    worker.join()
    if "error" in box:
        raise box["error"]
    return box.get("value")


def has_async_nodes(graph: Any, _seen: set[int] | None = None) -> bool:
    """Some node (or router) of the graph or its subgraphs is an `async def` without a sync version."""
    seen = _seen if _seen is not None else set()
    if id(graph) in seen:
        return False
    seen.add(id(graph))
    builder = getattr(graph, "builder", None)
    runnables = [spec.runnable for spec in getattr(builder, "nodes", {}).values()]
    runnables += [b.path for by_name in getattr(builder, "branches", {}).values() for b in by_name.values()]
    for runnable in runnables:
        if getattr(runnable, "afunc", None) is not None and getattr(runnable, "func", 1) is None:
            return True
        if hasattr(runnable, "builder") and has_async_nodes(runnable, seen):
            return True
    return False


def run_graph(
    graph: Any,
    graph_input: Any,
    *,
    target: str,
    config: dict[str, Any] | None = None,
    context: Any = None,
    thread: str | None = None,
    resume: Any = NO_RESUME,
    db: Any = None,
    db_path: Path | None = None,
    session: Session | None = None,
    keep_thread: bool = True,
) -> RunResult:
    """Runs `graph` on langgraph, recorded (see the module doc). `db`: where traces are stored (a
    path, a RunStore, None for the default, False for nowhere); `db_path`: where thread files go.
    `keep_thread=False`: an `InMemorySaver` thread is neither restored from nor saved to a thread file
    (the debugger's own re-runs on a throwaway saver, whose thread ids mean nothing to the user).

    Long because it is the whole life of one recorded run in order: thread set-up, restoring an in-memory
    thread, the run, and saving the thread again."""
    from langgraph.types import Command

    config = copy.deepcopy(dict(config or {}))
    try:
        check_recordable(getattr(graph, "channels", {}), state_keys(graph))
    except UnrecordableChannel as exc:
        raise RunSetupError(str(exc)) from None
    saver = checkpointer_of(graph)
    new_thread = False
    if saver is not None and not thread:
        thread = (config.get("configurable") or {}).get("thread_id")
        if not thread:
            thread, new_thread = uuid.uuid4().hex[:12], True
    if thread:
        config["configurable"] = {**(config.get("configurable") or {}), "thread_id": str(thread)}
    if resume is not NO_RESUME:
        graph_input = Command(resume=resume)
    kwargs = {}
    if context is not None:
        kwargs["context"] = build_context(graph, context)
    thread_path = None
    if keep_thread and saver is not None and thread_files.is_in_memory(saver) and thread:
        store_path = _default_db_path(db_path)
        thread_path = thread_file(store_path, target, str(thread))
        try:
            thread_files.restore_thread(saver, str(thread), thread_path)
        except thread_files.ThreadFileError as exc:
            raise RunSetupError(str(exc)) from None
    store_path = _carried_store(graph, target, db_path) if keep_thread else None
    install()
    session = session or Session(target=target, store=_store(db))
    token = probe.ACTIVE.set(session)
    output, error = None, None
    try:
        if has_async_nodes(graph):  # langgraph's invoke cannot call an `async def` node: run it as ainvoke
            output = run_coroutine(lambda: graph.ainvoke(graph_input, config, **kwargs))
        else:
            output = graph.invoke(graph_input, config, **kwargs)
    except Exception as exc:  # the run's own error: recorded, stored, reported by the caller
        error = exc
    finally:
        probe.ACTIVE.reset(token)
    before_start = not session.traces or (
        error is not None and not any(t.name != "__start__" for step in session.traces[-1].steps for t in step.tasks)
    )
    if not session.traces:
        session.failed_before_start(graph, graph_input, config, error or RuntimeError("the run never started"))
    if thread_path is not None:
        thread_files.save_thread(saver, str(thread), thread_path)
    if store_path is not None:
        thread_files.save_store(graph.store, store_path)
    return RunResult(session.traces[-1], output, error, str(thread or ""), new_thread, before_start)


def _carried_store(graph: Any, target: str, db_path: Path | None) -> Path | None:
    """The file an `InMemoryStore` of the graph is carried in between runs, restored into the store now;
    None for a graph without one (a store of its own, e.g. PostgreSQL, keeps its items itself)."""
    store = getattr(graph, "store", None)
    if not thread_files.is_in_memory_store(store):
        return None
    path = thread_files.store_file(_default_db_path(db_path), target)
    try:
        thread_files.restore_store(store, path)
    except thread_files.ThreadFileError as exc:
        raise RunSetupError(str(exc)) from None
    return path


def run_in_background(graph: Any, graph_input: Any, *, timeout: float | None, **kwargs: Any) -> RunResult | Trace:
    """`run_graph` on a worker thread (the app): the result, or, when it has not finished after
    `timeout` seconds (None: no limit) or Ctrl-C stopped it, a frozen copy of what was recorded so far
    (status timeout or cancelled, saying so). The main thread only waits, so a Ctrl-C lands here and
    never inside langgraph's loop, whatever moment it comes."""
    session = Session(target=kwargs["target"], store=_store(kwargs.pop("db", None)))
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["result"] = run_graph(graph, graph_input, session=session, **kwargs)
        except Exception as exc:  # noqa: BLE001 - handed to the caller below
            box["error"] = exc

    worker = threading.Thread(target=work, name=f"stepscope-langgraph-{kwargs['target']}", daemon=True)
    worker.start()
    started = time.monotonic()
    cancelled = False
    try:
        while worker.is_alive():
            left = None if timeout is None else timeout - (time.monotonic() - started)
            if left is not None and left <= 0:
                break
            worker.join(0.2 if left is None else min(0.2, left))
    except KeyboardInterrupt:
        cancelled = True
    if "error" in box:
        raise box["error"]
    if "result" in box:
        return box["result"]
    root = session.loops.get(())
    if root is None:
        if cancelled:  # nothing ran, nothing to keep: the CLI's own Ctrl-C line and exit 130
            raise KeyboardInterrupt
        raise RunSetupError(f"{kwargs['target']} did not start within {timeout:.0f} s: nothing was recorded.")
    with session.lock:  # the same frozen copy and ending as an engine run that overran or was stopped
        frozen = frozen_copy(root.record)
    where = where_stopped(frozen)
    if cancelled:
        message = f"Stopped with Ctrl-C {where}; what was recorded until then is kept."
        mark_ended(frozen, "cancelled", stepscope_error("RunCancelled", message))
        return frozen
    message = (
        f"The run did not finish within {timeout:g} s; stopped {where}. A node may be waiting "
        f"forever (a network call without a timeout, an endless loop). Raise --timeout or {RUN_TIMEOUT_ENV} to "
        "wait longer."
    )
    mark_ended(frozen, "timeout", stepscope_error("RunTimeout", message))
    return frozen


def _default_db_path(db_path: Any = None) -> Path:
    return local_db_path(db_path)  # a PostgreSQL run store keeps thread files in the local default
