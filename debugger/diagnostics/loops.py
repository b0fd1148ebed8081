"""A loop that does not stop: a run ended by its recursion limit (or stopped after many rounds of one
cycle), told as the cycle's nodes, the route that sends the run round again, the keys that route reads,
and which of them stopped changing and since which step.

The cycle is read off the run itself: the shortest sequence of steps (by the nodes each ran) that the
end of the run repeats. A route is a conditional edge out of a node of the cycle back into it; the keys
it reads come from its source where the graph is known (a Python app), or from what the route read as it
ran (a LangGraph.js run's recorder notes it on the branch), else every key of the state is looked at (a
trace opened without its graph). A key "stopped changing" when no
step of the repeated part changed its value: a plain key written the same value every round (`{"attempts":
1}` meaning "one more"), or a key no node of the cycle writes at all.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass
from typing import Any

from debugger.diagnostics.value_text import short
from debugger.i18n import _, ngettext

from .facts import INPUT_WRITERS, RunFacts, names
from .findings import Finding, Fix, Said, trace_finding
from .source import keys_read
from .walk import Collecting, SeenStep, findings_of, walk

LONGEST_CYCLE = 8
"""The most steps one round of a loop may take to be found as a cycle."""
ROUNDS_AT_THE_LIMIT = 3
"""A run ended by its recursion limit: a cycle repeated this often is the loop that hit it."""
ROUNDS_WHEN_STOPPED = 10
"""A run stopped from outside (a timeout, a cancel, cut off): only a cycle repeated this often is told."""
STOPPED = ("timeout", "cancelled", "cut_off")


@dataclass(frozen=True)
class Cycle:
    nodes: tuple[str, ...]
    """The cycle's nodes in the order one round runs them."""
    first_step: int
    """The first step of the repeated part of the run."""
    rounds: int
    last_step: int
    quiet_from: int
    """The first step of the last two rounds: a key not changed from here on has stopped changing."""


class StuckLoops(Collecting):
    """The rule: a run ended by its recursion limit (or stopped from outside) whose end repeats a cycle; told
    at the end from what the walk kept (`CycleFinder`, `Changes`), in memory that does not grow with the run."""

    def __init__(self, facts: RunFacts) -> None:
        super().__init__(facts)
        run = facts.run
        self.at_limit = run.status == "recursion_limit" or (run.error or {}).get("class") == "GraphRecursionError"
        self.active = self.at_limit or run.status in STOPPED
        self.cycles = CycleFinder()
        self.changes = Changes()

    def observe(self, seen: SeenStep) -> None:
        if self.active:
            self.cycles.observe(seen)
            self.changes.observe(seen)

    def finish(self) -> list[Finding]:
        if not self.active:
            return []
        cycle = self.cycles.cycle(ROUNDS_AT_THE_LIMIT if self.at_limit else ROUNDS_WHEN_STOPPED)
        if cycle is None:
            return []
        self.facts.remember_start(cycle.quiet_from, self.cycles.start_of(cycle.quiet_from))
        return [_finding(self.facts, cycle, self.at_limit, self.changes)]


def stuck_loops(facts: RunFacts) -> list[Finding]:
    return findings_of(facts, StuckLoops(facts))


