"""Runs one superstep's tasks: calls each node, turns its return value into writes. Never touches a
channel (the barrier in `algo.apply_writes` does that).

A step with one task runs it inline on the caller's thread; a step with several runs them
concurrently in a thread pool (LangGraph does the same), so eight nodes that each wait 50 ms finish
their step in about 50 ms. Whatever the timing, results are read back in application order, so the
writes, the recording and the final state are the same run after run.
"""

from __future__ import annotations

import contextvars
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable

from .algo import RunState, Task, local_read
from .constants import END, START, TASKS, branch_channel
from .errors import GraphBubbleUp, InvalidUpdateError, ParentCommand
from .schema import build_input, state_update_pairs
from .types import Command, Send

if TYPE_CHECKING:  # pragma: no cover
    from .loop import Loop

DEFAULT_MAX_WORKERS = 64


@dataclass(frozen=True, slots=True)
class TaskContext:
    """What code running inside a task can find out about it (nested graphs, `interrupt()`)."""

    loop: "Loop"
    task: Task
    config: dict[str, Any]


current_task: contextvars.ContextVar[TaskContext | None] = contextvars.ContextVar("stepscope_task", default=None)


class Runner:
    """Executes tasks for one run; owns that run's thread pool (created on first need)."""

    def __init__(self, loop: "Loop", max_concurrency: int | None) -> None:
        self.loop = loop
        self.max_workers = max_concurrency or DEFAULT_MAX_WORKERS
        self.pool: ThreadPoolExecutor | None = None

    def run(self, tasks: list[Task]) -> None:
        if len(tasks) == 1:
            self.execute(tasks[0])
            return
        if self.pool is None:
            self.pool = ThreadPoolExecutor(max_workers=self.max_workers, thread_name_prefix="stepscope")
        futures = [self.pool.submit(contextvars.copy_context().run, self.execute, task) for task in tasks]
        for future in futures:
            future.result()

    def close(self) -> None:
        if self.pool is not None:
            self.pool.shutdown(wait=False)
            self.pool = None

    def execute(self, task: Task) -> None:
        """Runs one task to completion; its exception is stored on the task, never raised here."""
        loop = self.loop
        node = task.node
        started = time.perf_counter()
        token = current_task.set(TaskContext(loop, task, loop.config)) if node.needs_context else None
        try:
            returned = node.call(task, loop)
            task.result = returned
            task.writes = node_writes(node, task, returned, loop)
        except ParentCommand as bubble:
            if node.is_subgraph:
                # The subgraph's node addressed its parent (us): apply it as this node's return.
                command = bubble.command
                command = Command(update=command.update, goto=command.goto, resume=command.resume)
                task.result = command
                try:
                    task.writes = node_writes(node, task, command, loop)
                except Exception as exc:  # noqa: BLE001 - stored, re-raised by the loop
                    _fail(task, exc)
            else:
                _fail(task, bubble)
        except GraphBubbleUp as bubble:
            task.error = bubble
        except Exception as exc:  # noqa: BLE001 - stored, re-raised by the loop after the step
            _fail(task, exc)
        finally:
            if token is not None:
                current_task.reset(token)
            task.duration = time.perf_counter() - started


def _fail(task: Task, exc: BaseException) -> None:
    exc.add_note(f"During task with name '{task.name}' and id '{task.id}'")
    task.error = exc


def node_writes(node: Any, task: Task, returned: Any, loop: "Loop") -> list[tuple[str, Any]]:
    """All writes of one task, in LangGraph's writer order: state keys, Command/Send control
    writes, static edges, then one set per conditional edge (each router runs here, in the task)."""
    writes = state_update_pairs(returned, node.writable_keys, node.object_keys)
    writes.extend(control_writes(returned))
    writes.extend(node.edge_writes)
    for branch in node.branches:
        writes.extend(route(branch, node, task, returned, writes, loop))
    return writes


def control_writes(returned: Any) -> list[tuple[str, Any]]:
    """`Send` and `Command(goto=...)` as writes to the control channels (LangGraph's `_control_branch`)."""
    if isinstance(returned, Send):
        return [(TASKS, returned)]
    if isinstance(returned, Command):
        commands = [returned]
    elif isinstance(returned, (list, tuple)):
        commands = [c for c in returned if isinstance(c, Command)]
    else:
        return []
    writes: list[tuple[str, Any]] = []
    for command in commands:
        if command.graph == Command.PARENT:
            raise ParentCommand(command)
        goto = [command.goto] if isinstance(command.goto, (Send, str)) else command.goto
        for target in goto:
            if isinstance(target, Send):
                writes.append((TASKS, target))
            elif isinstance(target, str) and target != END:
                writes.append((branch_channel(target), None))
    return writes


def route(branch: Any, node: Any, task: Task, returned: Any, writes: list[tuple[str, Any]], loop: "Loop") -> list[tuple[str, Any]]:
    """Runs one router on the fresh state (step start + this task's own writes) and returns its writes."""
    fresh = local_read(loop.state, node.branch_reads, writes)
    value = build_input(node.branch_schema, fresh)
    if isinstance(value, dict) and isinstance(returned, dict):
        value = {**returned, **value}  # LangGraph passes the node's extra return keys through
    result = branch.router(value, config=loop.config) if branch.router_takes_config else branch.router(value)
    task.routes.append((branch.name, result))
    results = result if isinstance(result, (list, tuple)) else [result]
    if branch.path_map is not None:
        destinations = [r if isinstance(r, Send) else branch.path_map[r] for r in results]
    else:
        destinations = list(results)
    if any(d is None or d == START for d in destinations):
        raise ValueError("Branch did not return a valid destination")
    if any(isinstance(d, Send) and d.node == END for d in destinations):
        raise InvalidUpdateError("Cannot send a packet to the END node")
    out: list[tuple[str, Any]] = []
    for destination in destinations:
        if isinstance(destination, Send):
            out.append((TASKS, destination))
        elif destination != END:
            out.append((branch_channel(destination), None))
    return out
