"""What a langgraph graph is, as a Trace describes it (`RunRecord.graph`), read from the compiled
graph without running it: nodes, edges, branches, channels with their reducers, managed values and
the drawing (langgraph's own `get_graph(xray=True)`).

Also how the debugger names langgraph things: `reducer_name(channel)` (`operator.add`,
`add_messages`, `LastValue`) and `is_langgraph_graph(obj)`, which looks at class names only, so
StepScope can tell a langgraph graph from its own without importing langgraph.
"""

from __future__ import annotations

import weakref
from typing import Any

from engine.codec import encode
from engine.trace import reducer_display_name

DEFAULT_NAME = "LangGraph"
"""The name langgraph gives every graph not compiled with `name=`: runs are named after their target instead."""


def _langgraph_classes(obj: Any) -> set[str]:
    return {cls.__name__ for cls in type(obj).__mro__ if cls.__module__.split(".")[0] == "langgraph"}


def is_langgraph_graph(obj: Any) -> bool:
    """A compiled `langgraph` graph: a `CompiledStateGraph` (create_react_agent's too), or any `Pregel`."""
    return not isinstance(obj, type) and "Pregel" in _langgraph_classes(obj)


def is_langgraph_builder(obj: Any) -> bool:
    """An uncompiled `langgraph.graph.StateGraph`."""
    return not isinstance(obj, type) and "StateGraph" in _langgraph_classes(obj)


def reducer_name(channel: Any) -> str:
    """A channel's reducer as the debugger shows it; channels without one by their kind."""
    operator = getattr(channel, "operator", None)
    if operator is None:
        return type(channel).__name__
    fn = getattr(operator, "func", operator)
    if str(getattr(fn, "__module__", "")).startswith("langgraph.") and getattr(fn, "__name__", None):
        return (
            fn.__name__.lstrip("_").removesuffix("_wrapper")
            if "add_messages" in fn.__name__
            else fn.__name__.lstrip("_")
        )
    return reducer_display_name(operator)


def state_keys(graph: Any) -> list[str]:
    """The state keys of a graph's run (the channels a node reads and writes, not edges or queues)."""
    builder = getattr(graph, "builder", None)
    if builder is not None and hasattr(builder, "channels") and hasattr(builder, "branches"):
        return list(builder.channels)
    return [k for k in getattr(graph, "channels", {}) if not _internal_channel(k)]


def _internal_channel(name: str) -> bool:
    return name.startswith(("__", "branch:", "join:", "start:")) or ":" in name


_DESCRIPTIONS: "weakref.WeakKeyDictionary[Any, dict[str, Any]]" = weakref.WeakKeyDictionary()


def describe(graph: Any, name: str | None = None) -> dict[str, Any]:
    """`engine.trace.describe`'s shape for a langgraph compiled graph. Cached per graph."""
    try:
        cached = _DESCRIPTIONS.get(graph)
    except TypeError:  # an unhashable graph: describe it each time
        cached = None
    if cached is None:
        cached = _describe(graph)
        try:
            _DESCRIPTIONS[graph] = cached
        except TypeError:
            pass
    if name and name != cached["name"]:
        return {**cached, "name": name}
    return cached


def _describe(graph: Any) -> dict[str, Any]:
    builder = getattr(graph, "builder", None)
    state_graph = builder is not None and hasattr(builder, "branches")
    if state_graph:
        channel_objects = dict(builder.channels)
        nodes = [
            {
                "name": node,
                "subgraph": is_langgraph_graph(spec.runnable),
                "defer": bool(spec.defer),
                "metadata": encode(spec.metadata or {}),
            }
            for node, spec in builder.nodes.items()
        ]
        edges = sorted([list(e) for e in builder.edges])
        waiting = sorted([[list(starts), end] for starts, end in builder.waiting_edges])
        branches = [
            {
                "source": source,
                "name": branch_name,
                "targets": None if branch.ends is None else {str(k): v for k, v in branch.ends.items()},
            }
            for source, by_name in builder.branches.items()
            for branch_name, branch in by_name.items()
        ]
        managed = {
            k: getattr(v, "__name__", type(v).__name__) for k, v in (getattr(builder, "managed", None) or {}).items()
        }
        control = _control_channels(builder.nodes, builder.waiting_edges)
        input_keys = list(builder.schemas.get(builder.input_schema, {})) if hasattr(builder, "schemas") else []
    else:  # a Pregel built by hand or the Functional API: what the compiled object says
        channel_objects = {k: v for k, v in getattr(graph, "channels", {}).items() if not _internal_channel(k)}
        nodes = [
            {"name": node, "subgraph": False, "defer": False, "metadata": {}} for node in getattr(graph, "nodes", {})
        ]
        edges, waiting, branches, managed, input_keys, control = [], [], [], {}, [], None
    output_keys = getattr(graph, "output_channels", None)
    return {
        "name": getattr(graph, "name", None) or DEFAULT_NAME,
        "nodes": nodes,
        "edges": edges,
        "waiting_edges": waiting,
        "branches": branches,
        "channels": {k: {"kind": type(c).__name__, "reducer": reducer_name(c)} for k, c in channel_objects.items()},
        "managed": managed,
        "input_keys": input_keys,
        "output_keys": output_keys if isinstance(output_keys, str) else list(output_keys or []),
        "drawing": _drawing(graph, xray=True),
        "drawing_flat": _drawing(graph, xray=False),
        "source": "langgraph",
        **({"control_channels": control} if control is not None else {}),
    }


def _control_channels(nodes: Any, waiting_edges: Any) -> dict[str, dict[str, Any]]:
    """`engine.trace.describe`'s `control_channels` for langgraph's channel names (langgraph/graph/state.py
    names them `branch:to:<node>` and `join:<a>+<b>:<node>`), so readers never parse them."""
    roles: dict[str, dict[str, Any]] = {"__start__": {"role": "input"}, "__pregel_tasks": {"role": "sends"}}
    for node in nodes:
        roles[f"branch:to:{node}"] = {"role": "edge", "target": node}
    for starts, end in waiting_edges:
        if end != "__end__":
            roles[f"join:{'+'.join(starts)}:{end}"] = {"role": "waiting_edge", "sources": list(starts), "target": end}
    return roles


def _drawing(graph: Any, xray: bool) -> dict[str, list[dict[str, Any]]]:
    """langgraph's own drawing (`get_graph`) in `engine.draw.DrawableGraph.to_dict`'s form."""
    try:
        drawn = graph.get_graph(xray=xray)
    except Exception:  # noqa: BLE001 - a graph langgraph cannot draw is still recorded, undrawn
        return {"nodes": [], "edges": []}
    return {
        "nodes": [
            {"id": n.id, "name": n.name, "metadata": encode(n.metadata) if n.metadata else None}
            for n in drawn.nodes.values()
        ],
        "edges": [
            {
                "source": e.source,
                "target": e.target,
                "data": None if e.data is None else str(e.data),
                "conditional": bool(e.conditional),
            }
            for e in drawn.edges
        ],
    }
