"""A langgraph graph's structure as the diagnostics read it, for the checks that need no run.

`debugger.diagnostics` reads a graph's builder (nodes with their functions, edges, branches with
routers and path maps, waiting edges, channels with reducers and start values, schemas). For a
langgraph graph that is an engine `StateGraph` *builder* holding the same schemas, the user's own
node and router functions and the same edges: nothing is compiled or run on the engine (runs are
always langgraph's own, recorded by `probe.py`). A compiled subgraph node becomes the view of that
subgraph, so checks that look into subgraphs see it.

`static_view(compiled)` returns `None` when the structure cannot be mapped (say, a state schema the
engine cannot read); the caller then says the checks before running were skipped and why.
"""

from __future__ import annotations

import warnings
from typing import Any

import engine

from .names import is_langgraph_graph


class StaticViewError(Exception):
    """The graph's structure could not be read for the checks before running; the message says why."""


class GraphView:
    """Stands for a compiled graph in the diagnostics: its `.builder`; calling it is refused."""

    def __init__(self, builder: Any, name: str, original: Any) -> None:
        self.builder = builder
        self.name = name
        self.langgraph = original
        output = getattr(original, "output_channels", None)
        self.output_keys = output if isinstance(output, str) else list(output or [])

    def invoke(self, *args: Any, **kwargs: Any) -> Any:
        raise TypeError("a static view of a langgraph graph is not run; run the graph itself")

    __call__ = invoke


def static_view(compiled: Any) -> "GraphView":
    """An object with `.builder` (an engine StateGraph builder mirroring `compiled`'s) and `.name`."""
    try:
        return _view(compiled, {})
    except StaticViewError:
        raise
    except Exception as exc:  # noqa: BLE001 - any schema or node the mapping does not understand
        raise StaticViewError(f"{type(exc).__name__}: {exc}") from None


def _view(compiled: Any, done: dict[int, GraphView]) -> GraphView:
    if id(compiled) in done:
        return done[id(compiled)]
    builder = getattr(compiled, "builder", None)
    if builder is None or not hasattr(builder, "branches"):
        raise StaticViewError("the graph is not a StateGraph (the Functional API or a hand-built Pregel)")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        schema = _plain_schema(builder.state_schema, builder)
        graph = engine.StateGraph(schema)
        view = GraphView(graph, getattr(compiled, "name", "LangGraph"), compiled)
        done[id(compiled)] = view
        for name, spec in builder.nodes.items():
            runnable = spec.runnable
            action = _view(runnable, done) if is_langgraph_graph(runnable) else _user_function(runnable)
            graph.add_node(
                name,
                action,
                defer=bool(spec.defer),
                metadata=spec.metadata,
                destinations=tuple(spec.ends) if spec.ends else None,
            )
            if spec.input_schema is not None and spec.input_schema is not builder.state_schema:
                graph.nodes[name].input_schema = spec.input_schema
                graph._add_schema(spec.input_schema)
        rank = {n: i for i, n in enumerate([engine.START, *builder.nodes, engine.END])}
        for start, end in sorted(builder.edges, key=lambda e: (rank.get(e[0], -1), rank.get(e[1], -1))):
            graph.add_edge(start, end)
        for starts, end in sorted(
            builder.waiting_edges, key=lambda e: ([rank.get(s, -1) for s in e[0]], rank.get(e[1], -1))
        ):
            graph.add_edge(list(starts), end)
        for source, branches in builder.branches.items():
            for name, branch in branches.items():
                router = _user_function(branch.path)
                graph.add_conditional_edges(source, router, None if branch.ends is None else dict(branch.ends))
    return view


def _user_function(runnable: Any) -> Any:
    """The user's own function inside langgraph's wrapper (what the source checks read)."""
    for attribute in ("func", "afunc"):
        func = getattr(runnable, attribute, None)
        if callable(func):
            return func
    return runnable


def _plain_schema(schema: Any, builder: Any) -> Any:
    """The state schema without managed values (e.g. `remaining_steps: RemainingSteps`), which are
    not state keys: a TypedDict of the channel keys with their annotations."""
    managed = set(getattr(builder, "managed", None) or ())
    if not managed:
        return schema
    from typing import TypedDict, get_type_hints

    hints = get_type_hints(schema, include_extras=True)
    return TypedDict(getattr(schema, "__name__", "State"), {k: v for k, v in hints.items() if k not in managed})
