"""`StateGraph`: the builder, and every compile-time check. Nothing here executes a node.

Edges are kept as typed data (`Edge`, `WaitingEdge`, `Branch`: `graph_parts.py`); `compile()` validates them with
LangGraph's exact texts and turns them into `CompiledNode`s whose triggers and edge writes name the
control channels of `constants.py`. Execution lives in `loop.py`.
"""

from __future__ import annotations

import logging
import warnings
from typing import Any, Callable, Hashable, Literal, Sequence

from .channels import BinaryOperatorAggregate, Channel, EphemeralValue, LastValue
from .compiled import CompiledStateGraph, compile_nodes
from .constants import END, NS_END, NS_SEP, START, TASKS, branch_channel, join_channel
from .control_channels import LastValueAfterFinish, NamedBarrierValue, NamedBarrierValueAfterFinish, Topic
from .graph_parts import Branch, Edge, NodeSpec, WaitingEdge
from .node_hints import command_destinations, is_compiled_graph, path_map_of, returns_command_or_send
from .schema import channels_for_schema, first_parameter_schema, managed_for_schema, takes_config
from .types import RetryPolicy

logger = logging.getLogger("engine")


def _same_channel(existing: Any, new: Any) -> bool:
    """LangGraph's channel equality: plain keys match plain keys; reducer keys match when their reducers are the
    same function, and any lambda matches any reducer (every lambda is named `<lambda>`)."""
    if isinstance(existing, BinaryOperatorAggregate) and isinstance(new, BinaryOperatorAggregate):
        a, b = existing.operator, new.operator
        return getattr(a, "__name__", "") == "<lambda>" or getattr(b, "__name__", "") == "<lambda>" or a is b
    if isinstance(existing, LastValue):
        return isinstance(new, LastValue)
    return type(existing) is type(new)


