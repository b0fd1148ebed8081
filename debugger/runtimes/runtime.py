"""What every runtime provides to the debugger: loading a target and recording a run. What only some
runtimes can do (static checks, time travel, threads, live driving) is in `capabilities.py`.

A *runtime* is a way a compiled graph runs: StepScope's own engine (`debugger/runtimes/engine/`),
langgraph itself (`debugger/runtimes/langgraph/`) or LangGraph.js (`debugger/runtimes/langgraphjs/`).
The debugger never asks which one it talks to (the Debug Adapter Protocol's rule):
`debugger.runtimes.load_target(spec)` picks the runtime once, from the graph the target names, and
everything after that goes through the `Runtime` it returned and the capabilities it declares.

Adding a runtime is one new sub-package `debugger/runtimes/<name>/` defining one object satisfying
`Runtime` (and the capabilities it declares), added to `RUNTIMES` in `debugger/runtimes/registry.py`;
docs/architecture.md has the checklist. Nothing else changes. The object must provide exactly:

- `name`: a short identifier ("engine", "langgraph", "langgraphjs"), and `title`: how messages call its graphs
  ("StepScope", "langgraph"), as in "x.py is a StepScope graph".
- `language`: what its apps are written in ("python", "javascript").
- `recursion_limit_key`: the config key its runs read the recursion limit from ("recursion_limit",
  LangGraph.js's "recursionLimit"), where `--recursion-limit` puts it.
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
- `check_run_options(given, target)`: raise `TargetError` naming any of the thread options in
  `given` (`config`, `thread`, `context`, `resume`, `checkpointer`, each mapped to how the command line or
  the app's form spells it: `--thread`, `The thread`) this runtime does not take. A runtime that takes
  `checkpointer` runs an app compiled without a saver on the one `RunRequest.checkpointer` names, and
  refuses it for an app compiled with its own (`own_saver_refusal`).
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
- `capabilities`: the optional capabilities it has (`debugger/runtimes/capabilities.py`: static checks,
  time travel, checkpointer threads, live driving), each a few methods it then implements; the debugger
  asks `capability(runtime, kind)` and never calls a method the runtime did not declare.

The graph's builder must expose `builder.nodes` and `builder.channels` (dicts keyed by name), as both
the engine and langgraph do: time travel and the forms read node and key names from them.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePath
from typing import Any, Protocol

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
    checkpointer: str | None = None
    """The saver to run on (`--checkpointer`: a SQLite file or a postgresql:// URL) for an app compiled
    without one; None: the app's own, if any."""


RESUME_NEEDS_THREAD = (
    "--resume answers an interrupt of a thread: give the thread with --thread ID or configurable.thread_id "
    "in --config (the run that stopped printed it)."
)
"""The one refusal of `--resume` without a thread, whichever runtime refuses it."""


def target_name(target: str) -> str:
    """A target as a name for its graph: a file's name with its attribute (`approve.py:graph`), since a
    stored run keeps the file's whole path (`run_options.recorded_target`); other targets as they are."""
    spec, colon, attribute = target.partition(":")
    return f"{PurePath(spec).name}{colon}{attribute}" if PurePath(spec).suffix else target


def nothing_to_resume(target: str, saver: str) -> str:
    """The one refusal of `--resume` for an app found compiled without a checkpointer; `saver` is how the
    app's own language compiles one in (`checkpointer=InMemorySaver()`)."""
    return (
        f"{target} was compiled without a checkpointer, so no thread of it was kept to resume: compile it "
        f"with {saver} (or another saver)."
    )


def own_saver_refusal(target: str, found: str) -> str:
    """The one refusal of `--checkpointer` for an app compiled with a saver of its own (`found`, its class)."""
    return (
        f"--checkpointer: {target} was compiled with its own checkpointer ({found}), which keeps its threads "
        "itself; drop --checkpointer to run on it, or compile the graph without a checkpointer to run it on the URL."
    )


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
    recursion_limit_key = "recursion_limit"

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
    recursion_limit_key: str
    """The run config's key for the recursion limit (`--recursion-limit` sets it)."""
    errors: tuple[type[Exception], ...]
    capabilities: tuple[type, ...]
    """The optional capabilities it has (`debugger.runtimes.capabilities`)."""

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

    def check_run_options(self, given: dict[str, str], target: str) -> None:
        """Raises `TargetError` for thread options (`--thread`, ...) this runtime does not take; `given` names
        each option given (`thread`) as the user's command line or form spells it (`--thread`, `The thread`)."""
        ...

    def checkpointer_class(self, graph: Any) -> str | None:
        """The class name of the graph's own checkpointer, or None when it was compiled without one."""
        ...

    def record(self, request: RunRequest) -> Recorded:
        """Runs `graph` recorded, however it ends (see the module docstring)."""
        ...
