"""`CompiledStateGraph`: what `StateGraph.compile()` returns. `invoke`, `stream`, `get_graph`.

Compilation turns each builder node into a `CompiledNode`: the channels that trigger it, the keys it
reads, the writes its static edges make, and its routers. Running is `loop.Loop`'s job; this module
only wires a run up (config, hooks, nesting inside a parent task) and shapes its output.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, AsyncIterator, Iterator, Sequence

from . import state_api
from .channels import Channel
from .checkpointing import Persistence
from .constants import INTERRUPT, START, branch_channel, join_channel
from .context import current_task
from .draw import graph_of
from .hooks import Hooks, combine, watchers
from .loop import Loop
from .nodes import CompiledBranch, CompiledNode, is_coroutine_function
from .savers import BaseCheckpointSaver
from .schema import ROOT, input_mapper, takes_config
from .state_api import StateSnapshot
from .stream import StreamCollector

if TYPE_CHECKING:  # pragma: no cover
    from .graph import StateGraph
    from .interrupts import Asker


def _invoke_output(loop: Loop, output: Any) -> Any:
    if loop.interrupts:  # stopped by interrupt(): LangGraph adds the questions to the output
        return (
            {**output, INTERRUPT: list(loop.interrupts)}
            if isinstance(output, dict)
            else {INTERRUPT: list(loop.interrupts)}
        )
    return output


def _edge_wiring(builder: "StateGraph") -> tuple[dict[str, list[tuple[str, Any]]], dict[str, list[str]]]:
    """Each node's static edge writes (source -> the channels it writes when it finishes) and each
    node's trigger channels (its branch channel, and one join channel per waiting edge into it)."""
    edge_writes: dict[str, list[tuple[str, Any]]] = {name: [] for name in [START, *builder.nodes]}
    triggers: dict[str, list[str]] = {name: [branch_channel(name)] for name in builder.nodes}
    for edge in builder.edges:
        if edge.target != "__end__":
            edge_writes[edge.source].append((branch_channel(edge.target), None))
    for waiting in builder.waiting_edges:
        if waiting.target == "__end__":
            continue
        channel = join_channel(waiting.sources, waiting.target)
        triggers[waiting.target].append(channel)
        for source in waiting.sources:
            edge_writes[source].append((channel, source))
    return edge_writes, triggers


def _branches_of(builder: "StateGraph", name: str, node_schema: Any) -> tuple[CompiledBranch, ...]:
    """`name`'s conditional edges; a router without its own input schema reads the node's."""
    compiled = []
    for branch in builder.branches.get(name, {}).values():
        schema = branch.input_schema if branch.input_schema is not None else node_schema
        compiled.append(
            CompiledBranch(
                branch,
                tuple(builder.schemas[schema]),
                input_mapper(schema),
                branch.input_schema is None,
                is_coroutine_function(branch.router),
                tuple(builder.managed[schema].items()),
            )
        )
    return tuple(compiled)


def compile_nodes(builder: "StateGraph") -> dict[str, CompiledNode]:
    state_keys = frozenset(builder.channels)
    all_keys = tuple(builder.channels)
    edge_writes, triggers = _edge_wiring(builder)
    input_keys = tuple(builder.schemas[builder.input_schema])
    # A write to a managed value reaches the barrier, which ignores it with LangGraph's warning.
    writable_keys = state_keys.union(*(m.keys() for m in builder.managed.values()))
    nodes = {
        START: CompiledNode(
            name=START,
            action=None,
            input_schema=builder.input_schema,
            reads=(),
            triggers=(START,),
            writable_keys=frozenset(input_keys),
            object_keys=input_keys,
            state_keys=state_keys,
            edge_writes=tuple(edge_writes[START]),
            branches=_branches_of(builder, START, builder.state_schema),
            needs_context=False,
        )
    }
    for name, spec in builder.nodes.items():
        is_subgraph = isinstance(spec.action, CompiledStateGraph)
        nodes[name] = CompiledNode(
            name=name,
            action=spec.action,
            input_schema=spec.input_schema,
            reads=tuple(builder.schemas[spec.input_schema]),
            triggers=tuple(triggers[name]),
            writable_keys=writable_keys,
            object_keys=all_keys,
            state_keys=state_keys,
            edge_writes=tuple(edge_writes[name]),
            branches=_branches_of(builder, name, spec.input_schema),
            takes_config=not is_subgraph and takes_config(spec.action),
            is_subgraph=is_subgraph,
            defer=spec.defer,
            metadata=spec.metadata,
            retry_policy=spec.retry_policy or builder.default_retry_policy,
            managed=tuple(builder.managed[spec.input_schema].items()),
        )
    return nodes


