"""`get_graph()` and `draw_mermaid()` on LangGraph and on our engine, compared.

The graphs are the builders of `cases.py`. For each one we compare:

- the node ids and the set of `(source, target, conditional)` edges of `get_graph(xray=...)`,
- the edge labels (`data`) and the node metadata (e.g. `defer: True`),
- the `draw_mermaid()` text, exactly.

On the `langgraph` side the edges (and, for four graphs, the whole Mermaid text) are pinned below from
langgraph 1.2.22 / langchain-core 1.8.3, checked against langgraph's own drawing code
(langchain_core/runnables/graph*.py).
"""

from __future__ import annotations

import textwrap

import pytest

pytest.importorskip("langgraph")

from .backends import BACKEND_NAMES, get_backend  # noqa: E402
from .cases import CASES  # noqa: E402

S, E = "__start__", "__end__"

HEADER = "---\nconfig:\n  flowchart:\n    curve: linear\n---\ngraph TD;\n"
FOOTER = (
    "\tclassDef default fill:#f2f0ff,line-height:1.2\n\tclassDef first fill-opacity:0\n\tclassDef last fill:#bfb6fc\n"
)


def mermaid(body: str) -> str:
    lines = textwrap.dedent(body).strip("\n").splitlines()
    return HEADER + "".join(f"\t{line}\n" for line in lines) + FOOTER


#: (case, xray) -> pinned edges {(source, target, conditional)}, node ids (when they are not just the
#: edges' endpoints) and, optionally, the Mermaid text.
#: A list of pairs, not a dict: `True == 1`, so `("g", True)` and `("g", 1)` would collide as keys.
DRAWINGS: list[tuple[tuple[str, object], dict]] = [
    (
        ("linear_chain", False),
        {
            "edges": {(S, "a", False), ("a", "b", False), ("b", "c", False), ("c", E, False)},
            "mermaid": mermaid(
                """
            __start__([<p>__start__</p>]):::first
            a(a)
            b(b)
            c(c)
            __end__([<p>__end__</p>]):::last
            __start__ --> a;
            a --> b;
            b --> c;
            c --> __end__;
            """
            ),
        },
    ),
    (
        ("cond_dict_path_map", False),
        {
            "edges": {(S, "a", False), ("a", "b", True), ("a", "c", True), ("b", E, False), ("c", E, False)},
            "mermaid": mermaid(
                """
            __start__([<p>__start__</p>]):::first
            a(a)
            b(b)
            c(c)
            __end__([<p>__end__</p>]):::last
            __start__ --> a;
            a -. &nbsp;yes&nbsp; .-> b;
            a -. &nbsp;no&nbsp; .-> c;
            b --> __end__;
            c --> __end__;
            """
            ),
        },
    ),
    (
        ("waiting_edge_uneven", False),
        {
            # the waiting edge [b2, c] -> d is drawn as two solid edges
            "edges": {
                (S, "a", False),
                ("a", "b", False),
                ("a", "c", False),
                ("b", "b2", False),
                ("b2", "d", False),
                ("c", "d", False),
                ("d", E, False),
            },
            "mermaid": mermaid(
                """
            __start__([<p>__start__</p>]):::first
            a(a)
            b(b)
            b2(b2)
            c(c)
            d(d)
            __end__([<p>__end__</p>]):::last
            __start__ --> a;
            a --> b;
            a --> c;
            b --> b2;
            b2 --> d;
            c --> d;
            d --> __end__;
            """
            ),
        },
    ),
    (
        ("subgraph_nested", True),
        {
            "edges": {
                (S, "o", False),
                ("o", "middle:m", False),
                ("middle:m", "middle:inner:leaf", False),
                ("middle:inner:leaf", E, False),
            },
            "mermaid": mermaid(
                r"""
            __start__([<p>__start__</p>]):::first
            o(o)
            __end__([<p>__end__</p>]):::last
            __start__ --> o;
            o --> middle\3am;
            middle\3ainner\3aleaf --> __end__;
            subgraph middle
            middle\3am(m)
            middle\3am --> middle\3ainner\3aleaf;
            end
            """
            ),
        },
    ),
    (
        ("subgraph_nested", 1),
        {
            "edges": {
                (S, "o", False),
                ("o", "middle:m", False),
                ("middle:m", "middle:inner", False),
                ("middle:inner", E, False),
            },
        },
    ),
    (
        ("subgraph_nested", False),
        {
            "edges": {(S, "o", False), ("o", "middle", False), ("middle", E, False)},
        },
    ),
    (
        ("subgraph_shared_log", True),
        {
            "edges": {(S, "p1", False), ("p1", "child:s1", False), ("child:s1", E, False)},
        },
    ),
    (
        ("defer_uneven", False),
        {
            "edges": {
                (S, "a", False),
                ("a", "b", False),
                ("a", "c", False),
                ("b", "b2", False),
                ("b2", "d", False),
                ("c", "d", False),
                ("d", E, False),
            },
        },
    ),
    (
        ("cond_router_end", False),
        {
            # a router without path_map or Literal contributes no edges; a gets a plain edge to END
            "edges": {(S, "a", False), ("a", E, False)},
            "nodes": {S, "a", "b", "c", E},
        },
    ),
    (
        ("cond_literal_annotation", False),
        {
            "edges": {(S, "a", False), ("a", "b", True), ("a", "c", True), ("b", E, False), ("c", E, False)},
        },
    ),
    (
        ("seed003_react_loop", False),
        {
            "edges": {(S, "llm", False), ("llm", "tools", True), ("llm", E, True), ("tools", "llm", False)},
        },
    ),
    (
        ("command_annotated_destinations", False),
        {
            "edges": {(S, "a", False), ("a", "b", True), ("b", "c", True), ("b", E, True), ("c", E, False)},
        },
    ),
    (
        ("send_map_reduce", False),
        {
            "edges": {
                (S, "generate", False),
                ("generate", "joke", True),
                ("joke", "best", False),
                ("best", E, False),
            },
        },
    ),
    (
        ("fan_out_fan_in", False),
        {
            "edges": {(S, "a", False), (S, "b", False), ("a", "c", False), ("b", "c", False), ("c", E, False)},
        },
    ),
    (
        ("cond_entry_point", False),
        {
            "edges": {(S, "b", True), (S, "c", True), ("b", E, False), ("c", E, False)},
        },
    ),
    (
        ("cond_two_routers", False),
        {
            "edges": {(S, "a", False), ("a", "b", True), ("a", "c", True), ("b", E, False), ("c", E, False)},
        },
    ),
    (
        ("send_from_start", False),
        {
            # a START router without path_map: one conditional edge to END, `square` floats unconnected
            "edges": {(S, E, True)},
            "nodes": {S, "square", E},
        },
    ),
    (
        ("command_goto_single", False),
        {
            # Command without a Command[Literal] annotation or destinations=: no edges for the goto
            "edges": {(S, "a", False), ("a", E, False)},
            "nodes": {S, "a", "b", "c", E},
        },
    ),
    (
        ("waiting_edge_three_sources", False),
        {
            "edges": {
                (S, "a", False),
                (S, "b", False),
                (S, "c", False),
                ("a", "d", False),
                ("b", "d", False),
                ("c", "d", False),
                ("d", E, False),
            },
        },
    ),
    (
        ("interrupt_before_without_checkpointer", False),
        {
            # metadata {'b': {'__interrupt': 'before'}}
            "edges": {(S, "a", False), ("a", "b", False), ("b", E, False)},
        },
    ),
    (
        ("interrupt_after_without_checkpointer", False),
        {
            "edges": {(S, "a", False), ("a", "b", False), ("b", E, False)},
        },
    ),
    (
        ("subgraph_with_own_schemas", True),
        {
            "edges": {(S, "child:up", False), ("child:up", "child:bang", False), ("child:bang", E, False)},
        },
    ),
    (
        ("subgraph_in_parallel_step", True),
        {
            "edges": {
                (S, "p", False),
                ("p", "child:s1", False),
                ("p", "sib", False),
                ("child:s1", E, False),
                ("sib", E, False),
            },
        },
    ),
]


