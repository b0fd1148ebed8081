"""The live page's view-model: pure functions from a `LiveSnapshot` to what the page shows (the
drawing with running nodes and breakpoints, the status line, timeline rows, one step's details).
No Streamlit here; `debugger/views/live.py` renders these.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from debugger import i18n
from debugger.diagnostics.replay import Replay
from debugger.i18n import N_, _
from debugger.live.status import ASKED_STATES, RUNNING_STATES, Breakpoints, LiveSnapshot
from debugger.model.drawing import Highlight, digraph, dot_node_id
from debugger.model.failures import cut_short, is_interrupt, is_stopped
from debugger.model.present import short
from engine.draw import DrawableGraph
from engine.trace import StepRecord, Trace

BREAKPOINT_COLOUR = "#7b2cbf"
STATUS_WORDS = {
    "starting": N_("⏳ starting"),
    "running": N_("▶ running"),
    "paused": N_("⏸ paused"),
    "stopping": N_("⏹ stopping"),
    "done": N_("✅ done"),
    "error": N_("✖ failed"),
    "interrupted": N_("⏸ interrupted"),
    "recursion_limit": N_("✖ recursion limit"),
    "cancelled": N_("⏹ stopped"),
    "timeout": N_("⏱ timed out"),
}
"""A live run's state as its status line and the sidebar say it (translated where shown)."""


def drawing_of(trace: Trace | None, description: dict[str, Any] | None) -> DrawableGraph | None:
    graph = trace.graph if trace is not None and trace.graph else description
    if not graph or "drawing_flat" not in graph:
        return None
    return DrawableGraph.from_dict(graph["drawing_flat"])


def highlight(snap: LiveSnapshot, shown_step: int | None) -> Highlight:
    """While a step runs: its nodes running (⏳), done (▶), asking (⏸: an `interrupt()` waits for an
    answer) or failed (✖). At a pause: the next tasks (▷). Otherwise the step the user is looking at, as
    on the step-through page."""
    trace = snap.trace
    steps = {s.step: s for s in trace.steps} if trace is not None else {}
    visited = {t.name for s in steps.values() if s.step >= 0 for t in s.tasks if s.committed or not cut_short(t)}
    if snap.step is not None and snap.running and (shown_step is None or shown_step >= snap.step - 1):
        running = {t.name for t in snap.running if t.state in RUNNING_STATES}
        done = {t.name for t in snap.running if t.state == "done"}
        failed = {t.name for t in snap.running if t.state == "failed"}
        asked = {t.name for t in snap.running if t.state in ASKED_STATES}
        return Highlight(
            ran=done, running=running, failed=failed, paused=asked, visited=visited - running - done - failed - asked
        )
    if snap.pause is not None and (shown_step is None or shown_step >= snap.pause.step - 1):
        return Highlight(next={t.name for t in snap.pause.tasks}, visited=visited)
    record = steps.get(shown_step) if shown_step is not None else None
    if record is None:
        return Highlight(visited=visited)
    stopped = {t.name for t in record.tasks if not record.committed and cut_short(t)}  # Stop cut them short
    ran = {t.name for t in record.tasks} | (
        {c.writer_name for c in record.reducer_calls} if record.kind == "update" else set()
    )
    asked = {t.name for t in record.tasks if t.error and is_interrupt(t.error)}
    failed = {t.name for t in record.tasks if _failed(t)} | {c.writer_name for c in record.reducer_calls if c.error}
    before = {t.name for s in steps.values() if 0 <= s.step < record.step for t in s.tasks}
    return Highlight(
        ran=ran - failed - stopped - asked, failed=failed, stopped=stopped, paused=asked, visited=before - ran
    )


def _failed(task: Any) -> bool:
    """The task raised: neither the run's stop nor an `interrupt()` (which asks; it does not fail)."""
    return task.error is not None and not is_stopped(task.error) and not is_interrupt(task.error)


def live_dot(drawing: DrawableGraph, light: Highlight, breakpoints: Breakpoints) -> str:
    """DOT of the graph; nodes with a breakpoint get a double purple border and a tooltip saying which."""
    graph = digraph(drawing, highlight=light)
    for name in sorted(breakpoints.before | breakpoints.after):
        if name not in drawing.nodes:
            continue
        where = " and ".join(
            w for w, names in (("before", breakpoints.before), ("after", breakpoints.after)) if name in names
        )
        graph.node(dot_node_id(name), peripheries="2", color=BREAKPOINT_COLOUR, tooltip=f"breakpoint {where} {name}")
    return graph.source


