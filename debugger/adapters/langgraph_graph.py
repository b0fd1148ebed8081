"""Recording real LangGraph apps: a `langgraph` compiled graph rebuilt on StepScope's engine.

`to_engine_graph(compiled)` reads the graph's builder (`compiled.builder`: its state, input and
output schemas, nodes, edges, waiting edges and branches) and its compile options, adds the same
things in the same order to an `engine.StateGraph`, and compiles that. The result is an ordinary
engine graph, so every run of it is recorded like any other: tasks, writes, reducer calls with the
value before and after, versions, errors.

- State schemas are used as they are, so the reducers in them (`operator.add`, langgraph's own
  `add_messages`, the user's) run on the user's objects, langchain_core messages included.
- The user's node and router functions are called as they are; `langgraph_calls.py` translates
  what crosses the boundary (injected parameters, `interrupt()`, `Command` / `Send` / `Overwrite`).
- A compiled subgraph added as a node is converted recursively. A compiled langgraph graph that a
  node function invokes by name (`out = child.invoke(...)`, a global or a closure variable) is
  converted too: called from a task of a rebuilt graph it runs on the engine, nested under that
  task, so its steps are recorded; called from anywhere else it is still langgraph's own.

What the engine cannot reproduce raises `UnsupportedLangGraphFeature`, naming the feature and
where it is used, before anything runs: a wrong trace is worse than none. The README section
"Recording real LangGraph apps" lists what is supported and what is not.

This module imports nothing from langgraph until it is given a langgraph object:
`is_langgraph_graph` and `is_langgraph_builder` look at class names only.
"""

from __future__ import annotations

import dataclasses
import dis
import inspect
import warnings
from typing import Any, Callable

import engine
from engine.graph import UnreachableNodeWarning
from engine.runner import current_task


class UnsupportedLangGraphFeature(Exception):
    """A langgraph graph uses something StepScope cannot reproduce faithfully."""

    def __init__(self, feature: str, where: str = "", hint: str = "") -> None:
        self.feature = feature
        """What is not supported, e.g. "`RetryPolicy`"."""
        self.where = where
        """Where it is used, e.g. "graph 'LangGraph', node 'fetch'"."""
        message = f"{where} uses {feature}" if where else f"The graph uses {feature}"
        message += ", which StepScope cannot reproduce when it runs a langgraph graph"
        message += f": {hint}" if hint else "."
        super().__init__(message)


# ---- recognising langgraph objects (without importing langgraph) ----------------------------


def _langgraph_classes(obj: Any) -> set[str]:
    return {cls.__name__ for cls in type(obj).__mro__ if cls.__module__.split(".")[0] == "langgraph"}


def is_langgraph_graph(obj: Any) -> bool:
    """A compiled `langgraph` graph: a `CompiledStateGraph`, or any other `Pregel`."""
    return not isinstance(obj, type) and "Pregel" in _langgraph_classes(obj)


def is_langgraph_builder(obj: Any) -> bool:
    """An uncompiled `langgraph.graph.StateGraph`."""
    return not isinstance(obj, type) and "StateGraph" in _langgraph_classes(obj)


# ---- the public entry points ----------------------------------------------------------------


def to_engine_graph(compiled: Any) -> "LangGraphRebuild":
    """The engine graph that runs `compiled` (a langgraph compiled graph) the way langgraph does."""
    if not is_langgraph_graph(compiled):
        raise TypeError(f"expected a compiled langgraph graph, got {type(compiled).__name__}")
    return _Converter().convert(compiled, f"graph '{getattr(compiled, 'name', None) or 'LangGraph'}'")


def to_engine_value(value: Any) -> Any:
    """A graph input or node return value with langgraph's `Command`, `Send` and `Overwrite` made
    the engine's; anything else is returned as it is."""
    items = value.values() if type(value) is dict else value if isinstance(value, (list, tuple)) else ()
    if not _langgraph_classes(value) and not any(_langgraph_classes(item) for item in items):
        return value
    try:
        from debugger.adapters.langgraph_calls import to_engine_value as translate
    except ImportError:  # no langgraph: there is nothing of it to translate
        return value
    return translate(value)


