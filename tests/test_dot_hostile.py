"""Nothing from a run becomes markup in a drawing (issue 38, item 1).

Every hostile text of `CORPUS` is made a node name, an edge label (a router's path_map key), a subgraph
(cluster) name, a metadata note and a highlight label; the DOT is laid out by Debian's real `dot`, and
the SVG, parsed as XML, must hold each text as the text of its own node, cluster or edge, with no link,
target or colour from the data. A trace file from someone else (node ids no graph could have) goes through
`stepscope export --html` the same way. The fast tests read the DOT text with a small lexer of DOT's tokens.
"""

from __future__ import annotations

import json
import operator
import re
import xml.etree.ElementTree as ET
from typing import Annotated, TypedDict

import pytest
from test_drawing import run_dot

from debugger.cli import main
from debugger.model.dot_text import dot_text, html_text
from debugger.model.drawing import Highlight, dot_node_id, to_dot
from engine import END, START, StateGraph
from engine.draw import graph_of
from engine.trace import Recorder
from engine.tracefile import to_dict

CORPUS = {  # text -> how the drawing shows it (control characters as escapes, as the terminal does)
    '<x>, URL="//evil.example/dot", target="_top", fillcolor=red, tooltip=<y>': None,
    "back\\": None,
    "</script><b>n1</b>": None,
    "<!--<script>": None,
    '" URL="//evil.example/q" href="x': None,
    "<<b>bold</b>>": None,
    "a\\Nb \\G\\E\\T\\H\\L \\N": None,
    "x\\n y\\l z\\r \\\\ \\": None,
    "]]> &amp; &#92;N &lt; &": None,
    "node": None,
    "-1.5": None,
    "esc \x1b[31mred\x1b[0m \r back": "esc \\x1b[31mred\\x1b[0m \\x0d back",
    "bidi \u202eevil\u202c \u2066x": "bidi \\u202eevil\\u202c \\u2066x",
    "lone \ud800 half": "lone \\ud800 half",
    "nul \x00 tab\t ffff \uffff": "nul \\x00 tab\\x09 ffff \\uffff",
}
SHOWN = {text: shown or text for text, shown in CORPUS.items()}
SVG = "{http://www.w3.org/2000/svg}"
XLINK = "{http://www.w3.org/1999/xlink}"
MARKERS = {"▶", "▷", "✓", "✖", "⏸", "⏳", "⏹"}
FROM_THE_DATA = re.compile(r"evil|_top|\bred\b", re.I)


class State(TypedDict):
    log: Annotated[list, operator.add]


def _writes(name):
    return lambda state: {"log": [name]}


def hostile_graph():
    """START -> each corpus name in turn; the first routes to the others and END by the corpus labels; a
    subgraph node per corpus name (its cluster label); every node's metadata holds the corpus."""
    inner = StateGraph(State)
    inner.add_node("inside", _writes("inside"))
    inner.add_edge(START, "inside")
    inner.add_edge("inside", END)
    inner = inner.compile()
    names = list(CORPUS)
    graph = StateGraph(State)
    for i, name in enumerate(names):
        graph.add_node(name, _writes(name), metadata={"note": names[-1 - i]})
    graph.add_edge(START, names[0])
    graph.add_conditional_edges(names[0], lambda s: "", dict(zip(names, [*names[1:], END])))
    for a, b in zip(names[1:], names[2:]):
        graph.add_edge(a, b)
    for i, name in enumerate(names):
        graph.add_node(f"sub {i} {name}", inner)
        graph.add_edge(names[-1], f"sub {i} {name}")
        graph.add_edge(f"sub {i} {name}", END)
    return graph.compile()


def _text(group) -> str:
    return "\n".join("".join(t.itertext()) for t in group.iter(f"{SVG}text"))


def _parsed(svg: str) -> ET.Element:
    return ET.fromstring(svg[svg.index("<svg") :])


def _groups(root: ET.Element, kind: str) -> dict[str, ET.Element]:
    return {g.get("id"): g for g in root.iter(f"{SVG}g") if kind in (g.get("class") or "").split()}


