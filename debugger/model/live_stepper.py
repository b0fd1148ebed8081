"""The Live run page's stepper model: the model the Step-through page sends (`stepper_data`), for the steps a
live run has recorded so far, plus the superstep running now (its tasks ⏳ running, ▶ done, ⏸ asking, ✖
failed) and a note under each node with a breakpoint. No Streamlit here; `debugger/views/live.py` hosts it.

A recorded step's model does not change once a later step is recorded, so each is built once per run and
language and kept (`LiveModels`): a new step costs one step's model, not the run's. The newest recorded step
is built again whenever the run moves (what it triggers next is known only once the next step is planned).

    models = LiveModels()
    model = models.model(snap, graph, at_step=None, svg_of=svg)  # at_step None: the newest step
"""

from __future__ import annotations

from typing import Any, Callable

from debugger import i18n
from debugger.i18n import _
from debugger.live.status import ASKED_STATES, RUNNING_STATES, Breakpoints, LiveSnapshot
from debugger.model import stepper_data
from debugger.model.drawing import dot_node_id
from debugger.model.stepper_data import MARKERS, drawing_of, finding_data, frame_height, labels, step_model
from debugger.model.stepper_windows import window_start
from debugger.model.trace_view import Scope, TraceView

__all__ = ["LiveModels", "legend"]

KEPT_STEPS = 4 * stepper_data.WINDOW
"""Step models kept per run and language; a longer run builds a step again when the user goes back to it."""


def legend() -> str:
    """What the drawing's marks mean on the Live run page (the stepper's own, with a run's ⏳ and breakpoints)."""
    return _(
        "⏳ running now · ▶ ran in this step · ▷ runs next · ✓ ran earlier · ✖ caused a failure · ⏸ asked (its "
        "interrupt() waits for an answer) · ⏹ never finished (stopped) · “breakpoint” under a node: the run "
        "pauses there · ← → Home End move · drag to pan, Ctrl+wheel or +/− to zoom"
    )


class LiveModels:
    """The stepper models of one live run, kept while it grows (one `LiveModels` per run on a page)."""

    def __init__(self, run_id: str) -> None:
        self.run_id = run_id
        self._trace_key: tuple | None = None
        self._traced: TraceView | None = None
        self._drawing: tuple[str, str] | None = None
        self._steps: dict[tuple[str, int], dict[str, Any]] = {}
        self.built = 0
        """Step models built so far (a test counts them: a new step builds one, not the run's)."""

    def model(
        self, snap: LiveSnapshot, graph: Any, at_step: int | None, *, svg_of: Callable[[str], str] | None = None
    ) -> dict[str, Any] | None:
        """The stepper's model of `snap` at `at_step` (None: the newest step, the one running now included);
        None while nothing is recorded. `svg_of` lays the drawing out (the page's cached graphviz call)."""
        if snap.trace is None:
            return None
        traced = self._traced_of(snap, graph)
        view = traced.view(Scope())
        recorded = list(view.steps)
        running = running_step(snap, recorded)
        numbers = recorded + ([running["step"]] if running else [])
        if not numbers:
            return None
        shown = numbers[-1] if at_step is None else min(numbers, key=lambda s: abs(s - at_step))
        index = numbers.index(shown)
        first = window_start(index, len(numbers), stepper_data.WINDOW)
        steps = [
            running if running and n == running["step"] else self._step(traced, view, n, recorded[-1])
            for n in numbers[first : first + stepper_data.WINDOW]
        ]
        findings = traced.findings if snap.finished else None
        _mark(steps, snap, findings or [], view.drawing.nodes, recorded[-1] if recorded else None)
        return {
            **self._frame(view, svg_of),
            "count": len(numbers),
            "numbers": numbers,
            "at": index,
            "at_step": shown,
            "learn": False,
            "findings": None if findings is None else [finding_data(f) for f in findings],
            "marked": sorted({f.step for f in findings or () if f.step in recorded and not f.scope}),
            "window": {"offset": first, "steps": steps},
            "live": True,
        }

    def _traced_of(self, snap: LiveSnapshot, graph: Any) -> TraceView:
        """One `TraceView` per state of the recording: a new one when a step is added or the run ends."""
        steps = snap.trace.steps
        key = (len(steps), steps[-1].committed if steps else None, snap.finished)
        if self._traced is None or key != self._trace_key:
            self._traced, self._trace_key = TraceView(snap.trace, graph), key
        return self._traced

    def _frame(self, view: Any, svg_of: Callable[[str], str] | None) -> dict[str, Any]:
        """What every step shares: the words, the drawing (laid out once a run) and its frame."""
        if self._drawing is None or not self._drawing[0]:  # a drawing that could not be made is tried again
            self._drawing = drawing_of(view, svg_of=svg_of)
        svg, drawing_id = self._drawing
        large = len(view.drawing.nodes) > stepper_data.LARGE_GRAPH
        words = {**labels(), "legend": legend()}
        return {
            "labels": words,
            "markers": MARKERS,
            "svg": svg,
            "drawing_id": f"{drawing_id}-{self.run_id}",  # another run of the same graph starts the stepper anew
            "large": large,
            "height": frame_height(svg, large),
        }

    def _step(self, traced: TraceView, view: Any, step: int, newest: int) -> dict[str, Any]:
        """A recorded step's model: kept, except the newest one's (what it triggers next may change)."""
        key = (i18n.current(), step)
        kept = self._steps.get(key)
        if kept is not None:
            return kept
        built = step_model(traced, view, Scope(), step, [], False, False, frozenset())
        self.built += 1
        if step != newest:  # the newest is built again: the next step, once recorded, says what it triggered
            self._steps[key] = built
            while len(self._steps) > KEPT_STEPS:
                self._steps.pop(next(iter(self._steps)))
        return built


