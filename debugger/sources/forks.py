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
import json
import re
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Iterator

from debugger.diagnostics.generated_ids import same_up_to_generated_ids
from debugger.diagnostics.replay import Replay
from debugger.i18n import _
from debugger.model.compare import StepDiff, compare_runs
from debugger.runtimes.capabilities import TimeTravel, need
from debugger.runtimes.registry import runtime_of
from debugger.runtimes.runtime import RunRequest, RunSetupError, TargetError
from debugger.sources.recording import app_run_timeout
from engine.codec import TYPE, decode
from engine.trace import Trace, with_fork_step

_threads = itertools.count(1)


class TimeTravelError(Exception):
    """A fork or resume that cannot be made; the message says why and what to do."""


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
    comparison: list[StepDiff] = field(default_factory=list)
    """The branch's steps beside the original's (`debugger.model.compare`, the comparison of two runs)."""

    @property
    def differing_steps(self) -> list[int]:
        """The steps whose state differs from the original's."""
        return [c.step for c in self.comparison if c.state_differs]


@dataclass(frozen=True)
class ForkForm:
    """What the fork form offers at a step, from the recorded trace (never the live graph)."""

    nodes: list[str]
    node: str
    keys: list[str]
    key: str
    value_json: str
    """The value `node` wrote to `key` in this step, else the key's value after it, as JSON."""


def fork_form(view: Any, step: int, node: str | None = None, key: str | None = None) -> ForkForm:
    """Defaults: a node that ran in the step (else one that runs next), a key it wrote, its value."""
    described = view.run.graph
    nodes = [n["name"] for n in described["nodes"]] or ["(none)"]
    keys = list(described.get("channels", {})) or ["(none)"]
    ran = [t.name for t in view.tasks(step) if t.name in nodes]
    following = [t.name for t in view.tasks(view.neighbour(step, +1)) if t.name in nodes] if step != view.last else []
    if node not in nodes:
        node = (ran or following or nodes)[0]
    writes = [(c, v) for t in view.tasks(step) if t.name == node for c, v in t.writes if c in keys]
    if key not in keys:
        key = writes[0][0] if writes else keys[0]
    current = next((v for c, v in writes if c == key), None)
    if current is None:
        current = view.state(step).get(key)
    text = json.dumps(as_json(current), ensure_ascii=False, default=str)
    return ForkForm(nodes, node, keys, key, text)


def as_json(encoded: Any) -> Any:
    """An encoded value as the JSON a user edits and a reducer takes back: a message as the dict langchain
    and the engine both accept (`{"type": "ai", "content": ..., "id": ...}`), the rest decoded."""
    if isinstance(encoded, list):
        return [as_json(item) for item in encoded]
    if isinstance(encoded, dict) and encoded.get(TYPE) == "message" and isinstance(encoded.get("message"), dict):
        message = encoded["message"]
        return {"type": message.get("type"), **(message.get("data") or {})}
    if isinstance(encoded, dict) and TYPE not in encoded:
        return {key: as_json(value) for key, value in encoded.items()}
    return decode(encoded) if encoded is not None else None


def branch_target(original: Trace, how: str) -> str:
    """`subgraph_trap (fork at step 2)`: what a branch is, as the run store lists it; `origin_target`
    reads the original's target back (so a stored branch can find its graph's code again)."""
    return f"{origin_target(original.target) or original.graph.get('name', 'run')} ({how})"


def fork_step_of(target: str) -> int | None:
    """The step a branch was forked at, from its target (`... (fork at step 2)`), else None."""
    found = re.search(r"\(fork at step (-?\d+)\)$", target)
    return int(found.group(1)) if found else None


def origin_target(target: str) -> str:
    """The target a run (or a branch of it, or a branch of a branch) was made from."""
    while (
        target.endswith(")") and " (" in target and target.rsplit(" (", 1)[1].startswith(("fork at step ", "resumed"))
    ):
        target = target.rsplit(" (", 1)[0]
    return target


def _record(graph: Any, graph_input: Any, config: dict[str, Any], target: str) -> Trace:
    """The run recorded by its runtime, as the app records one (its own failure is in the trace); the
    runtime's checkpointer threads are the debugger's own here, so none is kept in a file."""
    try:
        request = RunRequest(graph, graph_input, config, target, timeout=app_run_timeout(), keep_thread=False)
        return runtime_of(graph).record(request).trace
    except RunSetupError as exc:
        raise TimeTravelError(f"{target}: {exc}") from None


def _time_travel(graph: Any) -> TimeTravel:
    """The graph's runtime as its `TimeTravel` capability; `TimeTravelError` for a runtime without one."""
    try:
        return need(runtime_of(graph), TimeTravel, getattr(graph, "name", None) or type(graph).__name__)
    except TargetError as exc:
        raise TimeTravelError(str(exc)) from None


@contextmanager
def _copy_of(graph: Any) -> Iterator[Any]:
    """The graph's `checkpointed_copy`, discarded (`TimeTravel.discard_copy`) when time travel is done with
    it, however it ended: a LangGraph.js copy keeps its saver in a temporary folder."""
    runtime = _time_travel(graph)
    copy = runtime.checkpointed_copy(graph)
    try:
        yield copy
    finally:
        runtime.discard_copy(copy)


