"""What a diagnostic reports: a `Finding`, the catalogue of kinds, and how findings are merged and sorted.

A finding says what is wrong (kind, severity, title), where (step, node, key, and the subgraph scope
for a nested run), why in plain words (explanation), what to change (a fix with a short code snippet,
plus alternatives) and what it saw (evidence: small JSON-able dicts with recorded values). Findings
from the graph (`source="graph"`, before running: `step` is None) and from a trace
(`source="trace"`) share kinds, so a run that confirms a static suspicion replaces it (`merge`).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any, Iterable, NamedTuple, Sequence

from debugger.i18n import N_, _

SEVERITIES = ("error", "warning", "info")
"""Most serious first. `stepscope diagnose` exits 1 when any finding is an error."""
SEVERITY_WORDS = {"error": N_("error"), "warning": N_("warning"), "info": N_("info")}
"""A finding's severity as a reader sees it (translated where it is shown)."""

KINDS: dict[str, str] = {
    "concurrent_update": N_("A key without a reducer gets two writes in one superstep (InvalidUpdateError)"),
    "returns_whole_state": N_("A node returns the whole state it received instead of an update"),
    "subgraph_duplication": N_("A subgraph node returns what it received, and the parent's reducer adds it again"),
    "read_modify_write": N_("A node writes back the old value plus its change into a reducer key"),
    "order_sensitive": N_("Parallel writes whose merged result depends on the order they are folded in"),
    "reducer_start_value": N_("A reducer that fails on its start value, or a reducer key that starts empty"),
    "reducer_failed": N_("A reducer raised while merging a step's writes"),
    "in_place_mutation": N_("A node changed the state it received instead of returning an update"),
    "empty_list_clear": N_("A node returned [] to clear an additive list, which adds nothing"),
    "committed_mismatch": N_("A committed (or checkpointed) value differs from what the step's writes fold to"),
    "damaged_data": N_("A stored checkpoint or write cannot be read back as the run made it (corrupt bytes)"),
    "stuck_loop": N_("A loop whose route reads keys that stopped changing, ended by the recursion limit"),
    "rejected_write": N_("A node wrote a value the state schema (pydantic) rejects when the next input is built"),
}
"""Every kind a finding can have, with one line on what it means (English; `_(KINDS[kind])` translates it)."""


@dataclass(frozen=True)
class Finding:
    """One problem found in a graph or in a recorded run."""

    kind: str
    """One of `KINDS`."""
    severity: str
    """`error` (wrong results or a failed run), `warning` (likely wrong, or wrong on some paths), `info`."""
    title: str
    """One line, naming the node and key."""
    explanation: str
    """Plain words: what happened (or can happen), why, and what it costs."""
    fix: str = ""
    """The main fix as a short code snippet."""
    fix_label: str = ""
    """What the snippet does, in words."""
    language: str = "python"
    """What the snippets are written in: the app's language (`python`, `javascript`)."""
    other_fixes: tuple[tuple[str, str], ...] = ()
    """Alternatives: (what to do, code snippet)."""
    step: int | None = None
    """The superstep, for findings from a trace; None before running."""
    node: str | None = None
    """The node to look at first."""
    key: str | None = None
    """The state key involved."""
    nodes: tuple[str, ...] = ()
    """Every node involved (e.g. all writers of a conflicting key)."""
    scope: tuple[str, ...] = ()
    """For a subgraph: the path of parent tasks, e.g. `("child@2",)`; empty for the root graph."""
    source: str = "trace"
    """`trace` (seen in a recorded run) or `graph` (found before running)."""
    evidence: tuple[dict[str, Any], ...] = field(default=(), compare=False)
    """What was seen: recorded values (encoded, as in the trace) with a `text` preview each."""

    def where(self) -> str:
        """`step 1 · node lookup_order · key 'v'` (with `in child@2 ›` for a subgraph)."""
        parts = []
        if self.scope:
            parts.append(_("in {scope}").format(scope=" › ".join(self.scope)))
        parts.append(_("step {step}").format(step=self.step) if self.step is not None else _("before running"))
        if self.nodes and len(self.nodes) > 1:
            parts.append(_("nodes {nodes}").format(nodes=", ".join(self.nodes)))
        elif self.node:
            parts.append(_("node {node}").format(node=self.node))
        if self.key:
            parts.append(_("key {key}").format(key=repr(self.key)))
        return " · ".join(parts)

    def identity(self) -> tuple[Any, ...]:
        return (self.kind, self.scope, self.key, self.step, self.node, tuple(sorted(self.nodes)))

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["other_fixes"] = [{"label": label, "code": code} for label, code in self.other_fixes]
        data["nodes"] = list(self.nodes)
        data["scope"] = list(self.scope)
        data["evidence"] = list(self.evidence)
        data["where"] = self.where()
        return data