def assert_nothing_from_the_data_is_markup(root: ET.Element) -> None:
    for element in root.iter():
        for name, value in element.attrib.items():
            assert name not in (f"{XLINK}href", "href", "target", "URL"), (element.tag, name, value)
            if name == "id":  # `dot_node_id`: the name spelled in [A-Za-z0-9_-]
                assert re.fullmatch(r"[A-Za-z0-9_-]+", value), value
            elif name != f"{XLINK}title":  # the tooltip is the node's text, shown as text
                assert not FROM_THE_DATA.search(value), (element.tag, name, value)
        assert element.tag.removeprefix(SVG) not in ("script", "foreignObject", "b", "a") or (
            element.tag == f"{SVG}a" and set(element.attrib) == {f"{XLINK}title"}
        ), element.tag


def assert_drawn_as_text(root: ET.Element, node_ids: dict[str, str]) -> None:
    """Each node (id -> shown name) is its own group whose text is the name and whose tooltip its id."""
    nodes = _groups(root, "node")
    for node_id, shown in node_ids.items():
        group = nodes[dot_node_id(node_id)]
        lines = [line for line in _text(group).splitlines() if line not in MARKERS]
        assert lines[0] == shown.split(":")[-1]
        assert [a.get(f"{XLINK}title") for a in group.iter(f"{SVG}a")] == [shown]


@pytest.mark.slow  # lays the drawing out with graphviz's `dot` process
def test_every_hostile_text_is_drawn_as_its_own_text_and_none_becomes_an_attribute():
    drawing = graph_of(hostile_graph(), xray=True)
    labels = {name: name for name in CORPUS}
    highlight = Highlight(ran={next(iter(CORPUS))}, edges_taken={(e.source, e.target) for e in drawing.edges})
    highlight.labels = labels
    root = _parsed(run_dot(to_dot(drawing, highlight=highlight)))
    assert_nothing_from_the_data_is_markup(root)
    assert_drawn_as_text(root, {name: SHOWN[name] for name in CORPUS})
    nodes = _groups(root, "node")
    for name, shown in SHOWN.items():
        notes = _text(nodes[dot_node_id(name)]).splitlines()
        assert shown in notes and f"note = {SHOWN[list(CORPUS)[-1 - list(CORPUS).index(name)]]}" in notes
    clusters = [_text(g) for g in root.iter(f"{SVG}g") if g.get("class") == "cluster"]
    assert sorted(clusters) == sorted(f"sub {i} {shown}" for i, shown in enumerate(SHOWN.values()))
    edge_labels = {_text(g).strip("\xa0") for g in _groups(root, "stepscope-edge").values()} - {""}
    assert edge_labels == set(SHOWN.values())


def _forged_trace(tmp_path) -> tuple[str, dict[str, str]]:
    """A recorded trace whose node ids were then rewritten into ones no graph can have (`:` puts them
    in clusters, `|` is reserved): what a trace file from someone else may hold."""
    names = ["plain", "other"]
    graph = StateGraph(State)
    for name in names:
        graph.add_node(name, _writes(name))
    graph.add_edge(START, "plain")
    graph.add_edge("plain", "other")
    graph.add_edge("other", END)
    recorder = Recorder()
    graph.compile().invoke({"log": []}, hooks=recorder)
    forged = {
        "plain": '<!--<script>:</script><b>n1</b>:<x>, URL="//evil.example/dot", target="_top", tooltip=<y>',
        "other": "back\\|\\N\x1b[2J\ud800",
    }
    text = json.dumps(to_dict(recorder.trace))
    for name, new in forged.items():
        text = text.replace(f'"{name}"', json.dumps(new))
    path = tmp_path / "forged.json"
    path.write_text(text)
    shown = {forged["plain"]: forged["plain"], forged["other"]: "back\\|\\N\\x1b[2J\\ud800"}
    return str(path), shown


