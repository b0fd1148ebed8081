"""The probe's tasks (`probe.LoopProbe`): each task a tick plans, recorded once, its runnable wrapped
to watch it (`watched.ObservedProc`), then what it did filled in once it has settled (its writes, return
value, error, routes and failed attempts). Every value is langgraph's own object.
"""

from __future__ import annotations

from itertools import chain
from typing import Any, Mapping

from engine.trace import SAME_AS_WRITES, TaskRecord, TraceWriter, same_as_writes

from .superstep import plan_task, version_number
from .watched import ObservedProc, _is_bubble_up

_NOTHING: Mapping[str, Any] = {}
_UNSEEN = object()


class TaskWatch:
    """The tasks role of a loop's probe: what it reads of the probe is declared here."""

    run: TraceWriter
    managed: tuple[str, ...]
    task_records: dict[str, TaskRecord]
    task_probes: dict[str, ObservedProc]
    shapes: dict[str, tuple[Any, Any, list[str], list[str]]]

    def planned(self, loop: Any) -> None:
        """Records the tasks a tick planned (once each) and wraps each one's runnable to watch it."""
        checkpoint = loop.checkpoint
        versions = checkpoint["channel_versions"]
        seen = checkpoint["versions_seen"]
        records = self.task_records
        run, step, managed = self.run, loop.step, self.managed
        for task_id, task in loop.tasks.items():
            if task_id in records:
                continue
            path = task.path
            if not managed and len(path) == 2 and path[0] == "__pregel_pull" and task.name != "__start__":
                record = records[task_id] = self._plan_pull(step, task, versions, seen.get(task.name, _NOTHING))
            else:
                record = records[task_id] = plan_task(run, step, task, versions, seen.get(task.name, _NOTHING), managed)
            if task.writes:  # finished before an interrupt: langgraph reapplies its saved writes
                continue
            # The task is this step's own (frozen) object: its runnable is swapped in place, which is
            # cheaper than a copy and keeps every reference langgraph holds to it valid.
            probe = self.task_probes[task_id] = ObservedProc(task.proc, record, self)
            object.__setattr__(task, "proc", probe)

    def _plan_pull(self, step: int, task: Any, versions: Mapping[str, Any], seen: Mapping[str, Any]) -> TaskRecord:
        """`superstep.plan_task` of a node's task (no managed values): a node's path and triggers are
        the same every step, so their recorded lists are found once per node (`shapes`), and a task
        whose every trigger fired shares its triggers' list, as `TraceWriter.interned` would give."""
        run = self.run
        path, triggers = task.path, task.triggers
        shape = self.shapes.get(task.name)
        if shape is None or shape[0] != path or shape[1] != triggers:
            shape = self.shapes[task.name] = (path, triggers, run.interned(path), run.interned(triggers))
        fired = []
        seen_versions = {}
        for channel in triggers:  # the triggers newer than what the node had seen, and their versions
            version = versions.get(channel, _UNSEEN)
            if version is not _UNSEEN and (channel not in seen or seen[channel] < version):
                fired.append(channel)
                seen_versions[channel] = version if type(version) is int else version_number(version)
        record = TaskRecord(
            task.id,
            task.name,
            shape[2],
            shape[3],
            shape[3] if len(fired) == len(triggers) else run.interned(fired),
            seen_versions,
            run.input_view(task.input),
        )
        return run.add_task(step, record)

    def settle(self, tasks: Any, committed: bool) -> None:
        """Fills in what each task of the step did (once per task)."""
        for task in tasks:
            task_id = getattr(task, "id", None)
            record = self.task_records.pop(task_id, None) if task_id else None
            if record is None:  # the step's input, or a task already settled
                continue
            probe = self.task_probes.get(task_id)
            if probe is not None and probe.error is None:
                del self.task_probes[task_id]  # keep only what `_interrupt` may need: raw results are not kept alive
                if probe.has_result and not probe.attempts:
                    self._returned(record, task.writes, probe)
                    continue
            writes = list(task.writes)
            if probe is None:  # writes restored from a checkpoint, or a task pushed mid-step
                self.run.task_done(record, writes=writes)
                continue
            error = probe.error
            result, has_result = probe.result, probe.has_result
            if error is not None and type(error).__name__ == "ParentCommand" and committed:
                # a subgraph's Command(graph=PARENT) addressed to this graph: it is this task's return value
                result, has_result, error = error.args[0], True, None
            attempts = list(probe.attempts)
            if error is not None and attempts and not _is_bubble_up(error):
                attempts = attempts[:-1]  # the last attempt's error is the task's error
            self.run.task_done(
                record,
                writes=writes,
                result=result,
                has_result=has_result,
                error=error,
                routes=probe.routes,
                duration=probe.duration,
                attempts=attempts,
            )

    def _returned(self, record: TaskRecord, writes: Any, probe: ObservedProc) -> None:
        """`TraceWriter.task_done` of a task that returned at its first attempt (the usual task), as the
        engine's events build one (`engine.trace_events.build_finished_flat`): writes that are a few
        scalars met before are one lookup; no error, no attempts."""
        run = self.run
        record.writes = run.flat_pairs(tuple(chain.from_iterable(writes)))
        result = probe.result
        if type(result) is dict and same_as_writes(result, writes):
            record.result = SAME_AS_WRITES
        else:
            record.result = run.encode(result)
        if probe.routes:
            record.routes = run.flat_pairs(tuple(chain.from_iterable(probe.routes)))
        record.duration = round(probe.duration, 6)
