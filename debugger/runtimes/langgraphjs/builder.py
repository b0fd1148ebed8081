"""The records of a LangGraph.js run, built one superstep at a time from already-encoded values.

`RunRecordBuilder` is the one place JavaScript events become `engine.records` (the unified trace writer
replaces or absorbs this module; nothing else builds records for LangGraph.js). It follows the conventions
of `debugger.runtimes.langgraph.recorder.superstep.RunBuilder` for Python langgraph: step -1 is the input, step 0
the `__start__` task, task inputs are `{"$view": keys}` when they are the recorded state, reducer calls
carry deltas (`before` against the channel's last recorded value, `after` against `before`), a return
equal to its writes is `{"$type": "same_as_writes"}`. The recorder in node computes those deltas and the
views (it holds the real values, and their identity); this class files them:

    run = RunRecordBuilder(Trace(...))
    run.open_step(0)
    run.add_task(0, TaskRecord(...))
    run.task_done(0, task_id, writes=..., result=..., error=...)
    run.add_call(0, channel=..., reducer=..., writer=..., ...)
    run.commit(0, versions=..., updated=..., state=..., mismatches=...)
    run.checkpoint(0, config, parent)
    run.finish("done", output=..., error=None, interrupts=[])
"""

from __future__ import annotations

from typing import Any, Iterable, Mapping

from engine.trace import ReducerCallRecord, RunRecord, StepRecord, TaskRecord


class RunRecordBuilder:
    """Builds one RunRecord (a Trace, or a subgraph's run nested in a task) from recorder events."""

    def __init__(self, record: RunRecord) -> None:
        self.record = record
        self.steps: dict[int, StepRecord] = {}
        self.tasks: dict[str, TaskRecord] = {}
        self.finished = False

    def open_step(self, step: int) -> StepRecord:
        """The record of `step`, created (in order of first mention) when new."""
        record = self.steps.get(step)
        if record is None:
            record = self.steps[step] = StepRecord(step)
            self.record.steps.append(record)
        return record

    def add_task(self, step: int, task: TaskRecord) -> TaskRecord:
        """A task planned for `step`, with its input (what it did comes with `task_done`)."""
        self.open_step(step).tasks.append(task)
        self.tasks[task.id] = task
        return task

    def task_done(
        self,
        task_id: str,
        *,
        writes: list[list[Any]],
        result: Any = None,
        error: dict[str, Any] | None = None,
        routes: list[list[Any]] | None = None,
        duration: float = 0.0,
        attempts: list[dict[str, Any]] | None = None,
    ) -> TaskRecord | None:
        """What a task did: its writes in the node's own order, its encoded return value or its error."""
        task = self.tasks.get(task_id)
        if task is None:
            return None
        task.writes = writes
        task.result = result
        task.error = error
        task.routes = routes or []
        task.duration = duration
        task.attempts = attempts or []
        return task

    def add_call(
        self,
        step: int,
        *,
        channel: str,
        reducer: str,
        writer: str,
        writer_name: str,
        write: Any,
        before: dict[str, Any],
        after: dict[str, Any],
        error: dict[str, Any] | None = None,
    ) -> ReducerCallRecord:
        """One write folded into one channel, appended in the barrier's application order."""
        record = self.open_step(step)
        call = ReducerCallRecord(
            index=len(record.reducer_calls),
            channel=channel,
            reducer=reducer,
            writer=writer,
            writer_name=writer_name,
            write=write,
            before=before,
            after=after,
            error=error,
        )
        record.reducer_calls.append(call)
        return call

    def commit(
        self,
        step: int,
        *,
        versions: Mapping[str, int],
        updated: Iterable[str] = (),
        state: Mapping[str, dict[str, Any]] | None = None,
        mismatches: list[dict[str, Any]] | None = None,
    ) -> StepRecord:
        """The barrier of `step` finished: the versions it changed, the state changes no reducer call
        explains, and the keys whose committed value differs from the last call's `after`."""
        record = self.open_step(step)
        record.committed = True
        record.versions = dict(versions)
        record.updated_channels = sorted(updated)
        record.state = dict(state or {})
        record.mismatches = list(mismatches or [])
        return record

    def checkpoint(self, step: int, config: Any, parent: Any = None) -> None:
        """The checkpoint saved after `step`, and the one it follows."""
        record = self.open_step(step)
        record.checkpoint = config
        record.parent_checkpoint = parent or None

    def finish(
        self,
        status: str,
        *,
        output: Any = None,
        error: dict[str, Any] | None = None,
        interrupts: list[dict[str, Any]] | None = None,
        duration: float | None = None,
    ) -> RunRecord:
        """How the run ended (`done`, `interrupted`, `error`, `recursion_limit`, `cancelled`, `timeout`)."""
        record = self.record
        record.status = status  # type: ignore[assignment]
        record.output = output
        record.error = error
        record.interrupts = list(interrupts or [])
        if duration is not None:
            record.duration = duration
        self.finished = True
        return record

    def last_committed_step(self) -> int | None:
        """The last step whose barrier finished, or None."""
        committed = [step for step, record in self.steps.items() if record.committed]
        return max(committed) if committed else None

    def running_tasks(self) -> list[str]:
        """The names of the tasks of the last step that never reported back (still running when it stopped)."""
        if not self.record.steps:
            return []
        last = self.record.steps[-1]
        return [
            t.name for t in last.tasks if not last.committed and t.result is None and t.error is None and not t.writes
        ]
