"""Drawing a compiled graph: LangGraph's `get_graph()` model, its Mermaid text, and DOT for the debugger.

`graph_of(compiled)` is LangGraph's `get_graph()`, and like it the graph is *discovered by simulation*,
not read off the builder. The control channels are run superstep by superstep with empty input: each
task writes its static and waiting edges every time it runs, and the targets *declared* by its routers
(path_map or `Literal`) and by `Command[Literal[...]]`/`destinations` the first time only; an edge is
drawn from every source that wrote a trigger of a node that then runs. So, exactly as in LangGraph:
a router with no declared targets adds no edge, and nodes only it leads to float unconnected; a waiting
edge is drawn as plain edges; a node that is a target but never a source gets a plain edge to
`__end__`; a static edge to `__end__` is drawn only that way. `draw_mermaid()` is a port of
langchain-core's `draw_mermaid` and returns the same text.

`to_dot()` renders the same model as Graphviz DOT in LangGraph's visual conventions, with a `Highlight`
for one moment of a run. Highlights never change a node's label width (the marker sits in a fixed-size
cell), so the layout stays put while the cursor moves; each state has a marker as well as a colour.
"""

from __future__ import annotations

import dis
import inspect
import string
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Iterable

from .algo import RunState, Task, apply_writes
from .compiled import CompiledStateGraph
from .constants import END, PULL, START, branch_channel

SIMULATION_STEP_LIMIT = 250
"""LangGraph stops discovering edges after this many simulated supersteps (cyclic static edges)."""


@dataclass(frozen=True)
class DrawNode:
    id: str
    """Unique in its graph; `"<subgraph node>:<inner node>"` for nodes brought in by `xray`."""
    name: str
    """The node's own name (the last segment of an xray id)."""
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
    """Drawn dashed: the edge is a router's or a Command's choice, not a certainty."""


@dataclass
class DrawableGraph:
    """LangGraph's `Graph`: nodes in insertion order (`__end__` when first reached) and edges."""

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
        """JSON-ready (node data dropped), so a saved trace can be drawn without the engine."""
        return {
            "nodes": [{"id": n.id, "name": n.name, "metadata": n.metadata} for n in self.nodes.values()],
            "edges": [{"source": e.source, "target": e.target, "data": e.data, "conditional": e.conditional} for e in self.edges],
        }

    @classmethod
    def from_dict(cls, saved: dict[str, list[dict[str, Any]]]) -> "DrawableGraph":
        nodes = {n["id"]: DrawNode(n["id"], n["name"], None, n.get("metadata")) for n in saved["nodes"]}
        return cls(nodes, [DrawEdge(e["source"], e["target"], e.get("data"), e.get("conditional", False)) for e in saved["edges"]])

    def draw_mermaid(self, *, with_styles: bool = True, curve_style: str = "linear", wrap_label_n_words: int = 9) -> str:
        return draw_mermaid(self, with_styles=with_styles, curve_style=curve_style, wrap_label_n_words=wrap_label_n_words)

    def to_dot(self, *, highlight: "Highlight | None" = None) -> str:
        return to_dot(self, highlight=highlight)

    def _add_edge_once(self, source: str, target: str, data: str | None = None, conditional: bool = False) -> None:
        """LangGraph's `draw_graph.add_edge`: one edge per (source, target), `__end__` added on first use."""
        if any(e.source == source and e.target == target for e in self.edges):
            return
        if target == END and END not in self.nodes:
            self.nodes[END] = DrawNode(END, END)
        self.edges.append(DrawEdge(source, target, data, conditional))

    def _remove_node(self, node_id: str) -> None:
        self.nodes.pop(node_id)
        self.edges = [e for e in self.edges if node_id not in (e.source, e.target)]

    def _trim_start_and_end(self) -> None:
        """Drop `__start__`/`__end__` of a subgraph when it has one edge and a single node stands in."""
        first = self.first_node()
        if first and self.first_node(exclude=[first.id]) and len({e for e in self.edges if e.source == first.id}) == 1:
            self._remove_node(first.id)
        last = self.last_node()
        if last and self.last_node(exclude=[last.id]) and len({e for e in self.edges if e.target == last.id}) == 1:
            self._remove_node(last.id)