def _replay_original(copy: Any, graph_input: Any, config: dict[str, Any] | None) -> tuple[dict[str, Any], Trace]:
    """The original input run again on `copy`, on a thread of its own: (that thread's config, its trace)."""
    thread = {
        **(config or {}),
        "configurable": {**(config or {}).get("configurable", {}), "thread_id": f"stepscope-{next(_threads)}"},
    }
    return thread, _record(copy, graph_input, thread, "replay")  # it may fail after the fork point: fine


@dataclass(frozen=True)
class ForkRequest:
    """What a fork is asked for: the recorded run, where to branch it, and the edit."""

    graph: Any
    """The graph's code (None for a run opened without it: refused)."""
    graph_input: Any
    config: dict[str, Any] | None
    original: Trace
    step: int
    node: str
    """The node whose write in `step` the edit replaces (or, if it did not run there, writes as)."""
    key: str | None
    """The one key of that write the edit replaces; None forks with the node's write as it was."""
    value: Any

    def edit(self) -> dict[str, Any]:
        """The edit alone, `{key: value}`."""
        return {self.key: self.value} if self.key is not None else {}


def fork(request: ForkRequest) -> Fork:
    """Runs the graph again from just before `request.step`, with `request.key` of `request.node`'s write
    replaced by `request.value` (the node's other writes stay as it made them)."""
    graph, key = request.graph, request.key
    if graph is None:
        raise TimeTravelError(
            "Forking re-runs the graph, so it needs the graph's code: open the run from a sample or a graph file."
        )
    if request.node not in graph.builder.nodes:
        raise TimeTravelError(
            f"{request.node!r} is not a node of this graph; pick one of {', '.join(graph.builder.nodes)}."
        )
    if key is not None and key not in graph.builder.channels:
        raise TimeTravelError(f"{key!r} is not a state key; pick one of {', '.join(graph.builder.channels)}.")
    check_value(graph, request.original, request.step, key, request.value)
    if _ran_in(request.original, request.step, request.node):
        changed = _time_travel(graph).with_write_in_step(graph, request.node, request.step, request.edit())
        if changed is not None:
            return _fork_in_step(request, changed)
    return _fork_by_update(request)


def _fork_by_update(request: ForkRequest) -> Fork:
    """The original re-run on a checkpointed copy, then `update_state(checkpoint before the step, the node's
    write with the key replaced, as_node=node)` and `invoke(None)` from there."""
    original, step, node = request.original, request.step, request.node
    with _copy_of(request.graph) as copy:
        thread, replayed = _replay_original(copy, request.graph_input, request.config)
        base = next((s for s in copy.get_state_history(thread) if s.metadata["step"] == step - 1), None)
        if base is None:
            raise TimeTravelError(
                f"The re-run has no checkpoint before step {step}; it stopped at step "
                f"{max((s.step for s in replayed.steps), default=-1)}."
            )
        matches = _same_state(Replay(original), Replay(replayed), step - 1)
        values = {**_node_write(base, original, step, node), **request.edit()}
        edited = copy.update_state(base.config, values or None, as_node=node)
        branch = _record(copy, None, edited, branch_target(original, f"fork at step {step}"))  # a failure is in it
    branch = with_history(original, branch, step, node, values)
    branch.config = original.config  # the user's config, not the address of the debugger's own checkpoint
    result = Fork(branch, step, node, request.key, request.value, matches)
    result.comparison = compare(original, branch)
    return result


def _node_write(base: Any, original: Trace, step: int, node: str) -> dict[str, Any]:
    """What `node` wrote to the state in `step`, so that an edit of one key keeps the others: the re-run's
    own write (its checkpoint before the step holds each finished task's result, real values such as
    langchain messages), else the recorded one where it is plain JSON (a runtime whose checkpoints do not
    say), else nothing (the node did not run in the step: the edit is all it writes)."""
    for task in getattr(base, "tasks", None) or ():
        if task.name == node and isinstance(task.result, dict):
            return {k: v for k, v in task.result.items() if not (isinstance(v, dict) and "$writes" in v)}
    channels = original.graph.get("channels", {})
    recorded = next((t.writes for s in original.steps if s.step == step for t in s.tasks if t.name == node), [])
    return {channel: value for channel, value in recorded if channel in channels and _plain(value)}


def _plain(value: Any) -> bool:
    """Whether an encoded value is plain JSON (no codec-tagged object that would have to be rebuilt)."""
    if isinstance(value, dict):
        return TYPE not in value and all(_plain(v) for v in value.values())
    if isinstance(value, list):
        return all(_plain(v) for v in value)
    return True


def _ran_in(trace: Trace, step: int, node: str) -> bool:
    return any(t.name == node for s in trace.steps if s.step == step for t in s.tasks)


