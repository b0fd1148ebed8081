"""What a runtime provides to the debugger: the one interface every command, source and fork is written against.

A *runtime* is a way a compiled graph runs: StepScope's own engine (`debugger/runtimes/engine/`) or
langgraph itself (`debugger/runtimes/langgraph/`). The debugger never asks which one it talks to (the
Debug Adapter Protocol's rule): `debugger.runtimes.load_target(spec)` picks the runtime once, from the
graph the target names, and everything after that goes through the `Runtime` it returned.

Adding a third runtime (LangGraph.js, say) is one new sub-package `debugger/runtimes/<name>/` whose
`__init__.py` defines one object satisfying `Runtime`, and its name added to `RUNTIMES` in
`debugger/runtimes/registry.py`. Nothing else changes. The object must provide exactly:

- `name`: a short identifier ("engine", "langgraph", "langgraphjs"), and `title`: how messages call its graphs
  ("StepScope", "langgraph"), as in "x.py is a StepScope graph".
- `language`: what its apps are written in ("python", "javascript").
- `loads(spec) -> bool` and `load(spec) -> LoadedTarget`: a runtime whose apps are not Python
  (LangGraph.js) says which targets it loads itself (`app.mjs:graph`) and loads them (its "graph" is
  then a handle of its own, such as `langgraphjs.runtime.JSGraph`); Python runtimes answer False and
  their graphs are found by importing the module the target names.
- `claims(value) -> bool`: True for a compiled graph of this runtime. It must not import the runtime's
  own heavy package to answer (look at class names), since every target is offered to every runtime.
- `records(trace) -> bool`: True for a Trace this runtime recorded (its `graph` description says so).
- `errors`: the exception classes of its own that mean "this graph, thread or setup cannot be handled"
  (an unsupported version of its package, a channel it cannot record); each message is one line with the
  fix, and the commands print it as `error: ...` (exit 2) rather than a traceback.
- `has_threads`: whether its runs live on checkpointer threads: a run can be continued
  (`run --thread ID`), an `interrupt()` answered by a later process (`run --thread ID --resume VALUE`),
  and the app shows the thread's runs as the turns of a conversation.
- `check_run_options(given, target)`: raise `TargetError` naming any of the thread options in
  `given` (`config`, `thread`, `context`, `resume`: the names without `--`) this runtime does not take.
- `checkpointer_class(graph) -> str | None`: the class name of the checkpointer the app compiled its graph
  with (`MemorySaver`, `SqliteSaver`), None when it has none: what messages about a checkpointer say.
- `record(request: RunRequest) -> Recorded`: THE record path (`stepscope run`, `stepscope diagnose`, the app's sources,
  time travel). It runs the graph to its end, however it ends: the run's own failure is in the
  returned trace and `Recorded.error`, never raised. It raises `RunSetupError` only for a run that
  cannot be set up as asked. `timeout` seconds (None: no limit) ends the wait with the trace
  recorded so far, status `timeout`. With a `sink` (`debugger.sources.recording.StoreSink`) the run is
  stored through it, step by step if the runtime can, and `sink.finish(trace)` has been called
  when `record` returns; without one nothing is stored. `db` is the run database the user named
  (runtimes that keep files beside it, as langgraph's in-memory threads do, put them there);
  `keep_thread=False` keeps no such file (time travel's throwaway copies).
- `static_view(graph) -> (view or None, why skipped or None)`: what the checks before running
  (`debugger.diagnostics.diagnose_graph`) read: an object with a `.builder` shaped as the engine's
  `StateGraph` (nodes with their functions, edges, branches, channels with reducers).
- time travel (`debugger/sources/runs/forks.py` is written once over these three):
  `checkpointed_copy(graph)` the graph compiled again on a fresh in-memory checkpointer of its own
  (never the user's), supporting `get_state_history`, `update_state(config, values, as_node=)` and
  `invoke`; `resume_input(answer)` the input that answers an interrupt (its `Command(resume=...)`);
  `with_write_in_step(graph, node, step, write)` a compiled copy in which `node` returns `write` in
  superstep `step` instead of running (the fork is then one whole recorded run), or None when this
  runtime cannot replace a node (the fork then uses `update_state` after the step);
  `discard_copy(copy)` once time travel is done with a `checkpointed_copy` (its runs recorded, or one
  failed): frees what the copy keeps outside the process (LangGraph.js's saver file), a no-op otherwise.
- checkpointer threads, for runtimes with `has_threads` (the others raise `TargetError`):
  `read_thread(checkpointer, graph, read: ThreadRead) -> Trace` a thread of the app's checkpointer
  (`debugger.runtimes.langgraph.threads.savers.Checkpointer`, opened read-only) rebuilt into a Trace with the app's
  graph: the part of it `read` asks for (the whole thread, its newest steps, or one step; see `ThreadRead`), and only
  the checkpoints that part needs decoded (a long thread's first view reads only what it shows);
  `fork_thread(fork: ThreadFork) -> debugger.runtimes.langgraph.threads.fork.ForkResult` time travel
  from that checkpoint on a local copy of the thread (never the app's checkpointer), `app` being a
  `debugger.runtimes.langgraph.threads.open.App`.
- `drive(graph, graph_input, config, *, target, hooks=None) -> DrivenRun`: a run the live controller
  drives one superstep at a time (`debugger/runtimes/driven.py`, the live engineer's protocol).

The graph's builder must expose `builder.nodes` and `builder.channels` (dicts keyed by name), as both
the engine and langgraph do: time travel and the forms read node and key names from them.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Protocol

from debugger.runtimes.threads_api import ThreadFork, ThreadRead
from engine.trace import Trace

NO_RESUME = object()
"""`resume=NO_RESUME`: the run does not answer an interrupt (None is a valid answer)."""


class TargetError(Exception):
    """A target that cannot be loaded or run as asked; the message says what is wrong and what to do."""

    def __init__(self, message: str, *, file: str | None = None, line: int | None = None) -> None:
        super().__init__(message)
        self.file = file
        self.line = line


class RunSetupError(Exception):
    """A run that cannot be set up as asked (a bad --context, a thread file that cannot be read, --resume
    without a thread); the message says what to give instead."""


@dataclass(frozen=True)
class RunRequest:
    """One run a runtime is asked to record (`Runtime.record`): the graph and its input, and how the run
    goes. Build one, then `dataclasses.replace` what differs (a sink, a timeout)."""

    graph: Any
    """The compiled graph, of the runtime the request goes to."""
    graph_input: Any
    config: dict[str, Any] | None
    target: str
    """What was run, as the user named it (the run is stored under it)."""
    thread: str | None = None
    """The checkpointer thread to run on (runtimes with threads; None: a fresh one when the graph has a saver)."""
    resume: Any = NO_RESUME
    """The answer to the interrupt the thread stopped at (`NO_RESUME`: none; None is an answer)."""
    context: Any = None
    """The run's context (langgraph's `context=`)."""
    timeout: float | None = None
    """Seconds to wait for the run (None: no limit); past it the run ends `timeout`, recorded so far."""
    sink: Any = None
    """Where the run is stored as it goes (`debugger.sources.recording.StoreSink`), or None."""
    db: str | None = None
    """The run database the user named (a runtime keeps files beside it, e.g. in-memory threads)."""
    keep_thread: bool = True
    """False for throwaway runs (time travel's copies): no thread file is kept."""


RESUME_NEEDS_THREAD = (
    "--resume answers an interrupt of a thread: give the thread with --thread ID or configurable.thread_id "
    "in --config (the run that stopped printed it)."
)
"""The one refusal of `--resume` without a thread, whichever runtime refuses it."""


def run_thread(
    config: dict[str, Any] | None, thread: str | None, *, names: tuple[str, str] = ("--thread", "--config")
) -> str | None:
    """The thread a run goes on, read as LangGraph reads it: the config's `configurable.thread_id`, of which
    `thread` (`--thread ID`) is the short form. Both given and different is refused in one line naming
    both values (`names`: what the user called the two, the CLI's flags or the app's fields)."""
    configured = ((config or {}).get("configurable") or {}).get("thread_id") if isinstance(config, dict) else None
    configured = None if configured in (None, "") else str(configured)
    thread = thread or None
    if thread is not None and configured is not None and thread != configured:
        raise RunSetupError(
            f"{names[0]} {thread!r} and configurable.thread_id {configured!r} in {names[1]} name two threads: "
            "give one of them, or the same id in both."
        )
    return thread or configured


@dataclass
class Recorded:
    """One recorded run, as `Runtime.record` returns it."""

    trace: Trace
    """The run's trace; with a sink that streamed, only the steps not stored yet (`StoreSink.whole_trace`)."""
    output: Any = None
    """The graph's output (its final state) when it returned one."""
    error: BaseException | None = None
    """The run's own exception (a node that raised, the recursion limit), if any."""
    thread_id: str = ""
    """The checkpointer thread the run went on; '' for a run without one."""
    new_thread: bool = False
    """The thread was made up for this run (a graph with a checkpointer and no thread given)."""
    before_start: bool = False
    """The runtime refused the run before any node ran (the trace has no steps of the graph's own)."""

    @property
    def ok(self) -> bool:
        """The run ended by itself, done or paused at an interrupt."""
        return self.error is None and self.trace.status in ("done", "interrupted")


@dataclass(frozen=True)
class LoadedTarget:
    """A target's graph, with what its module offers and the runtime it runs on."""

    graph: Any
    """The compiled graph (an engine `CompiledStateGraph`, or a langgraph compiled graph)."""
    example_input: Any
    module: Any
    name: str
    """The target as the user wrote it."""
    example_config: dict[str, Any]
    """The module's `example_config` (e.g. a small recursion_limit for a lesson about loops), or {}."""
    runtime: "Runtime"
    """The runtime the graph runs on, picked once here."""


class PythonApps:
    """What every runtime of Python apps shares: its graphs are Python objects, found by importing the
    module a target names (`targets.load_target`), never loaded by the runtime itself."""

    language = "python"
    title = "Python"

    def loads(self, spec: str) -> bool:
        """False: `targets.load_target` imports the module and asks each runtime to `claims` its graph."""
        return False

    def load(self, spec: str) -> LoadedTarget:
        """Never called (`loads` is False)."""
        raise TargetError(f"{spec}: {self.title} graphs are loaded by importing their Python module.")


class Runtime(Protocol):
    """One runtime behind the debugger (see the module docstring for what each member must do)."""

    name: str
    title: str
    language: str
    errors: tuple[type[Exception], ...]
    has_threads: bool

    def loads(self, spec: str) -> bool:
        """This runtime loads `spec` itself (a target in another language)."""
        ...

    def load(self, spec: str) -> LoadedTarget:
        """The target `spec` names, loaded (only asked when `loads(spec)`)."""
        ...

    def claims(self, value: Any) -> bool:
        """A compiled graph of this runtime."""
        ...

    def records(self, trace: Trace) -> bool:
        """A trace this runtime recorded."""
        ...

    def check_run_options(self, given: list[str], target: str) -> None:
        """Raises `TargetError` for thread options (`--thread`, ...) this runtime does not take."""
        ...

    def checkpointer_class(self, graph: Any) -> str | None:
        """The class name of the graph's own checkpointer, or None when it was compiled without one."""
        ...

    def record(self, request: RunRequest) -> Recorded:
        """Runs `graph` recorded, however it ends (see the module docstring)."""
        ...

    def static_view(self, graph: Any) -> tuple[Any, str | None]:
        """(what the checks before running read, or None; why they cannot, or None)."""
        ...

    def checkpointed_copy(self, graph: Any) -> Any:
        """The graph on a fresh in-memory checkpointer of its own, for time travel."""
        ...

    def resume_input(self, answer: Any) -> Any:
        """The graph input that answers an interrupt with `answer`."""
        ...

    def with_write_in_step(self, graph: Any, node: str, step: int, write: dict[str, Any]) -> Any | None:
        """A copy where `node` returns `write` in `step`, or None when this runtime cannot make one."""
        ...

    def discard_copy(self, copy: Any) -> None:
        """Time travel is done with `copy` (a `checkpointed_copy`): whatever it keeps outside the process goes."""
        ...

    def read_thread(self, checkpointer: Any, graph: Any, read: ThreadRead) -> Trace:
        """The part of a checkpointer thread `read` asks for, rebuilt into a Trace with the app's graph."""
        ...

    def fork_thread(self, fork: ThreadFork) -> Any:
        """Time travel from a checkpoint of the thread, on a local copy (a `ForkResult`)."""
        ...

    def drive(
        self, graph: Any, graph_input: Any, config: dict[str, Any] | None, *, target: str, hooks: Any = None
    ) -> Any:
        """A run the live controller drives one superstep at a time (a `DrivenRun`)."""
        ...
