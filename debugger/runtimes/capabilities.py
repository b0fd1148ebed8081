"""What a runtime can do beyond recording a run: each capability a few small requests, declared by the
runtimes that have it, asked for by the debugger (the Debug Adapter Protocol's rule).

Every runtime records (`debugger.runtimes.runtime.Runtime`: load a target, record a run). The rest is
optional, and a runtime lists the capabilities it has in `capabilities`:

- `StaticChecks`: the graph's structure, for the checks before running and the forms;
- `TimeTravel`: a checkpointed copy of the graph to rewind, edit a step of and resume;
- `Threads`: the user's own checkpointer threads, read and forked on a local copy;
- `LiveDriving`: a run driven one superstep at a time (the Live page, `run --follow`);
- `CodeRecording`: the runs the user's own code starts, recorded where they run (`from debugger import
  record, recording`, `pytest --stepscope`).

The debugger never asks which runtime it talks to: `capability(runtime, Threads)` gives the runtime as
its `Threads`, or None when it has none, and `need(runtime, Threads, target)` says in one line what this
runtime's graphs cannot do. A runtime that lacks a capability has none of its methods (no stub that
raises): a fourth runtime implements what it declares, and `tests/test_runtime_capabilities.py` checks
that every declared capability is whole.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, TypeVar, runtime_checkable

from debugger.runtimes.runtime import TargetError

if TYPE_CHECKING:
    from debugger.runtimes.threads_api import ThreadFork, ThreadRead
    from engine.trace import Trace


@runtime_checkable
class StaticChecks(Protocol):
    """The graph's structure without running it: what `debugger.diagnostics.diagnose_graph` reads and
    the forms take node and key names from."""

    def static_view(self, graph: Any) -> tuple[Any, str | None]:
        """(an object with a `.builder` shaped as the engine's `StateGraph`: nodes with their functions,
        edges, branches, channels with reducers; or None) and (why it cannot be made, or None)."""
        ...


@runtime_checkable
class TimeTravel(Protocol):
    """Rewinding a recorded run (`debugger/sources/forks.py` is written once over these four)."""

    def checkpointed_copy(self, graph: Any) -> Any:
        """The graph compiled again on a fresh in-memory checkpointer of its own (never the user's),
        supporting `get_state_history`, `update_state(config, values, as_node=)` and `invoke`."""
        ...

    def resume_input(self, answer: Any) -> Any:
        """The input that answers an interrupt with `answer` (its `Command(resume=...)`)."""
        ...

    def with_write_in_step(self, graph: Any, node: str, step: int, write: dict[str, Any]) -> Any | None:
        """A compiled copy in which `node` returns `write` in superstep `step` instead of running (the fork
        is then one whole recorded run), or None when this runtime cannot replace a node (the fork then
        uses `update_state` after the step)."""
        ...

    def discard_copy(self, copy: Any) -> None:
        """Time travel is done with `copy` (its runs recorded, or one failed): whatever it keeps outside
        the process goes (LangGraph.js's saver file); a no-op where it keeps nothing."""
        ...


@runtime_checkable
class Threads(Protocol):
    """The runs of the user's app live on checkpointer threads: a run can be continued (`run --thread
    ID`), an `interrupt()` answered by a later process, and the app shows a thread's runs as the turns of
    a conversation."""

    def read_thread(self, checkpointer: Any, graph: Any, read: ThreadRead) -> Trace:
        """The part of a thread `read` asks for (the whole thread, its newest steps, or one step) of the
        app's checkpointer (`debugger.runtimes.checkpointers.savers.Checkpointer`, opened read-only),
        rebuilt into a Trace with the app's graph; only the checkpoints that part needs are decoded."""
        ...

    def fork_thread(self, fork: ThreadFork) -> Any:
        """Time travel from a checkpoint of the thread on a local copy, never the app's checkpointer (a
        `debugger.runtimes.threads_api.ForkResult`)."""
        ...


@runtime_checkable
class LiveDriving(Protocol):
    """A run the live controller drives one superstep at a time."""

    def drive(
        self, graph: Any, graph_input: Any, config: dict[str, Any] | None, *, target: str, hooks: Any = None
    ) -> Any:
        """A started `debugger.runtimes.driven.DrivenRun` (the live engineer's protocol)."""
        ...


@runtime_checkable
class CodeRecording(Protocol):
    """The runs the user's own code starts, recorded in the user's process (no target loaded, no process
    of ours): `from debugger import record, recording` and the pytest plugin ask the registry's
    `code_recording()` for these two."""

    def recording(self, *, target: str = "", db: Any = None, on_trace: Any = None, sinks: Any = None) -> Any:
        """A context manager recording every run started inside the block, any thread or task; it gives the
        session whose `traces` are the runs. `db`: a path, a run store, None for the default database,
        False for none; `on_trace(trace)` at each run's end; `sinks(trace)`: where a run's steps go as they
        commit (`engine.recorder.StepSink`), or None to keep it whole."""
        ...

    def recorded_graph(self, graph: Any, *, target: str = "", db: Any = None, on_trace: Any = None) -> Any:
        """`graph` itself, each run of its `invoke`, `ainvoke`, `stream` and `astream` recorded (`db` and
        `on_trace` as for `recording`); a graph that cannot be recorded is refused now, not mid-run."""
        ...


CAPABILITIES: tuple[type, ...] = (StaticChecks, TimeTravel, Threads, LiveDriving, CodeRecording)
"""Every optional capability, in the order docs/architecture.md describes them."""

WHAT_IT_DOES = {
    StaticChecks: "be checked before running",
    TimeTravel: "be rewound (time travel)",
    Threads: "keep checkpointer threads of their own to read or fork",
    LiveDriving: "be driven live one superstep at a time",
    CodeRecording: "be recorded from your own code (`from debugger import record, recording`)",
}
"""How a refusal says what a runtime's graphs cannot do."""

Capability = TypeVar("Capability")


def capability(runtime: Any, kind: type[Capability]) -> Capability | None:
    """`runtime` as its `kind` if it declares that capability, else None."""
    return runtime if kind in getattr(runtime, "capabilities", ()) else None


def need(runtime: Any, kind: type[Capability], target: str) -> Capability:
    """`runtime` as its `kind`; `TargetError` naming what `target`'s graphs cannot do when it has none."""
    found = capability(runtime, kind)
    if found is None:
        raise TargetError(f"{target}: {runtime.title} graphs cannot {WHAT_IT_DOES[kind]}.")
    return found


def static_view_of(runtime: Any, graph: Any) -> tuple[Any, str | None]:
    """`StaticChecks.static_view` of `graph`, or (None, why) for a runtime without static checks: the
    checks before running are then skipped, said in words, and the run still recorded."""
    checks = capability(runtime, StaticChecks)
    if checks is None:
        return None, f"{runtime.title} graphs cannot {WHAT_IT_DOES[StaticChecks]}"
    return checks.static_view(graph)