# ---- get_graph(): discovery by simulation -------------------------------------------------------

def graph_of(compiled: CompiledStateGraph, *, xray: bool | int = False, _inside: tuple[Any, ...] = ()) -> DrawableGraph:
    """LangGraph's `get_graph(xray=...)`: `xray=True` inlines every subgraph level, an int that many."""
    discovered, last_step_sources, deferred = _discover_edges(compiled)
    graph = DrawableGraph()
    for name, node in compiled.nodes.items():
        metadata = dict(node.metadata or {})
        if name in deferred:
            metadata["defer"] = True
        before, after = name in compiled.interrupt_before_nodes, name in compiled.interrupt_after_nodes
        if before or after:
            metadata["__interrupt"] = ",".join(w for w, on in (("before", before), ("after", after)) if on)
        graph.nodes[name] = DrawNode(name, name, node.action, metadata or None)
    for source, target, conditional, label in sorted(discovered, key=_edge_sort_key):
        graph._add_edge_once(source, target, label if label != target else None, conditional)
    termini = {t for _, t, _, _ in discovered if t != END} - {s for s, _, _, _ in discovered}
    if termini:
        for source in sorted(termini):
            graph._add_edge_once(source, END)
    elif len(last_step_sources) == 1 and not any(t == END for _, t, _, _ in discovered):
        graph._add_edge_once(next(iter(last_step_sources)), END, conditional=True)
    if xray:
        deeper = xray if isinstance(xray, bool) or xray <= 0 else xray - 1
        for name, spec in compiled.builder.nodes.items():
            subgraph = _subgraph_of(spec.action)
            if subgraph is not None and subgraph not in (compiled, *_inside):  # a graph naming itself: no recursion
                _inline_subgraph(graph, name, graph_of(subgraph, xray=deeper, _inside=(*_inside, compiled)))
    return graph


def _discover_edges(compiled: CompiledStateGraph) -> tuple[set[tuple[str, str, bool, str | None]], set[str], set[str]]:
    """LangGraph's `draw_graph` loop over our channels: the edges, the last step's tasks, the deferred nodes."""
    builder = compiled.builder
    declared = {name: _declared_targets(compiled, name) for name in compiled.nodes}
    triggers = {name: tuple(sorted(node.triggers)) for name, node in compiled.nodes.items()}
    state = RunState({key: channel.fresh() for key, channel in compiled.channels.items()})
    updated = apply_writes(state, [_task(START, -1, (), [(START, {})])], compiled.trigger_to_nodes)
    edges: set[tuple[str, str, bool, str | None]] = set()  # (source, target, conditional, label)
    sources: dict[str, set[tuple[str, bool, str | None]]] = {}
    step_sources: dict[str, set[tuple[str, bool, str | None]]] = {}
    declared_writes: dict[str, set[tuple[str, bool, str | None]]] = defaultdict(set)
    already_declared: set[str] = set()
    tasks = _plan(compiled, state, updated, triggers, -1)
    for step in range(-1, SIMULATION_STEP_LIMIT):
        if not tasks:
            break
        conditionals: dict[tuple[str, str], str | None] = {}
        for task in tasks:
            task.writes = list(compiled.nodes[task.name].edge_writes)
            if task.name not in already_declared:  # LangGraph sends declared writes once per writer
                already_declared.add(task.name)
                for channel, label in declared[task.name]:
                    if channel == END:
                        edges.add((task.name, END, True, label))
                        continue
                    conditionals[(task.name, channel)] = label
                    declared_writes[task.name].add((channel, True, label))
                    task.writes.append((channel, None))
        step_sources = {}
        for task in tasks:
            step_sources[task.name] = {
                (channel, value is None and (task.name, channel) in conditionals,
                 conditionals.get((task.name, channel)) if value is None else None)
                for channel, value in task.writes
            } | declared_writes.get(task.name, set())
        sources.update(step_sources)
        trigger_to_sources: dict[str, set[tuple[str, bool, str | None]]] = defaultdict(set)
        for source, written in sources.items():
            for trigger, conditional, label in written:
                trigger_to_sources[trigger].add((source, conditional, label))
        updated = apply_writes(state, tasks, compiled.trigger_to_nodes)
        tasks = _plan(compiled, state, updated, triggers, step + 1)
        for task in tasks:
            from_this_step = False
            for trigger in task.triggers:
                for source, conditional, label in sorted(trigger_to_sources[trigger], key=_edge_sort_key):
                    edges.add((source, task.name, conditional, label))
                    if (trigger, conditional, label) in step_sources.get(source, ()):
                        from_this_step = True
                    else:
                        sources[source].discard((trigger, conditional, label))
            if not from_this_step:
                edges.update((source, task.name, True, None) for source in step_sources)
    deferred = {name for name, spec in builder.nodes.items() if spec.defer}
    return edges, set(step_sources), deferred


