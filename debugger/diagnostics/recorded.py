"""Diagnostics after running: `diagnose_trace(trace, graph=None)` checks the recorded facts of a run and
of every subgraph run nested in it. Pure: it reads the Trace and never runs a node; the live graph,
when given, only lends its reducers to the order-sensitivity re-folds.
"""

from __future__ import annotations

from typing import Any

from debugger.runtimes.registry import runtime_of_trace
from engine.trace import RunRecord

from .conflicts import concurrent_updates
from .facts import runs
from .findings import Finding
from .javascript import in_javascript
from .loops import stuck_loops
from .mismatch import recorded_mismatches
from .mutation import in_place_mutations
from .order import order_sensitivity
from .start import reducer_errors
from .validation import rejected_writes
from .writes import list_writes, whole_state_returns

CHECKS = (
    concurrent_updates,
    reducer_errors,
    in_place_mutations,
    list_writes,
    whole_state_returns,
    order_sensitivity,
    recorded_mismatches,
    rejected_writes,
    stuck_loops,
)
"""Each takes one run's `RunFacts` and returns its findings."""


def diagnose_trace(trace: RunRecord, graph: Any = None) -> list[Finding]:
    """Every check over the run and its subgraph runs; the fixes in the language the app is written in."""
    found: list[Finding] = []
    for facts in runs(trace, graph):
        for check in CHECKS:
            found.extend(check(facts))
    raced = {(f.scope, f.step, f.key) for f in found if f.kind == "read_modify_write" and len(f.nodes) > 1}
    # a lost update already says the result depends on which write came last
    found = [f for f in found if not (f.kind == "order_sensitive" and (f.scope, f.step, f.key) in raced)]
    if runtime_of_trace(trace).language == "javascript":  # type: ignore[arg-type]
        found = [in_javascript(f) for f in found]
    return found
