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

from dataclasses import dataclass
from typing import Any

from debugger.diagnostics.value_text import short
from debugger.i18n import _, ngettext

from .facts import INPUT_WRITERS, RunFacts, names
from .findings import Finding
from .source import keys_read

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


def stuck_loops(facts: RunFacts) -> list[Finding]:
    run = facts.run
    at_limit = run.status == "recursion_limit" or (run.error or {}).get("class") == "GraphRecursionError"
    if not at_limit and run.status not in STOPPED:
        return []
    cycle = find_cycle(facts, ROUNDS_AT_THE_LIMIT if at_limit else ROUNDS_WHEN_STOPPED)
    if cycle is None:
        return []
    return [_finding(facts, cycle, at_limit)]


def find_cycle(facts: RunFacts, least_rounds: int) -> Cycle | None:
    """The shortest run of steps that the end of the run repeats at least `least_rounds` times."""
    steps = [s for s in facts.order if s >= 0]
    ran = [tuple(sorted({t.name for t in facts.tasks(s)} - set(INPUT_WRITERS))) for s in steps]
    while ran and not ran[0]:
        steps, ran = steps[1:], ran[1:]
    for period in range(1, min(LONGEST_CYCLE, len(ran) // least_rounds) + 1):
        start = _repeated_from(ran, period)
        rounds = (len(ran) - start) // period
        if rounds >= least_rounds:
            one_round = [name for names_ in ran[start : start + period] for name in names_]
            quiet = steps[max(start, len(steps) - 2 * period)]
            return Cycle(tuple(dict.fromkeys(one_round)), steps[start], rounds, steps[-1], quiet)
    return None


def _repeated_from(ran: list[tuple[str, ...]], period: int) -> int:
    """The first index from which `ran` repeats itself every `period` entries to its end."""
    start = len(ran) - period
    while start > 0 and ran[start - 1] == ran[start - 1 + period]:
        start -= 1
    return start


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


def last_changes(facts: RunFacts, keys: list[str], cycle: Cycle) -> tuple[dict[str, int], dict[str, set[str]]]:
    """One pass over the run's steps: for each key, the last step whose barrier changed its value (-1: the
    input; missing: never set), and the nodes that wrote it in the loop's repeated part."""
    changed: dict[str, int] = {}
    writers: dict[str, set[str]] = {}
    wanted = set(keys)
    for step in facts.order:
        record = facts.steps[step]
        in_loop = cycle.first_step <= step <= cycle.last_step
        for call in record.reducer_calls:
            if call.channel not in wanted:
                continue
            if in_loop:
                writers.setdefault(call.channel, set()).add(call.writer_name)
            if not call.error and "same" not in call.after:
                changed[call.channel] = step
        for key, change in record.state.items():
            if key in wanted and "same" not in change:
                changed[key] = step
    return changed, writers


def _likeliest(routes: list[Route], stuck: list[str], read: list[str], writers: dict[str, set[str]]) -> str | None:
    """The stuck key to fix first: one the route reads; where its reads are unknown, one the node the route
    follows writes (it decided the answer), else the first."""
    source = routes[0].source if routes else None
    return next(
        (k for k in stuck if k in read),
        next((k for k in stuck if source in writers.get(k, ())), stuck[0] if stuck else None),
    )


def _finding(facts: RunFacts, cycle: Cycle, at_limit: bool) -> Finding:
    """One finding, worded whole: the cycle, its route, the keys it reads and which stopped changing."""
    routes = routes_of(facts, cycle)
    read = [key for route in routes for key in (route.reads or ())]
    looked_at = list(dict.fromkeys(read)) or list(facts.run.graph.get("channels", {}))
    changed, writers = last_changes(facts, looked_at, cycle)
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
    title = (
        _("The loop {loop} never ended: {route} reads {keys}, which stopped changing").format(
            loop=loop, route=routes[0].name, keys=names([repr(k) for k in stuck if k in read])
        )
        if routes and set(stuck) & set(read)
        else _("The loop {loop} never ended: {keys} stopped changing while it went round").format(
            loop=loop, keys=names([repr(k) for k in stuck])
        )
        if stuck
        else _("The loop {loop} never ended: nothing it changes lets its route stop it").format(loop=loop)
    )
    key = _likeliest(routes, stuck, read, writers)
    fix, fix_label, others = _fixes(facts, cycle, routes, key, writers, start)
    return Finding(
        kind="stuck_loop",
        severity="error" if at_limit else "warning",
        title=title,
        explanation=explanation.strip(),
        fix=fix,
        fix_label=fix_label,
        other_fixes=others,
        step=cycle.last_step,
        node=routes[0].source if routes else cycle.nodes[0],
        key=key,
        nodes=cycle.nodes,
        scope=facts.scope,
        evidence=tuple(
            {"key": k, "since": changed.get(k), "value": start.get(k), "text": short(start.get(k), 40)} for k in stuck
        ),
    )


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
) -> tuple[str, str, tuple[tuple[str, str], ...]]:
    """(the main fix for the stuck `key`, what it does, the other fixes), as Python snippets (`in_javascript`
    rewrites them)."""
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
        return (
            f"{key}: Annotated[int, operator.add]   # each write is added, so the count grows",
            _("Make the counter additive"),
            (counter, limit),
        )
    if key:
        return (
            f'return {{"{key}": new_value}}   # in {last}: write what {route} reads, so it can say END',
            _("Let a node of the loop change what the route reads"),
            (counter, limit),
        )
    return counter[1], counter[0], (limit,)