def _declared_targets(compiled: CompiledStateGraph, name: str) -> list[tuple[str, str | None]]:
    """(channel or END, label) a node's writers declare: Command destinations, then each router's path_map."""
    spec = compiled.builder.nodes.get(name)
    channel = lambda target: END if target == END else branch_channel(target)  # noqa: E731
    declared: list[tuple[str, str | None]] = [(channel(end), None) for end in (spec.ends if spec else ())]
    for branch in compiled.builder.branches.get(name, {}).values():
        declared += [(channel(target), str(key)) for key, target in (branch.path_map or {}).items()]
    return declared


def _plan(compiled: CompiledStateGraph, state: RunState, updated: set[str], triggers: dict[str, tuple[str, ...]], step: int) -> list[Task]:
    """The next tasks. Like LangGraph's planner, a task lists *all* its node's triggers, sorted."""
    candidates = sorted({n for channel in updated for n in compiled.trigger_to_nodes.get(channel, ())})
    planned = []
    for name in candidates:
        seen = state.versions_seen.get(name) or {}
        if any(state.channels[c].is_available() and state.versions.get(c, 0) > seen.get(c, 0) for c in triggers[name]):
            planned.append(_task(name, step, triggers[name], []))
    return planned


def _task(name: str, step: int, triggers: tuple[str, ...], writes: list[tuple[str, Any]]) -> Task:
    return Task(f"draw:{step}:{name}", name, (PULL, name), step, triggers, {}, None, None, writes)


def _edge_sort_key(edge: tuple[Any, ...]) -> tuple[Any, ...]:
    """Sorts like LangGraph's tuples, but a None label goes first instead of raising TypeError."""
    return (*edge[:-1], edge[-1] is not None, edge[-1] or "")


def _subgraph_of(action: Any) -> CompiledStateGraph | None:
    """The graph a node runs: its action, or one a node function names (LangGraph's `find_subgraph_pregel`)."""
    candidates = [action]
    if inspect.isfunction(action) or inspect.ismethod(action):
        closure = inspect.getclosurevars(action)
        loaded = {i.argval for i in dis.get_instructions(action) if i.opname in ("LOAD_GLOBAL", "LOAD_DEREF")}
        candidates += [v for k, v in {**closure.globals, **closure.nonlocals}.items() if k in loaded]
    for candidate in candidates:
        if isinstance(candidate, CompiledStateGraph) and candidate.checkpointer is not False:
            return candidate
    return None


def _inline_subgraph(graph: DrawableGraph, name: str, subgraph: DrawableGraph) -> None:
    """xray: replace node `name` with the subgraph's nodes, ids prefixed `name:`, edges rewired."""
    if len(subgraph.nodes) <= 1 or name not in graph.nodes or not subgraph.first_node() or not subgraph.last_node():
        return
    subgraph._trim_start_and_end()
    graph.nodes.pop(name)
    prefixed = lambda node_id: f"{name}:{node_id}"  # noqa: E731
    graph.nodes.update({prefixed(k): DrawNode(prefixed(k), n.name, n.data, n.metadata) for k, n in subgraph.nodes.items()})
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
_MERMAID_LABEL_ESCAPES = {"[": "#91;", "]": "#93;", "(": "#40;", ")": "#41;", "{": "#123;", "}": "#125;",
                          '"': "#quot;", "<": "#60;", ">": "#62;", "|": "#124;"}
_MERMAID_CLASS_DEFS = (("default", "fill:#f2f0ff,line-height:1.2"), ("first", "fill-opacity:0"), ("last", "fill:#bfb6fc"))