def running_step(snap: LiveSnapshot, recorded: list[int]) -> dict[str, Any] | None:
    """The superstep running now as a step of the stepper: its tasks' states, the nodes that ran before ✓."""
    if snap.step is None or not snap.running or (recorded and snap.step <= recorded[-1]):
        return None
    ran_before = {t.name for s in snap.trace.steps if 0 <= s.step < snap.step for t in s.tasks}
    states = {name: "visited" for name in ran_before}
    lines = []
    for task in snap.running:
        state = _running_state(task.state)
        states[task.name] = state
        lines.append(["bullet", _running_line(task, state)])
    asking = "paused" in states.values()
    heading = _("Step {step} waits for an answer") if asking else _("Step {step} is running")
    return {
        "step": snap.step,
        "nodes": {dot_node_id(name): state for name, state in sorted(states.items())},
        "edges": [],
        "labels": {},
        "panels": False,  # nothing merged yet: no merge or state table to show
        "summary": [["heading", heading.format(step=snap.step)], *lines],
        "merge": [],
        "inside": [],
        "state": [],
        "findings": [],
    }


def _running_state(task_state: str) -> str:
    if task_state in RUNNING_STATES:
        return "running"
    if task_state in ASKED_STATES:
        return "paused"
    return "ran" if task_state == "done" else "failed"


def _running_line(task: Any, state: str) -> str:
    took = task.duration if task.duration is not None else 0.0
    if state == "running":
        return _("{node} ⏳ running").format(node=task.name)
    if state == "paused":
        return _("{node} ⏸ asked: its interrupt() waits for an answer").format(node=task.name)
    if state == "ran":
        return _("{node} ✓ done in {seconds:.1f} s").format(node=task.name, seconds=took)
    return _("{node} ✖ failed after {seconds:.1f} s").format(node=task.name, seconds=took)


def _mark(steps: list[dict], snap: LiveSnapshot, findings: list, nodes: Any, newest: int | None) -> None:
    """Adds to the steps' models (copies: the kept ones stay as built) what only the run knows now: the
    nodes with a breakpoint, at a pause the tasks about to run (▷), and the finished run's findings."""
    notes = _breakpoint_notes(snap.breakpoints, nodes)
    upcoming = {dot_node_id(t.name) for t in snap.pause.tasks} if snap.pause is not None else set()
    for index, step in enumerate(steps):
        marked = {**step, "labels": {**notes, **step["labels"]}}
        if step["step"] == newest and snap.trace.status == "running":  # "Next: unknown" in its summary
            marked["summary"] = [*step["summary"][:-1], ["text", _next_line(snap)]]
        if upcoming and step["step"] == newest:
            marked["nodes"] = {**step["nodes"], **{n: "next" for n in upcoming if step["nodes"].get(n) != "ran"}}
        if findings:
            marked["findings"] = [i for i, f in enumerate(findings) if f.step == step["step"] and not f.scope]
        steps[index] = marked


def _next_line(snap: LiveSnapshot) -> str:
    """What comes after the newest recorded step of a run still going (the trace alone cannot say)."""
    if snap.step is not None and snap.running:
        return _("Next: step {step}, running now.").format(step=snap.step)
    if snap.pause is None:
        return _("Next: the run goes on.")
    if snap.pause.interrupts:
        return _("Next: your answer, then {node} runs again.").format(node=snap.pause.tasks[0].name)
    if not snap.pause.tasks:
        return _("Next: nothing left to run; Continue ends the run.")
    names = i18n.join_names(dict.fromkeys(t.name for t in snap.pause.tasks))
    return _("Next: {nodes} in step {step}, when you press Step or Continue.").format(nodes=names, step=snap.pause.step)


def _breakpoint_notes(breakpoints: Breakpoints, nodes: Any) -> dict[str, str]:
    """A note under each node with a breakpoint, in the page's language."""
    notes = {}
    for name in sorted((breakpoints.before | breakpoints.after) & set(nodes)):
        if name in breakpoints.before and name in breakpoints.after:
            notes[dot_node_id(name)] = _("breakpoint before and after")
        elif name in breakpoints.before:
            notes[dot_node_id(name)] = _("breakpoint before")
        else:
            notes[dot_node_id(name)] = _("breakpoint after")
    return notes
