"""`CompiledNode`: a builder node ready to run, and `CompiledBranch`, a conditional edge ready to run.

`compiled.compile_nodes` builds them; the loop plans tasks from their triggers (`algo.py`), the runner
calls them (`runner.py`). They live apart from `CompiledStateGraph` so that the modules a run uses
import them without importing the graph that runs.
"""

from __future__ import annotations

import functools
import inspect
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .constants import PULL, START
from .schema import input_mapper
from .types import RetryPolicy
from .writes import no_sync_function

if TYPE_CHECKING:  # pragma: no cover
    from .algo import Task
    from .graph_parts import Branch
    from .loop import Loop


@dataclass(eq=False)
class CompiledNode:
    """A node ready to run: its action plus everything the loop needs to trigger and feed it."""

    name: str
    action: Any
    input_schema: Any
    reads: tuple[str, ...]
    """The state keys it receives (its input schema's keys)."""
    triggers: tuple[str, ...]
    """Channels any one of which makes it run: `branch:to:<name>` and its waiting-edge barriers."""
    writable_keys: frozenset[str]
    """Keys its return value may write; others are dropped silently, as in LangGraph."""
    object_keys: tuple[str, ...]
    """Keys read off a dataclass/pydantic return value."""
    state_keys: frozenset[str]
    edge_writes: tuple[tuple[str, Any], ...]
    """What its static and waiting edges write when it finishes."""
    branches: tuple["CompiledBranch", ...]
    takes_config: bool = False
    is_subgraph: bool = False
    defer: bool = False
    metadata: dict[str, Any] | None = None
    needs_context: bool = True
    input_mapper: Any = None
    """None when the node takes the input dict as is; else the class built as `Schema(**values)`."""
    retry_policy: tuple[RetryPolicy, ...] = ()
    """Tried in order; the first that accepts the exception decides (LangGraph's rule)."""
    managed: tuple[tuple[str, Any], ...] = ()
    """Managed values in its input (`managed.py`): (key, `get(step, stop)`), after the channel keys."""

    sorted_triggers: tuple[str, ...] = ()
    is_coroutine: bool = False
    """The action is an `async def`: it only runs in an async run (`ainvoke`, `astream`)."""
    is_async: bool = False
    """An async run must await this node: an `async def` action or router, or a subgraph."""
    pull_path: tuple[str, str] = ("", "")
    """`(PULL, name)`: the path of every task of this node that an edge triggers (one tuple, shared)."""
    plain_action: Any = field(default=None, init=False, repr=False)
    """The action, when calling it on the task's input is all `call` does (not `__start__`, a subgraph,
    an `async def` or a node taking config): the runner then calls it without `call`."""

    def __post_init__(self) -> None:
        self.pull_path = (PULL, self.name)
        self.input_mapper = input_mapper(self.input_schema)
        self.sorted_triggers = tuple(sorted(self.triggers))
        self.is_coroutine = is_coroutine_function(self.action)
        self.is_async = self.is_coroutine or self.is_subgraph or any(b.is_async for b in self.branches)
        plain = self.name != START and not (self.is_subgraph or self.is_coroutine or self.takes_config)
        self.plain_action = self.action if plain else None

    def call(self, task: Task, loop: Loop) -> Any:
        if self.name == START:
            return task.input
        if self.is_subgraph:
            return self.action.invoke(task.input, _task_config(loop, task))
        if self.is_coroutine:
            raise no_sync_function(self.name)
        if self.takes_config:
            return self.action(task.input, config=_task_config(loop, task))
        return self.action(task.input)

    async def acall(self, task: Task, loop: Loop) -> Any:
        """`call` in an async run: awaits an `async def` node, runs a subgraph with `ainvoke`."""
        if self.is_subgraph:
            return await self.action.ainvoke(task.input, _task_config(loop, task))
        if not self.is_coroutine:
            return self.call(task, loop)
        if self.takes_config:
            return await self.action(task.input, config=_task_config(loop, task))
        return await self.action(task.input)


@dataclass(frozen=True, eq=False)
class CompiledBranch:
    """A conditional edge ready to run inside its source node's task."""

    spec: "Branch"
    reads: tuple[str, ...]
    """The keys the router sees: its own declared schema's, else its source node's."""
    mapper: Any
    passthrough: bool
    """Without a schema of its own the router also sees the node's extra return keys (LangGraph)."""
    is_async: bool = False
    """The router is an `async def`: only an async run can await it."""
    managed: tuple[tuple[str, Any], ...] = ()
    """Managed values the router sees, as of its task's step."""

    @property
    def name(self) -> str:
        return self.spec.name


def is_coroutine_function(action: Any) -> bool:
    """`async def` functions, and objects (or partials) whose `__call__` is one."""
    while isinstance(action, functools.partial):
        action = action.func
    return inspect.iscoroutinefunction(action) or inspect.iscoroutinefunction(getattr(action, "__call__", None))


def _task_config(loop: Loop, task: Task) -> dict[str, Any]:
    """The run's config plus LangGraph's per-task metadata, for nodes that ask for `config`."""
    ns = "|".join((*loop.ns, f"{task.name}:{task.id}"))
    metadata = {
        **(loop.config.get("metadata") or {}),
        "langgraph_step": task.step,
        "langgraph_node": task.name,
        "langgraph_triggers": task.triggers,
        "langgraph_path": task.path,
        "langgraph_checkpoint_ns": ns,
    }
    return {**loop.config, "metadata": metadata}
