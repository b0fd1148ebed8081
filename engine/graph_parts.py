"""What `StateGraph` holds, as typed data: the nodes as added, plain edges, waiting edges and
conditional edges (routers). The builder (`engine.graph`) validates them and `compile()` turns them into
compiled nodes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Hashable


@dataclass(frozen=True)
class NodeSpec:
    """A node as added to the builder."""

    name: str
    action: Any
    """A callable `(state[, config]) -> update`, or a compiled graph run as a subgraph."""
    input_schema: Any
    """The schema the node reads and receives; the graph's state schema unless the node declares one."""
    defer: bool = False
    metadata: dict[str, Any] | None = None
    ends: tuple[str, ...] | dict[str, str] = ()
    """Declared `destinations` (a tuple, or a dict of target -> edge label) or `Command[Literal[...]]`
    targets: for drawing and validation only."""
    retry_policy: tuple[Any, ...] = ()
    """The node's `RetryPolicy`s (`add_node(..., retry_policy=...)`: one policy or a sequence)."""


@dataclass(frozen=True)
class Edge:
    """`add_edge(source, target)`: source finishing triggers target in the next superstep."""

    source: str
    target: str


@dataclass(frozen=True)
class WaitingEdge:
    """`add_edge([a, b], target)`: target runs once, after every source has finished."""

    sources: tuple[str, ...]
    target: str


@dataclass
class Branch:
    """`add_conditional_edges(source, router, path_map)`: the router picks targets at run time."""

    source: str
    router: Callable[..., Any]
    name: str
    path_map: dict[Hashable, str] | None
    """Router result -> node; None when neither a path_map nor a `Literal` return type was given."""
    router_takes_config: bool = False
    input_schema: Any = None
    """The schema the router declares through its first parameter's annotation, if any."""
