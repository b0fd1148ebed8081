"""Diagnostics: what went wrong in a run, or can go wrong in a graph, with the fix.

    diagnose_graph(compiled)          before running: static checks on the builder and the nodes' code
    diagnose_trace(trace, graph=None) after running: checks over a recorded Trace (and its subgraph runs)
    diagnose(graph, trace)            both, deduplicated, sorted by severity then step

Every finding is a `Finding` (kind, severity, step, node, key, title, explanation, fix, evidence); the
kinds are listed in `KINDS`. `debugger/commands/diagnose_text.py` prints them (`stepscope diagnose`).
Modules, one job each: `source.py` reads node code (`function_tree.py` finds it), `topology.py` finds
nodes that can share a superstep, `static.py` runs the checks before running (`parallel_writes.py` the
concurrent updates, `start.py` the start values); `facts.py` is the one
analysis of a recorded run (the app's view-model reads it too: why each task ran, repeated items with
provenance, channel roles), and `conflicts.py`, `writes.py`, `mutation.py`, `order.py` and `start.py` check it.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from engine.trace import RunRecord

if TYPE_CHECKING:
    from .findings import KINDS, SEVERITIES, Finding, counts
    from .recorded import diagnose_trace
    from .static import diagnose_graph

__all__ = ["Finding", "KINDS", "SEVERITIES", "diagnose", "diagnose_graph", "diagnose_trace", "counts", "has_errors"]

_LAZY = {
    "KINDS": "findings",
    "SEVERITIES": "findings",
    "Finding": "findings",
    "counts": "findings",
    "merge": "findings",
    "diagnose_trace": "recorded",
    "diagnose_graph": "static",
}
"""Names of the modules above, imported when first used: the package is imported for its light modules too
(`replay`, `snapshots`, which the stores use), and the checks import the runtimes, which import the stores."""


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def diagnose(target_graph: Any = None, trace: RunRecord | None = None) -> list[Finding]:
    """Static findings for `target_graph` and recorded ones for `trace`, merged: a static suspicion the run
    confirmed appears once, with the run's step and values."""
    from .findings import merge
    from .recorded import diagnose_trace
    from .static import diagnose_graph

    found: list[Finding] = []
    target_graph = _static_graph(target_graph)
    if target_graph is not None:
        found += diagnose_graph(target_graph)
    if trace is not None:
        found += diagnose_trace(trace, target_graph)
    return merge(found)


def _static_graph(graph: Any) -> Any:
    """The graph the static checks read: its runtime's static view (a langgraph app lends an engine-shaped
    builder, as `stepscope diagnose` does; an engine graph is itself), or None when it cannot be viewed
    statically. Anything no runtime compiled (a static view already) is read as it is."""
    from debugger.runtimes.capabilities import static_view_of
    from debugger.runtimes.registry import find_runtime

    runtime = find_runtime(graph)
    return graph if runtime is None else static_view_of(runtime, graph)[0]


def has_errors(findings: list[Finding]) -> bool:
    """Some finding is an error: `stepscope diagnose` exits 1."""
    return any(f.severity == "error" for f in findings)