def mermaid_id(node_id: str) -> str:
    """Keeps `[A-Za-z0-9_-]`; any other character becomes `\\` plus its hex code point (`:` -> `\\3a`)."""
    return "".join(ch if ch in _MERMAID_ID_CHARACTERS else f"\\{ord(ch):x}" for ch in node_id)


def _mermaid_metadata_lines(metadata: dict[str, Any]) -> list[str]:
    scalars = (str, int, float, bool)
    lines = []
    for key, value in metadata.items():
        if isinstance(value, scalars):
            text = str(value)
        elif isinstance(value, (list, tuple, set)) and all(isinstance(item, scalars) for item in value):
            items = [str(item) for item in value]
            text = ", ".join(sorted(items) if isinstance(value, set) else items)
        else:
            continue
        line = f"{key} = {text}".replace("#", "#35;")
        for char, entity in _MERMAID_LABEL_ESCAPES.items():
            line = line.replace(char, entity)
        lines.append(line)
    return lines


def draw_mermaid(graph: DrawableGraph, *, with_styles: bool = True, curve_style: str = "linear", wrap_label_n_words: int = 9) -> str:
    """The Mermaid flowchart LangGraph's `get_graph().draw_mermaid()` prints for the same graph."""
    first, last = graph.first_node(), graph.last_node()
    text = [f"---\nconfig:\n  flowchart:\n    curve: {curve_style}\n---\ngraph TD;\n" if with_styles else "graph TD;\n"]
    by_prefix: dict[str, dict[str, DrawNode]] = {}
    top_level: dict[str, DrawNode] = {}
    for key, node in graph.nodes.items():
        (by_prefix.setdefault(key.rsplit(":", 1)[0], {}) if ":" in key else top_level)[key] = node

    def render_node(key: str, node: DrawNode) -> str:
        name = node.name.split(":")[-1]
        label = f"<p>{name}</p>" if name.startswith(_MARKDOWN_SPECIAL) and name.endswith(_MARKDOWN_SPECIAL) else name
        if lines := _mermaid_metadata_lines(node.metadata or {}):
            label += "<hr/><small><em>" + "\n".join(lines) + "</em></small>"
        shape = "([{1}]):::last" if last and key == last.id else "([{1}]):::first" if first and key == first.id else "({1})"
        return "\t" + ("{0}" + shape).format(mermaid_id(key), label) + "\n"

    if with_styles:
        text += [render_node(key, node) for key, node in top_level.items()]
    edge_groups: dict[str, list[DrawEdge]] = {}
    for edge in graph.edges:  # LangGraph's "common prefix" keeps every equal segment, even past a mismatch
        common = ":".join(s for s, t in zip(edge.source.split(":"), edge.target.split(":")) if s == t)
        edge_groups.setdefault(common, []).append(edge)
    seen_subgraphs: set[str] = set()

    def render_edge(edge: DrawEdge) -> str:
        if edge.data is None:
            arrow = " -.-> " if edge.conditional else " --> "
        else:
            words = str(edge.data).split()
            label = str(edge.data)
            if len(words) > wrap_label_n_words:
                label = "&nbsp<br>&nbsp".join(" ".join(words[i:i + wrap_label_n_words]) for i in range(0, len(words), wrap_label_n_words))
            arrow = f" -. &nbsp;{label}&nbsp; .-> " if edge.conditional else f" -- &nbsp;{label}&nbsp; --> "
        return f"\t{mermaid_id(edge.source)}{arrow}{mermaid_id(edge.target)};\n"

    def add_subgraph(edges: list[DrawEdge], prefix: str) -> None:
        self_loop = len(edges) == 1 and edges[0].source == edges[0].target
        if prefix and not self_loop:
            name = prefix.rsplit(":", 1)[-1]
            if name in seen_subgraphs:
                raise ValueError(
                    f"Found duplicate subgraph '{name}' -- this likely means that you're reusing a subgraph node "
                    "with the same name. Please adjust your graph to have subgraph nodes with unique names."
                )
            seen_subgraphs.add(name)
            text.append(f"\tsubgraph {name}\n")
            if with_styles:
                text.extend(render_node(key, node) for key, node in by_prefix.get(prefix, {}).items())
        text.extend(render_edge(edge) for edge in edges)
        for nested, nested_edges in edge_groups.items():
            if nested.startswith(prefix + ":") and nested != prefix and ":" not in nested[len(prefix) + 1:]:
                add_subgraph(nested_edges, nested)
        if prefix and not self_loop:
            text.append("\tend\n")

    add_subgraph(edge_groups.get("", []), "")
    for prefix, edges in edge_groups.items():
        if prefix and ":" not in prefix:
            add_subgraph(edges, prefix)
            seen_subgraphs.add(prefix)
    if with_styles:
        for prefix, nodes in by_prefix.items():
            if ":" not in prefix and prefix not in seen_subgraphs:
                text.append(f"\tsubgraph {prefix}\n")
                text.extend(render_node(key, node) for key, node in nodes.items())
                text.append("\tend\n")
                seen_subgraphs.add(prefix)
        text += [f"\tclassDef {name} {style}\n" for name, style in _MERMAID_CLASS_DEFS]
    return "".join(text)


