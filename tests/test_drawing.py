"""debugger.model.drawing: the step drawing, written by `dot_text.DotGraph`, checked with Debian's `dot`.

The drawings come from tests/test_draw.py's graph catalogue (`ours(name)`: the engine's `get_graph()`
of each graph there); the highlight is what the debugger adds.
"""

from __future__ import annotations

import os
import shutil
import subprocess

import pytest
from test_draw import ENGINE, GRAPHS, UNUSUAL, compiled, ours

from debugger.model.drawing import Highlight, dot_node_id, to_dot
from engine.draw import graph_of


def node_line(text: str, name: str) -> str:
    """The statement of node `name` (the library quotes an id only where DOT needs it)."""
    return next(line for line in text.splitlines() if line.strip().removeprefix('"').startswith(f"{dot_node_id(name)}"))


# ---- DOT -------------------------------------------------------------------------------------


def run_dot(text: str, output_format: str = "svg") -> str:
    """`dot -T<format>` on `text`; skips without `dot`, except under CI where that is a failure."""
    if shutil.which("dot") is None:
        if os.environ.get("CI"):
            pytest.fail("`dot` (Debian package graphviz) is missing on CI: DOT output cannot be checked")
        pytest.skip("`dot` is not installed")
    result = subprocess.run(["dot", f"-T{output_format}"], input=text.encode(), capture_output=True, timeout=60)
    assert result.returncode == 0, result.stderr.decode() + "\n" + text
    return result.stdout.decode()


def everything_highlighted(drawing) -> Highlight:
    ids = list(drawing.nodes)
    return Highlight(
        ran=set(ids[0::4]),
        next=set(ids[1::4]) | set(ids[0::8]),
        visited=set(ids[2::4]) | set(ids[1::3]),
        failed=set(ids[3::4]),
        edges_taken={(e.source, e.target) for e in drawing.edges[::2]},
    )


@pytest.mark.slow  # lays the drawing out with graphviz's `dot` process
@pytest.mark.parametrize("highlighted", [False, True], ids=["plain", "highlighted"])
@pytest.mark.parametrize("name", GRAPHS)
def test_dot_renders_with_graphviz(name, highlighted):
    drawing = ours(name)
    svg = run_dot(to_dot(drawing, highlight=everything_highlighted(drawing) if highlighted else None))
    assert svg.count('class="node') == len(drawing.nodes)


def test_dot_accepts_a_compiled_graph_and_xray():
    app = compiled(ENGINE, GRAPHS["subgraph"])
    assert to_dot(app, xray=True) == to_dot(graph_of(app, xray=True))


def test_dot_node_ids_are_selector_safe_and_distinct():
    ids = [dot_node_id(name) for name in [*UNUSUAL, "a:b", "a-3a-b"]]
    assert len(set(ids)) == len(ids)
    assert all(i.isascii() and all(ch.isalnum() or ch in "_-" for ch in i) for i in ids)
    assert dot_node_id("child:s1") == "node_child-3a-s1"


@pytest.mark.slow  # lays the drawing out with graphviz's `dot` process
def test_dot_quotes_unusual_names():
    svg = run_dot(to_dot(ours("unusual_names")))
    for name in UNUSUAL:
        assert f'id="{dot_node_id(name)}"'.replace("-", "&#45;") in svg


def test_dot_draws_start_and_end_as_distinct_shapes():
    text = to_dot(ours("linear"))
    start, end = node_line(text, "__start__"), node_line(text, "__end__")
    assert "shape=oval" in start and "peripheries=2" in end and "peripheries" not in start


def test_dot_draws_conditional_edges_dashed():
    text = to_dot(ours("conditional_list"))
    assert 'node_a -> node_b [class="stepscope-edge idle" id="edge_a-to-b" style=dashed]' in text


def test_dot_puts_subgraph_nodes_in_nested_clusters():
    text = to_dot(ours("nested_xray")).replace('"', "")
    assert (
        text.index("subgraph cluster_outer {")
        < text.index("subgraph cluster_outer-3a-i2 {")
        < text.index("node_outer-3a-i2-3a-t1 [")
    )


@pytest.mark.parametrize("state,marker", [("ran", "▶"), ("next", "▷"), ("visited", "✓"), ("failed", "✖")])
def test_dot_marks_each_state_with_a_marker_and_class_not_only_colour(state, marker):
    line = node_line(to_dot(ours("linear"), highlight=Highlight(**{state: {"a"}})), "a")
    assert f'class="stepscope-node {state}"' in line and f">{marker}</td>" in line


def test_dot_marker_precedence_is_failed_ran_next_visited():
    highlight = Highlight(ran={"a"}, next={"a"}, visited={"a"}, failed={"a"})
    assert highlight.state_of("a") == "failed" and Highlight(next={"a"}, visited={"a"}).state_of("a") == "next"


def test_dot_ran_node_is_filled_and_bold():
    line = node_line(to_dot(ours("linear"), highlight=Highlight(ran={"a"})), "a")
    assert 'style="rounded,filled,bold"' in line and "penwidth=3" in line


def test_dot_next_node_has_dashed_bold_border():
    line = node_line(to_dot(ours("linear"), highlight=Highlight(next={"a"})), "a")
    assert 'style="rounded,filled,dashed,bold"' in line


def test_dot_taken_edge_is_bold():
    text = to_dot(ours("linear"), highlight=Highlight(edges_taken={("a", "b")}))
    assert (
        'node_a -> node_b [class="stepscope-edge taken" color="#b36b00" id="edge_a-to-b" penwidth=3 style=bold]' in text
    )


@pytest.mark.slow  # lays the drawing out with graphviz's `dot` process
@pytest.mark.parametrize("name", ["nested_xray", "conditional_dict_labels", "unusual_names", "metadata"])
def test_dot_highlight_never_moves_the_layout(name):
    drawing = ours(name)

    def layout(highlight):
        plain = run_dot(to_dot(drawing, highlight=highlight), "plain")
        return [line.split()[:6] for line in plain.splitlines() if line.startswith(("graph", "node"))]

    baseline = layout(None)
    for state in ("ran", "next", "visited", "failed"):
        assert (
            layout(Highlight(**{state: set(drawing.nodes)}, edges_taken={(e.source, e.target) for e in drawing.edges}))
            == baseline
        )
