"""The langgraph runtime (`debugger.runtimes.runtime.Runtime` over langgraph's own `invoke`).

A run is `debugger.runtimes.langgraph.recorder.runs.run_graph`: langgraph runs the graph, the recorder's
patches watch it. Runs live on checkpointer threads: a graph with a checkpointer and no thread gets a
fresh one, `resume=` answers the thread's interrupt, an `InMemorySaver` thread is kept in a file
beside the run database between processes. With a time limit the run goes on a worker thread and
what was recorded when the limit passed is returned, status `timeout`.
"""

from __future__ import annotations

from dataclasses import fields, replace
from typing import TYPE_CHECKING, Any

from debugger.runtimes.capabilities import CAPABILITIES
from debugger.runtimes.langgraph.recorder.names import is_langgraph_graph
from debugger.runtimes.langgraph.recorder.probe import UnsupportedLangGraph
from debugger.runtimes.langgraph.recorder.record import record as record_graph
from debugger.runtimes.langgraph.recorder.record import recording as recording_block
from debugger.runtimes.langgraph.recorder.runs import RunResult, checkpointer_of, run_in_background
from debugger.runtimes.langgraph.recorder.static_view import StaticViewError, static_view
from debugger.runtimes.langgraph.recorder.superstep import UnrecordableChannel
from debugger.runtimes.langgraph.recorder.thread_files import ThreadFileError
from debugger.runtimes.runtime import (
    NO_RESUME,
    RESUME_NEEDS_THREAD,
    PythonApps,
    Recorded,
    RunRequest,
    RunSetupError,
    nothing_to_resume,
    own_saver_refusal,
    run_thread,
)
from debugger.runtimes.threads_api import ThreadFork, ThreadRead
from debugger.stores.opening import local_db_path
from engine.trace import Trace

if TYPE_CHECKING:
    from debugger.runtimes.langgraph.threads.fork import ForkResult

# A live run (`live.py`) and the threads' reader and fork (`threads/`) are imported where they are used:
# `stepscope run` records through `recorder/` alone and must not load them (tests/test_cli_lazy.py).


