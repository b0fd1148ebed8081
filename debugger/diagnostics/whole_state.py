"""Returning the whole state: a node that writes back every key it received, changing one or none.

The test compares each write with the key's value at the start of the step, which is what the node was
given: a write equal to it "echoes" the key.
"""

from __future__ import annotations

from typing import Any

from debugger.diagnostics.value_text import short
from debugger.i18n import _
from engine.trace import PUSH, TaskRecord

from .facts import INPUT_WRITERS, RunFacts, same
from .findings import Finding, Said, trace_finding
from .walk import Collecting, SeenStep, findings_of

NOTHING = ([], "", 0, None, {})
"""Values a node echoing them may simply have left alone: echoing only these is not reported."""


class WholeStateReturns(Collecting):
    """The rule: each task of a step that returned (almost) every key it received as it received it."""

    def observe(self, seen: SeenStep) -> None:
        if seen.step < 0:
            return
        for task in seen.numbered.tasks:
            if task.name in INPUT_WRITERS or (task.path and task.path[0] == PUSH) or task.error:
                continue
            if task.subgraphs or self.facts.is_subgraph_node(task.name):
                continue
            echo = _echo(self.facts, task, seen.start)
            if echo is not None:
                self.found.append(_finding(self.facts, seen.step, task, *echo))


def whole_state_returns(facts: RunFacts) -> list[Finding]:
    return findings_of(facts, WholeStateReturns(facts))


def _echo(facts: RunFacts, task: TaskRecord, start: dict[str, Any]) -> tuple[list[str], dict, list[str]] | None:
    """(the keys it received, what it wrote, the keys it wrote back unchanged) when `task` returned the state."""
    received = [k for k in facts.input_keys(task) if k in start]
    written = dict(facts.state_writes(task))
    if len(received) < 2 or not set(received) <= set(written):
        return None
    echoed = [k for k in received if same(written[k], start[k])]
    meaningful = [k for k in echoed if start[k] not in NOTHING]
    if len(echoed) < max(2, len(received) - 1) or not meaningful:
        return None
    return received, written, echoed


def _finding(
    facts: RunFacts, step: int, task: TaskRecord, received: list[str], written: dict, echoed: list[str]
) -> Finding:
    changed = [k for k in received if k not in echoed]
    explanation = _(
        "{node} returned every key it received ({keys}) in step {step}, {changing}: it returned the state "
        "rather than an update. Every key is written again: a key without a reducer then conflicts with any "
        "other node writing it in the same step (InvalidUpdateError), and a reducer key such as a list under "
        "operator.add gets its whole value added again."
    ).format(
        node=task.name,
        keys=", ".join(received),
        step=step,
        changing=_("changing only {key}").format(key=repr(changed[0])) if changed else _("changing none of them"),
    )
    update = ", ".join(f'"{k}": ...' for k in changed) or '"key_you_changed": ...'
    only_changed = (
        _("Return only the keys the node changed"),
        f"return {{{update}}}   # only what changed, not `return state`",
    )
    said = Said(_("{node} returns the whole state").format(node=task.name), explanation, [only_changed])
    evidence = tuple(
        {"key": k, "value": written[k], "text": short(written[k], 60), "unchanged": k in echoed} for k in received
    )
    return trace_finding("returns_whole_state", "warning", said, facts.scope, step, node=task.name, evidence=evidence)
