"""A write the state schema rejected: a pydantic (or similar) state validates the state when the next
node's input is built, so the error is raised before that node runs, in no task at all, and names a
field, not the node that wrote the bad value. This check names it: the last task that wrote the field.

The run's error is the schema's own message (`1 validation error for State\\ncount\\n  Input should be a
valid integer ...`): the field names are its unindented lines after the first.
"""

from __future__ import annotations

from typing import Any

from debugger.diagnostics.value_text import short
from debugger.i18n import _

from .facts import INPUT_WRITERS, RunFacts
from .findings import Finding, Said, trace_finding
from .walk import Collecting

VALIDATION_ERRORS = ("ValidationError",)
"""Error classes a state schema raises on a value it rejects (pydantic's)."""


class RejectedWrites(Collecting):
    """The rule, decided at the end: the run's error names the fields, and the latest writes of them are read
    back from the run's last steps."""

    def finish(self) -> list[Finding]:
        return rejected_writes(self.facts)


def rejected_writes(facts: RunFacts) -> list[Finding]:
    """One finding per field the schema rejected, at the step whose task wrote the rejected value."""
    error = facts.run.error or {}
    if facts.run.status != "error" or error.get("class") not in VALIDATION_ERRORS:
        return []
    found = []
    for key, problem in rejected_fields(error.get("message", "")):
        written = last_write(facts, key)
        if written is not None:
            schema = error["message"].splitlines()[0].rpartition(" for ")[2] or _("the state schema")
            found.append(_rejected(facts, key, problem, schema, *written))
    return found


def _rejected(facts: RunFacts, key: str, problem: str, schema: str, step: int, node: str, value: Any) -> Finding:
    return trace_finding(
        "rejected_write",
        "error",
        Said(
            _("{node} wrote {key} = {value}, which {schema} rejects").format(
                node=node, key=key, value=short(value, 30), schema=schema
            ),
            _(
                "{node} returned {key} = {value} in step {step}. The barrier stored it (a state key "
                "takes any value), but {schema} validates the state when the next node's input is built, "
                "and it refused the value: {problem}. So the run failed before the next step, in no node "
                "of its own: the value came from {node}."
            ).format(node=node, key=key, value=short(value, 60), step=step, schema=schema, problem=problem),
            [
                (
                    _("Make {node} return a value {schema} accepts").format(node=node, schema=schema),
                    f'return {{"{key}": ...}}   # a value of the type {schema} declares for {key!r}',
                )
            ],
        ),
        facts.scope,
        step,
        node=node,
        key=key,
        evidence=({"node": node, "key": key, "value": value, "text": short(value, 60)},),
    )


def rejected_fields(message: str) -> list[tuple[str, str]]:
    """(field, what was wrong) for each field a pydantic validation message lists."""
    lines = message.splitlines()[1:]
    fields = []
    for index, line in enumerate(lines):
        if line and not line.startswith(" "):
            detail = lines[index + 1].strip() if index + 1 < len(lines) else ""
            fields.append((line.strip().split(".")[0], detail.split(" [type=")[0]))
    return fields


def last_write(facts: RunFacts, key: str) -> tuple[int, str, Any] | None:
    """(step, node, value) of the latest write of `key` by a node (the input is not a node)."""
    for step in reversed(facts.order):
        record = facts.steps[step]
        for call in reversed(record.reducer_calls):
            if call.channel == key and call.writer_name not in INPUT_WRITERS:
                return step, call.writer_name, call.write
    return None


def rejection_note(run: Any, step: int) -> str:
    """The error of `step` in one line when the schema rejected what its tasks wrote (`ValidationError:
    bad wrote count = 'lots', which State rejects`); "" otherwise. For tables of steps whose tasks raised
    nothing."""
    facts = RunFacts(run, ())
    if step not in facts.steps:
        return ""
    return next((f"ValidationError: {f.title}" for f in rejected_writes(facts) if f.step == step), "")