@pytest.mark.slow  # `export --html` runs graphviz's `dot`
def test_export_html_of_a_forged_trace_file_draws_its_ids_as_text(tmp_path, capsys):
    trace_file, shown = _forged_trace(tmp_path)
    out = tmp_path / "page.html"
    assert main(["export", trace_file, "--html", str(out)]) == 0, capsys.readouterr()
    page = out.read_text()
    # the drawing is the stepper's data: graphviz's SVG, which the page's script parses as SVG
    data = page.split('id="stepscope-data">', 1)[1].split("</script>", 1)[0]
    svg = json.loads(data)["svg"]
    root = _parsed(svg)
    assert_nothing_from_the_data_is_markup(root)
    assert_drawn_as_text(root, shown)
    clusters = [_text(g) for g in root.iter(f"{SVG}g") if g.get("class") == "cluster"]
    assert sorted(clusters) == sorted(["</script><b>n1</b>", "<!--<script>"])
    assert page.count("<script") == 2 and page.count("</script>") == 2, "no data opened a script"
    assert "<!--" not in page and "<b>" not in page and "<svg" not in page, "the data is JSON escapes, not markup"
    texts = json.dumps(json.loads(data), ensure_ascii=False)
    assert all(json.dumps(node_id, ensure_ascii=False)[1:-1] in texts for node_id in shown), "ids kept, surrogate too"


# ---- the DOT text itself, read token by token (no process) ---------------------------------------------

_TOKEN = re.compile(r'"(?:\\.|[^"\\])*"|\n|[ \t]+|->|[\[\]={};,]|[^\s"<>\[\]=;,{}]+', re.S)


def dot_statements(text: str) -> list[list[str]]:
    """DOT's tokens by statement (a line, as DotGraph writes them), an HTML-like label `<...>` (nested
    `<>` counted) and a quoted string one token each."""
    tokens, statements, current, i = [], [], [], 0
    while i < len(text):
        if text[i] == "<":
            depth, j = 0, i
            while True:
                depth += {"<": 1, ">": -1}.get(text[j], 0)
                j += 1
                if depth == 0:
                    break
            tokens.append(text[i:j])
            i = j
            continue
        match = _TOKEN.match(text, i)
        if match.group() == "\n" or not match.group().isspace():
            tokens.append(match.group())
        i = match.end()
    for token in tokens:
        if token in ("{", "}", ";", "\n"):
            statements.append(current)
            current = []
        else:
            current.append(token)
    return [s for s in statements + [current] if s]


def attribute_names(text: str) -> set[str]:
    return {s[i - 1] for s in dot_statements(text) for i, t in enumerate(s) if t == "="}


ATTRIBUTES = {
    "arrowsize", "class", "color", "fillcolor", "fontcolor", "fontname", "fontsize", "id", "label",
    "labeljust", "penwidth", "peripheries", "rankdir", "shape", "style", "tooltip",
}  # fmt: skip


def test_hostile_text_sets_no_attribute_of_its_own_and_each_value_is_one_token():
    drawing = graph_of(hostile_graph())
    highlight = Highlight(labels={name: name for name in CORPUS}, failed=set(CORPUS))
    text = to_dot(drawing, highlight=highlight)
    assert attribute_names(text) <= ATTRIBUTES
    tooltips = [s[s.index("tooltip") + 2] for s in dot_statements(text) if "tooltip" in s]
    assert sorted(tooltips) == sorted(dot_text(node, read_twice=True) for node in drawing.nodes)


def test_dot_text_quotes_all_but_plain_ids_and_leaves_no_escape_to_graphviz():
    assert [dot_text(t) for t in ("node_a", "-1.5", "node", "a b")] == ["node_a", "-1.5", '"node"', '"a b"']
    assert dot_text('back\\"') == '"back\\\\\\""' and dot_text("\\N", read_twice=True) == '"\\\\\\\\N"'
    assert dot_text("<b>&amp;</b>") == '"<b>&amp;amp;</b>"'
    assert dot_text("a\x1b\ud800") == '"a\\\\x1b\\\\ud800"'


def test_html_text_leaves_no_markup_entity_or_escape():
    assert html_text('<b a="1">]]&amp;\\N\n') == "&lt;b a=&quot;1&quot;&gt;&#93;&#93;&amp;amp;\\\\N<br/>"
    assert html_text("\u202e\x85") == "\\\\u202e\\\\x85"