def _fork_in_step(request: ForkRequest, changed: Any) -> Fork:
    """The run again from its input on `changed`, the graph whose `node` writes its own write with `key`
    replaced by `value` in `step` (`Runtime.with_write_in_step`): the edit is a write of that very
    superstep, so the step's other tasks keep their writes (their conflicts too), the barrier folds them
    all through the reducers, and `node`'s edges route from there, as `update_state(..., as_node=node)`
    would. One whole recorded run, nothing synthetic."""
    original, step = request.original, request.step
    target = branch_target(original, f"fork at step {step}")
    branch = _record(changed, request.graph_input, dict(request.config or {}), target)
    matches = _same_state(Replay(original), Replay(branch), step - 1)
    result = Fork(branch, step, request.node, request.key, request.value, matches)
    result.comparison = [row for row in compare(original, branch) if row.step >= step]
    return result


def resume(graph: Any, graph_input: Any, config: dict[str, Any] | None, original: Trace, answer: Any) -> Fork:
    """Re-runs an interrupted run to its interrupt and resumes it with `answer`."""
    if graph is None:
        raise TimeTravelError(
            "Resuming re-runs the graph, so it needs the graph's code: open the run from a sample or a graph file."
        )
    if original.status != "interrupted":
        raise TimeTravelError(
            f"Only an interrupted run can be resumed; this one ended with status {original.status!r}."
        )
    with _copy_of(graph) as copy:
        thread, replayed = _replay_original(copy, graph_input, config)
        if replayed.status != "interrupted":
            raise TimeTravelError(
                f"Re-running the original did not stop at the interrupt (status {replayed.status!r}); "
                "the graph does not replay the same way."
            )
        command = _time_travel(copy).resume_input(answer)
        branch = _record(copy, command, thread, branch_target(original, "resumed"))
    last = max((s.step for s in replayed.steps), default=-1)
    result = Fork(branch, last + 1, "(resume)", None, answer, True)
    result.comparison = compare(original, branch)
    return result


def check_value(graph: Any, original: Trace, step: int, key: str | None, value: Any) -> None:
    """Refuses, before anything runs, a value the key's reducer cannot take (`"hello"` for a list
    under operator.add), naming the reducer and what it expects."""
    if key is None:
        return
    channel = graph.builder.channels.get(key)
    reducer = getattr(channel, "operator", None)
    if reducer is None:
        return
    replay = Replay(original)
    earlier = [s for s in replay.order if s < step]
    current = replay.state_after(earlier[-1]).get(key) if earlier else None
    if current is None:
        return
    old = decode(current)
    try:
        reducer(old, value)
    except Exception as exc:  # the user's reducer on the user's value: any failure is the answer
        name = getattr(channel, "reducer_name", getattr(reducer, "__name__", "the reducer"))
        raise TimeTravelError(
            f"{name} cannot merge {json.dumps(value, ensure_ascii=False, default=str)} into {key!r}: "
            "it expects a value "
            f"it can combine with {type(old).__name__} {json.dumps(old, ensure_ascii=False, default=str)[:60]} "
            f'({type(exc).__name__}: {exc}). For a list under operator.add, write a list, e.g. ["hello"].'
        ) from None


def with_history(original: Trace, branch: Trace, step: int, node: str, writes: dict[str, Any]) -> Trace:
    """The branch as a whole run: the original's steps before the fork, then the fork step as the edit
    made it (`node` writing `writes`, its write with the edited key replaced, through the reducers), then
    what the branch ran."""
    history = [s for s in original.steps if s.step < step]
    state = Replay(original).state_after(history[-1].step) if history else {}
    return with_fork_step(original, branch, step, node, writes, {key: state.get(key) for key in writes})


def ranges(steps: list[int]) -> str:
    """`steps 3-249 and 251`, `step 2`, `steps 2 and 4`: step numbers with consecutive runs joined."""
    runs: list[list[int]] = []
    for number in sorted(set(steps)):
        if runs and runs[-1][1] == number - 1:
            runs[-1][1] = number
        else:
            runs.append([number, number])
    if not runs:
        return _("no step")
    parts = [str(a) if a == b else f"{a}-{b}" for a, b in runs]
    joined = ", ".join(parts[:-1]) + _(" and ") + parts[-1] if len(parts) > 1 else parts[0]
    one = len(runs) == 1 and runs[0][0] == runs[0][1]
    return (_("step {steps}") if one else _("steps {steps}")).format(steps=joined)


def compare(original: Trace, branch: Trace) -> list[StepDiff]:
    """Each step of `branch` beside the original's step of the same number (the two-run comparison of
    `stepscope compare`), from the fork point on."""
    first = min((s.step for s in branch.steps if s.tasks and s.tasks[0].id.startswith("fork-")), default=None)
    steps = compare_runs(original, branch, findings=False).steps
    # before `first` the branch holds the original's own history, copied
    return [s for s in steps if s.in_b and (first is None or s.step >= first)]


def _same_state(a: Replay, b: Replay, step: int) -> bool:
    if step not in a.steps or step not in b.steps:
        return step not in a.steps and step not in b.steps
    return same_up_to_generated_ids(a.state_after(step), b.state_after(step))