class CycleFinder:
    """The shortest run of steps that the end of the run repeats, found as the steps go by: for each period
    up to `LONGEST_CYCLE`, how many of the latest steps ran what the step a period before ran."""

    def __init__(self) -> None:
        self.count = 0
        """The steps seen (those with a number of 0 or more, from the first that ran a node)."""
        self.recent: deque[tuple[int, tuple[str, ...], dict[str, Any]]] = deque(maxlen=2 * LONGEST_CYCLE)
        """The latest steps: (number, the nodes it ran, the state it started from)."""
        self.streaks = [0] * (LONGEST_CYCLE + 1)
        """By period: how many of the latest steps ran what the step a period before them ran."""
        self.starts: list[tuple[int, tuple[str, ...]] | None] = [None] * (LONGEST_CYCLE + 1)
        """By period: the first step of the repeated part (its number) and the nodes of one round."""

    def observe(self, seen: SeenStep) -> None:
        if seen.step < 0:
            return
        ran = tuple(sorted({t.name for t in seen.numbered.tasks} - set(INPUT_WRITERS)))
        if not ran and not self.count:
            return  # the run's first steps that ran no node are not part of any cycle
        self.recent.append((seen.step, ran, seen.start))
        self.count += 1
        for period in range(1, LONGEST_CYCLE + 1):
            if self.count > period and ran == self.recent[-1 - period][1]:
                self.streaks[period] += 1
            else:
                self.streaks[period] = 0
                self.starts[period] = self._round(period)

    def _round(self, period: int) -> tuple[int, tuple[str, ...]] | None:
        """The first step and the nodes of the latest `period` steps: a repeated part that starts there."""
        if self.count < period:
            return None
        latest = list(self.recent)[-period:]
        return latest[0][0], tuple(name for _step, ran, _start in latest for name in ran)

    def cycle(self, least_rounds: int) -> Cycle | None:
        """The shortest cycle the end of the run repeats at least `least_rounds` times."""
        for period in range(1, min(LONGEST_CYCLE, self.count // least_rounds) + 1):
            start = self.count - period - self.streaks[period]
            rounds = (self.count - start) // period
            first = self.starts[period]
            if rounds >= least_rounds and first is not None:
                quiet = self._number_at(max(start, self.count - 2 * period))
                return Cycle(tuple(dict.fromkeys(first[1])), first[0], rounds, self.recent[-1][0], quiet)
        return None

    def _number_at(self, index: int) -> int:
        return self.recent[index - (self.count - len(self.recent))][0]

    def start_of(self, step: int) -> dict[str, Any]:
        """The state a recent step started from."""
        return next(start for number, _ran, start in self.recent if number == step)


class Changes:
    """For each key, the last step whose barrier changed its value, and the last step each node wrote it."""

    def __init__(self) -> None:
        self.changed: dict[str, int] = {}
        """Key -> the last step that changed it (-1: the input; missing: never set)."""
        self.writes: dict[str, dict[str, int]] = {}
        """Key -> node -> the last step the node wrote it."""

    def observe(self, seen: SeenStep) -> None:
        record = seen.numbered
        for call in record.reducer_calls:
            self.writes.setdefault(call.channel, {})[call.writer_name] = seen.step
            if not call.error and "same" not in call.after:
                self.changed[call.channel] = seen.step
        for key, change in record.state.items():
            if "same" not in change:
                self.changed[key] = seen.step

    def writers(self, cycle: Cycle) -> dict[str, set[str]]:
        """Key -> the nodes that wrote it in the loop's repeated part."""
        found: dict[str, set[str]] = {}
        for key, by_node in self.writes.items():
            nodes = {node for node, step in by_node.items() if cycle.first_step <= step <= cycle.last_step}
            if nodes:
                found[key] = nodes
        return found


def find_cycle(facts: RunFacts, least_rounds: int) -> Cycle | None:
    """The shortest run of steps that the end of the run repeats at least `least_rounds` times."""
    finder = CycleFinder()
    walk(facts, [finder])
    return finder.cycle(least_rounds)


@dataclass(frozen=True)
class Route:
    name: str
    """The router's name (the function given to add_conditional_edges)."""
    source: str
    reads: tuple[str, ...] | None
    """The keys it reads, None where its source is unknown."""


def routes_of(facts: RunFacts, cycle: Cycle) -> list[Route]:
    """The conditional edges out of a node of the cycle that lead back into it."""
    inside = set(cycle.nodes)
    found = []
    for branch in facts.run.graph.get("branches", []):
        targets = set((branch.get("targets") or {}).values())
        if branch.get("source") in inside and (targets & inside or not targets):
            router = _router(facts.graph, branch["source"], branch.get("name", ""))
            reads = keys_read(router) if router else branch.get("reads")  # a LangGraph.js route: seen as it ran
            name = branch.get("function") or branch.get("name", "")  # a LangGraph.js route's own function name
            found.append(Route(name, branch["source"], None if reads is None else tuple(reads)))
    return found


def _router(graph: Any, source: str, name: str) -> Any:
    """The router function of the branch `name` out of `source`, from the graph's static view, or None."""
    if graph is None:
        return None
    from . import _static_graph  # the package's own helper: a langgraph app lends an engine-shaped builder

    builder = getattr(_static_graph(graph), "builder", None)
    branch = getattr(builder, "branches", {}).get(source, {}).get(name) if builder is not None else None
    return getattr(branch, "router", None)


def _likeliest(routes: list[Route], stuck: list[str], read: list[str], writers: dict[str, set[str]]) -> str | None:
    """The stuck key to fix first: one the route reads; where its reads are unknown, one the node the route
    follows writes (it decided the answer), else the first."""
    source = routes[0].source if routes else None
    return next(
        (k for k in stuck if k in read),
        next((k for k in stuck if source in writers.get(k, ())), stuck[0] if stuck else None),
    )


def _finding(facts: RunFacts, cycle: Cycle, at_limit: bool, changes: Changes) -> Finding:
    """One finding, worded whole: the cycle, its route, the keys it reads and which stopped changing."""
    routes = routes_of(facts, cycle)
    read = [key for route in routes for key in (route.reads or ())]
    looked_at = list(dict.fromkeys(read)) or list(facts.run.graph.get("channels", {}))
    changed = {key: changes.changed[key] for key in looked_at if key in changes.changed}
    writers = {key: nodes for key, nodes in changes.writers(cycle).items() if key in looked_at}
    stuck = [key for key in looked_at if changed.get(key, -2) < cycle.quiet_from]
    start = facts.start_state(cycle.quiet_from)
    loop = " → ".join([*cycle.nodes, cycle.nodes[0]])
    explanation = ngettext(
        "From step {first} on, the run went round {loop} {rounds} time",
        "From step {first} on, the run went round {loop} {rounds} times",
        cycle.rounds,
    ).format(first=cycle.first_step, loop=loop, rounds=cycle.rounds)
    explanation += (
        _(" until LangGraph stopped it at its recursion limit (step {last}). ")
        if at_limit
        else _(" before it was stopped (step {last}). ")
    ).format(last=cycle.last_step)
    explanation += _route_words(routes, read)
    explanation += _stuck_words(stuck, changed, writers, start)
    title = _title(loop, routes, stuck, read)
    key = _likeliest(routes, stuck, read, writers)
    ways = _fixes(facts, cycle, routes, key, writers, start)
    return trace_finding(
        "stuck_loop",
        "error" if at_limit else "warning",
        Said(title, explanation.strip(), ways),
        facts.scope,
        cycle.last_step,
        node=routes[0].source if routes else cycle.nodes[0],
        key=key,
        nodes=cycle.nodes,
        evidence=tuple(
            {"key": k, "since": changed.get(k), "value": start.get(k), "text": short(start.get(k), 40)} for k in stuck
        ),
    )


def _title(loop: str, routes: list[Route], stuck: list[str], read: list[str]) -> str:
    if routes and set(stuck) & set(read):
        return _("The loop {loop} never ended: {route} reads {keys}, which stopped changing").format(
            loop=loop, route=routes[0].name, keys=names([repr(k) for k in stuck if k in read])
        )
    if stuck:
        return _("The loop {loop} never ended: {keys} stopped changing while it went round").format(
            loop=loop, keys=names([repr(k) for k in stuck])
        )
    return _("The loop {loop} never ended: nothing it changes lets its route stop it").format(loop=loop)


def _route_words(routes: list[Route], read: list[str]) -> str:
    if not routes:
        return _("No conditional edge of the cycle can leave it: its nodes send the run round again themselves. ")
    route = routes[0]
    if route.reads is None:
        return _("The route {route} (after {source}) decides each round whether to go round again. ").format(
            route=route.name, source=route.source
        )
    return _("The route {route} (after {source}) decides each round whether to go round again, from {keys}. ").format(
        route=route.name, source=route.source, keys=names([repr(k) for k in read]) or _("no key of the state")
    )


def _stuck_words(stuck: list[str], changed: dict[str, int], writers: dict[str, set[str]], start: dict[str, Any]) -> str:
    parts = []
    for key in stuck:
        if key not in changed:
            parts.append(_("{key} was never set").format(key=repr(key)))
        elif key in writers:
            parts.append(
                _("{key} is written every round, and has stayed {value} since step {step}").format(
                    key=repr(key), value=short(start.get(key), 40), step=changed[key]
                )
            )
        else:
            parts.append(
                _("no node of the loop writes {key}, which has been {value} since step {step}").format(
                    key=repr(key), value=short(start.get(key), 40), step=changed[key]
                )
            )
    if not parts:
        return _("Every key it reads still changes, but never to a value that ends the loop.")
    return _("But {what}: the route's answer cannot change, so the loop cannot end.").format(what=_("; ").join(parts))


def _fixes(
    facts: RunFacts, cycle: Cycle, routes: list[Route], key: str | None, writers: dict[str, set[str]], start: dict
) -> list[Fix]:
    """The fixes for the stuck `key`, best first, as Python snippets (`in_javascript` rewrites them)."""
    route = routes[0].name if routes else "route"
    last = cycle.nodes[-1]
    counter = (
        _("Count the rounds and stop after a few"),
        f"rounds: Annotated[int, operator.add]   # one more per round\n\n"
        f"def {last}(state):\n"
        f'    return {{"rounds": 1}}\n\n'
        f"def {route}(state):\n"
        f'    if state["rounds"] >= 3:\n'
        f"        return END",
    )
    limit = (
        _("Raise the recursion limit only if the loop really needs more rounds"),
        'graph.invoke(inputs, {"recursion_limit": 100})',
    )
    overwritten = facts.reducer(key) in ("", "LastValue") and key in writers if key else False
    if overwritten and type(start.get(key)) is int:  # a counter (a bool is an int too, and no counter)
        additive = (
            _("Make the counter additive"),
            f"{key}: Annotated[int, operator.add]   # each write is added, so the count grows",
        )
        return [additive, counter, limit]
    if key:
        change = (
            _("Let a node of the loop change what the route reads"),
            f'return {{"{key}": new_value}}   # in {last}: write what {route} reads, so it can say END',
        )
        return [change, counter, limit]
    return [counter, limit]
