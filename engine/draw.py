"""Drawing a compiled graph: LangGraph's `get_graph()` model and its Mermaid text.

`graph_of(compiled)` is LangGraph's `get_graph()`, and like it the graph is *discovered by simulation*,
not read off the builder: the control channels run superstep by superstep with empty input. Every
time a task runs it writes its static and waiting edges; the first time only, it also writes the
targets its routers declare (path_map or `Literal`) and its `Command[Literal[...]]`/`destinations`.
When a node then runs, an edge is drawn from every source that wrote one of its triggers. So, as in
LangGraph: a router declaring nothing adds no edge and what only it leads to floats unconnected; a
waiting edge looks like plain edges; a node that is a target but never a source gets a plain edge to
`__end__`, which is also the only way a static edge to `__end__` shows. `draw_mermaid()` is a port of
langchain-core's and returns the same text.

The debugger draws one moment of a run from this model with Graphviz (`debugger/drawing.py`); the
engine keeps only LangGraph's own drawing API.
"""

from __future__ import annotations

import dis
import inspect
import string
from collections import defaultdict
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Iterable

from .algo import RunState, Task, apply_writes
from .constants import END, PULL, START, branch_channel

if TYPE_CHECKING:
    from .compiled import CompiledStateGraph

SIMULATION_STEP_LIMIT = 250
"""LangGraph stops discovering edges after this many simulated supersteps (cycles of static edges)."""

Written = tuple[str, bool, "str | None"]
"""What a task wrote, as the simulation remembers it: (trigger channel, conditional, label)."""


@dataclass(frozen=True)
class DrawNode:
    id: str
    """Unique in its graph; `"<subgraph node>:<inner node>"` for nodes brought in by `xray`."""
    name: str
    """The node's own name, without an xray prefix."""
    data: Any = None
    """The node's action (function or compiled subgraph); None for `__start__` and `__end__`."""
    metadata: dict[str, Any] | None = None
    """The node's metadata plus `defer: True` and `__interrupt: "before"|"after"|"before,after"`."""


@dataclass(frozen=True)
class DrawEdge:
    source: str
    target: str
    data: str | None = None
    """The path_map key (or `destinations` label) when it differs from the target's name."""
    conditional: bool = False
    """Drawn dashed: a router's or a Command's choice, not a certainty."""


@dataclass
class DrawableGraph:
    """LangGraph's `Graph`: nodes in insertion order (`__end__` when first reached), and edges."""

    nodes: dict[str, DrawNode] = field(default_factory=dict)
    edges: list[DrawEdge] = field(default_factory=list)

    def first_node(self, exclude: Iterable[str] = ()) -> DrawNode | None:
        """The single node no edge leads to, or None when there are none or several."""
        targets = {e.target for e in self.edges if e.source not in exclude}
        found = [n for n in self.nodes.values() if n.id not in exclude and n.id not in targets]
        return found[0] if len(found) == 1 else None

    def last_node(self, exclude: Iterable[str] = ()) -> DrawNode | None:
        """The single node no edge leaves, or None when there are none or several."""
        sources = {e.source for e in self.edges if e.target not in exclude}
        found = [n for n in self.nodes.values() if n.id not in exclude and n.id not in sources]
        return found[0] if len(found) == 1 else None

    def to_dict(self) -> dict[str, list[dict[str, Any]]]:
        """Everything but node data, for a saved trace (JSON-ready when the metadata is)."""
        return {
            "nodes": [{"id": n.id, "name": n.name, "metadata": n.metadata} for n in self.nodes.values()],
            "edges": [
                {"source": e.source, "target": e.target, "data": e.data, "conditional": e.conditional}
                for e in self.edges
            ],
        }

    @classmethod
    def from_dict(cls, saved: dict[str, list[dict[str, Any]]]) -> "DrawableGraph":
        return cls(
            {n["id"]: DrawNode(n["id"], n["name"], None, n.get("metadata")) for n in saved["nodes"]},
            [DrawEdge(e["source"], e["target"], e.get("data"), e.get("conditional", False)) for e in saved["edges"]],
        )

    def draw_mermaid(
        self, *, with_styles: bool = True, curve_style: str = "linear", wrap_label_n_words: int = 9
    ) -> str:
        return draw_mermaid(
            self, with_styles=with_styles, curve_style=curve_style, wrap_label_n_words=wrap_label_n_words
        )

    def _add_edge_once(self, source: str, target: str, data: str | None = None, conditional: bool = False) -> None:
        """LangGraph's `draw_graph.add_edge`: one edge per (source, target); `__end__` added on first use."""
        if not any(e.source == source and e.target == target for e in self.edges):
            if target == END and END not in self.nodes:
                self.nodes[END] = DrawNode(END, END)
            self.edges.append(DrawEdge(source, target, data, conditional))

    def _trim_start_and_end(self) -> None:
        """A subgraph loses `__start__` (`__end__`) when it has one edge and a single node would replace it."""
        for find, end_of in ((self.first_node, "source"), (self.last_node, "target")):
            node = find()
            if node and find(exclude=[node.id]) and len({e for e in self.edges if getattr(e, end_of) == node.id}) == 1:
                self.nodes.pop(node.id)
                self.edges = [e for e in self.edges if node.id not in (e.source, e.target)]