# ---- DOT for the debugger ----------------------------------------------------------------------

@dataclass
class Highlight:
    """One moment of a run: node ids per state, and the (source, target) edges just followed.

    Each state has a marker as well as a colour: failed ✖ red, ran ▶ gold + bold border, next ▷ dashed
    bold border, visited ✓ tinted fill. The marker shown is the first of failed > ran > next > visited;
    the `next` border and `visited` tint combine with the others. Taken edges are bold and thicker.
    """

    ran: set[str] = field(default_factory=set)
    next: set[str] = field(default_factory=set)
    visited: set[str] = field(default_factory=set)
    failed: set[str] = field(default_factory=set)
    edges_taken: set[tuple[str, str]] = field(default_factory=set)

    def state_of(self, node_id: str) -> str:
        """`failed`, `ran`, `next`, `visited` or `idle`: the node's SVG class and marker."""
        return next((s for s in ("failed", "ran", "next", "visited") if node_id in getattr(self, s)), "idle")


_MARKERS = {"failed": "✖", "ran": "▶", "next": "▷", "visited": "✓", "idle": ""}
_FONT = "Helvetica,Arial,sans-serif"
_DOT_PREAMBLE = (
    f'\tgraph [rankdir=TB, fontname="{_FONT}", fontsize=12];\n'
    f'\tnode [shape=box, style="rounded,filled", fillcolor="#f2f0ff", color="#444444", fontname="{_FONT}", fontsize=14];\n'
    f'\tedge [color="#555555", fontname="{_FONT}", fontsize=11, arrowsize=0.8];\n'
)


def dot_node_id(node_id: str) -> str:
    """`node_<id>`, the SVG id: `[A-Za-z0-9_]` kept, any other character `-<hex>-` (`:` -> `-3a-`)."""
    return "node_" + "".join(ch if ch.isascii() and (ch.isalnum() or ch == "_") else f"-{ord(ch):x}-" for ch in node_id)


def _quoted(text: str) -> str:
    """A DOT double-quoted string; backslashes doubled so label escapes like `\\N` stay literal."""
    return '"' + str(text).replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def _html(text: str) -> str:
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;").replace("\n", "<br/>")


def _node_label(name: str, metadata: dict[str, Any] | None, marker: str) -> str:
    """The marker sits in a fixed-size cell, balanced by an empty one: the label's size never changes."""
    cell = '<td fixedsize="true" width="18" height="18">{}</td>'
    notes = "".join(f'<tr><td colspan="3"><font point-size="10">{_html(f"{k} = {v}")}</font></td></tr>' for k, v in (metadata or {}).items())
    return (f'<<table border="0" cellborder="0" cellspacing="0" cellpadding="0"><tr>{cell.format(_html(marker))}'
            f"<td>{_html(name)}</td>{cell.format('')}</tr>{notes}</table>>")