class LangGraphRebuild(engine.CompiledStateGraph):
    """An engine graph rebuilt from a langgraph one by `to_engine_graph`. It runs like any engine
    graph, and like langgraph it also takes langgraph's `Command` (e.g. `Command(resume=...)`) as
    input and applies the config the graph was given with `.with_config(...)` to every run."""

    langgraph_original: Any
    """The langgraph compiled graph this was rebuilt from."""
    default_config: dict[str, Any]
    """`langgraph_original.config`: what `.with_config(...)` set (e.g. a recursion_limit)."""

    def loop(self, input: Any, config: dict[str, Any] | None = None, **kwargs: Any) -> Any:
        if self.default_config:
            config = _merge_configs(self.default_config, config)
        return super().loop(to_engine_value(input), config, **kwargs)

    def update_state(self, config: dict[str, Any], values: Any, as_node: str | None = None,
                     task_id: str | None = None) -> dict[str, Any]:
        return super().update_state(config, to_engine_value(values), as_node, task_id)


def _merge_configs(base: dict[str, Any], config: dict[str, Any] | None) -> dict[str, Any]:
    merged = {**base, **(config or {})}
    for key in ("configurable", "metadata"):
        if key in base and config and key in config:
            merged[key] = {**base[key], **config[key]}
    return merged


# ---- the rebuild ----------------------------------------------------------------------------


