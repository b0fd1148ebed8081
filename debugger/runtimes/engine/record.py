"""The engine runtime (`debugger.runtimes.runtime.Runtime` over StepScope's `engine/`).

Its runs are recorded by `debugger.sources.recording.record_run` (the engine's `Recorder` hook on a worker
thread, so Ctrl-C and a time limit stop the wait and keep what was recorded); with a sink, every
superstep is stored as it commits. It has no checkpointer threads of the user's: the thread options
of `stepscope run` (`--thread`, `--context`, `--resume`, `--checkpointer`) are refused by name.
"""

from __future__ import annotations

import copy
import dataclasses
import sys
import uuid
from typing import Any

from debugger.runtimes.capabilities import LiveDriving, StaticChecks, TimeTravel
from debugger.runtimes.runtime import PythonApps, Recorded, RunRequest, TargetError
from debugger.sources.recording import record_run
from engine import Command
from engine.trace import Recorder, Trace, takes_config

# The engine's builder, loop and savers (`engine.compiled`, `engine.savers`) and its live run are imported
# where they are used: every command asks this runtime whether it `claims` a graph, and `stepscope run` of
# a langgraph app must not load the engine for that (tests/test_cli_lazy.py).

THREAD_OPTIONS = ("thread", "context", "resume", "checkpointer")
"""The options of a run (`debugger/runtimes/run_options.py`) that only runtimes with threads take; `--config`
(its recursion_limit, its configurable values) reaches the engine's run as the app's Graph file form's does."""


class EngineRuntime(PythonApps):
    """StepScope's engine: graphs compiled by `engine.StateGraph`."""

    name = "engine"
    title = "StepScope"
    errors: tuple[type[Exception], ...] = ()
    capabilities = (StaticChecks, TimeTravel, LiveDriving)
    """No `Threads`: the engine's graphs write no checkpointer threads of the user's."""

    def claims(self, value: Any) -> bool:
        """An engine `CompiledStateGraph`. Such a graph exists only once `engine.compiled` was imported
        (by the module that compiled it), so a module that did not is not asked to import it."""
        compiled = sys.modules.get("engine.compiled")
        return compiled is not None and isinstance(value, compiled.CompiledStateGraph)

    def records(self, trace: Trace) -> bool:
        """A trace the engine's recorder wrote (langgraph's say `source: langgraph`)."""
        return (trace.graph or {}).get("source") in (None, "engine")

    def check_run_options(self, given: dict[str, str], target: str) -> None:
        """The thread options belong to langgraph apps: refused by name, as the user gave them (`--config` is taken)."""
        refused = [given[name] for name in THREAD_OPTIONS if name in given]
        if refused:
            raise TargetError(
                f"{', '.join(refused)}: only for langgraph apps (threads, checkpointers and run contexts); "
                f"{target} is a StepScope engine graph, whose runs keep no threads: run it without them."
            )

    def checkpointer_class(self, graph: Any) -> str | None:
        """The class of the saver the graph was compiled with (`InMemorySaver`, `SqliteSaver`), or None."""
        saver = getattr(graph, "checkpointer", None)
        return None if saver in (None, False, True) else type(saver).__name__

    def record(self, request: RunRequest) -> Recorded:
        """`record_run`, streamed into `sink` when given. `thread`, `resume` and `context` were refused by
        `check_run_options`; `db` and `keep_thread` concern threads, which the engine has none of."""
        sink, target = request.sink, request.target
        recorder = Recorder(target=target, sink=sink) if sink is not None else None
        outcome = record_run(
            request.graph,
            request.graph_input,
            self._with_thread(request.graph, dict(request.config or {})),
            target=target,
            timeout=request.timeout,
            recorder=recorder,
        )
        if sink is not None:
            sink.finish(outcome.trace)
        return Recorded(outcome.trace, outcome.output, outcome.failure)

    def _with_thread(self, graph: Any, config: dict[str, Any]) -> dict[str, Any]:
        """A graph compiled with a checkpointer runs only on a thread (its saver refuses a config without
        `thread_id`): a run given none gets one of its own, as `graph.invoke(inp, {"configurable":
        {"thread_id": ...}})` would. The saver is the graph's, in this process: the thread ends with it."""
        configurable = dict(config.get("configurable") or {})
        if self.checkpointer_class(graph) is None or configurable.get("thread_id"):
            return config
        configurable["thread_id"] = f"stepscope-{uuid.uuid4().hex[:12]}"
        return {**config, "configurable": configurable}

    def static_view(self, graph: Any) -> tuple[Any, str | None]:
        """An engine graph is read by the checks before running as it is."""
        return graph, None

    def checkpointed_copy(self, graph: Any) -> Any:
        """The builder compiled again with an `InMemorySaver` of its own."""
        from engine import InMemorySaver  # the engine's savers: only when a copy is asked for

        return graph.builder.compile(
            checkpointer=InMemorySaver(),
            name=graph.name,
            interrupt_before=graph.interrupt_before_nodes or None,
            interrupt_after=graph.interrupt_after_nodes or None,
        )

    def discard_copy(self, copy: Any) -> None:
        """Nothing to free: the copy's saver lives in memory and goes with the copy."""

    def resume_input(self, answer: Any) -> Any:
        """The engine's `Command(resume=answer)`."""
        return Command(resume=answer)

    def with_write_in_step(self, graph: Any, node: str, step: int, write: dict[str, Any]) -> Any | None:
        """The graph with `node` returning `write` in `step` (and running as before in every other step).
        A subgraph node is not replaced (None): its inner steps fork with `update_state` instead."""
        spec = graph.builder.nodes[node]
        action = spec.action
        if hasattr(action, "builder"):
            return None

        def edited(state: Any, config: dict[str, Any]) -> Any:
            if (config.get("metadata") or {}).get("langgraph_step") != step:
                return action(state, config=config) if takes_config(action) else action(state)
            try:
                result = action(state, config=config) if takes_config(action) else action(state)
            except Exception:  # the node failed here in the original too: the edit is what it writes instead
                return dict(write)
            return with_keys_replaced(result, write)

        builder = copy.copy(graph.builder)
        builder.nodes = {**graph.builder.nodes, node: dataclasses.replace(spec, action=edited)}
        return builder.compile(
            name=graph.name,
            interrupt_before=graph.interrupt_before_nodes or None,
            interrupt_after=graph.interrupt_after_nodes or None,
        )

    def drive(
        self, graph: Any, graph_input: Any, config: dict[str, Any] | None, *, target: str, hooks: Any = None
    ) -> Any:
        """`EngineDrivenRun` (`debugger/runtimes/engine/live.py`)."""
        from debugger.runtimes.engine.live import EngineDrivenRun  # the live-run machinery: only for a live run

        return EngineDrivenRun(graph, graph_input, config, target=target, hooks=hooks)


def with_keys_replaced(result: Any, write: dict[str, Any]) -> Any:
    """A node's return value with the keys of `write` replaced and its other writes kept: a dict or a
    `Command`'s dict update is updated; anything else (None, no state write) becomes `write`."""
    if isinstance(result, Command) and (isinstance(result.update, dict) or result.update is None):
        return dataclasses.replace(result, update={**(result.update or {}), **write})
    if isinstance(result, dict):
        return {**result, **write}
    return dict(write)
