"""Which nodes can run in the same superstep, worked out from the builder before anything runs.

A superstep runs every node triggered by the previous one. So the possible steps of a graph are found
by a breadth-first search over *step shapes*: the set of nodes running together, plus what waits
(waiting-edge barriers part-way filled, `defer=True` nodes held back). From a shape, each running node
sends the run on through its static edges (always), each conditional edge (one of the router's
targets, or several when the router can return a list), its `Command(goto=...)` targets and its
`Send`s; the next shape is one combination of those choices.

Routers and gotos are read with `source.py`: a router whose return annotation or code returns a list
(or Sends) can pick several targets at once; otherwise it picks one. That is what keeps a classic
"route to one of three specialists" from looking like three nodes in one step. Where the code cannot
be read, a router picks one target among all it could name, which may miss a list-returning router
but never invents parallelism.

Each pair found together keeps a witness: why each node ran (edge, router, Send, Command, waiting
edge) and whether both arrived by static edges (`definite`: whenever that step happens, they run
together). The search stops after `MAX_SHAPES` shapes (`truncated`).
"""

from __future__ import annotations

import collections.abc
import itertools
import typing
from dataclasses import dataclass, field
from typing import Any, Iterable

from engine import END, START

from .source import Returns, router_returns

MAX_SHAPES = 4000
MAX_COMBINATIONS = 512
"""Per node (its routers' choices combined) and per step shape (the running nodes' choices combined)."""
MAX_WORK = 100_000
"""Combinations tried in the whole search: bounds the time on large graphs (then `truncated`)."""
MAX_SUBSET_TARGETS = 4


@dataclass(frozen=True)
class Arrival:
    """Why a node runs in a step: which node of the previous step led there, and how."""

    node: str
    source: str
    via: str
    """`edge`, `waiting edge`, `router NAME`, `Send from router NAME`, `Command` or `Send from Command`."""
    forced: bool
    """Arrived by a static or waiting edge: no choice involved."""
    repeated: bool = False
    """May run as several tasks in this step (several Sends)."""

    def reason(self) -> str:
        source = "START" if self.source == START else self.source
        if self.via == "edge":
            return f"edge {source} → {self.node}"
        if self.via.startswith("waiting edge"):
            return f"{self.via} → {self.node}"
        if self.via.startswith("router "):
            return f"{source}'s router {self.via[7:]} can choose {self.node}"
        if self.via.startswith("Send from router "):
            many = " (one task per Send)" if self.repeated else ""
            return f"{source}'s router {self.via[17:]} can Send to {self.node}{many}"
        if self.via == "Send from Command":
            return f"{source} can return Command(goto=Send({self.node!r}, ...))"
        return f"{source} can return Command(goto={self.node!r})"


@dataclass(frozen=True)
class Together:
    """Two nodes (or one node twice, when `first == second`) that can run in one superstep."""

    first: Arrival
    second: Arrival

    @property
    def definite(self) -> bool:
        return self.first.forced and self.second.forced and self.first.node != self.second.node

    def sentence(self) -> str:
        if self.first.node == self.second.node:
            return f"{self.first.node} can run as several tasks in one superstep ({self.first.reason()})"
        return (
            f"{self.first.node} and {self.second.node} can run in the same superstep "
            f"({self.first.reason()}; {self.second.reason()})"
        )


@dataclass(frozen=True)
class _Shape:
    running: tuple[Arrival, ...]
    barriers: tuple[frozenset[str], ...]
    deferred: tuple[Arrival, ...]

    def key(self) -> tuple[Any, ...]:
        return (
            frozenset((a.node, a.forced, a.repeated) for a in self.running),
            self.barriers,
            frozenset(a.node for a in self.deferred),
        )