class _Converter:
    """One conversion: converts each langgraph graph it meets once (a subgraph used twice is one)."""

    def __init__(self) -> None:
        from debugger.adapters import langgraph_calls  # langgraph is installed: we were given its graph

        self.calls = langgraph_calls
        self.done: dict[int, LangGraphRebuild] = {}
        self.busy: set[int] = set()
        """Graphs being converted (a node that invokes its own graph must not recurse forever)."""

    def convert(self, compiled: Any, where: str) -> LangGraphRebuild:
        if id(compiled) in self.done:
            return self.done[id(compiled)]
        self.busy.add(id(compiled))
        try:
            rebuilt = self._convert(compiled, where)
        finally:
            self.busy.discard(id(compiled))
        self.done[id(compiled)] = rebuilt
        return rebuilt

    def _convert(self, compiled: Any, where: str) -> LangGraphRebuild:
        builder = getattr(compiled, "builder", None)
        if builder is None or not hasattr(builder, "branches"):
            raise UnsupportedLangGraphFeature(
                "the Functional API (`@entrypoint`, a graph without a StateGraph builder)", where,
                "build the graph with `StateGraph` to record it.",
            )
        _check_graph(compiled, builder, where)
        graph = engine.StateGraph(builder.state_schema, input_schema=builder.input_schema, output_schema=builder.output_schema)
        originals: dict[str, Any] = {}
        for name, spec in builder.nodes.items():
            action, originals[name] = self._node(spec, f"{where}, node '{name}'")
            graph.add_node(name, action, defer=spec.defer, metadata=spec.metadata, input_schema=spec.input_schema,
                           destinations=spec.ends or None)
        # langgraph keeps edges in sets, so the order they were added in is lost: use node order
        # (START first, END last), which is how graphs are usually written, the same run after run.
        rank = {name: index for index, name in enumerate([engine.START, *builder.nodes, engine.END])}
        for start, end in sorted(builder.edges, key=lambda e: (rank.get(e[0], -1), rank.get(e[1], -1), e)):
            graph.add_edge(start, end)
        for starts, end in sorted(builder.waiting_edges, key=lambda e: ([rank.get(s, -1) for s in e[0]], rank.get(e[1], -1), e)):
            graph.add_edge(list(starts), end)
        for source, branches in builder.branches.items():
            for name, branch in branches.items():
                call, original = self.calls.caller(branch.path, f"{where}, router '{name}' of node '{source}'")
                route = self.calls.router(call, name, original)
                graph.add_conditional_edges(source, route, None if branch.ends is None else dict(branch.ends))
                if branch.input_schema is not None:  # langgraph read it off the user's function, not ours
                    graph.branches[source][name].input_schema = branch.input_schema
                    graph._add_schema(branch.input_schema)
        # langgraph's key order (the `values` stream and the state views follow it).
        graph.channels = {**{k: graph.channels[k] for k in builder.channels if k in graph.channels}, **graph.channels}
        for channel in graph.channels.values():
            if hasattr(channel, "operator"):
                channel.reducer_name = _reducer_name(channel.operator, channel.reducer_name)
        _warn_unreachable(graph, originals)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UnreachableNodeWarning)  # judged above, on the user's functions
            rebuilt = graph.compile(
                checkpointer=_checkpointer(compiled.checkpointer, where),
                interrupt_before=_node_names(compiled.interrupt_before_nodes),
                interrupt_after=_node_names(compiled.interrupt_after_nodes),
                name=compiled.name,
            )
        rebuilt.__class__ = LangGraphRebuild  # the same compiled graph, plus langgraph's input handling
        rebuilt.langgraph_original = compiled
        rebuilt.default_config = dict(getattr(compiled, "config", None) or {})
        return rebuilt

    def _node(self, spec: Any, where: str) -> tuple[Any, Any]:
        """(what the engine runs, the user's own function, for the reachability check)."""
        if getattr(spec, "is_error_handler", False):
            raise UnsupportedLangGraphFeature("node error handlers (`error_handler=`)", where)
        if spec.retry_policy:
            raise UnsupportedLangGraphFeature("`RetryPolicy`", where, "remove `retry_policy=` to record it.")
        if spec.cache_policy is not None:
            raise UnsupportedLangGraphFeature("`CachePolicy`", where, "remove `cache_policy=` to record it.")
        if getattr(spec, "timeout", None) is not None:
            raise UnsupportedLangGraphFeature("node timeouts (`timeout=`)", where)
        if is_langgraph_graph(spec.runnable):
            return self.convert(spec.runnable, f"{where} (subgraph '{spec.runnable.name}')"), _may_route_anywhere
        call, original = self.calls.caller(spec.runnable, where)
        action = self.calls.NodeAction(call, where, original)
        inner = self._adopt_inner_graphs(original, where)
        if inner is None:
            return action, original

        def node(state: Any, config: Any) -> Any:
            inner  # noqa: B018 - the graph this node invokes, loaded where engine.draw looks for one (xray)
            return action(state, config)

        node.__name__ = node.__qualname__ = getattr(original, "__name__", "node")
        return self.calls.wraps(node, original), original

    def _adopt_inner_graphs(self, func: Any, where: str) -> LangGraphRebuild | None:
        """Converts the langgraph graphs `func` invokes by name and routes their `invoke` to the
        rebuild when called from a rebuilt graph's task; returns the first (for drawing)."""
        if not (inspect.isfunction(func) or inspect.ismethod(func)):
            return None
        try:
            variables = inspect.getclosurevars(func)
            loaded = {i.argval for i in dis.get_instructions(func) if i.opname in ("LOAD_GLOBAL", "LOAD_DEREF")}
        except (TypeError, ValueError):
            return None
        first = None
        for name, value in {**variables.globals, **variables.nonlocals}.items():
            if name not in loaded:
                continue
            if "_TaskFunction" in _langgraph_classes(value):
                raise UnsupportedLangGraphFeature(f"the Functional API (the `@task` function '{name}')", where)
            if not is_langgraph_graph(value) or id(value) in self.busy:
                continue
            try:
                rebuilt = self.convert(value, f"graph '{name}' (invoked by {where})")
            except Exception:  # noqa: BLE001 - then it keeps running on langgraph, unrecorded (README)
                continue
            invoke = vars(value).get("invoke")
            if invoke is None:
                value.invoke = invoke = _adopted_invoke(value, rebuilt)
            first = first or getattr(invoke, "rebuilt", None)
        return first


