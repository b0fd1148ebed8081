"""What a run's drawing marks at a step: the nodes that ran, run next, ran before (✓), failed, paused or
never finished, the edges taken into the step and the Sends each node ran; on the flat drawing, or on the
x-ray drawing where each subgraph is a cluster of its own nodes. Imports no Streamlit.

A long run's "ran before" reads its steps from both ends until every node has been seen; when some node
never ran, the app's view indexes every step once, in the background (`background.Background`).
"""

from __future__ import annotations

from functools import cached_property
from itertools import chain
from typing import TYPE_CHECKING

from debugger import i18n
from debugger.model import background as bg
from debugger.model.drawing import Highlight
from debugger.model.failures import is_interrupt
from engine import START
from engine.draw import DrawableGraph
from engine.trace import PUSH, TaskRecord

if TYPE_CHECKING:
    from debugger.model.run_view import RunView

VISITED_ENDS = 1_000
"""How many steps at each end of a long run are read for the nodes that ran before the current step (✓)."""


class Highlights:
    """The marks of one run's drawing, step by step (`RunView.highlight`, `RunView.drawn`)."""

    def __init__(self, view: RunView) -> None:
        self.view = view
        self._first_now: tuple[int, dict[str, int]] | None = None
        """(the count of steps, `first_run_positions` for them), made once."""

    def at(self, step: int) -> Highlight:
        """Ran (this step), next (the following step), visited (before), failed (culprits only), paused (asked
        with `interrupt()`: not a failure), edges taken into this step."""
        view = self.view
        index = view.steps.index(view.clamp(step)) if view.steps else 0
        tasks = view.tasks(step)
        unfinished = view.unfinished(step)
        ran = {t.name for t in tasks if t.id not in unfinished}
        culprits = view.culprits(step)
        paused = {t.name for t in tasks if t.error and is_interrupt(t.error)}
        edges = {r.edge for trigger in view.triggers(step) for r in trigger.reasons if r.edge}
        return Highlight(
            ran=ran - paused,
            next=self._next_nodes(index),
            visited=self.visited(index) - ran,
            failed={t.name for t in tasks if t.id in culprits},
            edges_taken={(START if a == START else a, b) for a, b in edges},
            labels=self._send_labels(tasks),
            stopped={t.name for t in tasks if t.id in unfinished},
            paused=paused,
        )

    def _next_nodes(self, index: int) -> set[str]:
        """The nodes of the shown step after the `index`-th; none after the last step (END is reached by the
        edge taken into it, not something that "runs next")."""
        steps = self.view.steps
        return {t.name for t in self.view.tasks(steps[index + 1])} if index + 1 < len(steps) else set()

    def _send_labels(self, tasks: list[TaskRecord]) -> dict[str, str]:
        """Under each node that ran Sends, their indexes and arguments (four at most, then how many more)."""
        sends: dict[str, list[str]] = {}
        for task in tasks:
            if task.path and task.path[0] == PUSH:
                sends.setdefault(task.name, []).append(self.view.label(task)[len(task.name) :].strip())
        return {
            name: "\n".join(items[:4]) + (f"\n… {len(items) - 4} more" if len(items) > 4 else "")
            for name, items in sends.items()
        }

    def visited(self, index: int) -> set[str]:
        """The nodes that ran in the shown steps before the `index`-th. A long run's steps are read from both
        ends until every node of the graph has been seen (a few steps, in most graphs); when some node never
        ran, the app's view indexes every step once, in the background (the steps read stand in meanwhile)."""
        view = self.view
        if len(view.steps) <= bg.LONG_RUN_STEPS:  # one pass over the run for all its steps, not one per step
            return {name for name, position in self._first_run_positions_now().items() if position < index}
        before = view.steps[:index]  # a long run's: its early steps must not wait for a pass over all of it
        every, seen = {*view.node_names, START}, set()
        for s in chain(before[:VISITED_ENDS], reversed(before[-VISITED_ENDS:])):
            seen.update(t.name for t in view.tasks(s))
            if every <= seen:
                return seen
        if len(before) <= 2 * VISITED_ENDS:  # both ends held every step before
            return seen
        first = self._first_runs.get(i18n.DEFAULT) if view.background is not None else self.first_run_positions()
        return seen if first is None else {name for name, position in first.items() if position < index}

    def _first_run_positions_now(self) -> dict[str, int]:
        """`first_run_positions`, made once for the run's steps: a window of 200 steps asked each its own
        pass, which read a stored 5,000-step run's steps 1,000,000 times (125 s at its last step)."""
        count = len(self.view.steps)
        if self._first_now is None or self._first_now[0] != count:
            self._first_now = (count, self.first_run_positions())
        return self._first_now[1]

    @cached_property
    def _first_runs(self) -> bg.Background[dict[str, int]]:
        return bg.Background(self.first_run_positions, "stepscope-visits", after=self.view.background)

    def first_run_positions(self) -> dict[str, int]:
        """Each node that ran: the position in `steps` of the first step it ran in (one pass over the steps)."""
        position = self.view.positions
        first: dict[str, int] = {}
        for record in self.view.run.steps:
            if record.step in position:
                for task in record.tasks:
                    first.setdefault(task.name, position[record.step])
        return first

    @property
    def pending(self) -> bool:
        """A long run's index of the steps its nodes first ran in is still being made in the background."""
        return "_first_runs" in self.__dict__ and self._first_runs.pending(i18n.DEFAULT)

    def _drawn_ids(self, name: str) -> set[str]:
        """The drawn nodes that stand for `name`: itself, or the members of its subgraph cluster."""
        xray = self.view.xray
        if name in xray.nodes:
            return {name}
        return {node for node in xray.nodes if node.startswith(f"{name}:")}

    def drawn(self, step: int, *, collapsed: bool = False) -> tuple[DrawableGraph, Highlight]:
        """The drawing to draw and the step's highlight on its node ids (a subgraph's members for it)."""
        view = self.view
        flat = self.at(step)
        if collapsed or view.xray is view.drawing or set(view.xray.nodes) == set(view.drawing.nodes):
            return view.drawing, flat

        def ids(names: set[str]) -> set[str]:
            return {drawn for name in names for drawn in self._drawn_ids(name)}

        edges = {
            (e.source, e.target)
            for e in view.xray.edges
            for a, b in flat.edges_taken
            if e.source in self._drawn_ids(a) and e.target in self._drawn_ids(b)
        }
        labels = {drawn: text for name, text in flat.labels.items() for drawn in self._drawn_ids(name)}
        return view.xray, Highlight(
            ran=ids(flat.ran),
            next=ids(flat.next),
            visited=ids(flat.visited),
            failed=ids(flat.failed),
            edges_taken=edges,
            labels=labels,
            stopped=ids(flat.stopped),
            paused=ids(flat.paused),
        )
