"""Findings as text (grouped by severity, for `stepscope diagnose`) and as JSON-able data (`--json`)."""

from __future__ import annotations

import textwrap
from typing import Any, Iterable

from debugger.diagnostics.findings import SEVERITIES, Finding, counts
from debugger.diagnostics.value_text import one_line
from debugger.i18n import _

WIDTH = 100
MAX_EVIDENCE = 6


def render(findings: list[Finding], subject: str, status: str | None = None) -> str:
    """Every finding with its location, explanation, evidence and fix, errors first."""
    totals = counts(findings)
    ran = _(" (run status: {status})").format(status=status) if status else ""
    if not findings:
        return _("{subject}{ran}: no findings.").format(subject=subject, ran=ran)
    summary = ", ".join(f"{n} {severity}{'s' if n != 1 else ''}" for severity, n in totals.items() if n)
    lines = [f"{subject}{ran}: {summary}"]
    for severity in SEVERITIES:
        group = [f for f in findings if f.severity == severity]
        if not group:
            continue
        lines += ["", f"{severity.upper()}S ({len(group)})" if len(group) != 1 else severity.upper()]
        for finding in group:
            lines += _finding_lines(finding)
    return "\n".join(map(one_line, lines))  # a name or value holding a newline cannot start a line


def _finding_lines(finding: Finding) -> list[str]:
    lines = [f"  [{finding.kind}] {finding.title}", "    " + _("where: {where}").format(where=finding.where())]
    lines += textwrap.wrap(one_line(finding.explanation), WIDTH, initial_indent="    ", subsequent_indent="    ")
    shown = [one_line(text) for text in map(evidence_line, finding.evidence) if text][:MAX_EVIDENCE]
    if shown:
        lines.append("    " + _("seen:"))
        lines += [
            textwrap.shorten(text, WIDTH + 20, placeholder=" …", initial_indent="      - ")
            if len(text) > WIDTH + 14
            else f"      - {text}"
            for text in shown
        ]
    if finding.fix:
        lines.append("    " + (_("fix: {fix}").format(fix=finding.fix_label) if finding.fix_label else _("fix:")))
        lines += _code(finding.fix)
    for label, code in finding.other_fixes:
        lines.append("    " + _("or: {fix}").format(fix=label))
        lines += _code(code)
    lines.append("")
    return lines


def _code(snippet: str) -> list[str]:
    return [f"        {line}" if line else "" for line in snippet.splitlines()]


def evidence_line(item: dict[str, Any]) -> str:
    """One evidence entry in words; each check's entries have their own keys."""
    if "node" in item and "why" in item and "text" in item:
        return f"{item['node']} wrote {item['text']}"  # why it ran is in the explanation
    if "item" in item and "origin" in item:
        count = f", now {item['count_after']}×" if item.get("count_after") else ""
        return f"{item['text']}: {item['origin']}{count}"
    if "node" in item and "item" in item:
        return f"lost {item['text']} from {item['node']}"
    if "order" in item:
        label = "as recorded" if item.get("recorded") else "in another order"
        return f"{', then '.join(item['order'])} → {item['text']} ({label})"
    if "value_read" in item:
        return f"step {item['step']}: read {item['value_read']}, wrote {item['wrote']}"
    if "why" in item:
        return item["why"]
    if "key" in item and "text" in item:
        return f"{item['key']} = {item['text']}" + (" (unchanged)" if item.get("unchanged") else "")
    if "text" in item:
        return str(item["text"])
    if "error" in item:
        return str(item["error"])
    if "line" in item:
        return f"line {item['line']}" + (f": {item['how']}" if item.get("how") else "")
    if "default" in item:
        return f"declared default {item['default']}"
    return ""


def to_data(findings: Iterable[Finding], subject: str, status: str | None = None) -> dict[str, Any]:
    """The findings as `stepscope diagnose --json` prints them: subject, run status, counts, each finding."""
    findings = list(findings)
    return {
        "subject": subject,
        "status": status,
        "counts": counts(findings),
        "findings": [f.to_dict() for f in findings],
    }