def _node_statement(node: DrawNode, highlight: Highlight) -> str:
    state = highlight.state_of(node.id)
    attrs = {"id": _quoted(dot_node_id(node.id)), "class": _quoted(f"stepscope-node {state}"), "tooltip": _quoted(node.id),
             "label": _node_label(node.name.split(":")[-1], node.metadata, _MARKERS[state])}
    style = ["rounded", "filled"]
    if node.id in (START, END):  # LangGraph's stadiums: START unfilled, END filled and (here) doubled
        attrs.update(shape="oval", fillcolor='"white"' if node.id == START else '"#bfb6fc"')
        attrs.update({"peripheries": "2"} if node.id == END else {})
    if node.id in highlight.visited:
        attrs["fillcolor"] = '"#d6ecff"'
    if node.id in highlight.next:
        style += ["dashed", "bold"]
        attrs["penwidth"] = "2.5"
    if state in ("ran", "failed"):
        style.append("bold")
        attrs.update(penwidth="3", fillcolor='"#ffd45e"' if state == "ran" else '"#ffd6d6"')
        attrs.update({"color": '"#cc0000"', "fontcolor": '"#990000"'} if state == "failed" else {})
    attrs["style"] = _quoted(",".join(dict.fromkeys(style)))
    return f"{_quoted(node.id)} [{', '.join(f'{k}={v}' for k, v in attrs.items())}];\n"


def _edge_statement(edge: DrawEdge, edge_id: str, highlight: Highlight) -> str:
    taken = (edge.source, edge.target) in highlight.edges_taken
    attrs = {"id": _quoted(edge_id), "class": _quoted("stepscope-edge " + ("taken" if taken else "idle"))}
    style = (["dashed"] if edge.conditional else []) + (["bold"] if taken else [])
    if style:
        attrs["style"] = _quoted(",".join(style))
    if taken:
        attrs.update(penwidth="3", color='"#b36b00"')
    if edge.data is not None:
        attrs["label"] = f"<&nbsp;{_html(edge.data)}&nbsp;>"
    return f"\t{_quoted(edge.source)} -> {_quoted(edge.target)} [{', '.join(f'{k}={v}' for k, v in attrs.items())}];\n"


def to_dot(drawable: DrawableGraph | CompiledStateGraph, *, highlight: Highlight | None = None, xray: bool | int = False) -> str:
    """Graphviz DOT in LangGraph's conventions: START and END stadiums, conditional edges dashed, xray
    subgraphs as nested `cluster_` clusters, `id=node_<id>` / `id=edge_<src>-to-<dst>` for selectors.

    `xray` applies when given a compiled graph. A highlight restyles nodes and edges, never resizes them.
    """
    graph = graph_of(drawable, xray=xray) if isinstance(drawable, CompiledStateGraph) else drawable
    highlight = highlight or Highlight()
    lines = ["digraph stepscope {\n", _DOT_PREAMBLE]
    members: dict[str, list[DrawNode]] = {}
    for node in graph.nodes.values():
        if ":" in node.id:
            members.setdefault(node.id.rsplit(":", 1)[0], []).append(node)
        else:
            lines.append("\t" + _node_statement(node, highlight))
    prefixes = sorted({prefix.rsplit(":", depth)[0] for prefix in members for depth in range(prefix.count(":") + 1)})

    def add_cluster(prefix: str, indent: str) -> None:
        lines.append(f"{indent}subgraph {_quoted('cluster_' + prefix)} {{\n{indent}\tid={_quoted('cluster_' + dot_node_id(prefix)[5:])}; "
                     f'label=<{_html(prefix.rsplit(":", 1)[-1])}>; style="rounded,dashed"; color="gray50"; fontcolor="gray30";\n')
        lines.extend(f"{indent}\t{_node_statement(node, highlight)}" for node in members.get(prefix, ()))
        for child in prefixes:
            if child.rsplit(":", 1)[0] == prefix and child != prefix:
                add_cluster(child, indent + "\t")
        lines.append(f"{indent}}}\n")

    for prefix in prefixes:
        if ":" not in prefix:
            add_cluster(prefix, "\t")
    seen: dict[str, int] = {}
    for edge in graph.edges:
        edge_id = f"edge_{dot_node_id(edge.source)[5:]}-to-{dot_node_id(edge.target)[5:]}"
        seen[edge_id] = seen.get(edge_id, 0) + 1
        lines.append(_edge_statement(edge, edge_id if seen[edge_id] == 1 else f"{edge_id}-{seen[edge_id]}", highlight))
    return "".join(lines) + "}\n"
