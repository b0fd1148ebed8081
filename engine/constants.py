"""Names the engine reserves, and the names of the internal channels that carry control flow.

LangGraph turns every edge into a channel: a node is triggered by a write to `branch:to:<node>`
(static and conditional edges), to `join:<a>+<b>:<node>` (waiting edges) or by a `Send` packet
queued on `__pregel_tasks`. We keep LangGraph's channel names so that versions, triggers and
checkpoints read the same in both tools; the builder itself stores edges as typed data
(`graph.py`) and only these helpers spell the names.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from .types import TaskPathKind

START = sys.intern("__start__")
"""The virtual first node: edges from START pick the nodes of the first real superstep."""
END = sys.intern("__end__")
"""The virtual last node: routing to END ends that branch."""

TASKS = "__pregel_tasks"
"""Topic channel holding the `Send` packets that become PUSH tasks in the next step."""
INTERRUPT = "__interrupt__"
RESUME = "__resume__"
NO_WRITES = "__no_writes__"
RETURN = "__return__"
ERROR = "__error__"
PUSH: TaskPathKind = "__pregel_push"
PULL: TaskPathKind = "__pregel_pull"
INPUT = "__input__"
COPY = "__copy__"

RESERVED_WRITE_KEYS = frozenset({NO_WRITES, PUSH, RESUME, INTERRUPT, RETURN, ERROR, "__error_source_node__"})
"""Writes to these keys are control signals, never applied to channels (LangGraph's `apply_writes`)."""

RESERVED_NODE_NAME_CHARACTERS = ("|", ":")
"""`|` separates namespaces and `:` separates a node name from its task id in `checkpoint_ns`."""

NS_SEP = "|"
NS_END = ":"

DEFAULT_RECURSION_LIMIT_ENV = "LANGGRAPH_DEFAULT_RECURSION_LIMIT"
DEFAULT_RECURSION_LIMIT = 10007
"""LangGraph 1.2's default (not 25), overridable with the same environment variable."""


def branch_channel(node: str) -> str:
    """The trigger channel written by every static or conditional edge into `node` (formatted once per
    name: routers ask for it every step)."""
    channel = _BRANCH_CHANNELS.get(node) if type(node) is str else None
    if channel is None:
        channel = f"branch:to:{node}"
        if type(node) is str:
            if len(_BRANCH_CHANNELS) > 10_000:  # names are few; a router making up many is not kept
                _BRANCH_CHANNELS.clear()
            _BRANCH_CHANNELS[node] = channel
    return channel


_BRANCH_CHANNELS: dict[str, str] = {}


def join_channel(sources: list[str] | tuple[str, ...], node: str) -> str:
    """The barrier channel of a waiting edge `add_edge([a, b], node)`; sources in the order given."""
    return f"join:{'+'.join(sources)}:{node}"
