"""What the engine promises about itself: standard library only, an explicit public surface."""

import ast
import sys
import warnings
from pathlib import Path

import engine
import engine.stepping
import engine.trace
from engine import START, StateGraph
from engine.graph import UnreachableNodeWarning

ENGINE_DIR = Path(engine.__file__).parent


def imported_top_level_modules(path: Path) -> set[str]:
    names = set()
    for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names.add(node.module.split(".")[0])
    return names


def test_engine_imports_only_the_standard_library():
    offenders = {}
    for path in sorted(ENGINE_DIR.glob("*.py")):
        outside = {m for m in imported_top_level_modules(path) if m not in sys.stdlib_module_names and m != "engine"}
        if outside:
            offenders[path.name] = sorted(outside)
    assert offenders == {}


def test_public_surface_has_the_langgraph_names():
    required = {
        "StateGraph",
        "START",
        "END",
        "MessagesState",
        "add_messages",
        "Send",
        "Command",
        "Overwrite",
        "InvalidUpdateError",
        "GraphRecursionError",
        "EmptyInputError",
        "HumanMessage",
        "AIMessage",
        "SystemMessage",
        "ToolMessage",
        "RemoveMessage",
        "REMOVE_ALL_MESSAGES",
    }
    assert required <= set(engine.__all__)
    assert all(hasattr(engine, name) for name in engine.__all__)


# Modules of the engine the debugger may import from, and which of their names (None: any name).
# engine.blobs is part of the trace file format (large values stored once), as engine.tracefile is.
DEBUGGER_SURFACE = {
    "engine": set(engine.__all__),
    "engine.trace": set(engine.trace.__all__),
    "engine.codec": None,
    "engine.tracefile": None,
    "engine.blobs": None,
    "engine.draw": None,
    "engine.stepping": set(engine.stepping.__all__),
}


def test_debugger_uses_only_the_engines_public_names():
    root = ENGINE_DIR.parent
    offenders = []
    for folder in ("debugger", "benchmarks", "sample_graphs"):
        for path in sorted((root / folder).rglob("*.py")):
            for node in ast.walk(ast.parse(path.read_text(), filename=str(path))):
                if (
                    isinstance(node, ast.ImportFrom)
                    and node.level == 0
                    and (node.module or "").split(".")[0] == "engine"
                ):
                    allowed = DEBUGGER_SURFACE.get(node.module, set())
                    names = [a.name for a in node.names if allowed is not None and a.name not in allowed]
                    if names:
                        offenders.append(f"{path.relative_to(root)}:{node.lineno}: from {node.module} import {names}")
                elif isinstance(node, ast.Import):
                    offenders += [
                        f"{path.relative_to(root)}:{node.lineno}: import {a.name}"
                        for a in node.names
                        if a.name.startswith("engine.") and a.name not in DEBUGGER_SURFACE
                    ]
    assert offenders == []


def test_engine_trace_all_names_exist():
    assert all(hasattr(engine.trace, name) for name in engine.trace.__all__)
    assert all(hasattr(engine.stepping, name) for name in engine.stepping.__all__)


def test_no_engine_import_hides_inside_a_function():
    """Imports inside functions dodge cycles; the module layout avoids them (`draw.py` finds subgraphs
    by the class of the graph it draws, so it needs no import of `compiled.py`)."""
    late = []
    for path in sorted(ENGINE_DIR.glob("*.py")):
        for func in ast.walk(ast.parse(path.read_text(), filename=str(path))):
            if isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                late += [
                    f"{path.name}:{func.name}"
                    for node in ast.walk(func)
                    if isinstance(node, ast.ImportFrom) and node.level == 1
                ]
    assert late == []


def test_unreachable_node_warning_names_the_node():
    g = StateGraph(dict)
    g.add_node("a", lambda s: None)
    g.add_node("orphan", lambda s: None)
    g.add_edge(START, "a")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        g.compile()
    messages = [str(w.message) for w in caught if issubclass(w.category, UnreachableNodeWarning)]
    assert len(messages) == 1 and "'orphan'" in messages[0] and "'a'" not in messages[0]


def test_router_without_path_map_counts_as_reaching_every_node():
    g = StateGraph(dict)
    g.add_node("a", lambda s: None)
    g.add_node("b", lambda s: None)
    g.add_edge(START, "a")
    g.add_conditional_edges("a", lambda s: "b")
    with warnings.catch_warnings():
        warnings.simplefilter("error", UnreachableNodeWarning)
        g.compile()