class StateGraph:
    """A graph whose nodes share one state, merged by per-key reducers at each superstep barrier."""

    def __init__(
        self,
        state_schema: Any = None,
        context_schema: Any = None,
        *,
        input_schema: Any = None,
        output_schema: Any = None,
        **legacy: Any,
    ) -> None:
        input_schema = input_schema if input_schema is not None else legacy.pop("input", None)
        output_schema = output_schema if output_schema is not None else legacy.pop("output", None)
        if legacy:
            raise TypeError(f"StateGraph() got unexpected keyword arguments {sorted(legacy)}")
        if state_schema is None:
            raise ValueError("Must provide state_schema or input and output")
        self.state_schema = state_schema
        self.context_schema = context_schema
        self.input_schema = input_schema if input_schema is not None else state_schema
        self.output_schema = output_schema if output_schema is not None else state_schema
        self.nodes: dict[str, NodeSpec] = {}
        self.edges: list[Edge] = []
        self.waiting_edges: list[WaitingEdge] = []
        self.branches: dict[str, dict[str, Branch]] = {}
        self.channels: dict[str, Channel] = {}
        self.schemas: dict[Any, dict[str, Channel]] = {}
        self.default_retry_policy: tuple[RetryPolicy, ...] = ()
        """`set_node_defaults(retry_policy=...)`: for nodes added without a policy of their own."""
        self.managed: dict[Any, dict[str, Callable[[int, int], Any]]] = {}
        """Per schema, its managed values (`managed.py`): key -> `get(step, stop)`."""
        self.compiled = False
        for schema in (self.state_schema, self.input_schema, self.output_schema):
            self._add_schema(schema)

    def _add_schema(self, schema: Any) -> None:
        """Registers a schema's channels; every schema shares one namespace of keys (LangGraph 1.7)."""
        if schema in self.schemas:
            return
        channels = channels_for_schema(schema)
        self.schemas[schema] = channels
        self.managed[schema] = managed_for_schema(schema)
        for key, channel in channels.items():
            existing = self.channels.get(key)
            if existing is None:
                self.channels[key] = channel
            elif not _same_channel(existing, channel) and not isinstance(channel, LastValue):
                # LangGraph keeps the first schema's channel; a later plain key defers to it, anything else is refused
                raise ValueError(f"Channel '{key}' already exists with a different type")

    # ---- nodes -------------------------------------------------------------------------------

    def set_node_defaults(
        self, *, retry_policy: Any = None, cache_policy: Any = None, error_handler: Any = None, timeout: Any = None
    ) -> "StateGraph":
        """Default policies for every node without its own (applied at `compile()`), as in LangGraph.
        Only `retry_policy` is supported; `cache_policy` is accepted and ignored, as on `add_node`."""
        if error_handler is not None or timeout is not None:
            raise NotImplementedError(
                "The engine does not support node error handlers or timeouts; remove error_handler= and timeout= "
                "from set_node_defaults(), or record the app with langgraph itself (stepscope[langgraph])."
            )
        if retry_policy is not None:
            self.default_retry_policy = _policies(retry_policy)
        return self

    def add_node(
        self,
        node: str | Callable[..., Any] | Any,
        action: Any = None,
        *,
        defer: bool = False,
        metadata: dict[str, Any] | None = None,
        input_schema: Any = None,
        retry_policy: Any = None,
        cache_policy: Any = None,
        destinations: dict[str, str] | tuple[str, ...] | None = None,
        **legacy: Any,
    ) -> "StateGraph":
        if input_schema is None and "input" in legacy:
            input_schema = legacy.pop("input")
        if not isinstance(node, str):
            action = node
            node = (
                getattr(action, "name", None)
                if is_compiled_graph(action)
                else getattr(action, "__name__", type(action).__name__)
            )
            if node is None:
                raise ValueError("Node name must be provided if action is not a function")
        if self.compiled:
            logger.warning(
                "Adding a node to a graph that has already been compiled. "
                "This will not be reflected in the compiled graph."
            )
        if action is None:
            raise RuntimeError
        if node in self.nodes:
            raise ValueError(f"Node `{node}` already present.")
        if node in (START, END):
            raise ValueError(f"Node `{node}` is reserved.")
        for character in (NS_SEP, NS_END):
            if character in node:
                raise ValueError(f"'{character}' is a reserved character and is not allowed in the node names.")
        ends: tuple[str, ...] | dict[str, str] = ()
        if not is_compiled_graph(action):
            if input_schema is None:
                input_schema = first_parameter_schema(action)
            ends = command_destinations(action)
        if destinations is not None:
            ends = dict(destinations) if isinstance(destinations, dict) else tuple(destinations)
        schema = input_schema if input_schema is not None else self.state_schema
        self._add_schema(schema)
        self.nodes[node] = NodeSpec(node, action, schema, defer, metadata, ends, _policies(retry_policy))
        return self

    def add_sequence(self, nodes: Sequence[Callable[..., Any] | tuple[str, Callable[..., Any]]]) -> "StateGraph":
        if len(nodes) < 1:
            raise ValueError("Sequence requires at least one node.")
        previous: str | None = None
        for item in nodes:
            name, action = (
                item
                if isinstance(item, tuple)
                else (getattr(item, "name", None) or getattr(item, "__name__", type(item).__name__), item)
            )
            if name in self.nodes:
                raise ValueError(
                    f"Node names must be unique: node with the name '{name}' already exists. If you need to use two "
                    "different runnables/callables with the same name (for example, using `lambda`), please provide "
                    "them as tuples (name, runnable/callable)."
                )
            self.add_node(name, action)
            if previous is not None:
                self.add_edge(previous, name)
            previous = name
        return self

    # ---- edges -------------------------------------------------------------------------------

    def add_edge(self, start_key: str | list[str], end_key: str) -> "StateGraph":
        if isinstance(start_key, str):
            if start_key == END:
                raise ValueError("END cannot be a start node")
            if end_key == START:
                raise ValueError("START cannot be an end node")
            self.edges.append(Edge(start_key, end_key))
            return self
        for start in start_key:
            if start == END:
                raise ValueError("END cannot be a start node")
            if start not in self.nodes:
                raise ValueError(f"Need to add_node `{start}` first")
        if end_key == START:
            raise ValueError("START cannot be an end node")
        if end_key != END and end_key not in self.nodes:
            raise ValueError(f"Need to add_node `{end_key}` first")
        self.waiting_edges.append(WaitingEdge(tuple(start_key), end_key))
        return self

    def add_conditional_edges(
        self,
        source: str,
        path: Callable[..., Any],
        path_map: dict[Hashable, str] | list[str] | None = None,
    ) -> "StateGraph":
        name = getattr(path, "__name__", None) or type(path).__name__
        if name == "<lambda>":
            name = "condition"
        branches = self.branches.setdefault(source, {})
        if name in branches:
            raise ValueError(f"Branch with name `{name}` already exists for node `{source}`")
        schema = first_parameter_schema(path)
        if schema is not None:
            self._add_schema(schema)
        branches[name] = Branch(source, path, name, path_map_of(path, path_map), takes_config(path), schema)
        return self

    def set_entry_point(self, key: str) -> "StateGraph":
        return self.add_edge(START, key)

    def set_conditional_entry_point(self, path: Callable[..., Any], path_map: Any = None) -> "StateGraph":
        return self.add_conditional_edges(START, path, path_map)

    def set_finish_point(self, key: str) -> "StateGraph":
        return self.add_edge(key, END)

    # ---- validation and compile -------------------------------------------------------------

    def validate(self, interrupt: Sequence[str] | None = None) -> "StateGraph":
        """LangGraph's checks, in LangGraph's order, so the first error reported is the same one."""
        all_edges = [(e.source, e.target) for e in self.edges] + [
            (s, w.target) for w in self.waiting_edges for s in w.sources
        ]
        sources = {s for s, _ in all_edges} | set(self.branches)
        sources |= {name for name, spec in self.nodes.items() if spec.ends}
        for source in _ordered(sources):
            if source not in self.nodes and source != START:
                raise ValueError(f"Found edge starting at unknown node '{source}'")
        if START not in sources:
            raise ValueError("Graph must have an entrypoint: add at least one edge from START to another node")
        targets = {t for _, t in all_edges}
        for start, branches in self.branches.items():
            for name, branch in branches.items():
                if branch.path_map is not None:
                    for end in branch.path_map.values():
                        if end not in self.nodes and end != END:
                            raise ValueError(f"At '{start}' node, '{name}' branch found unknown target '{end}'")
                        targets.add(end)
                else:
                    targets.add(END)
                    targets.update(n for n in self.nodes if n != start)
        for spec in self.nodes.values():
            targets.update(spec.ends)
        for target in _ordered(targets):
            if target not in self.nodes and target != END:
                raise ValueError(f"Found edge ending at unknown node `{target}`")
        for node in interrupt or ():
            if node not in self.nodes:
                raise ValueError(f"Interrupt node `{node}` not found")
        self._warn_unreachable()
        self.compiled = True
        return self

    def _warn_unreachable(self) -> None:
        """LangGraph allows nodes nothing leads to; we warn, naming them, because they never run."""
        successors: dict[str, set[str]] = {}
        for e in self.edges:
            successors.setdefault(e.source, set()).add(e.target)
        for w in self.waiting_edges:
            for s in w.sources:
                successors.setdefault(s, set()).add(w.target)
        for source, branches in self.branches.items():
            for branch in branches.values():
                # A router without a path_map may go anywhere (or Send anywhere): assume it can.
                targets = set(branch.path_map.values()) if branch.path_map is not None else set(self.nodes)
                successors.setdefault(source, set()).update(targets)
        for name, spec in self.nodes.items():
            successors.setdefault(name, set()).update(spec.ends)
            if not spec.ends and returns_command_or_send(spec.action):
                successors[name].update(self.nodes)
        seen, frontier = {START}, [START]
        while frontier:
            for nxt in successors.get(frontier.pop(), ()):
                if nxt not in seen:
                    seen.add(nxt)
                    frontier.append(nxt)
        unreachable = [n for n in self.nodes if n not in seen]
        if unreachable:
            warnings.warn(
                f"Node(s) {', '.join(repr(n) for n in unreachable)} cannot be reached from START by any edge, "
                "router target or Command in the graph, so they only run if the input is Command(goto=...). "
                "Add an edge into them (add_edge, or a path_map entry of add_conditional_edges), or remove them.",
                UnreachableNodeWarning,
                stacklevel=3,
            )

    def compile(
        self,
        checkpointer: Any = None,
        *,
        cache: Any = None,
        store: Any = None,
        interrupt_before: Sequence[str] | Literal["*"] | None = None,
        interrupt_after: Sequence[str] | Literal["*"] | None = None,
        debug: bool = False,
        name: str | None = None,
    ) -> "CompiledStateGraph":
        interrupts = [
            *(interrupt_before if interrupt_before not in (None, "*") else ()),
            *(interrupt_after if interrupt_after not in (None, "*") else ()),
        ]
        self.validate(interrupt=interrupts)
        channels = dict(self.channels)
        channels[START] = EphemeralValue(START, guard=True)
        channels[TASKS] = Topic(TASKS, accumulate=False)
        for node, spec in self.nodes.items():
            key = branch_channel(node)
            channels[key] = LastValueAfterFinish(key) if spec.defer else EphemeralValue(key, guard=False)
        for w in self.waiting_edges:
            if w.target == END:
                continue
            key = join_channel(w.sources, w.target)
            barrier = NamedBarrierValueAfterFinish if self.nodes[w.target].defer else NamedBarrierValue
            channels[key] = barrier(key, set(w.sources))
        return CompiledStateGraph(
            builder=self,
            channels=channels,
            nodes=compile_nodes(self),
            checkpointer=checkpointer,
            interrupt_before=interrupt_before or (),
            interrupt_after=interrupt_after or (),
            name=name or "LangGraph",
            debug=debug,
        )


class UnreachableNodeWarning(UserWarning):
    """A node that no edge, router or Command can lead to."""


def _ordered(names: set[str]) -> list[str]:
    return sorted(names)


def _policies(retry_policy: Any) -> tuple[RetryPolicy, ...]:
    """`retry_policy=` as given to `add_node`: None, one `RetryPolicy`, or a sequence of them."""
    if retry_policy is None:
        return ()
    return (retry_policy,) if isinstance(retry_policy, RetryPolicy) else tuple(retry_policy)