class LangGraphRuntime(PythonApps):
    """langgraph: graphs compiled by `langgraph.graph.StateGraph` (or any `Pregel`)."""

    name = "langgraph"
    title = "langgraph"
    errors: tuple[type[Exception], ...] = (UnsupportedLangGraph, UnrecordableChannel, ThreadFileError)
    capabilities = CAPABILITIES

    def claims(self, value: Any) -> bool:
        """A compiled langgraph graph, told by its class names (langgraph is not imported)."""
        return is_langgraph_graph(value)

    def records(self, trace: Trace) -> bool:
        """A trace the langgraph recorder wrote: its graph description says `source: langgraph`."""
        return (trace.graph or {}).get("source") == "langgraph"

    def check_run_options(self, given: dict[str, str], target: str) -> None:
        """langgraph apps take every thread option."""

    def checkpointer_class(self, graph: Any) -> str | None:
        """The class of the graph's own saver (`InMemorySaver`, `SqliteSaver`, ...), or None."""
        saver = checkpointer_of(graph)
        return None if saver is None else type(saver).__name__

    def recording(self, *, target: str = "", db: Any = None, on_trace: Any = None, sinks: Any = None) -> Any:
        """`recorder.recording`: every langgraph run started inside the block (`CodeRecording`)."""
        return recording_block(target=target, db=db, on_trace=on_trace, sinks=sinks)

    def recorded_graph(self, graph: Any, *, target: str = "", db: Any = None, on_trace: Any = None) -> Any:
        """`recorder.record`: a `RecordedGraph` over the compiled langgraph graph (`CodeRecording`)."""
        return record_graph(graph, target=target, db=db, on_trace=on_trace)

    def record(self, request: RunRequest) -> Recorded:
        """`run_graph` on a worker thread (so a timeout or a Ctrl-C keeps what was recorded), stored through
        `sink` at its end; with `checkpointer`, on a copy of the graph with that saver (`_on_saver`)."""
        if request.checkpointer:
            return self._on_saver(request)
        graph, config, thread, target = request.graph, request.config, request.thread, request.target
        _check_resume(graph, config, thread, request.resume, target)
        options: dict[str, Any] = dict(
            target=target,
            config=config,
            context=request.context,
            thread=thread or None,
            resume=request.resume,
            db=False,  # stored below, through the sink, as every runtime's runs are
            db_path=local_db_path(request.db),
            keep_thread=request.keep_thread,
        )
        done = run_in_background(graph, request.graph_input, timeout=request.timeout, **options)
        if isinstance(done, RunResult):
            recorded = Recorded(done.trace, done.output, done.error, done.thread_id, done.new_thread, done.before_start)
        else:  # the time limit passed: what was recorded so far
            recorded = Recorded(done, thread_id=done.thread_id or "")
        if request.sink is not None:
            request.sink.finish(recorded.trace)
        return recorded

    def _on_saver(self, request: RunRequest) -> Recorded:
        """The run on langgraph's saver of the database `--checkpointer` names, attached to a copy of a graph
        compiled without one (its subgraphs inherit it, as they would the app's own); refused in one line for
        a graph with a saver of its own, or a database that is not a checkpointer's."""
        found = self.checkpointer_class(request.graph)
        if found is not None:
            raise RunSetupError(own_saver_refusal(request.target, found))
        from debugger.runtimes.checkpointers.run_on import python_saver  # only for a run on a named saver
        from debugger.runtimes.threads_api import CheckpointerError

        try:
            with python_saver(request.checkpointer) as saver:
                graph = request.graph.copy(update={"checkpointer": saver})
                return self.record(replace(request, graph=graph, checkpointer=None))
        except CheckpointerError as exc:
            raise RunSetupError(str(exc)) from None

    def static_view(self, graph: Any) -> tuple[Any, str | None]:
        """The engine-shaped builder the checks before running read (`static_view.py`), or why not."""
        try:
            return static_view(graph), None
        except StaticViewError as exc:
            return None, str(exc)

    def checkpointed_copy(self, graph: Any) -> Any:
        """langgraph's own graph with a fresh saver of its own: the user's threads stay untouched."""
        from langgraph.checkpoint.memory import InMemorySaver  # optional heavy package, only when forking

        return graph.copy(update={"checkpointer": InMemorySaver()})

    def discard_copy(self, copy: Any) -> None:
        """Nothing to free: the copy's saver lives in memory and goes with the copy."""

    def resume_input(self, answer: Any) -> Any:
        """langgraph's `Command(resume=answer)`."""
        from langgraph.types import Command  # optional heavy package, only when resuming

        return Command(resume=answer)

    def with_write_in_step(self, graph: Any, node: str, step: int, write: dict[str, Any]) -> Any | None:
        """langgraph's nodes are its own runnables: not replaced; forks use `update_state` after the step."""
        return None

    def read_thread(self, checkpointer: Any, graph: Any, read: ThreadRead) -> Trace:
        """The thread's checkpoints replayed through langgraph's `apply_writes` (`threads/rebuild.py` here)."""
        from debugger.runtimes.langgraph.threads.reader import read_thread

        return read_thread(checkpointer, graph, read)

    def fork_thread(self, fork: ThreadFork) -> ForkResult:
        """The thread copied into a local `SqliteSaver` and run on from the checkpoint (`threads/fork.py` here)."""
        from debugger.runtimes.langgraph.threads.fork import fork_thread

        return fork_thread(**{field.name: getattr(fork, field.name) for field in fields(fork)})

    def drive(
        self, graph: Any, graph_input: Any, config: dict[str, Any] | None, *, target: str, hooks: Any = None
    ) -> Any:
        """A `SegmentedRun` over langgraph's own `stream` (`debugger/runtimes/langgraph/live.py`)."""
        from debugger.runtimes.langgraph.live import LangGraphSegments
        from debugger.runtimes.segmented_live import SegmentedRun

        return SegmentedRun(LangGraphSegments, graph, graph_input, config, target=target, hooks=hooks)


def _check_resume(graph: Any, config: dict[str, Any] | None, thread: str | None, resume: Any, target: str) -> None:
    """`resume=` continues a thread: refused, before anything runs, without one to continue."""
    if resume is NO_RESUME:
        return
    if not run_thread(config, thread):
        raise RunSetupError(RESUME_NEEDS_THREAD)
    if checkpointer_of(graph) is None:
        raise RunSetupError(nothing_to_resume(target, "checkpointer=InMemorySaver()"))
