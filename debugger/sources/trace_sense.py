"""Does a trace that fits the schema add up? The last gate of `debugger.sources.trace_check`.

The schema checks each field alone; a crafted or damaged file can still fit it and describe a run
that cannot have happened, and every view would then show it as if it had (`diagnose` would even
answer "no findings"). `sense_problem` checks, in one pass linear in the file:

- the supersteps are in order: numbers never go back, and no superstep number is used twice
  (a state edit, kind `update`, comes between supersteps and may share its neighbour's number);
- every reducer call folds into a channel the graph declares;
- a call on a key without a reducer (`LastValue`) that replaced the value replaced it with the write;
- every edge, branch target and waiting edge joins nodes the graph declares;
- every task runs a node the graph declares.

Each problem is one sentence naming where it is; subgraph runs are checked against their own graph.
"""

from __future__ import annotations

from typing import Any

from debugger.sources.step_checks import first_step_problem
from engine import END, START

_NAMELESS_TASKS = frozenset({START, "__input__"})


def sense_problem(run: dict[str, Any], where: str = "") -> str | None:
    """The first thing in `run` (a trace file's dict, already schema-checked) that cannot be, or None."""
    check = SenseCheck(run.get("graph") or {}, where)
    return check.graph_problem() or first_step_problem(check, run)


class SenseCheck:
    """`sense_problem` one step at a time, for a run read as a stream: it keeps only the graph's names
    and the last superstep numbers, so checking a run costs memory that does not grow with its steps."""

    def __init__(self, graph: dict[str, Any], where: str = "") -> None:
        self.graph = graph
        self.where = where
        self.nodes = {node["name"] for node in graph.get("nodes", ())}
        self.channels = set(graph.get("channels", {}))
        self.last_loop_step: int | None = None
        self.previous: int | None = None

    def graph_problem(self) -> str | None:
        """What is wrong with the graph's edges, branches and waiting edges, or None."""
        return _graph_problem(self.graph, self.nodes, self.where)

    def step(self, s: int, step: dict[str, Any]) -> str | None:
        """What is wrong with `step` (the run's `s`-th, schema-checked) after the steps before it, or None."""
        at = f"{self.where}steps[{s}]"
        number = step["step"]
        if self.previous is not None and number < self.previous:
            return f"{at} is superstep {number}, after superstep {self.previous}: the steps are out of order"
        if step.get("kind", "loop") == "loop":
            if number == self.last_loop_step:
                return f"{at} is superstep {number} again: each superstep is recorded once"
            self.last_loop_step = number
        self.previous = number
        problem = _step_problem(step, at, self.nodes, self.channels)
        if problem:
            return problem
        for t, task in enumerate(step.get("tasks", ())):
            for r, sub in enumerate(task.get("subgraphs", ())):
                problem = sense_problem(sub, f"{at}.tasks[{t}].subgraphs[{r}].")
                if problem:
                    return problem
        return None


def _graph_problem(graph: dict[str, Any], nodes: set[str], where: str) -> str | None:
    ends = nodes | {START, END}
    for e, (source, target) in enumerate(graph.get("edges", ())):
        for name in (source, target):
            if name not in ends:
                return f"{where}graph.edges[{e}] joins {name!r}, which is not a node of the graph"
    for b, branch in enumerate(graph.get("branches", ())):
        if branch["source"] not in ends:
            return f"{where}graph.branches[{b}] starts at {branch['source']!r}, which is not a node of the graph"
        for target in (branch.get("targets") or {}).values():
            if target not in ends:
                return f"{where}graph.branches[{b}] can route to {target!r}, which is not a node of the graph"
    for w, (sources, target) in enumerate(graph.get("waiting_edges", ())):
        for name in [*sources, target]:
            if name not in ends:
                return f"{where}graph.waiting_edges[{w}] joins {name!r}, which is not a node of the graph"
    return None


def _step_problem(step: dict[str, Any], at: str, nodes: set[str], channels: set[str]) -> str | None:
    tasks = step.get("tasks", ())
    for t, task in enumerate(tasks):
        if task["name"] not in nodes and task["name"] not in _NAMELESS_TASKS:
            return f"{at}.tasks[{t}] runs {task['name']!r}, which is not a node of the graph"
    writes = {task["id"]: task.get("writes", ()) for task in tasks}
    for c, call in enumerate(step.get("reducer_calls", ())):
        where = f"{at}.reducer_calls[{c}]"
        if channels and call["channel"] not in channels:
            return f"{where} folds into {call['channel']!r}, which is not a channel of the graph"
        if call.get("reducer") == "LastValue" and call.get("error") is None and "set" in call["after"]:
            written = _written(call["write"], writes.get(call["writer"], ()))
            if written is not _UNKNOWN and call["after"]["set"] != written:
                return (
                    f"{where} says {call['channel']!r} (a key without a reducer) became something other than its write"
                )
    return None


_UNKNOWN = object()


def _written(write: Any, task_writes: Any) -> Any:
    """The value a call wrote: itself, or the task's write it points at (`{"$write": i}`)."""
    if isinstance(write, dict) and set(write) == {"$write"}:
        index = write["$write"]
        if type(index) is int and 0 <= index < len(task_writes):
            return task_writes[index][1]
        return _UNKNOWN
    return write
