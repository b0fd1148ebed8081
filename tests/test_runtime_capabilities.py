"""Capabilities, not one wide interface (issue 42, item 1): each runtime declares the optional capabilities
it has (debugger/runtimes/capabilities.py), implements each of them whole and none it did not declare; the
debugger asks for a capability, and a runtime without it is refused in one line; no runtime imports
another's modules."""

from __future__ import annotations

import ast
import inspect
from pathlib import Path

import pytest

from debugger.runtimes.capabilities import (
    CAPABILITIES,
    LiveDriving,
    StaticChecks,
    Threads,
    TimeTravel,
    capability,
    need,
    static_view_of,
)
from debugger.runtimes.registry import RUNTIMES
from debugger.runtimes.runtime import TargetError

DEBUGGER_DIR = Path(__file__).resolve().parents[1] / "debugger"
RUNTIMES_DIR = DEBUGGER_DIR / "runtimes"
RUNTIME_PACKAGES = sorted(
    p.name for p in RUNTIMES_DIR.iterdir() if (p / "__init__.py").exists() and p.name in {r.name for r in RUNTIMES}
)


def _methods(kind: type) -> list[str]:
    return [name for name, value in vars(kind).items() if not name.startswith("_") and inspect.isfunction(value)]


@pytest.mark.parametrize("runtime", RUNTIMES, ids=lambda r: r.name)
def test_every_declared_capability_is_whole_with_the_protocols_parameters(runtime) -> None:
    assert set(runtime.capabilities) <= set(CAPABILITIES), runtime.capabilities
    for kind in runtime.capabilities:
        assert isinstance(runtime, kind), f"{runtime.name} declares {kind.__name__} but lacks some of its methods"
        for name in _methods(kind):
            wanted = set(inspect.signature(getattr(kind, name)).parameters)
            assert set(inspect.signature(getattr(type(runtime), name)).parameters) == wanted, (runtime.name, name)


@pytest.mark.parametrize("runtime", RUNTIMES, ids=lambda r: r.name)
def test_a_capability_not_declared_has_no_stub_methods(runtime) -> None:
    for kind in set(CAPABILITIES) - set(runtime.capabilities):
        stubs = [name for name in _methods(kind) if hasattr(runtime, name)]
        assert stubs == [], f"{runtime.name} does not declare {kind.__name__} but has {stubs}"


def test_what_each_runtime_declares() -> None:
    declared = {runtime.name: {kind.__name__ for kind in runtime.capabilities} for runtime in RUNTIMES}
    assert declared == {
        "engine": {"StaticChecks", "TimeTravel", "LiveDriving"},
        "langgraph": {"StaticChecks", "TimeTravel", "Threads", "LiveDriving", "CodeRecording"},
        "langgraphjs": {"StaticChecks", "TimeTravel", "Threads", "LiveDriving"},
    }


class _RecordsOnly:
    """A fourth runtime with no optional capability: everything but recording is refused in words."""

    name, title, language, errors, capabilities = "fourth", "Fourth", "python", (), ()


def test_a_runtime_without_a_capability_is_refused_in_one_line_naming_it() -> None:
    fourth = _RecordsOnly()
    assert capability(fourth, Threads) is None
    for kind, words in [
        (Threads, "keep checkpointer threads"),
        (TimeTravel, "be rewound"),
        (LiveDriving, "be driven live"),
        (StaticChecks, "be checked before running"),
    ]:
        with pytest.raises(TargetError) as refused:
            need(fourth, kind, "app.py:graph")
        message = str(refused.value)
        assert message.startswith("app.py:graph: Fourth graphs cannot ") and words in message and "\n" not in message
    assert static_view_of(fourth, object()) == (None, "Fourth graphs cannot be checked before running")


def test_the_engines_graph_opened_as_a_thread_app_is_refused_by_capability() -> None:
    from debugger.runtimes.checkpointers.open import load_app

    with pytest.raises(TargetError, match="checkpointer thread is read with the langgraph app"):
        load_app("subgraph_trap")


def test_time_travel_and_live_runs_ask_for_their_capability(monkeypatch) -> None:
    from debugger.live import LiveRunError, start_live_run
    from debugger.runtimes.engine import ENGINE
    from debugger.runtimes.targets import load_target
    from debugger.sources.forks import TimeTravelError, _time_travel

    loaded = load_target("subgraph_trap")
    assert _time_travel(loaded.graph) is ENGINE
    monkeypatch.setattr(ENGINE, "capabilities", (StaticChecks,))
    with pytest.raises(TimeTravelError, match="StepScope graphs cannot be rewound"):
        _time_travel(loaded.graph)
    with pytest.raises(LiveRunError, match="^subgraph_trap: StepScope graphs cannot be driven live"):
        start_live_run(loaded.graph, loaded.example_input, None, target="subgraph_trap", store=False)


def _imported(path: Path, source: str | None = None) -> set[str]:
    """Every module `path` (a module of debugger/; its text `source` when given) imports, relative imports
    made absolute, and `from package import name` also as `package.name` (the name may be a module)."""
    package = path.relative_to(DEBUGGER_DIR.parent).with_suffix("").parts[:-1]
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8") if source is None else source)):
        if isinstance(node, ast.ImportFrom):
            parent = package[: len(package) - node.level + 1] if node.level else ()
            base = ".".join([*parent, *([node.module] if node.module else [])])
            names.add(base)
            names.update(f"{base}.{alias.name}" for alias in node.names)
        elif isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
    return names


def _of_runtimes(names: set[str], runtimes: list[str]) -> list[str]:
    """The imported modules that belong to one of `runtimes` (package names under debugger/runtimes/)."""
    prefixes = [f"debugger.runtimes.{name}" for name in runtimes]
    return sorted(m for m in names if any(m == p or m.startswith(p + ".") for p in prefixes))


@pytest.mark.parametrize("package", RUNTIME_PACKAGES)
def test_no_runtime_imports_another_runtimes_modules(package) -> None:
    others = [name for name in RUNTIME_PACKAGES if name != package]
    reaching = {
        str(path.relative_to(RUNTIMES_DIR)): _of_runtimes(_imported(path), others)
        for path in (RUNTIMES_DIR / package).rglob("*.py")
    }
    assert {path: names for path, names in reaching.items() if names} == {}


def test_nothing_outside_runtimes_imports_one_runtimes_modules() -> None:
    """Outside debugger/runtimes/ a runtime is reached through the registry and its capabilities only."""
    reaching = {
        str(path.relative_to(DEBUGGER_DIR)): _of_runtimes(_imported(path), RUNTIME_PACKAGES)
        for path in DEBUGGER_DIR.rglob("*.py")
        if RUNTIMES_DIR not in path.parents
    }
    assert {path: names for path, names in reaching.items() if names} == {}


@pytest.mark.parametrize(
    "line",
    [
        "import debugger.runtimes.langgraph.recorder",
        "from debugger.runtimes import langgraphjs",
        "from ..runtimes.engine import live",
        "from ..runtimes import langgraph",
        "def lazy():\n    from debugger.runtimes.langgraph.recorder import recording",
    ],
)
def test_a_runtimes_module_is_seen_however_it_is_imported(line) -> None:
    assert RUNTIME_PACKAGES == ["engine", "langgraph", "langgraphjs"]
    imported = _imported(DEBUGGER_DIR / "sources" / "js_setup.py", source=line)
    assert _of_runtimes(imported, RUNTIME_PACKAGES), imported