# ---- get_graph(): discovery by simulation -------------------------------------------------------


def graph_of(compiled: CompiledStateGraph, *, xray: bool | int = False) -> DrawableGraph:
    """LangGraph's `get_graph(xray=...)`: `xray=True` inlines every level of subgraphs, an int that many."""
    return _graph_of(compiled, xray, inside=())


def _graph_of(compiled: CompiledStateGraph, xray: bool | int, inside: tuple[CompiledStateGraph, ...]) -> DrawableGraph:
    discovered, last_step_sources = _discover_edges(compiled)
    graph = DrawableGraph()
    for name, node in compiled.nodes.items():
        metadata = dict(node.metadata or {})
        if node.defer:
            metadata["defer"] = True
        before, after = name in compiled.interrupt_before_nodes, name in compiled.interrupt_after_nodes
        if before or after:
            metadata["__interrupt"] = ",".join(when for when, on in (("before", before), ("after", after)) if on)
        graph.nodes[name] = DrawNode(name, name, node.action, metadata or None)
    for source, target, conditional, label in sorted(discovered, key=_sort_key):
        graph._add_edge_once(source, target, label if label != target else None, conditional)
    termini = {t for _, t, _, _ in discovered if t != END} - {s for s, _, _, _ in discovered}
    for source in sorted(termini):
        graph._add_edge_once(source, END)
    if not termini and len(last_step_sources) == 1 and not any(t == END for _, t, _, _ in discovered):
        graph._add_edge_once(last_step_sources[0], END, conditional=True)
    if xray:
        deeper = xray if isinstance(xray, bool) or xray <= 0 else xray - 1
        for name, spec in compiled.builder.nodes.items():
            subgraph = _subgraph_of(spec.action, type(compiled))
            if subgraph is not None and subgraph not in (compiled, *inside):  # a graph naming itself: no recursion
                _inline_subgraph(graph, name, _graph_of(subgraph, deeper, (*inside, compiled)))
    return graph


def _discover_edges(compiled: CompiledStateGraph) -> tuple[set[tuple[str, str, bool, str | None]], list[str]]:
    """LangGraph's `draw_graph` loop on our channels: (source, target, conditional, label)s, last step's nodes."""
    walk = _EdgeWalk(compiled)
    state = RunState({key: channel.fresh() for key, channel in compiled.channels.items()})
    updated = apply_writes(state, [_task(START, (), [(START, {})])], compiled.trigger_to_nodes)
    tasks = _plan(compiled, state, updated, walk.triggers)
    step_sources: dict[str, set[Written]] = {}
    for _ in range(-1, SIMULATION_STEP_LIMIT):
        if not tasks:
            break
        step_sources = walk.run_step(tasks)
        tasks = _plan(compiled, state, apply_writes(state, tasks, compiled.trigger_to_nodes), walk.triggers)
        walk.link(tasks, step_sources)
    return walk.edges, list(step_sources)


