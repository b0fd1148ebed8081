"""What a task wrote: a node's return value as channel writes, in LangGraph's writer order (state
keys, `Send`/`Command` control writes, static edges, then one set per conditional edge, each router
run here, inside the task, on the state as of the step's start plus the task's own writes). Used by
the runner for every task and by `update_state`, which writes as if a node had returned the values.
"""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING, Any

from .algo import PLAIN_CHANNELS, Task
from .channels import _MAYBE_OVERWRITE, MISSING, BinaryOperatorAggregate
from .constants import _BRANCH_CHANNELS, END, START, TASKS, branch_channel
from .errors import EmptyChannelError, InvalidUpdateError, ParentCommand
from .schema import state_update_pairs
from .types import Command, Send

if TYPE_CHECKING:  # pragma: no cover
    from .loop import Loop


def node_writes(node: Any, task: Task, returned: Any, loop: "Loop") -> list[tuple[str, Any]]:
    """All writes of one task, in LangGraph's writer order: state keys, Command/Send control
    writes, static edges, then one set per conditional edge (each router runs here, in the task)."""
    # `_own_writes`, written out (this runs for every task), and `state_update_pairs` of a plain dict
    if type(returned) is dict:  # (a plain dict has no Send or Command in it)
        task.writes = writes = []
        known = node.writable_keys
        for key, value in returned.items():
            if key in known:
                writes.append((key, value))
    else:
        task.writes = writes = state_update_pairs(returned, node.writable_keys, node.object_keys)
        writes.extend(control_writes(returned))
    writes.extend(node.edge_writes)
    for branch in node.branches:
        result = call_router(branch, task, returned, writes, loop)
        if type(result) is str:  # `route_writes` of the usual router (one node name), written out
            spec = branch.spec
            destination = result if spec.path_map is None else spec.path_map.get(result)
            if type(destination) is str and destination != START:  # (else `route_writes` raises)
                task.routes = [*task.routes, (spec.name, result)]
                if destination != END:
                    writes.append((_BRANCH_CHANNELS.get(destination) or branch_channel(destination), None))
                continue
        writes.extend(route_writes(branch, task, result))
    return writes


async def anode_writes(node: Any, task: Task, returned: Any, loop: "Loop") -> list[tuple[str, Any]]:
    """`node_writes` in an async run: a router may be an `async def`."""
    writes = _own_writes(node, task, returned)
    for branch in node.branches:
        result = call_router(branch, task, returned, writes, loop, awaitable=True)
        if inspect.isawaitable(result):
            result = await result
        writes.extend(route_writes(branch, task, result))
    return writes


def _own_writes(node: Any, task: Task, returned: Any) -> list[tuple[str, Any]]:
    # Built in place on the task, so a router that raises leaves what was written before it visible.
    task.writes = writes = state_update_pairs(returned, node.writable_keys, node.object_keys)
    if type(returned) is not dict:  # a plain dict has no Send or Command in it
        writes.extend(control_writes(returned))
    writes.extend(node.edge_writes)
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


def call_router(
    branch: Any, task: Task, returned: Any, writes: list[tuple[str, Any]], loop: "Loop", awaitable: bool = False
) -> Any:
    """Runs one router on the fresh state (step start + this task's own writes); returns its result
    (a coroutine for an `async def` router when `awaitable`)."""
    spec = branch.spec
    if branch.is_async and not awaitable:
        raise no_sync_function(spec.name)
    # `local_read(loop.state, branch.reads, writes)`, written out (a router runs every step)
    by_channel: dict[str, list[Any]] = {}
    for channel, written in writes:
        if channel in by_channel:
            by_channel[channel].append(written)
        else:
            by_channel[channel] = [written]
    fresh = {}
    channels = loop.state.channels
    for key in branch.reads:
        channel = channels[key]
        if key in by_channel:
            written = by_channel[key]
            if (
                type(channel) is BinaryOperatorAggregate
                and len(written) == 1
                and channel.value is not MISSING
                and not isinstance(written[0], _MAYBE_OVERWRITE)
            ):  # its `get_after` of one write, written out
                fresh[key] = channel.look_ahead(channel.value, written[0])
                continue
            try:
                fresh[key] = channel.get_after(written)
            except EmptyChannelError:
                pass
        elif type(channel) in PLAIN_CHANNELS:  # `get()`, read off the slot
            if channel.value is not MISSING:
                fresh[key] = channel.value
        else:
            try:
                fresh[key] = channel.get()
            except EmptyChannelError:
                pass
    for key, get in branch.managed:
        fresh[key] = get(task.step, loop.stop)
    value = fresh if branch.mapper is None else branch.mapper(**fresh)
    if branch.passthrough and isinstance(value, dict) and isinstance(returned, dict):
        value = {**returned, **value}  # LangGraph passes the node's extra return keys through
    return spec.router(value, config=loop.config) if spec.router_takes_config else spec.router(value)


def route_writes(branch: Any, task: Task, result: Any) -> list[tuple[str, Any]]:
    """The writes of what one router chose."""
    spec = branch.spec
    task.routes = [*task.routes, (spec.name, result)]
    path_map = spec.path_map
    if type(result) is str:  # the usual router: one node name (or a path_map key for one), every step
        destination = result if path_map is None else path_map.get(result)
        if type(destination) is str and destination != START:  # START or an unknown key: the loop below raises
            if destination == END:
                return []
            # `branch_channel(destination)`: its cache read here, the call made for a name not in it yet
            return [(_BRANCH_CHANNELS.get(destination) or branch_channel(destination), None)]
    results = result if isinstance(result, (list, tuple)) else (result,)
    out: list[tuple[str, Any]] = []
    for chosen in results:
        destination = chosen if path_map is None or isinstance(chosen, Send) else path_map[chosen]
        if destination is None or destination == START:
            raise ValueError("Branch did not return a valid destination")
        if type(destination) is not str and isinstance(destination, Send):
            if destination.node == END:
                raise InvalidUpdateError("Cannot send a packet to the END node")
            out.append((TASKS, destination))
        elif destination != END:
            out.append((branch_channel(destination), None))
    return out


def no_sync_function(name: str) -> TypeError:
    """LangGraph's error for an `async def` node or router in a sync run (`invoke`, `stream`)."""
    return TypeError(
        f'No synchronous function provided to "{name}".\n'
        "Either initialize with a synchronous function or invoke via the async API (ainvoke, astream, etc.)"
    )