def drawing(backend: str, case_name: str, xray) -> dict:
    lg = get_backend(backend)
    built = CASES[case_name].build(lg)
    graph = built.builder.compile(**built.compile_kwargs)
    g = graph.get_graph(xray=xray)
    return {
        "nodes": sorted(g.nodes),
        "node names": sorted((k, n.name) for k, n in g.nodes.items()),
        "edges": {(e.source, e.target, e.conditional) for e in g.edges},
        "edge labels": sorted((e.source, e.target, e.data) for e in g.edges if e.data is not None),
        "metadata": {k: n.metadata for k, n in g.nodes.items() if n.metadata},
        "mermaid": g.draw_mermaid(),
    }


PARAMS = [
    pytest.param(backend, case_name, xray, id=f"{backend}-{case_name}-xray={xray}")
    for backend in BACKEND_NAMES
    for (case_name, xray), _ in DRAWINGS
]


@pytest.mark.parametrize("backend,case_name,xray", PARAMS)
def test_drawing(backend: str, case_name: str, xray):
    reference = drawing("langgraph", case_name, xray)
    if backend == "langgraph":
        pinned = next(p for (c, x), p in DRAWINGS if c == case_name and x is xray)
        assert reference["edges"] == pinned["edges"]
        endpoints = {n for e in pinned["edges"] for n in e[:2]}
        assert set(reference["nodes"]) == pinned.get("nodes", endpoints)
        if "mermaid" in pinned:
            assert reference["mermaid"] == pinned["mermaid"]
        return
    actual = drawing("engine", case_name, xray)
    for key in reference:
        assert actual[key] == reference[key], f"{key} differs:\n got {actual[key]!r}\n ref {reference[key]!r}"


def test_drawing_pins_details():
    """Nodes without edges still appear; metadata and edge labels are what the reference says."""
    ref = drawing("langgraph", "cond_router_end", False)
    assert ref["nodes"] == [E, S, "a", "b", "c"]
    assert ref["metadata"] == {}
    assert drawing("langgraph", "defer_uneven", False)["metadata"] == {"d": {"defer": True}}
    assert drawing("langgraph", "interrupt_before_without_checkpointer", False)["metadata"] == {
        "b": {"__interrupt": "before"}
    }
    assert drawing("langgraph", "cond_dict_path_map", False)["edge labels"] == [
        ("a", "b", "yes"),
        ("a", "c", "no"),
    ]