def status_word(status: str) -> str:
    """A live run's state in the page's language: '▶ running', '✅ done'."""
    return _(STATUS_WORDS[status]) if status in STATUS_WORDS else status


def status_line(snap: LiveSnapshot) -> str:
    words = status_word(snap.status)
    if snap.step is not None and snap.running:
        parts = []
        for task in snap.running:
            took = f" {task.duration:.1f} s" if task.duration is not None else ""
            if task.state in ("running", "waiting"):
                parts.append(f"{task.name} ⏳")
            elif task.state in ASKED_STATES:
                parts.append(_("{node} ⏸ asked").format(node=task.name))
            else:
                parts.append(f"{task.name} {'✓' if task.state == 'done' else '✖'}{took}")
        return _("{status}: step {step}: {tasks}").format(status=words, step=snap.step, tasks=i18n.join_names(parts))
    if snap.pause is not None:
        return _("{status} before step {step}: {reasons}").format(
            status=words, step=snap.pause.step, reasons="; ".join(snap.pause.reasons)
        )
    return _("{status}: {message}").format(status=words, message=snap.message) if snap.message else words


def step_label(record: StepRecord) -> str:
    if record.kind == "update":
        return f"{record.step} ✎ edit"
    names = ", ".join(dict.fromkeys(t.name for t in record.tasks))
    failed = any(_failed(t) for t in record.tasks) or any(c.error for c in record.reducer_calls)
    stopped = not record.committed and any(cut_short(t) for t in record.tasks)
    asked = any(t.error and is_interrupt(t.error) for t in record.tasks)
    mark = " ✖" if failed else " ⏹" if stopped else " ⏸" if asked else ""
    return f"{record.step} {names}{mark}"


def timeline(trace: Trace | None) -> list[StepRecord]:
    """The steps worth showing, oldest first (step -1, the input, only when it changed the state)."""
    if trace is None:
        return []
    return [s for s in trace.steps if s.step >= 0 or s.reducer_calls]


@dataclass(frozen=True)
class CallRow:
    channel: str
    reducer: str
    writer: str
    before: str
    write: str
    after: str


@dataclass(frozen=True)
class StepDetail:
    step: int
    kind: str
    committed: bool
    tasks: list[dict[str, Any]]
    calls: list[CallRow]
    state_after: dict[str, Any]


def step_detail(replay: Replay, record: StepRecord) -> StepDetail:
    calls = [
        CallRow(
            c.channel,
            c.reducer,
            c.writer_name,
            short(before, 60),
            short(c.write, 60),
            "REFUSED: " + c.error["message"].splitlines()[0] if c.error else short(after, 60),
        )
        for c, before, after in replay.call_values(record.step)
    ]
    tasks = [
        {
            "node": t.name,
            "seconds": round(t.duration, 3),
            "wrote": short({c: v for c, v in t.writes if not c.startswith(("branch:", "join:"))}, 80),
            "error": f"{t.error['class']}: {t.error['message'].splitlines()[0] if t.error['message'] else ''}"
            if t.error
            else "",
        }
        for t in record.tasks
    ]
    state = replay.state_after(record.step) if record.committed else {}
    return StepDetail(record.step, record.kind, record.committed, tasks, calls, state)


def edit_hint(key: str, reducer: str, as_node: str) -> str:
    """What an edit of `key` will do, in words."""
    if reducer in ("LastValue", "AnyValue", "EphemeralValue"):
        return f"`{key}` is a plain key: your value replaces it, as if `{as_node}` had returned it."
    return (
        f"`{key}` has the reducer `{reducer}`: your value is folded in through it as `{as_node}`'s write "
        "(for `operator.add` on a list, give a list: it is appended)."
    )


def value_text(encoded: Any) -> str:
    return json.dumps(encoded, ensure_ascii=False, indent=1, default=str)


def parse_value(text: str) -> Any:
    """The value a user typed: JSON, or (when it is not JSON) the text itself as a string."""
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        return text
