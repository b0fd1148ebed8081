"""What a step's file form leaves out because the step itself says it, and how a reader puts it back.

A long run's steps repeat the same shape: one task, one reducer call. Schema 3 (issue 43) leaves out of
each step what the rest of the same step gives, so the trace file and the run database grow by what
each step adds, not by its bookkeeping:

- a reducer call's `index` when it is the call's place in the step's list;
- its `before` when it is `{"same": true}` (the value the last call or commit recorded);
- its `writer` (the task id) when the step has one task of its `writer_name`, else its `writer_name`
  when its writer is a task of the step;
- a task's `path` when it is `["__pregel_pull", name]`, and its `fired` when it equals its `triggers`.

`put_back` restores each from the step alone, so a reader that holds one step (a long file's, a stored
row) reads it whole. Every field it fills in was always present before schema 3, so a file of schema 1
or 2 reads as it did.
"""

from __future__ import annotations

from typing import Any

from .constants import PULL
from .records import SAME, StepRecord


def leave_out(step: StepRecord, tasks: list[dict[str, Any]], calls: list[dict[str, Any]]) -> None:
    """Removes from `step`'s file form (`tasks` and `calls`, one dict per record, in order) what
    `put_back` restores."""
    for task, data in zip(step.tasks, tasks):
        if data.get("path") == [PULL, task.name]:
            del data["path"]
        if data.get("fired") == task.triggers:
            del data["fired"]
    names = _unique_names(step.tasks)
    for position, (call, data) in enumerate(zip(step.reducer_calls, calls)):
        if data.get("index") == position:
            del data["index"]
        if data.get("before") == SAME:
            del data["before"]
        if names.get(call.writer_name) == call.writer:
            del data["writer"]
        elif any(task.id == call.writer and task.name == call.writer_name for task in step.tasks):
            del data["writer_name"]


def put_back(step: Any) -> Any:
    """The file form of a step with what `leave_out` removed restored, in place (a step of any schema;
    anything that is not a step's shape is left for the checks to name)."""
    if type(step) is not dict:
        return step
    tasks = step.get("tasks")
    tasks = tasks if type(tasks) is list else ()
    names: dict[str, str | None] = {}
    ids: dict[str, str] = {}
    for task in tasks:
        if type(task) is not dict:
            continue
        name, task_id = task.get("name"), task.get("id")
        if "path" not in task and type(name) is str:
            task["path"] = [PULL, name]
        if "fired" not in task and "triggers" in task:
            task["fired"] = task["triggers"]
        if type(name) is str and type(task_id) is str:
            names[name] = task_id if name not in names else None  # None: two tasks of one name
            ids[task_id] = name
        runs = task.get("subgraphs")
        for run in runs if type(runs) is list else ():
            steps = run.get("steps") if type(run) is dict else None
            for sub_step in steps if type(steps) is list else ():
                put_back(sub_step)
    calls = step.get("reducer_calls")
    for position, call in enumerate(calls if type(calls) is list else ()):
        if type(call) is not dict:
            continue
        call.setdefault("index", position)
        call.setdefault("before", SAME)
        writer_name = call.get("writer_name")
        if "writer" not in call and type(writer_name) is str and names.get(writer_name) is not None:
            call["writer"] = names[writer_name]
        if "writer_name" not in call and type(call.get("writer")) is str and call["writer"] in ids:
            call["writer_name"] = ids[call["writer"]]
    return step


def _unique_names(tasks: list[Any]) -> dict[str, str]:
    """The task id of each name that one task of the step has."""
    found: dict[str, str | None] = {}
    for task in tasks:
        found[task.name] = task.id if task.name not in found else None
    return {name: task_id for name, task_id in found.items() if task_id is not None}