class _EdgeWalk:
    """What `_discover_edges` carries from step to step: the edges found, and per node what it wrote
    when it last ran (minus the edges already drawn from it)."""

    def __init__(self, compiled: CompiledStateGraph) -> None:
        self.compiled = compiled
        self.declared = {name: _declared_targets(compiled, name) for name in compiled.nodes}
        self.triggers = {name: tuple(sorted(node.triggers)) for name, node in compiled.nodes.items()}
        self.edges: set[tuple[str, str, bool, str | None]] = set()
        self.sources: dict[str, set[Written]] = {}
        self.declared_writes: dict[str, set[Written]] = defaultdict(set)
        self.has_run: set[str] = set()

    def run_step(self, tasks: list) -> dict[str, set[Written]]:
        """Gives each task its static edge writes (and, on a node's first run, its declared targets);
        returns what each wrote, as (channel, conditional, label)s."""
        conditionals: dict[tuple[str, str], str | None] = {}  # (node, channel) -> label, for first runs only
        for task in tasks:
            task.writes = list(self.compiled.nodes[task.name].edge_writes)
            if task.name not in self.has_run:  # LangGraph writes declared targets only the first time a writer runs
                self.has_run.add(task.name)
                self._declare_first_run(task, conditionals)
        step_sources = {
            task.name: self.declared_writes[task.name]
            | {
                (
                    channel,
                    value is None and (task.name, channel) in conditionals,
                    conditionals.get((task.name, channel)) if value is None else None,
                )
                for channel, value in task.writes
            }
            for task in tasks
        }
        self.sources.update(step_sources)
        return step_sources

    def _declare_first_run(self, task: Any, conditionals: dict[tuple[str, str], str | None]) -> None:
        for channel, label in self.declared[task.name]:
            if channel == END:
                self.edges.add((task.name, END, True, label))
            else:
                conditionals[(task.name, channel)] = label
                self.declared_writes[task.name].add((channel, True, label))
                task.writes.append((channel, None))

    def link(self, tasks: list, step_sources: dict[str, set[Written]]) -> None:
        """An edge from every source whose write triggered a planned task; writes used up are dropped."""
        trigger_to_sources: dict[str, set[tuple[str, bool, str | None]]] = defaultdict(set)
        for source, written in self.sources.items():
            for trigger, conditional, label in written:
                trigger_to_sources[trigger].add((source, conditional, label))
        for task in tasks:
            from_this_step = False
            for trigger in task.triggers:
                for source, conditional, label in sorted(trigger_to_sources[trigger], key=_sort_key):
                    self.edges.add((source, task.name, conditional, label))
                    if (trigger, conditional, label) in step_sources.get(source, ()):
                        from_this_step = True
                    else:
                        self.sources[source].discard((trigger, conditional, label))
            if not from_this_step:  # triggered by older writes only (e.g. deferred): link the last step's nodes
                self.edges.update((source, task.name, True, None) for source in step_sources)


def _declared_targets(compiled: CompiledStateGraph, name: str) -> list[tuple[str, str | None]]:
    """(channel or END, label) a node declares: its Command destinations, then each router's path_map."""
    spec = compiled.builder.nodes.get(name)
    channel = lambda target: END if target == END else branch_channel(target)  # noqa: E731
    ends = spec.ends if spec else ()
    labels = ends if isinstance(ends, dict) else {}
    declared: list[tuple[str, str | None]] = [(channel(end), labels.get(end)) for end in ends]
    for branch in compiled.builder.branches.get(name, {}).values():
        declared += [(channel(target), str(key)) for key, target in (branch.path_map or {}).items()]
    return declared


def _plan(
    compiled: CompiledStateGraph, state: RunState, updated: set[str], triggers: dict[str, tuple[str, ...]]
) -> list[Task]:
    """The next tasks, like `algo.plan_tasks` but without building node input: the simulation runs on
    an empty state, where a dataclass or pydantic input schema would fail."""
    planned = []
    for name in sorted({n for channel in updated for n in compiled.trigger_to_nodes.get(channel, ())}):
        seen = state.versions_seen.get(name) or {}
        if any(state.channels[c].is_available() and state.versions.get(c, 0) > seen.get(c, 0) for c in triggers[name]):
            planned.append(_task(name, triggers[name], []))
    return planned


def _task(name: str, triggers: tuple[str, ...], writes: list[tuple[str, Any]]) -> Task:
    return Task(f"draw:{name}", name, (PULL, name), 0, triggers, {}, None, None, writes)


def _sort_key(edge: tuple[Any, ...]) -> tuple[Any, ...]:
    """Sorts like LangGraph's tuples, but a None label goes first instead of raising TypeError."""
    return (*edge[:-1], edge[-1] is not None, edge[-1] or "")


