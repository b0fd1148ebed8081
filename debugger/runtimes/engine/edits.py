"""An edit at a pause: `values` applied as `as_node`'s return value, through the reducers and that
node's edges, as LangGraph's `update_state(config, values, as_node=...)` does on a checkpoint.

The edit is tried on a copy of the run's state first, so a value a reducer or router refuses is
reported in words and leaves the run as it was; only then does `Loop.update_state` apply it (a
commit of kind `update`, recorded as a step of its own).
"""

from __future__ import annotations

import copy
from types import SimpleNamespace
from typing import Any

from debugger.runtimes.driven import EditError
from engine import START
from engine.stepping import INTERRUPT, RunState, Task, apply_writes, infer_as_node, node_writes


def apply_edit(loop: Any, values: Any, as_node: str | None) -> tuple[str, list[str]]:
    """Applies the edit to `loop` (between supersteps); returns (the node it was made as, the
    channels it wrote). Raises `EditError` naming what is wrong, before anything changed."""
    graph = loop.graph
    if not isinstance(values, dict) or not values:
        raise EditError("An edit is a non-empty {key: value} update.")
    unknown = [k for k in values if k not in graph.state_keys]
    if unknown:
        raise EditError(
            f"{', '.join(map(repr, unknown))} is not a state key; the keys are {', '.join(graph.state_keys_ordered)}."
        )
    if as_node is None:
        as_node = infer_as_node(graph, loop.state.versions_seen)
        if as_node is None:
            raise EditError("Ambiguous update, specify as_node: several nodes ran last; pick the node to edit as.")
    if as_node not in graph.nodes or as_node == START:
        raise EditError(
            f"{as_node!r} is not a node of this graph; pick one of {', '.join(n for n in graph.nodes if n != START)}."
        )
    scratch = _scratch(loop.state)
    task = Task("edit", as_node, (INTERRUPT, 0), loop.step, (INTERRUPT,), {}, values, graph.nodes[as_node])
    try:
        node_writes(graph.nodes[as_node], task, values, SimpleNamespace(state=scratch, config=loop.config))
        apply_writes(scratch, [task], graph.trigger_to_nodes)
    except Exception as exc:  # a reducer or router refused the value: say so, keep the run
        raise EditError(f"{type(exc).__name__}: {exc}".strip()) from None
    loop.update_state(values, as_node)
    return as_node, [channel for channel, _ in task.writes]


def _scratch(state: RunState) -> RunState:
    """A copy of the run's state to try an edit on: deep when the values allow it, else per channel."""
    try:
        return copy.deepcopy(state)
    except Exception:  # values that cannot be copied (locks, clients): shallow channel copies
        return RunState(
            {k: c.copy() for k, c in state.channels.items()},
            dict(state.versions),
            {k: dict(v) for k, v in state.versions_seen.items()},
            state.checkpoint_id,
        )
