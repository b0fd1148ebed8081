"""The stepper's view model: everything the one front-end stepper (`debugger/frontend/assets/stepper.js`) shows of a
run, as JSON-able data, built once in Python for every host (the Step-through page, the one-file HTML export,
a notebook widget).

The drawing is graphviz's SVG of the run's graph, made once per drawing (the escaped DOT of
`drawing.to_dot`); a step only names the node ids to restyle and the edges taken (`report_data.step_data`),
so the browser steps without asking the server anything. A long run's steps come in windows
(`WINDOW` steps around the one shown): the first paint does not grow with the run, and a step outside the
window is asked of the host, which sends the window around it.

    model = stepper_model(TraceView(trace), Scope(), at_step=2)
    model["window"]["steps"][i]  -> {"step", "nodes", "edges", "labels", "summary", "merge", "inside", ...}
"""

from __future__ import annotations

import hashlib
import re
from typing import Any, Callable

from debugger.diagnostics.findings import SEVERITY_WORDS
from debugger.diagnostics.value_text import short
from debugger.i18n import _
from debugger.model.drawing import dot_node_id, to_dot
from debugger.model.report_data import PREVIEW, edge_ids, inside_merges, merge_rows, node_states, plain
from debugger.model.run_view import RunView
from debugger.model.step_summary import summary
from debugger.model.trace_view import Cursor, Scope, TraceView

WINDOW = 200
"""Steps a host holds at once: a longer run sends the window around the step shown."""
GRAPH_HEIGHT = 380
"""Pixels the drawing may take, so the summary and the tables stay in view on a 1280x800 screen."""
ZOOM_STRIP = 32
"""Pixels at the top of the drawing's frame for the zoom buttons, kept clear of the drawing."""
LARGE_GRAPH = 12
"""A graph with more nodes than this is fitted to the frame and shown at a readable zoom around its step."""


def labels() -> dict[str, str]:
    """Every word the stepper writes itself, in the page's language."""
    return {
        "first": _("⏮ First"),
        "prev": _("◀ Prev"),
        "next": _("Next ▶"),
        "last": _("Last ⏭"),
        "superstep": _("Superstep"),
        "fit": _("fit"),
        "fit_help": _("Fit the drawing to its frame (or double-click it)"),
        "zoom_in": _("Zoom in"),
        "zoom_out": _("Zoom out"),
        "input": _("input"),
        "at": _("Step {step} ({index} of {count})"),
        "no_steps": _("The run has no steps."),
        "loading": _("Loading this step…"),
        "legend": _(
            "▶ ran in this step · ▷ runs next · ✓ ran earlier · ✖ caused a failure · ⏸ asked (its interrupt() "
            "paused the run) · ⏹ never finished (the run stopped first) · bold edges: taken into this "
            "step · ← → Home End move · drag to pan, Ctrl+wheel or +/− to zoom"
        ),
        "merge_heading": _("Merge: every reducer call of the step, in the order applied"),
        "no_merge": _("No reducer ran in this step: nothing was written."),
        "inside_heading": _("Merges inside the step's subgraph runs"),
        "state_heading": _("State after the step"),
        "findings_heading": _("Findings at this step"),
        "no_findings": _("No finding at this step."),
        "no_findings_at_all": _("No findings."),
        "findings_kept": _("Learn mode keeps the findings back until you have guessed this step's merge."),
        "guess_below": _("Guess it in the Merge tab."),
        "col_index": "#",
        "col_key": _("key"),
        "col_reducer": _("reducer"),
        "col_writer": _("writer"),
        "col_before": _("before"),
        "col_write": _("write"),
        "col_after": _("after"),
        "col_what": _("what happened"),
        "col_inside": _("inside"),
        "col_change": _("change"),
        "col_value": _("value after the step"),
        "change_changed": _("changed"),
        "change_added": _("added"),
        "change_removed": _("removed"),
        "change_same": _("unchanged"),
    }


MARKERS = {"failed": "✖", "paused": "⏸", "running": "⏳", "stopped": "⏹", "ran": "▶", "next": "▷", "visited": "✓"}
"""A node's marker beside its colour, so a state is never told by colour alone (as `drawing.Highlight`)."""


def drawing_of(
    view: RunView, *, collapsed: bool = False, svg_of: Callable[[str], str] | None = None
) -> tuple[str, str]:
    """(the drawing's SVG, an id that changes when the drawing does): one layout for the whole run, by
    `svg_of` (the page's cached layout) or else `html_report.drawing_svg`."""
    if svg_of is None:
        from debugger.model.html_report import drawing_svg as svg_of  # graphviz, only where a drawing is made

    drawable, _ = view.drawn(view.first if view.steps else 0, collapsed=collapsed)
    dot = to_dot(drawable)
    return svg_of(dot), hashlib.sha1(dot.encode("utf-8")).hexdigest()[:16]