def _subgraph_of(action: Any, compiled_kind: type) -> CompiledStateGraph | None:
    """The graph a node runs: its action, or one its function loads by name (LangGraph's `find_subgraph_pregel`).
    `compiled_kind` is the class of the graph being drawn (passed in, so this module needs no import of
    `compiled.py`, which imports it for `get_graph`)."""
    candidates = [action]
    if inspect.isfunction(action) or inspect.ismethod(action):
        closure = inspect.getclosurevars(action)
        loaded = {i.argval for i in dis.get_instructions(action) if i.opname in ("LOAD_GLOBAL", "LOAD_DEREF")}
        candidates += [v for k, v in {**closure.globals, **closure.nonlocals}.items() if k in loaded]
    return next((c for c in candidates if isinstance(c, compiled_kind) and c.checkpointer is not False), None)


def _inline_subgraph(graph: DrawableGraph, name: str, subgraph: DrawableGraph) -> None:
    """xray: node `name` is replaced by the subgraph's nodes, ids prefixed `name:`, and edges rewired."""
    if len(subgraph.nodes) <= 1 or name not in graph.nodes or not subgraph.first_node() or not subgraph.last_node():
        return
    subgraph._trim_start_and_end()
    graph.nodes.pop(name)
    prefixed = lambda node_id: f"{name}:{node_id}"  # noqa: E731
    graph.nodes.update(
        {prefixed(k): DrawNode(prefixed(k), n.name, n.data, n.metadata) for k, n in subgraph.nodes.items()}
    )
    graph.edges.extend(DrawEdge(prefixed(e.source), prefixed(e.target), e.data, e.conditional) for e in subgraph.edges)
    first, last = subgraph.first_node(), subgraph.last_node()
    for index, edge in enumerate(graph.edges):
        if edge.source == name and last is not None:
            edge = DrawEdge(prefixed(last.id), edge.target, edge.data, edge.conditional)
        if edge.target == name and first is not None:
            edge = DrawEdge(edge.source, prefixed(first.id), edge.data, edge.conditional)
        graph.edges[index] = edge


# ---- Mermaid: langchain-core's draw_mermaid, text for text ----------------------------------------

_MERMAID_ID_CHARACTERS = frozenset(string.ascii_letters + string.digits + "_-")
_MARKDOWN_SPECIAL = tuple("*_`")
_MERMAID_ESCAPES = {
    "#": "#35;",
    "[": "#91;",
    "]": "#93;",
    "(": "#40;",
    ")": "#41;",
    "{": "#123;",
    "}": "#125;",
    '"': "#quot;",
    "<": "#60;",
    ">": "#62;",
    "|": "#124;",
}
_MERMAID_CLASS_DEFS = (
    "\tclassDef default fill:#f2f0ff,line-height:1.2\n\tclassDef first fill-opacity:0\n\tclassDef last fill:#bfb6fc\n"
)
DUPLICATE_SUBGRAPH = (
    "Found duplicate subgraph '{}' -- this likely means that you're reusing a subgraph node with the same "
    "name. Please adjust your graph to have subgraph nodes with unique names."
)


def mermaid_id(node_id: str) -> str:
    """Keeps `[A-Za-z0-9_-]`; any other character becomes `\\` and its hex code point (`:` -> `\\3a`)."""
    return "".join(ch if ch in _MERMAID_ID_CHARACTERS else f"\\{ord(ch):x}" for ch in node_id)


def _mermaid_metadata_lines(metadata: dict[str, Any]) -> list[str]:
    """`key = value` for scalar values and flat lists of them (sets sorted), label characters escaped."""
    scalar, lines = (str, int, float, bool), []
    for key, value in metadata.items():
        if isinstance(value, (list, tuple, set)) and all(isinstance(item, scalar) for item in value):
            value = ", ".join(sorted(map(str, value)) if isinstance(value, set) else map(str, value))
        if isinstance(value, scalar):
            lines.append("".join(_MERMAID_ESCAPES.get(ch, ch) for ch in f"{key} = {value}"))
    return lines


