"""Diagnostics after running: `diagnose_trace(trace, graph=None)` checks the recorded facts of a run and
of every subgraph run nested in it. Pure: it reads the Trace and never runs a node; the live graph,
when given, only lends its reducers to the order-sensitivity re-folds.

Every rule watches one walk over the run's steps (`walk.py`): each step is read once, however many rules
there are, and a long run's steps are never all in memory.
"""

from __future__ import annotations

from typing import Any

from debugger.runtimes.registry import runtime_of_trace
from engine.trace import RunRecord

from .conflicts import ConcurrentUpdates
from .facts import RunFacts, scope_label, subgraph_of
from .findings import Finding
from .javascript import in_javascript
from .loops import StuckLoops
from .mismatch import RecordedMismatches
from .mutation import InPlaceMutations
from .order import OrderSensitivity
from .start import ReducerErrors
from .validation import RejectedWrites
from .walk import Collecting, SeenStep, walk
from .whole_state import WholeStateReturns
from .writes import ListWrites

RULES = (
    ConcurrentUpdates,
    ReducerErrors,
    InPlaceMutations,
    ListWrites,
    WholeStateReturns,
    OrderSensitivity,
    RecordedMismatches,
    RejectedWrites,
    StuckLoops,
)
"""Each is made for one run's `RunFacts`, watches its steps and gives its findings; in the order findings are
listed."""


def diagnose_trace(trace: RunRecord, graph: Any = None) -> list[Finding]:
    """Every check over the run and its subgraph runs; the fixes in the language the app is written in."""
    found = _diagnose_run(RunFacts(trace, (), graph))
    raced = {(f.scope, f.step, f.key) for f in found if f.kind == "read_modify_write" and len(f.nodes) > 1}
    # a lost update already says the result depends on which write came last
    found = [f for f in found if not (f.kind == "order_sensitive" and (f.scope, f.step, f.key) in raced)]
    if runtime_of_trace(trace).language == "javascript":  # type: ignore[arg-type]
        found = [in_javascript(f) for f in found]
    return found


def _diagnose_run(facts: RunFacts) -> list[Finding]:
    """The run's findings, then those of each subgraph run nested in it, depth first (as `facts.runs` lists them)."""
    rules = [rule(facts) for rule in RULES]
    nested = NestedRuns(facts)
    walk(facts, [*rules, nested])
    found = [finding for rule in rules for finding in rule.finish()]
    for child in nested.runs:
        found += _diagnose_run(child)
    return found


class NestedRuns(Collecting):
    """The subgraph runs recorded in the run's tasks, in order, each with its scope and graph."""

    def __init__(self, facts: RunFacts) -> None:
        super().__init__(facts)
        self.runs: list[RunFacts] = []

    def observe(self, seen: SeenStep) -> None:
        facts = self.facts
        for task in seen.record.tasks:
            for index, run in enumerate(task.subgraphs):
                scope = (*facts.scope, scope_label(task.name, seen.step, index))
                self.runs.append(RunFacts(run, scope, subgraph_of(facts.graph, task.name)))