def _adopted_invoke(original: Any, rebuilt: LangGraphRebuild) -> Callable[..., Any]:
    """`original.invoke`, except in a task of a rebuilt graph: there `rebuilt` runs instead, nested
    under that task (the engine files a run started inside a task under it, and so does the recorder)."""
    own = type(original).invoke

    def invoke(input: Any, config: Any = None, **kwargs: Any) -> Any:
        context = current_task.get()
        plain = not kwargs or kwargs == {"stream_mode": "values"}
        if plain and context is not None and isinstance(context.loop.graph, LangGraphRebuild):
            return rebuilt.invoke(input, config)
        return own(original, input, config, **kwargs)

    invoke.rebuilt = rebuilt  # type: ignore[attr-defined]
    return invoke


# ---- what is refused ------------------------------------------------------------------------


def _check_graph(compiled: Any, builder: Any, where: str) -> None:
    if getattr(builder, "context_schema", None) is not None:
        raise UnsupportedLangGraphFeature(
            f"a run context (`context_schema={_name(builder.context_schema)}`)", where,
            "StepScope cannot pass `context=` to a run yet.",
        )
    for name, spec in builder.nodes.items():  # before the nodes: a handler node comes before its node
        if getattr(spec, "error_handler_node", None):
            raise UnsupportedLangGraphFeature("node error handlers (`error_handler=`)", f"{where}, node '{name}'")
    managed = getattr(builder, "managed", None) or {}
    if managed:
        keys = ", ".join(f"'{key}' ({_name(value)})" for key, value in managed.items())
        raise UnsupportedLangGraphFeature(f"managed values in the state ({keys})", where)
    for key, channel in builder.channels.items():
        kind = type(channel).__name__
        if kind not in ("LastValue", "BinaryOperatorAggregate"):  # what the engine builds from the schema
            raise UnsupportedLangGraphFeature(
                f"the langgraph channel {kind} (state key '{key}')", where, "use a reducer in `Annotated` instead."
            )
    graph_level = [
        ("store", "a store (`compile(store=...)`)"),
        ("cache", "a node cache (`compile(cache=...)`)"),
        ("retry_policy", "`RetryPolicy`"),
        ("cache_policy", "`CachePolicy`"),
        ("step_timeout", "a step timeout (`step_timeout`)"),
    ]
    for attribute, feature in graph_level:
        if getattr(compiled, attribute, None):
            raise UnsupportedLangGraphFeature(feature, where)


def _checkpointer(saver: Any, where: str) -> Any:
    if saver is None or saver is False:
        return saver
    if saver is True:
        raise UnsupportedLangGraphFeature("`checkpointer=True` (a subgraph keeping its own state between runs)", where)
    if type(saver).__name__ in ("InMemorySaver", "MemorySaver") and hasattr(engine, "InMemorySaver"):
        return engine.InMemorySaver()  # a fresh one: runs start on StepScope's own threads
    raise UnsupportedLangGraphFeature(
        f"the checkpointer {type(saver).__name__}", where, "use `InMemorySaver` (or none) to record the graph."
    )


# ---- helpers --------------------------------------------------------------------------------


def _node_names(nodes: Any) -> Any:
    if not nodes:
        return None
    return nodes if nodes == "*" else list(nodes)


def _name(obj: Any) -> str:
    return getattr(obj, "__name__", None) or type(obj).__name__


def _reducer_name(reducer: Any, shown: str) -> str:
    """langgraph's own reducers by their public names (`add_messages`, not `_add_messages_wrapper...`)."""
    fn = getattr(reducer, "func", reducer)
    if str(getattr(fn, "__module__", "")).startswith("langgraph.") and getattr(fn, "__name__", None):
        return fn.__name__.lstrip("_")
    return shown


def _may_route_anywhere(state: Any) -> Any:
    """Stands for a subgraph in the reachability check: it may send a Command to its parent."""
    return engine.Command


def _warn_unreachable(graph: engine.StateGraph, originals: dict[str, Any]) -> None:
    """The engine's unreachable-node warning, judged on the user's functions rather than ours."""
    shadow = object.__new__(type(graph))
    shadow.__dict__.update(graph.__dict__)
    shadow.nodes = {name: dataclasses.replace(spec, action=originals[name]) for name, spec in graph.nodes.items()}
    shadow._warn_unreachable()