class CompiledStateGraph:
    """A runnable graph. Immutable once compiled; every run gets fresh channels."""

    def __init__(
        self,
        *,
        builder: "StateGraph",
        channels: dict[str, Channel],
        nodes: dict[str, CompiledNode],
        checkpointer: Any,
        interrupt_before: Sequence[str] | str,
        interrupt_after: Sequence[str] | str,
        name: str,
        debug: bool,
    ) -> None:
        self.builder = builder
        self.channels = channels
        self.nodes = nodes
        self.checkpointer = checkpointer
        self.interrupt_before_nodes = interrupt_before
        self.interrupt_after_nodes = interrupt_after
        self.name = name
        self.debug = debug
        self.state_keys_ordered = list(builder.channels)
        self.state_keys = frozenset(self.state_keys_ordered)
        output = list(builder.schemas[builder.output_schema])
        self.output_keys: list[str] | str = ROOT if output == [ROOT] else output
        self.stream_keys = self.state_keys_ordered
        trigger_to_nodes: dict[str, list[str]] = {}
        for node in nodes.values():
            for channel in node.triggers:
                trigger_to_nodes.setdefault(channel, []).append(node.name)
        self.trigger_to_nodes = {k: tuple(v) for k, v in trigger_to_nodes.items()}

    def get_name(self) -> str:
        return self.name

    # ---- running -------------------------------------------------------------------------------

    def loop(
        self,
        input: Any,
        config: dict[str, Any] | None = None,
        *,
        hooks: Hooks | None = None,
        output_keys: list[str] | str | None = None,
        interrupt_before: Sequence[str] | str | None = None,
        interrupt_after: Sequence[str] | str | None = None,
        asker: Asker | None = None,
    ) -> Loop:
        """A run that has not started: call `tick()` until it returns False. A run started inside
        another graph's task (a subgraph, or `invoke` called by a node) nests under that task: it
        inherits the parent's config and hooks, and its namespace names the task. `asker` answers
        the run's `interrupt()`s as they are asked (`interrupts.py`; nested runs do not inherit it)."""
        parent = current_task.get()
        ns: tuple[str, ...] = ()
        if parent is not None:
            ns = (*parent.loop.ns, f"{parent.task.name}:{parent.task.id}")
            config = {**parent.loop.config, **(config or {})}
            hooks = combine([parent.loop.hooks, hooks])
        else:
            hooks = combine([hooks, *watchers()])
        return Loop(
            self,
            input,
            config,
            hooks=hooks,
            ns=ns,
            output_keys=output_keys,
            interrupt_before=interrupt_before,
            interrupt_after=interrupt_after,
            persistence=self._persistence(config or {}, ns, parent),
            parent=parent,
            asker=asker,
        )

    def _persistence(self, config: dict[str, Any], ns: tuple[str, ...], parent: Any) -> Persistence | None:
        """Checkpointing for a run: the graph's saver, or (nested) the saver of the run around it."""
        if self.checkpointer is False:
            return None
        outer = parent.loop.persistence if parent is not None else None
        saver = outer.saver if outer is not None else self.checkpointer
        if not isinstance(saver, BaseCheckpointSaver):
            return None
        return Persistence(saver, config, ns, outer)

    def invoke(
        self,
        input: Any,
        config: dict[str, Any] | None = None,
        *,
        stream_mode: str = "values",
        output_keys: list[str] | str | None = None,
        interrupt_before: Sequence[str] | str | None = None,
        interrupt_after: Sequence[str] | str | None = None,
        hooks: Hooks | None = None,
        **kwargs: Any,
    ) -> Any:
        """Runs to the end and returns the output keys' values (None if no step ever wrote one)."""
        breakpoints = {"interrupt_before": interrupt_before, "interrupt_after": interrupt_after}
        if stream_mode != "values":
            return list(
                self.stream(input, config, stream_mode=stream_mode, hooks=hooks, output_keys=output_keys, **breakpoints)
            )
        loop = self.loop(input, config, hooks=hooks, output_keys=output_keys, **breakpoints)
        return _invoke_output(loop, loop.run())

    async def ainvoke(
        self,
        input: Any,
        config: dict[str, Any] | None = None,
        *,
        stream_mode: str = "values",
        output_keys: list[str] | str | None = None,
        interrupt_before: Sequence[str] | str | None = None,
        interrupt_after: Sequence[str] | str | None = None,
        hooks: Hooks | None = None,
        **kwargs: Any,
    ) -> Any:
        """`invoke` on the caller's event loop: `async def` nodes and routers are awaited, the tasks
        of a step run concurrently."""
        breakpoints = {"interrupt_before": interrupt_before, "interrupt_after": interrupt_after}
        if stream_mode != "values":
            stream = self.astream(
                input, config, stream_mode=stream_mode, hooks=hooks, output_keys=output_keys, **breakpoints
            )
            return [chunk async for chunk in stream]
        loop = self.loop(input, config, hooks=hooks, output_keys=output_keys, **breakpoints)
        return _invoke_output(loop, await loop.arun())

    def stream(
        self,
        input: Any,
        config: dict[str, Any] | None = None,
        *,
        stream_mode: str | Sequence[str] | None = None,
        subgraphs: bool = False,
        output_keys: list[str] | str | None = None,
        interrupt_before: Sequence[str] | str | None = None,
        interrupt_after: Sequence[str] | str | None = None,
        hooks: Hooks | None = None,
        **kwargs: Any,
    ) -> Iterator[Any]:
        collector, loop = self._streaming(
            input, config, stream_mode, subgraphs, output_keys, interrupt_before, interrupt_after, hooks
        )
        # LangGraph yields what is queued once the next step is planned and before it runs, so a
        # consumer that stops early has run no further, and sees values before nodes touch them.
        phases = (loop.start, loop.plan, loop.execute)
        phase = 0
        while True:
            try:
                more = phases[phase]() is not False
            except BaseException:
                yield from collector.drain()
                raise
            yield from collector.drain()
            if not more:
                return
            phase = 1 if phase != 1 else 2

    async def astream(
        self,
        input: Any,
        config: dict[str, Any] | None = None,
        *,
        stream_mode: str | Sequence[str] | None = None,
        subgraphs: bool = False,
        output_keys: list[str] | str | None = None,
        interrupt_before: Sequence[str] | str | None = None,
        interrupt_after: Sequence[str] | str | None = None,
        hooks: Hooks | None = None,
        **kwargs: Any,
    ) -> AsyncIterator[Any]:
        """`stream` on the caller's event loop (see `ainvoke`); the same chunks at the same points."""
        collector, loop = self._streaming(
            input, config, stream_mode, subgraphs, output_keys, interrupt_before, interrupt_after, hooks
        )
        phase = 0
        while True:
            try:
                if phase == 2:
                    more = await loop.aexecute()
                else:
                    more = (loop.start, loop.plan)[phase]() is not False
            except BaseException:
                for chunk in collector.drain():
                    yield chunk
                raise
            for chunk in collector.drain():
                yield chunk
            if not more:
                return
            phase = 1 if phase != 1 else 2

    def _streaming(
        self,
        input: Any,
        config: dict[str, Any] | None,
        stream_mode: Any,
        subgraphs: bool,
        output_keys: Any,
        interrupt_before: Any,
        interrupt_after: Any,
        hooks: Hooks | None,
    ) -> tuple[StreamCollector, Loop]:
        """A run whose hooks include a collector of stream chunks in the requested modes."""
        mode = stream_mode if stream_mode is not None else "updates"
        modes = [mode] if isinstance(mode, str) else list(mode)
        collector = StreamCollector(
            modes,
            single_mode=isinstance(mode, str),
            subgraphs=subgraphs,
            stream_keys=output_keys if isinstance(output_keys, list) else self.stream_keys,
        )
        loop = self.loop(
            input,
            config,
            hooks=combine([hooks, collector]),
            interrupt_before=interrupt_before,
            interrupt_after=interrupt_after,
        )
        return collector, loop

    # ---- checkpoints ---------------------------------------------------------------------------

    def get_state(self, config: dict[str, Any], *, subgraphs: bool = False) -> StateSnapshot:
        """The thread's latest state (live: finished tasks applied), or the checkpoint `config` names;
        `subgraphs=True` puts each subgraph task's own snapshot in its `state`."""
        return state_api.get_state(self, config, subgraphs)

    def get_state_history(
        self,
        config: dict[str, Any],
        *,
        filter: dict[str, Any] | None = None,
        before: dict[str, Any] | None = None,
        limit: int | None = None,
    ) -> Iterator[StateSnapshot]:
        """The thread's checkpoints as snapshots, newest first."""
        return state_api.get_state_history(self, config, filter=filter, before=before, limit=limit)

    def update_state(
        self, config: dict[str, Any], values: Any, as_node: str | None = None, task_id: str | None = None
    ) -> dict[str, Any]:
        """Saves `values` as if `as_node` had returned them, after the checkpoint `config` names."""
        return state_api.update_state(self, config, values, as_node, task_id)

    # ---- drawing -------------------------------------------------------------------------------

    def get_graph(self, config: Any = None, *, xray: int | bool = False) -> Any:
        return graph_of(self, xray=xray)
