"""Every later edit of a recorded trace, in one place: what happens to a Trace after its runtime
wrote it (`engine/trace_writer.py`), for whatever runtime recorded it.

- `mark_ended`: a run ended by its caller or by StepScope (stopped, timed out, cancelled, cut off),
  with an error record StepScope writes itself (`stepscope_error`), not one the graph raised;
- `where_stopped`: where a stopped run stood, in words ("after step 2, while hang ran");
- `stopped_step` / `keep_stopped_step`: the step that was running when a run was stopped, kept
  uncommitted, its tasks marked (still running, or finished but never committed);
- `update_step`: a state edit made between supersteps (`update_state(values, as_node=...)` at a
  pause), recorded as a step of kind `update`;
- `with_fork_step`: a branch made by time travel as one whole run: the original's steps before the
  fork point, the fork step as the edit made it, then what the branch ran;
- `join_segments`: the segments of one live run (each resume of a langgraph run records a trace of
  its own) joined into one trace, with the run's edits in their places.

The words a view shows for a cut-off or unfinished run are `debugger/run_status.py`'s, not these.
Standard library only, like the rest of the engine: callers pass what the debugger knows.
"""

from __future__ import annotations

import copy
from dataclasses import replace
from typing import Any, Iterable, Mapping, Protocol, Sequence

from .codec_encode import encode, encode_error
from .codec_types import TYPE
from .records import SAME, ReducerCallRecord, RunRecord, StepRecord, TaskRecord, Trace

MISSING_VALUE = {TYPE: "missing"}
"""The encoding of a key that had no value yet."""


def stepscope_error(error_class: str, message: str) -> dict[str, Any]:
    """An error record StepScope writes itself (`RunCancelled`, `RunTimeout`, `StepNotCommitted`...):
    shaped like an encoded exception, with no traceback (nothing was raised)."""
    return {
        TYPE: "error",
        "class": error_class,
        "module": "stepscope",
        "message": message,
        "notes": [],
        "traceback": "",
    }


def mark_ended(run: RunRecord, status: str, error: BaseException | dict[str, Any] | None) -> None:
    """Ends `run` with `status` and `error` (an exception, or an error record such as
    `stepscope_error`'s), as its caller or StepScope ended it."""
    run.status = status  # type: ignore[assignment]
    run.error = error if error is None or isinstance(error, dict) else encode_error(error)


def where_stopped(run: RunRecord, *, stored_up_to: int | None = None) -> str:
    """Where a run stopped from outside stood, in the words every runtime's ending uses: "after step 2,
    while hang ran" (the last committed step, and the tasks of the step after it that never finished).
    `stored_up_to`: the last committed step already stored and no longer in `run.steps`, if any."""
    committed = [step.step for step in run.steps if step.committed and step.step >= 0]
    last_committed = committed[-1] if committed else stored_up_to
    where = (
        f"after step {last_committed}"
        if last_committed is not None and last_committed >= 0
        else "before its first superstep"
    )
    last = run.steps[-1] if run.steps else None
    running = (
        [t.name for t in last.tasks if t.result is None and t.error is None and not t.writes]
        if last is not None and not last.committed
        else []
    )
    return where + (f", while {', '.join(running)} ran" if running else "")


class FinishedTask(Protocol):
    """What a live run knows of a task that finished in a step that never committed."""

    writes: Sequence[tuple[str, Any]]
    """`(channel, encoded value)` pairs, as the task made them."""
    duration: float | None


def stopped_step(
    record: StepRecord, unfinished: set[str], finished: Mapping[str, FinishedTask] | None = None
) -> StepRecord:
    """A copy of the step that was running when the run was stopped: not committed, its tasks marked
    (`RunCancelled` for those still running, `StepNotCommitted` for those that had finished), those
    that had finished with what they wrote and how long they took (`finished`, by task id)."""
    tasks = []
    finished = finished or {}
    for task in list(record.tasks):
        done = finished.get(task.id)
        if done is not None:
            writes = task.writes or [list(pair) for pair in done.writes]
            task = replace(task, writes=writes, duration=task.duration or round(done.duration or 0.0, 6))
        error = task.error
        if error is None:
            text = (
                "was still running when the run was stopped; its result is not recorded"
                if task.id in unfinished
                else "had finished, but the step never committed, so its writes never reached the state"
            )
            error = stepscope_error(
                "RunCancelled" if task.id in unfinished else "StepNotCommitted", f"{task.name} {text}."
            )
        tasks.append(replace(task, error=error, subgraphs=list(task.subgraphs)))
    return StepRecord(record.step, tasks=tasks, committed=False)


def keep_stopped_step(
    run: RunRecord, record: StepRecord, unfinished: set[str], finished: Mapping[str, FinishedTask] | None = None
) -> None:
    """Appends to `run` the step that was running when it was stopped, as `stopped_step` marks it."""
    run.steps = [*run.steps, stopped_step(record, unfinished, finished)]