@dataclass
class Topology:
    """Every pair of nodes that can share a superstep, with a witness each."""

    builder: Any
    returns: dict[str, Returns] = field(default_factory=dict)
    """`source.node_returns` of each function node (for Command gotos)."""
    pairs: dict[frozenset[str], Together] = field(default_factory=dict)
    truncated: bool = False

    def __post_init__(self) -> None:
        self._options: dict[str, list[dict[str, Arrival]]] = {}
        self._work = 0
        self._search()

    def together(self, a: str, b: str) -> Together | None:
        return self.pairs.get(frozenset((a, b)))

    def reached_only_by_send(self, name: str) -> bool:
        """Every way into `name` is a `Send` (from a router or a Command): no edge, waiting edge, router
        name or goto enters it with the parent's state. A Send's argument is the node's whole input, so
        a subgraph started that way returns what it was sent plus its own items, not the parent's list
        (whether an argument carries the parent's list itself is a question for the recorded run)."""
        if any(name == edge.target for edge in self.builder.waiting_edges):
            return False
        arrivals = [
            arrival
            for source in [START, *self.builder.nodes]
            for choice in self.options(source)
            for arrival in choice.values()
            if arrival.node == name
        ]
        return bool(arrivals) and all(arrival.via.startswith("Send") for arrival in arrivals)

    # ---- one node's ways forward -------------------------------------------------------------------

    def options(self, node: str) -> list[dict[str, Arrival]]:
        """The possible sets of nodes `node` triggers for the next step (each a dict node -> Arrival)."""
        if node in self._options:
            return self._options[node]
        base = {
            e.target: Arrival(e.target, node, "edge", True)
            for e in self.builder.edges
            if e.source == node and e.target != END
        }
        choices = [self._branch_choices(node, branch) for branch in self.builder.branches.get(node, {}).values()]
        command = self._command_choices(node)
        if command:
            choices.append(command)
        combined: list[dict[str, Arrival]] = []
        for combination in itertools.islice(itertools.product(*choices), MAX_COMBINATIONS):
            merged = dict(base)
            for part in combination:
                for target, arrival in part.items():
                    merged[target] = _join(merged.get(target), arrival)
            combined.append(merged)
        if len(combined) == MAX_COMBINATIONS:
            self.truncated = True
        self._options[node] = combined
        return combined

    def _branch_choices(self, node: str, branch: Any) -> list[dict[str, Arrival]]:
        read = router_returns(branch.router)
        nodes = set(self.builder.nodes)
        path_map = branch.path_map
        known = read.analysed and not read.names_unknown
        if path_map is not None:
            targets = (
                {path_map[n] for n in read.names if n in path_map} if known and read.names else set(path_map.values())
            )
        else:
            targets = (read.names & (nodes | {END})) if known and read.names else nodes | {END}
        multi = read.multi or _annotation_is_list(branch.router)
        via = f"router {branch.name}"
        names = sorted(t for t in targets if t != END)
        if known and not read.names and read.returns_sends:  # a router that only returns Sends
            names, targets = [], set()
        alternatives: list[dict[str, Arrival]] = []
        if multi:
            if len(names) <= MAX_SUBSET_TARGETS:
                subsets: Iterable[tuple[str, ...]] = itertools.chain.from_iterable(
                    itertools.combinations(names, size) for size in range(len(names) + 1)
                )
            else:
                subsets = [tuple(names), (), *((n,) for n in names)]
            alternatives = [{n: Arrival(n, node, via, False) for n in subset} for subset in subsets]
        else:
            alternatives = [{n: Arrival(n, node, via, False)} for n in names]
            if END in targets or not names:
                alternatives.append({})
        if read.returns_sends:
            sent = read.sends & nodes if not read.send_unknown else (set(path_map.values()) if path_map else nodes)
            send_via = f"Send from router {branch.name}"
            packet = {
                n: Arrival(n, node, send_via, False, repeated=read.multi or _annotation_is_list(branch.router))
                for n in sorted(sent - {END})
            }
            alternatives = alternatives or [{}]
            alternatives = alternatives + [
                {**alt, **{k: _join(alt.get(k), v) for k, v in packet.items()}} for alt in alternatives
            ]
        return alternatives or [{}]

    def _command_choices(self, node: str) -> list[dict[str, Arrival]]:
        spec = self.builder.nodes.get(node)
        read = self.returns.get(node)
        declared = list(spec.ends) if spec is not None and spec.ends else []
        if declared:
            targets = set(declared)
        elif read is not None and read.analysed:
            targets = set(read.gotos) if not read.goto_unknown else set(self.builder.nodes)
        else:
            targets = set()
        names = sorted(t for t in targets if t != END and t in self.builder.nodes)
        sends = sorted(read.sends & set(self.builder.nodes)) if read is not None else []
        if not names and not sends:
            return []
        multi = read is not None and read.goto_multi
        if multi and len(names) <= MAX_SUBSET_TARGETS:
            subsets = list(
                itertools.chain.from_iterable(itertools.combinations(names, k) for k in range(len(names) + 1))
            )
        elif multi:
            subsets = [tuple(names), (), *((n,) for n in names)]
        else:
            subsets = [(n,) for n in names] + [()]
        alternatives = [{n: Arrival(n, node, "Command", False) for n in subset} for subset in subsets]
        if sends:
            packet = {n: Arrival(n, node, "Send from Command", False, repeated=multi) for n in sends}
            alternatives.append(packet)
        return alternatives

    # ---- the search --------------------------------------------------------------------------------

    def _search(self) -> None:
        waiting = [(frozenset(w.sources), w.target, w.sources) for w in self.builder.waiting_edges if w.target != END]
        start = _Shape((Arrival(START, START, "input", True),), tuple(frozenset() for _ in waiting), ())
        seen = {start.key()}
        frontier = [start]
        while frontier:
            shape = frontier.pop(0)
            self._record(shape.running)
            for following in self._next(shape, waiting):
                key = following.key()
                if key in seen:
                    continue
                if len(seen) >= MAX_SHAPES:
                    self.truncated = True
                    return
                seen.add(key)
                frontier.append(following)

    def _next(self, shape: _Shape, waiting: list[tuple[frozenset[str], str, tuple[str, ...]]]) -> Iterable[_Shape]:
        per_node = [self.options(a.node) for a in shape.running]
        ran = {a.node for a in shape.running}
        barriers = []
        arrivals_from_barriers: dict[str, Arrival] = {}
        for (sources, target, ordered), filled in zip(waiting, shape.barriers):
            filled = filled | (sources & ran)
            if filled == sources:
                via = f"waiting edge [{', '.join(ordered)}]"
                arrivals_from_barriers[target] = Arrival(target, ordered[-1], via, True)
                filled = frozenset()
            barriers.append(filled)
        count = 0
        for combination in itertools.product(*per_node):
            count += 1
            self._work += 1
            if count > MAX_COMBINATIONS or self._work > MAX_WORK:
                self.truncated = True
                return
            arrivals: dict[str, Arrival] = dict(arrivals_from_barriers)
            for part in combination:
                for target, arrival in part.items():
                    arrivals[target] = _join(arrivals.get(target), arrival)
            now = [a for a in arrivals.values() if not self._deferred(a.node)]
            held = {a.node: a for a in shape.deferred}
            for a in arrivals.values():
                if self._deferred(a.node):
                    held[a.node] = a
            if not now and held:
                now, held = list(held.values()), {}
            if not now:
                continue
            yield _Shape(
                tuple(sorted(now, key=lambda a: a.node)),
                tuple(barriers),
                tuple(sorted(held.values(), key=lambda a: a.node)),
            )

    def _deferred(self, node: str) -> bool:
        spec = self.builder.nodes.get(node)
        return bool(spec is not None and spec.defer)

    def _record(self, running: tuple[Arrival, ...]) -> None:
        real = [a for a in running if a.node != START]
        for a in real:
            if a.repeated:
                self._keep(frozenset((a.node,)), Together(a, a))
        for a, b in itertools.combinations(real, 2):
            self._keep(frozenset((a.node, b.node)), Together(a, b))

    def _keep(self, key: frozenset[str], together: Together) -> None:
        old = self.pairs.get(key)
        if old is None or (together.definite and not old.definite):
            self.pairs[key] = together


def _join(old: Arrival | None, new: Arrival) -> Arrival:
    """A node reached twice in one step: still one PULL task, unless a Send adds another."""
    if old is None:
        return new
    keep = old if old.forced or not new.forced else new
    repeated = old.repeated or new.repeated or old.via.startswith("Send") or new.via.startswith("Send")
    return Arrival(keep.node, keep.source, keep.via, old.forced or new.forced, repeated)


def _annotation_is_list(fn: Any) -> bool:
    """A router annotated to return a list, tuple or sequence (of names or Sends)."""
    try:
        hint = typing.get_type_hints(fn).get("return")
    except Exception:  # unresolvable annotations: say nothing
        return False
    if hint is None:
        return False
    origins = {typing.get_origin(hint) or hint}
    if typing.get_origin(hint) in (typing.Union, getattr(__import__("types"), "UnionType", None)):
        origins = {typing.get_origin(a) or a for a in typing.get_args(hint)}
    listy = (
        list,
        tuple,
        set,
        frozenset,
        collections.abc.Sequence,
        collections.abc.Iterable,
        collections.abc.Set,
        collections.abc.MutableSequence,
    )
    return any(o in listy for o in origins)
