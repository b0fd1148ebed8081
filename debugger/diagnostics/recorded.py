"""Diagnostics after running: `diagnose_trace(trace, graph=None)` checks the recorded facts of a run and
of every subgraph run nested in it. Pure: it reads the Trace and never runs a node; the live graph,
when given, only lends its reducers to the order-sensitivity re-folds.
"""

from __future__ import annotations

from typing import Any

from engine.trace import RunRecord

from .conflicts import concurrent_updates
from .facts import runs
from .findings import Finding
from .mutation import in_place_mutations
from .order import order_sensitivity
from .start import reducer_errors
from .writes import list_writes, whole_state_returns

def recording_mismatches(facts: Any) -> list[Finding]:
    """Steps whose recorded reducer calls do not fold to the state langgraph committed (recorded by
    `debugger.langgraph_recorder`): the trace cannot be trusted there, so it is said, never smoothed over."""
    from debugger.present import short

    found = []
    for step in facts.run.steps:
        for item in step.mismatches:
            key = item.get("channel")
            found.append(Finding(
                kind="recording_mismatch", severity="error", title=f"Step {step.step}: the recorded merge of {key!r} "
                f"differs from what langgraph committed",
                explanation=(f"Folding the recorded writes to {key!r} in step {step.step} gives "
                             f"{short(item.get('recorded'), 60)}, but langgraph committed {short(item.get('committed'), 60)}. "
                             "The reducer calls shown for this step are not what happened: a reducer with side effects "
                             "(one that changes its arguments or depends on outside state) or a channel kind StepScope "
                             "does not know. The committed value is what your app saw next."),
                fix=f"def reducer(old, new):\n    return old + new   # return a new value; never change old or new",
                fix_label="Make the reducer a pure function of its two arguments",
                step=step.step, key=key, scope=facts.scope,
                evidence=({"recorded": item.get("recorded"), "committed": item.get("committed")},),
            ))
    return found


CHECKS = (concurrent_updates, reducer_errors, in_place_mutations, list_writes, whole_state_returns, order_sensitivity,
          recording_mismatches)
"""Each takes one run's `RunFacts` and returns its findings."""


def diagnose_trace(trace: RunRecord, graph: Any = None) -> list[Finding]:
    found: list[Finding] = []
    for facts in runs(trace, graph):
        for check in CHECKS:
            found.extend(check(facts))
    raced = {(f.scope, f.step, f.key) for f in found if f.kind == "read_modify_write" and len(f.nodes) > 1}
    # a lost update already says the result depends on which write came last
    return [f for f in found if not (f.kind == "order_sensitive" and (f.scope, f.step, f.key) in raced)]
