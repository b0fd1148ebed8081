"""What the one-file HTML report of a run shows at each superstep, as JSON-able data (`html_report.py`
writes the page around it): which drawn nodes and edges to highlight, the step summary as plain text,
every reducer call of the merge, the state after the step, and the findings.

The drawing is made once for the whole run; a step only names the node ids (`drawing.dot_node_id`) and
edge ids (`drawing.digraph`'s `edge_<a>-to-<b>`) to restyle, so a 1,000-step run costs 1,000 short lists,
not 1,000 drawings. Values are previews (`short`), already text: the page sets them as text, never as HTML.
"""

from __future__ import annotations

import re
from typing import Any

from debugger.diagnostics.value_text import short
from debugger.i18n import _
from debugger.model.drawing import Highlight, dot_node_id
from debugger.model.run_view import RunView
from debugger.model.step_summary import summary
from debugger.model.trace_view import Cursor, Scope, TraceView
from engine.draw import DrawableGraph
from engine.trace import RunRecord, Trace

PREVIEW = 240
"""Characters of a value's preview in the report (the state, a write, a reducer's result)."""

_CODE_SPAN = re.compile(r"(`+)(.*?)\1", re.DOTALL)
_ESCAPED = re.compile(r"\\([!-/:-@\[-`{-~])")


def plain(markdown: str) -> str:
    """A step summary line (Markdown made by `present.md`/`code`) as the text it shows: code spans keep their
    characters, outside them emphasis marks go and backslash escapes are undone."""
    parts, last = [], 0
    for span in _CODE_SPAN.finditer(markdown):
        parts.append(_unmarked(markdown[last : span.start()]))
        parts.append(span.group(2))
        last = span.end()
    parts.append(_unmarked(markdown[last:]))
    return "".join(parts).replace("\u2060", "")


def _unmarked(text: str) -> str:
    held: list[str] = []

    def hold(match: re.Match[str]) -> str:  # escaped characters are data: keep them out of the emphasis pass
        held.append(match.group(1))
        return f"\0{len(held) - 1}\0"

    text = _ESCAPED.sub(hold, text).replace("**", "")
    return re.sub(r"\0(\d+)\0", lambda m: held[int(m.group(1))], text)


def edge_ids(drawable: DrawableGraph, taken: set[tuple[str, str]]) -> list[str]:
    """The SVG ids `drawing.digraph` gives the taken edges (a repeated pair's second edge is `...-2`)."""
    counts: dict[str, int] = {}
    ids = []
    for edge in drawable.edges:
        base = f"edge_{dot_node_id(edge.source)[5:]}-to-{dot_node_id(edge.target)[5:]}"
        counts[base] = counts.get(base, 0) + 1
        if (edge.source, edge.target) in taken:
            ids.append(base + (f"-{counts[base]}" if counts[base] > 1 else ""))
    return ids


def node_states(highlight: Highlight) -> dict[str, str]:
    """Drawn node id (`node_<name>`) to its state, for the nodes that are not idle."""
    names = highlight.ran | highlight.next | highlight.visited | highlight.failed | highlight.stopped | highlight.paused
    return {dot_node_id(name): highlight.state_of(name) for name in sorted(names)}


def report_data(trace: Trace, graph: Any = None) -> dict[str, Any]:
    """The report's data: the run's heading, the findings, and one entry per superstep (`step_data`)."""
    traced = TraceView(trace, graph)
    findings = traced.findings
    view = traced.view(Scope())
    return {
        "title": f"{trace.graph.get('name') or 'run'} · {trace.target or trace.run_id[:12] or 'a recorded run'}",
        "status": trace.status,
        "error": f"{trace.error.get('class')}: {trace.error.get('message')}" if trace.error else "",
        "findings": [
            {
                "severity": f.severity,
                "title": f.title,
                "where": f.where(),
                "step": f.step,
                "explanation": f.explanation,
                "fix": f.fix,
            }
            for f in findings
        ],
        "steps": [step_data(traced, view, step, findings) for step in view.steps],
    }


def step_data(traced: TraceView, view: RunView, step: int, findings: list[Any]) -> dict[str, Any]:
    """One superstep: what to highlight, the summary, the merge (and those of its subgraph runs), the
    state after it and its findings."""
    drawable, highlight = view.drawn(step)
    return {
        "step": step,
        "nodes": node_states(highlight),
        "edges": edge_ids(drawable, highlight.edges_taken),
        "summary": [[line.kind, plain(line.text)] for line in summary(view, Cursor(step=step))],
        "merge": merge_rows(view, step),
        "inside": inside_merges(traced, view.run, Scope(), step),
        "state": [
            [entry.key, entry.kind, short(entry.after if entry.kind != "removed" else entry.before, PREVIEW)]
            for entry in view.diff(step)
        ],
        "findings": [index for index, f in enumerate(findings) if f.step == step and not f.scope],
    }


def merge_rows(view: RunView, step: int) -> list[dict[str, Any]]:
    """The step's reducer calls in the order applied, each as the report's table shows it."""
    return [
        {
            "index": m.call.index,
            "channel": m.call.channel,
            "reducer": m.call.reducer,
            "writer": m.writer,
            "before": short(m.before, PREVIEW),
            "write": short(m.call.write, PREVIEW),
            "after": short(m.after, PREVIEW),
            "sentence": m.sentence,
            "refused": m.call.error is not None,
            "applied": m.applied,
            "repeated": list(m.duplicated),
        }
        for m in view.merge(step)
    ]


def inside_merges(traced: TraceView, run: RunRecord, scope: Scope, step: int) -> list[dict[str, Any]]:
    """The merges of the subgraph runs started in `step` (and of theirs): `{"where": "child (step 2) ›
    step 1", "merge": [...]}` per nested step that folded something."""
    found = []
    for task, index, _run in traced.view(scope).subgraph_runs(step):
        inner = scope.enter(step, task.id, index)
        view = traced.view(inner)
        where = " › ".join(traced.breadcrumbs(inner)[1:])
        for nested in view.steps:
            rows = merge_rows(view, nested)
            if rows:
                found.append({"where": _("{where} › step {step}").format(where=where, step=nested), "merge": rows})
            found.extend(inside_merges(traced, view.run, inner, nested))
    return found
