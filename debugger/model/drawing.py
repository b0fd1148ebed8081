"""The step drawing: a recorded graph (`engine.draw.DrawableGraph`) with one moment of a run
highlighted, written as DOT by `dot_text.DotGraph`: every text from the run (ids, names, notes, labels,
tooltips) is quoted and escaped there, so none of it becomes an attribute, a link or markup.

The engine only knows LangGraph's own drawing API (`get_graph()`, `draw_mermaid()`); what a step
looks like (which nodes ran, which run next, which failed, which edges were just followed) is the
debugger's business and lives here.

Every node gets a DOT id that needs no quoting (`node_<name>`, see `dot_node_id`), an SVG `id` equal
to it and a class `stepscope-node <state>`; every edge `id=edge_<src>-to-<dst>` and a class
`stepscope-edge taken|idle`. The browser tests and the page's own script select on them.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from debugger.model.dot_text import DotGraph, Markup, html_text
from engine import END, START
from engine.draw import DrawableGraph, DrawNode, graph_of


@dataclass
class Highlight:
    """One moment of a run: node ids per state, and the (source, target) edges just followed.

    Each state has a marker besides its colour: failed ✖ red, paused ⏸ amber (its `interrupt()` asked
    for an answer: nothing went wrong), stopped ⏹ grey (a stored run stopped before the task finished),
    ran ▶ gold and bold, next ▷ dashed bold border, visited ✓ tinted (the Live run page's stepper draws a
    task running now ⏳ itself: `live_stepper.py`). A node in several sets gets every style (the later in
    that list winning) and the marker of the first. Taken edges are bold and thicker.
    """

    ran: set[str] = field(default_factory=set)
    next: set[str] = field(default_factory=set)
    visited: set[str] = field(default_factory=set)
    failed: set[str] = field(default_factory=set)
    edges_taken: set[tuple[str, str]] = field(default_factory=set)
    labels: dict[str, str] = field(default_factory=dict)
    """Extra text under a node's name (e.g. the Sends it ran: `[0] {"subject": "owls"}`)."""
    stopped: set[str] = field(default_factory=set)
    """Nodes whose task never finished because the run stopped (cut off, cancelled, timed out): ⏹, grey."""
    paused: set[str] = field(default_factory=set)
    """Nodes whose task called `interrupt()` and waits for (or stopped the run for) an answer: ⏸, amber."""

    def state_of(self, node_id: str) -> str:
        """`failed`, `paused`, `stopped`, `ran`, `next`, `visited` or `idle`: the node's marker and
        SVG class."""
        return next(
            (s for s in _PRECEDENCE if node_id in getattr(self, s)),
            "idle",
        )


_NODE_STATES = {  # state -> (marker, attributes, style words); applied in reverse order of precedence
    "visited": ("✓", {"fillcolor": "#d6ecff"}, ["rounded", "filled"]),
    "next": ("▷", {"penwidth": "2.5"}, ["dashed", "bold"]),
    "ran": ("▶", {"fillcolor": "#ffd45e", "penwidth": "3"}, ["bold"]),
    "stopped": ("⏹", {"fillcolor": "#e4e4e4", "color": "#555555", "penwidth": "2.5"}, ["dashed", "bold"]),
    "paused": ("⏸", {"fillcolor": "#ffefbf", "color": "#b07d00", "fontcolor": "#6b4d00", "penwidth": "3"}, ["bold"]),
    "failed": ("✖", {"fillcolor": "#ffd6d6", "color": "#cc0000", "fontcolor": "#990000", "penwidth": "3"}, ["bold"]),
}
_PRECEDENCE = ("failed", "paused", "stopped", "ran", "next", "visited")
_TERMINALS = {
    START: {"shape": "oval", "fillcolor": "white"},
    END: {"shape": "oval", "fillcolor": "#bfb6fc", "peripheries": "2"},
}
_FONT = "Helvetica,Arial,sans-serif"


def dot_node_id(node_id: str) -> str:
    """`node_<id>`, the DOT and SVG id: `[A-Za-z0-9_]` kept, any other character `-<hex>-` (`:` -> `-3a-`)."""
    return "node_" + "".join(ch if ch.isascii() and (ch.isalnum() or ch == "_") else f"-{ord(ch):x}-" for ch in node_id)