def update_step(
    step: int,
    as_node: str,
    edits: Iterable[tuple[str, str, Any]],
    after: Mapping[str, Any],
    checkpoint: Any = None,
) -> StepRecord:
    """A state edit made between supersteps as `as_node`: one reducer call per `(key, reducer name,
    value written)` (raw), each key's value `after` the edit (raw) recorded whole; `checkpoint` is
    the config of the checkpoint the edit saved (kept as given, encoded)."""
    edits = list(edits)
    calls = [
        ReducerCallRecord(
            index, key, reducer, f"edit:{as_node}", as_node, encode(value), SAME, {"set": encode(after.get(key))}
        )
        for index, (key, reducer, value) in enumerate(edits)
    ]
    return StepRecord(
        step,
        reducer_calls=calls,
        committed=True,
        kind="update",
        updated_channels=sorted(key for key, _, _ in edits),
        checkpoint=encode(checkpoint),
    )


def with_fork_step(
    original: Trace,
    branch: Trace,
    step: int,
    node: str,
    writes: dict[str, Any],
    before: dict[str, Any],
) -> Trace:
    """`branch` (a run forked from `original` at `step` by `update_state(..., as_node=node)`, which
    recorded the edit as a step without tasks) as a whole run: `original`'s steps before `step`, the
    fork step as `node` writing `writes` (raw values: the node's write with the edited key replaced)
    through each key's reducer (`before`: each key's encoded value before the edit, None when it had
    none), then what the branch ran. A branch whose fork step already has its tasks (forked inside the
    step) is returned as it is."""
    history = [s for s in original.steps if s.step < step]
    recorded = [s for s in branch.steps if s.step >= step]
    fork = next((s for s in recorded if s.step == step), None)
    if fork is None or fork.tasks:
        return branch
    encoded = {key: encode(value) for key, value in writes.items()}
    task = _fork_task(step, node, encoded)
    edited = StepRecord(
        step,
        [task],
        _fork_calls(original, fork, task, encoded, before),
        dict(fork.versions),
        list(fork.updated_channels),
        {k: v for k, v in fork.state.items() if k not in encoded},
        True,
        fork.checkpoint,
    )
    branch.steps = [*history, edited, *(s for s in recorded if s.step > step)]
    branch.input = original.input
    return branch


def _fork_task(step: int, node: str, encoded: dict[str, Any]) -> TaskRecord:
    """The edit of a fork step as a task of `node` that wrote `encoded`."""
    return TaskRecord(
        id=f"fork-{step}-{node}",
        name=node,
        path=["__pregel_pull", node],
        triggers=[],
        fired=[],
        seen_versions={},
        input={},
        result=dict(encoded) or None,
        writes=[[key, value] for key, value in encoded.items()],
    )


def _fork_calls(
    original: Trace, fork: StepRecord, task: TaskRecord, encoded: dict[str, Any], before: dict[str, Any]
) -> list[ReducerCallRecord]:
    """One reducer call a written key: from its value before the edit to the fork step's state."""
    channels = original.graph.get("channels", {})
    calls = []
    for index, (key, value) in enumerate(encoded.items()):
        was = before.get(key)
        after = fork.state.get(key, {}).get("set", was)
        reducer = channels.get(key, {}).get("reducer", "LastValue")
        old = SAME if was is not None else {"set": MISSING_VALUE}
        calls.append(ReducerCallRecord(index, key, reducer, task.id, task.name, value, old, {"set": after}))
    return calls


def join_segments(
    segments: Sequence[Trace], edits: Sequence[StepRecord], *, final: bool, run_id: str, target: str
) -> Trace:
    """One live run's segments (its first run, then one per resume) as one trace: shallow copies
    sharing the committed StepRecords, the `edits` (`update_step`s) in their places. A resumed
    segment's first step (which reloads the checkpoint the last one ended on) is left out, and so
    is a step that never committed, except, when the run is `final` and its last segment failed,
    the step that failed: it is what the errors are about. The run is `running` until `final`."""
    steps: list[StepRecord] = []
    for index, segment in enumerate(segments):
        failed_here = final and index == len(segments) - 1 and segment.status == "error"
        for position, step in enumerate(list(segment.steps)):
            if (not step.committed and not failed_here) or (index and position == 0 and not step.tasks):
                continue
            steps.append(step)
    for edit in list(edits):
        at = next((i for i, s in enumerate(steps) if s.step >= edit.step), len(steps))
        steps.insert(at, edit)
    first, last = segments[0], segments[-1]
    view = copy.copy(first)
    view.steps = steps
    view.run_id, view.thread_id, view.target = run_id, "", target
    view.status = last.status if final else "running"
    view.output, view.error, view.interrupts = last.output, last.error, list(last.interrupts)
    view.duration = round(sum(s.duration or 0 for s in segments), 6)
    return view