def frame_height(svg: str, large: bool) -> int:
    """The drawing frame's height: a small graph's natural size (the frame shrinks to it), else the cap."""
    natural = re.search(r'<svg width="[\d.]+pt" height="([\d.]+)pt"', svg)
    if large or natural is None:
        return GRAPH_HEIGHT
    return min(GRAPH_HEIGHT, int(float(natural.group(1)) * 4 / 3) + 24 + ZOOM_STRIP)


def stepper_model(
    traced: TraceView,
    scope: Scope,
    at_step: int,
    *,
    collapsed: bool = False,
    learning: bool = False,
    guessed: set[tuple[int, int]] | frozenset = frozenset(),
    window: int | None = None,
    drawing: tuple[str, str] | None = None,
    errors_tab: bool = False,
) -> dict[str, Any]:
    """The model of the run (inside `scope`) with the step `at_step` shown and the window of steps around it.
    `guessed` are the (step, call) pairs learn mode has revealed; `drawing` a `drawing_of` made before."""
    view = traced.view(scope)
    window = window or WINDOW
    steps = view.steps
    count = len(steps)
    at_step = view.clamp(at_step) if count else 0
    at = steps.index(at_step) if count else 0
    first = max(0, min(at - window // 2, count - window)) if count > window else 0
    shown = steps[first : first + window] if count > window else steps
    svg, drawing_id = drawing or drawing_of(view, collapsed=collapsed)
    large = len(view.drawing.nodes) > LARGE_GRAPH
    findings = [] if view.findings_pending else list(traced.findings if not scope.path else view.findings)
    contiguous = count > 0 and steps[-1] - steps[0] == count - 1
    return {
        "labels": labels(),
        "markers": MARKERS,
        "svg": svg,
        "drawing_id": drawing_id,
        "large": large,
        "height": frame_height(svg, large),
        "count": count,
        "numbers": {"first": steps[0]} if contiguous else list(steps),
        "at": at,
        "at_step": at_step,
        "learn": learning,
        "findings": [finding_data(f) for f in findings],
        "marked": []
        if learning
        else sorted({f.step for f in findings if f.step in view.by_step and (scope.path or not f.scope)}),
        "window": {
            "offset": first,
            "steps": [
                step_model(traced, view, scope, step, findings, collapsed, learning, guessed, errors_tab)
                for step in shown
            ],
        },
    }


def finding_data(finding: Any) -> dict[str, Any]:
    return {
        "severity": _(SEVERITY_WORDS.get(finding.severity, finding.severity)),
        "title": finding.title,
        "where": finding.where(),
        "step": finding.step,
        "explanation": finding.explanation,
        "fix": finding.fix,
    }


def step_model(
    traced: TraceView,
    view: RunView,
    scope: Scope,
    step: int,
    findings: list[Any],
    collapsed: bool,
    learning: bool,
    guessed: set[tuple[int, int]] | frozenset,
    errors_tab: bool = False,
) -> dict[str, Any]:
    """One superstep: what to highlight, the summary, the merge (and those of its subgraph runs), the state
    after it and its findings. In learn mode the calls not yet guessed keep their results back."""
    drawable, highlight = view.drawn(step, collapsed=collapsed)
    merge = merge_rows(view, step)
    revealed = 0
    while learning and (step, revealed) in guessed:
        revealed += 1
    for row in merge:
        row["guessed"] = (step, row["index"]) in guessed
    cursor = Cursor(scope, step=step, call=revealed if learning else None)
    return {
        "step": step,
        "nodes": node_states(highlight),
        "edges": edge_ids(drawable, highlight.edges_taken),
        "labels": {dot_node_id(name): text for name, text in sorted(highlight.labels.items())},
        "summary": [
            [line.kind, plain(line.text)] for line in summary(view, cursor, learning=learning, errors_tab=errors_tab)
        ],
        "merge": merge,
        "inside": inside_merges(traced, view.run, scope, step),
        "state": [
            [entry.key, entry.kind, short(entry.after if entry.kind != "removed" else entry.before, PREVIEW)]
            for entry in view.diff(step)
        ],
        "findings": [index for index, f in enumerate(findings) if f.step == step and (scope.path or not f.scope)],
    }