def _node_attributes(node: DrawNode, highlight: Highlight) -> dict[str, str]:
    """A node whose marker sits in a fixed-size cell (balanced by an empty one), so its size never changes."""
    state, style = highlight.state_of(node.id), ["rounded", "filled"]
    attributes = {
        "id": dot_node_id(node.id),
        "class": f"stepscope-node {state}",
        "tooltip": node.id,
        **_TERMINALS.get(node.id, {}),
    }
    for name, (_, extra, words) in _NODE_STATES.items():
        if node.id in getattr(highlight, name):
            attributes.update(extra)
            style += words
    attributes["style"] = ",".join(dict.fromkeys(style))
    cell = '<td fixedsize="true" width="18" height="18">{}</td>'
    marker = _NODE_STATES[state][0] if state != "idle" else ""
    notes = [f"{k} = {v}" for k, v in (node.metadata or {}).items()]
    if node.id in highlight.labels:
        notes.append(highlight.labels[node.id])
    rows = "".join(f'<tr><td colspan="3"><font point-size="10">{html_text(note)}</font></td></tr>' for note in notes)
    attributes["label"] = Markup(
        f'<table border="0" cellborder="0" cellspacing="0" cellpadding="0"><tr>{cell.format(marker)}'
        f"<td>{html_text(node.name.split(':')[-1])}</td>{cell.format('')}</tr>{rows}</table>"
    )
    return attributes


def digraph(drawable: DrawableGraph | Any, *, highlight: Highlight | None = None, xray: bool | int = False) -> DotGraph:
    """The drawing as a `DotGraph`, in LangGraph's conventions: START and END as stadiums (END
    doubled), conditional edges dashed, xray subgraphs as nested `cluster_` clusters (collapsible in the
    page). `xray` applies when given a compiled graph. A highlight restyles nodes and edges, never resizes them."""
    graph = drawable if isinstance(drawable, DrawableGraph) else graph_of(drawable, xray=xray)
    highlight = highlight or Highlight()
    dot = DotGraph("stepscope")
    dot.attr("graph", rankdir="TB", fontname=_FONT, fontsize="12")
    dot.attr(
        "node", shape="box", style="rounded,filled", fillcolor="#f2f0ff", color="#444444", fontname=_FONT, fontsize="14"
    )
    dot.attr("edge", color="#555555", fontname=_FONT, fontsize="11", arrowsize="0.8")
    members: dict[str, list[DrawNode]] = {}
    for node in graph.nodes.values():
        if ":" in node.id:
            members.setdefault(node.id.rsplit(":", 1)[0], []).append(node)
        else:
            dot.node(dot_node_id(node.id), **_node_attributes(node, highlight))
    prefixes = sorted({prefix.rsplit(":", depth)[0] for prefix in members for depth in range(prefix.count(":") + 1)})
    for prefix in prefixes:
        if ":" not in prefix:
            _add_cluster(dot, prefix, prefixes, members, highlight)
    _add_edges(dot, graph, highlight)
    return dot


def _add_cluster(
    parent: DotGraph, prefix: str, prefixes: list[str], members: dict[str, list[DrawNode]], highlight: Highlight
) -> None:
    """The subgraph at `prefix` as a cluster of its nodes, with its own subgraphs nested in it."""
    name = "cluster_" + dot_node_id(prefix)[5:]
    with parent.subgraph(name=name) as cluster:
        cluster.attr(
            id=name,
            label=Markup(html_text(prefix.rsplit(":", 1)[-1])),
            style="rounded,dashed",
            color="gray50",
            fontcolor="gray30",
            labeljust="l",
        )
        for node in members.get(prefix, ()):
            cluster.node(dot_node_id(node.id), **_node_attributes(node, highlight))
        for child in prefixes:
            if child.startswith(prefix + ":") and ":" not in child[len(prefix) + 1 :]:
                _add_cluster(cluster, child, prefixes, members, highlight)


def _add_edges(dot: DotGraph, graph: DrawableGraph, highlight: Highlight) -> None:
    """Every edge, dashed when conditional, bold where the run took it; ids unique (`-2` on a repeat)."""
    id_counts: dict[str, int] = {}
    for edge in graph.edges:
        taken = (edge.source, edge.target) in highlight.edges_taken
        edge_id = f"edge_{dot_node_id(edge.source)[5:]}-to-{dot_node_id(edge.target)[5:]}"
        id_counts[edge_id] = id_counts.get(edge_id, 0) + 1
        attributes = {
            "id": edge_id + (f"-{id_counts[edge_id]}" if id_counts[edge_id] > 1 else ""),
            "class": "stepscope-edge " + ("taken" if taken else "idle"),
        }
        if style := ",".join((["dashed"] if edge.conditional else []) + (["bold"] if taken else [])):
            attributes["style"] = style
        if taken:
            attributes.update(penwidth="3", color="#b36b00")
        if edge.data is not None:
            attributes["label"] = Markup(f"&nbsp;{html_text(edge.data)}&nbsp;")
        dot.edge(dot_node_id(edge.source), dot_node_id(edge.target), **attributes)


def to_dot(drawable: DrawableGraph | Any, *, highlight: Highlight | None = None, xray: bool | int = False) -> str:
    """The DOT text of `digraph`."""
    return digraph(drawable, highlight=highlight, xray=xray).source
