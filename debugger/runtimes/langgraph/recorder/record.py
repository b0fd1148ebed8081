"""Recording langgraph runs from the user's own code: a wrapper and a context manager.

    from debugger.runtimes.langgraph.recorder import record, recording

    graph = record(build_graph(), db="runs.sqlite3")   # every invoke/ainvoke/stream/astream is stored
    graph.invoke({"messages": [...]}, config)

    with recording(db="runs.sqlite3") as runs:          # any langgraph run inside the block
        app.invoke(...)
    runs.traces[-1]                                       # the Trace of the last run

Stored runs open with `stepscope show RUN_ID`, `stepscope diagnose RUN_ID` or the app. Without
`db`, runs go to StepScope's default database (`$STEPSCOPE_DB` or ~/.local/share/stepscope); with
`db=False` they are only kept in `session.traces`.

A run that fails before its first superstep (e.g. a checkpointer and no `thread_id`) is stored
too, as a run with no steps and the error, so nothing is lost.
"""

from __future__ import annotations

import threading
import uuid
from contextlib import contextmanager
from pathlib import Path
from typing import Any, AsyncIterator, Callable, Iterator

from debugger.runtimes.runtime import target_name
from debugger.stores.opening import open_store
from engine.trace import Trace, TraceWriter, new_run, plain_config, utc_now

from . import probe
from .names import DEFAULT_NAME, describe, state_keys
from .patches import install
from .superstep import check_recordable


class Session:
    """Where the runs started in one recording context report: keeps and stores their Traces."""

    def __init__(
        self,
        *,
        target: str = "",
        store: Any = None,
        on_trace: Callable[[Trace], None] | None = None,
        run_ids: Callable[[], str] | None = None,
        sinks: Callable[[Trace], Any] | None = None,
    ) -> None:
        self.target = target
        self.store = store
        self.on_trace = on_trace
        self.sinks = sinks
        """Gives each root run (its Trace, just started) the sink its steps go to as they commit
        (`engine.recorder.StepSink`, e.g. the pytest plugin's `StoreSink`), or None: kept whole till its end."""
        self.traces: list[Trace] = []
        self.lock = threading.RLock()
        self.loops: dict[tuple[str, ...], Any] = {}
        self._run_ids = run_ids or (lambda: uuid.uuid4().hex)

    def new_run_id(self) -> str:
        return self._run_ids()

    def sink_for(self, trace: Trace) -> Any:
        """Where a root run's finished steps go as it is recorded (None: they stay in its Trace)."""
        return None if self.sinks is None else self.sinks(trace)

    def name_for(self, graph: Any, ns: tuple[str, ...]) -> str | None:
        """A root run's graph is named after its target when langgraph gave it no name of its own."""
        if ns:
            return ns[-1].rpartition(":")[0] or None
        own = getattr(graph, "name", None)
        if own and own != DEFAULT_NAME:
            return own
        return target_name(self.target) or own

    def finished(self, trace: Any) -> None:
        with self.lock:
            self.traces.append(trace)
        if self.store is not None:
            self.store.save(trace)
        if self.on_trace is not None:
            self.on_trace(trace)

    def failed_before_start(self, graph: Any, graph_input: Any, config: Any, error: BaseException) -> Trace:
        """A run langgraph refused before its first superstep, kept as a run with no steps."""
        thread = str(((config or {}).get("configurable") or {}).get("thread_id") or "")
        writer = TraceWriter(
            new_run(
                ns=(),
                graph=describe(graph, self.name_for(graph, ())),
                input=graph_input,
                config=plain_config(config or {}, given_only=True),
                started_at=utc_now(),
                trace=True,
                run_id=self.new_run_id(),
                target=self.target,
                thread_id=thread,
            )
        )
        trace = writer.finish("error", None, error)
        trace.duration = 0.0  # it never ran
        self.finished(trace)
        return trace


def _store(db: Any) -> Any:
    if db is False:
        return None
    if db is None or isinstance(db, (str, Path)):
        return open_store(db)
    return db  # a RunStore (or anything with .save(trace))


@contextmanager
def recording(
    *,
    target: str = "",
    db: Any = None,
    on_trace: Callable[[Trace], None] | None = None,
    sinks: Callable[[Trace], Any] | None = None,
) -> Iterator[Session]:
    """Records every langgraph run started inside the block (sync or async, any thread the run
    uses). `db`: a path, a `RunStore`, None for the default database, False to keep runs in memory.
    `sinks`: each root run's sink, its steps handed over as they commit (`Session.sinks`)."""
    install()
    session = Session(target=target, store=_store(db), on_trace=on_trace, sinks=sinks)
    token = probe.ACTIVE.set(session)
    try:
        yield session
    finally:
        probe.ACTIVE.reset(token)


class RecordedGraph:
    """A compiled langgraph graph whose runs are recorded; everything else is the graph's own."""

    def __init__(self, graph: Any, session: Session) -> None:
        self.graph = graph
        self.session = session

    @property
    def traces(self) -> list[Trace]:
        return self.session.traces

    @contextmanager
    def _recorded(self, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Iterator[None]:
        """The block of one call of the graph: its runs report to this session, and a run langgraph
        refused before its first superstep (no Trace came of it) is kept as a run with no steps."""
        token, before = probe.ACTIVE.set(self.session), len(self.session.traces)
        try:
            yield
        except Exception as exc:
            if len(self.session.traces) == before:
                config = kwargs.get("config", args[1] if len(args) > 1 else None)
                graph_input = kwargs.get("input", args[0] if args else None)
                self.session.failed_before_start(self.graph, graph_input, config, exc)
            raise
        finally:
            _reset(token)

    def invoke(self, *args: Any, **kwargs: Any) -> Any:
        with self._recorded(args, kwargs):
            return self.graph.invoke(*args, **kwargs)

    async def ainvoke(self, *args: Any, **kwargs: Any) -> Any:
        with self._recorded(args, kwargs):
            return await self.graph.ainvoke(*args, **kwargs)

    def stream(self, *args: Any, **kwargs: Any) -> Iterator[Any]:
        with self._recorded(args, kwargs):
            yield from self.graph.stream(*args, **kwargs)

    async def astream(self, *args: Any, **kwargs: Any) -> AsyncIterator[Any]:
        with self._recorded(args, kwargs):
            async for chunk in self.graph.astream(*args, **kwargs):
                yield chunk

    def __getattr__(self, name: str) -> Any:
        return getattr(self.graph, name)

    def __repr__(self) -> str:
        return f"RecordedGraph({self.graph!r})"


def _reset(token: Any) -> None:
    try:
        probe.ACTIVE.reset(token)
    except ValueError:  # a generator closed from another context (garbage collection): nothing to undo there
        pass


def record(
    graph: Any, *, target: str = "", db: Any = None, on_trace: Callable[[Trace], None] | None = None
) -> RecordedGraph:
    """`graph`, recording each run of `invoke`, `ainvoke`, `stream` and `astream` (see the module doc)."""
    install()
    check_recordable(getattr(graph, "channels", {}), state_keys(graph))  # refused now, not in the middle of a run
    name = target or getattr(graph, "name", "") or ""
    return RecordedGraph(
        graph, Session(target=name if name != DEFAULT_NAME else "", store=_store(db), on_trace=on_trace)
    )
