"""Time travel: fork a recorded run at a step with an edited value, or resume an interrupted run.

Both re-run the original input on a copy of the graph compiled with an in-memory checkpointer, then
use the checkpoint API as LangGraph users would: `update_state(checkpoint before step N, {key:
value}, as_node=node)` and `invoke(None, ...)` for a fork; `invoke(Command(resume=value), ...)` for
a resume. The edit goes through the reducers as that node's write, and that node's edges decide
what runs next. Nodes after the fork point run again; nothing before it does, except in the replay.

A graph whose nodes are not deterministic (a real LLM call) may not replay the recorded run exactly;
`Fork.replay_matches` says whether it did, so the user is told.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

from debugger.langgraph_recorder.names import is_langgraph_graph
from debugger.replay import Replay
from engine import Command, InMemorySaver
from engine.trace import Recorder, Trace

_threads = itertools.count(1)


class TimeTravelError(Exception):
    """A fork or resume that cannot be made; the message says why and what to do."""


@dataclass
class StepComparison:
    step: int
    original: Any
    """The original run's state after this step (encoded), or None if it had no such step."""
    fork: Any
    differs: bool


@dataclass
class Fork:
    """A run that branched off a recorded one."""

    trace: Trace
    """The new run's own trace, from the fork point on."""
    step: int
    node: str
    key: str | None
    value: Any
    replay_matches: bool
    """Whether re-running the original reproduced the recorded state before the fork point."""
    comparison: list[StepComparison] = field(default_factory=list)

    @property
    def differing_steps(self) -> list[int]:
        return [c.step for c in self.comparison if c.differs]


def _checkpointed(graph: Any) -> Any:
    if is_langgraph_graph(graph):  # langgraph's own graph with a fresh saver of its own: the user's threads stay untouched
        from langgraph.checkpoint.memory import InMemorySaver as LangGraphSaver

        return graph.copy(update={"checkpointer": LangGraphSaver()})
    return graph.builder.compile(
        checkpointer=InMemorySaver(), name=graph.name,
        interrupt_before=graph.interrupt_before_nodes or None, interrupt_after=graph.interrupt_after_nodes or None,
    )


def _recorded_invoke(graph: Any, graph_input: Any, config: dict[str, Any], target: str) -> Trace:
    """Runs `graph` recorded (the engine's Recorder, or watching langgraph run); a failing run is still recorded."""
    if is_langgraph_graph(graph):
        from debugger.langgraph_recorder import recording

        with recording(target=target, db=False) as session:
            try:
                graph.invoke(graph_input, config)
            except Exception:  # recorded in the trace
                pass
        return session.traces[-1]
    recorder = Recorder(target=target)
    try:
        graph.invoke(graph_input, config, hooks=recorder)
    except Exception:  # recorded in the trace
        pass
    return recorder.trace


def _replay_original(graph: Any, graph_input: Any, config: dict[str, Any] | None) -> tuple[Any, dict[str, Any], Trace]:
    copy = _checkpointed(graph)
    thread = {**(config or {}), "configurable": {**(config or {}).get("configurable", {}), "thread_id": f"stepscope-{next(_threads)}"}}
    # the original may have failed later than the fork point: that is fine
    return copy, thread, _recorded_invoke(copy, graph_input, thread, "replay")


def fork(graph: Any, graph_input: Any, config: dict[str, Any] | None, original: Trace,
         step: int, node: str, key: str | None, value: Any) -> Fork:
    """Runs `graph` again from just before `step`, with `node`'s write replaced by `{key: value}`."""
    if graph is None:
        raise TimeTravelError("Forking re-runs the graph, so it needs the graph's code: open the run from a sample or a graph file.")
    if node not in graph.builder.nodes:
        raise TimeTravelError(f"{node!r} is not a node of this graph; pick one of {', '.join(graph.builder.nodes)}.")
    if key is not None and key not in graph.builder.channels:
        raise TimeTravelError(f"{key!r} is not a state key; pick one of {', '.join(graph.builder.channels)}.")
    copy, thread, replayed = _replay_original(graph, graph_input, config)
    base = next((s for s in copy.get_state_history(thread) if s.metadata["step"] == step - 1), None)
    if base is None:
        raise TimeTravelError(f"The re-run has no checkpoint before step {step}; it stopped at step "
                              f"{max((s.step for s in replayed.steps), default=-1)}.")
    matches = _same_state(Replay(original), Replay(replayed), step - 1)
    values = {key: value} if key is not None else None
    edited = copy.update_state(base.config, values, as_node=node)
    trace = _recorded_invoke(copy, None, edited, f"{original.target or original.graph.get('name', 'run')} (fork at step {step})")
    result = Fork(trace, step, node, key, value, matches)
    result.comparison = compare(original, trace)
    return result


def resume(graph: Any, graph_input: Any, config: dict[str, Any] | None, original: Trace, answer: Any) -> Fork:
    """Re-runs an interrupted run to its interrupt and resumes it with `answer`."""
    if graph is None:
        raise TimeTravelError("Resuming re-runs the graph, so it needs the graph's code: open the run from a sample or a graph file.")
    if original.status != "interrupted":
        raise TimeTravelError(f"Only an interrupted run can be resumed; this one ended with status {original.status!r}.")
    copy, thread, replayed = _replay_original(graph, graph_input, config)
    if replayed.status != "interrupted":
        raise TimeTravelError(f"Re-running the original did not stop at the interrupt (status {replayed.status!r}); "
                              "the graph does not replay the same way.")
    command = Command(resume=answer)
    if is_langgraph_graph(copy):
        from langgraph.types import Command as LangGraphCommand

        command = LangGraphCommand(resume=answer)
    trace = _recorded_invoke(copy, command, thread, f"{original.target or original.graph.get('name', 'run')} (resumed)")
    last = max((s.step for s in replayed.steps), default=-1)
    result = Fork(trace, last + 1, "(resume)", None, answer, True)
    result.comparison = compare(original, trace)
    return result


def compare(original: Trace, branch: Trace) -> list[StepComparison]:
    """The state after each step of `branch` next to the original's at the same step number."""
    mine, theirs = Replay(original), Replay(branch)
    rows = []
    for step in theirs.order:
        new = theirs.state_after(step)
        old = mine.state_after(step) if step in mine.steps else None
        rows.append(StepComparison(step, old, new, old != new))
    return rows


def _same_state(a: Replay, b: Replay, step: int) -> bool:
    if step not in a.steps or step not in b.steps:
        return step not in a.steps and step not in b.steps
    return a.state_after(step) == b.state_after(step)