Fix = tuple[str, str]
"""One way to fix a finding: (what to do, the code snippet)."""


class Said(NamedTuple):
    """What a finding says, as a rule words it: the title, the explanation and the fixes that fit, best first."""

    title: str
    explanation: str
    fixes: Sequence[Fix] = ()

    def fields(self) -> dict[str, Any]:
        """The `Finding` fields this fills: the first fix is the finding's `fix`, the rest its `other_fixes`."""
        words: dict[str, Any] = {"title": self.title, "explanation": self.explanation}
        if self.fixes:
            (label, code), *others = self.fixes
            words.update(fix_label=label, fix=code, other_fixes=tuple(others))
        return words


def graph_finding(kind: str, severity: str, said: Said, scope: tuple[str, ...], **where: Any) -> Finding:
    """A finding made before running (`source="graph"`, no step), about the graph at `scope`; `where`: its node,
    key, nodes and evidence."""
    return Finding(kind=kind, severity=severity, scope=scope, source="graph", **said.fields(), **where)


def trace_finding(kind: str, severity: str, said: Said, scope: tuple[str, ...], step: int, **where: Any) -> Finding:
    """A finding seen in step `step` of a recorded run (`source="trace"`), the run at `scope`; `where`: its node,
    key, nodes and evidence."""
    return Finding(kind=kind, severity=severity, scope=scope, step=step, **said.fields(), **where)


def sort_key(finding: Finding) -> tuple[Any, ...]:
    """Severity first, then step (findings before running first), then scope, node and key."""
    return (
        SEVERITIES.index(finding.severity),
        -2 if finding.step is None else finding.step,
        finding.scope,
        finding.node or "",
        finding.key or "",
        finding.kind,
    )


def merge(findings: Iterable[Finding]) -> list[Finding]:
    """Deduplicated and sorted. A graph finding is dropped when a trace finding of the same kind, scope
    and key already covers its nodes: the run confirmed it, with values and a step."""
    unique: dict[tuple[Any, ...], Finding] = {}
    for finding in findings:
        unique.setdefault(finding.identity(), finding)
    kept = list(unique.values())
    confirmed = [f for f in kept if f.source == "trace"]

    def covered(static: Finding) -> bool:
        involved = set(static.nodes or ([static.node] if static.node else []))
        for seen in confirmed:
            if (seen.kind, _nodes_of(seen.scope), seen.key) != (static.kind, _nodes_of(static.scope), static.key):
                continue
            if involved <= set(seen.nodes or ([seen.node] if seen.node else [])):
                return True
        return False

    kept = [f for f in kept if f.source == "trace" or not covered(f)]
    return sorted(kept, key=sort_key)


def _nodes_of(scope: tuple[str, ...]) -> tuple[str, ...]:
    """A trace scope names tasks (`child@2`); a graph scope names nodes (`child`)."""
    return tuple(part.split("@", 1)[0] for part in scope)


def counts(findings: Iterable[Finding]) -> dict[str, int]:
    totals = {severity: 0 for severity in SEVERITIES}
    for finding in findings:
        totals[finding.severity] += 1
    return totals