def draw_mermaid(
    graph: DrawableGraph, *, with_styles: bool = True, curve_style: str = "linear", wrap_label_n_words: int = 9
) -> str:
    """The Mermaid flowchart LangGraph's `get_graph().draw_mermaid()` prints for the same graph."""
    head = f"---\nconfig:\n  flowchart:\n    curve: {curve_style}\n---\ngraph TD;\n" if with_styles else "graph TD;\n"
    writer = _MermaidWriter(graph, with_styles, wrap_label_n_words, [head])
    if with_styles:
        writer.text += [writer.node_line(key, node) for key, node in graph.nodes.items() if ":" not in key]
    writer.add_subgraph(writer.edge_groups.get("", []), "")
    for prefix, edges in writer.edge_groups.items():
        if prefix and ":" not in prefix:
            writer.add_subgraph(edges, prefix)
            writer.seen.add(prefix)
    if with_styles:
        writer.add_nodes_only_subgraphs()
        writer.text.append(_MERMAID_CLASS_DEFS)
    return "".join(writer.text)


class _MermaidWriter:
    """`draw_mermaid`'s lines in LangGraph's order: nodes, then edges grouped by the subgraph they lie in."""

    def __init__(self, graph: DrawableGraph, with_styles: bool, wrap_label_n_words: int, text: list[str]) -> None:
        self.graph, self.with_styles, self.wrap_n, self.text = graph, with_styles, wrap_label_n_words, text
        self.first, self.last = graph.first_node(), graph.last_node()
        self.seen: set[str] = set()
        self.in_subgraph: dict[str, dict[str, DrawNode]] = {}  # deepest prefix -> its nodes
        for key, node in graph.nodes.items():
            if ":" in key:
                self.in_subgraph.setdefault(key.rsplit(":", 1)[0], {})[key] = node
        self.edge_groups: dict[str, list[DrawEdge]] = {}
        for edge in graph.edges:  # LangGraph's "common prefix" keeps every equal segment, even after a mismatch
            common = ":".join(s for s, t in zip(edge.source.split(":"), edge.target.split(":")) if s == t)
            self.edge_groups.setdefault(common, []).append(edge)

    def node_line(self, key: str, node: DrawNode) -> str:
        name = node.name.split(":")[-1]
        label = f"<p>{name}</p>" if name.startswith(_MARKDOWN_SPECIAL) and name.endswith(_MARKDOWN_SPECIAL) else name
        if lines := _mermaid_metadata_lines(node.metadata or {}):
            label += "<hr/><small><em>" + "\n".join(lines) + "</em></small>"
        first, last = self.first, self.last
        shape = (
            "([{}]):::last" if last and key == last.id else "([{}]):::first" if first and key == first.id else "({})"
        )
        return f"\t{mermaid_id(key)}{shape.format(label)}\n"

    def edge_line(self, edge: DrawEdge) -> str:
        arrow = " -.-> " if edge.conditional else " --> "
        if edge.data is not None:
            words, n = str(edge.data).split(), self.wrap_n
            label = (
                "&nbsp<br>&nbsp".join(" ".join(words[i : i + n]) for i in range(0, len(words), n))
                if len(words) > n
                else str(edge.data)
            )
            arrow = f" -. &nbsp;{label}&nbsp; .-> " if edge.conditional else f" -- &nbsp;{label}&nbsp; --> "
        return f"\t{mermaid_id(edge.source)}{arrow}{mermaid_id(edge.target)};\n"

    def add_subgraph(self, edges: list[DrawEdge], prefix: str) -> None:
        wrapped = bool(prefix) and not (len(edges) == 1 and edges[0].source == edges[0].target)
        if wrapped:
            name = prefix.rsplit(":", 1)[-1]
            if name in self.seen:
                raise ValueError(DUPLICATE_SUBGRAPH.format(name))
            self.seen.add(name)
            self.text.append(f"\tsubgraph {name}\n")
            if self.with_styles:
                self.text.extend(self.node_line(key, node) for key, node in self.in_subgraph.get(prefix, {}).items())
        self.text.extend(self.edge_line(edge) for edge in edges)
        for nested, nested_edges in self.edge_groups.items():
            if nested.startswith(prefix + ":") and ":" not in nested[len(prefix) + 1 :]:
                self.add_subgraph(nested_edges, nested)
        if wrapped:
            self.text.append("\tend\n")

    def add_nodes_only_subgraphs(self) -> None:
        """Top-level subgraphs no edge group drew: their nodes alone, as LangGraph lists them."""
        for prefix, nodes in self.in_subgraph.items():
            if ":" not in prefix and prefix not in self.seen:
                self.text += [f"\tsubgraph {prefix}\n", *(self.node_line(key, node) for key, node in nodes.items())]
                self.text.append("\tend\n")
                self.seen.add(prefix)
