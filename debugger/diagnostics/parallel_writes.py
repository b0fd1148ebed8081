"""Concurrent updates waiting to happen, found before running: a key without a reducer that two nodes able to
run in the same superstep (`topology.py`) can write (`source.py`: their returned dicts, Command updates, the
whole state, a subgraph's output keys).

An `error` only when it is certain on every run that reaches it: two nodes that arrive by static edges and
write the key on every path; anything that depends on a router, a Send, a Command or a code path is a `warning`.
"""

from __future__ import annotations

from typing import Any

from debugger.i18n import _
from engine import LastValue

from .facts import names
from .findings import Finding, Said, graph_finding
from .source import Returns
from .topology import Together, Topology


class Writes:
    """The keys a node may write, and those it writes on every path."""

    def __init__(self, maybe: set[str], always: set[str], how: str) -> None:
        self.maybe, self.always, self.how = maybe, always, how


def node_writes(builder: Any, returns: dict[str, Returns], subgraphs: dict[str, Any]) -> dict[str, Writes]:
    channels = set(builder.channels)
    out = {}
    for name, read in returns.items():
        maybe, always = set(read.keys) & channels, set(read.always) & channels
        how = "returns"
        if read.whole_state:
            received = set(builder.schemas.get(builder.nodes[name].input_schema, {})) & channels
            maybe |= received
            how = "returns the whole state, which includes"
        out[name] = Writes(maybe, always, how)
    for name, sub in subgraphs.items():
        keys = set(sub.output_keys if isinstance(sub.output_keys, list) else [sub.output_keys]) & channels
        echoed = keys & set(sub.builder.schemas.get(sub.builder.input_schema, {}))
        out[name] = Writes(
            keys,
            set(),
            "is a subgraph that returns its whole state, including"
            if echoed
            else "is a subgraph whose output includes",
        )
    return out


def parallel_plain_keys(
    builder: Any,
    topology: Topology,
    writes: dict[str, Writes],
    returns: dict[str, Returns],
    subgraphs: dict[str, Any],
    scope: tuple[str, ...],
) -> list[Finding]:
    """A finding for each key without a reducer that two nodes able to run in one superstep can write."""
    found = []
    for key, channel in builder.channels.items():
        if type(channel) is not LastValue:
            continue
        writers = {n for n, w in writes.items() if key in w.maybe}
        pairs = [together for pair, together in topology.pairs.items() if pair <= writers]
        if pairs:
            found.append(_parallel_writes(key, pairs, writes, returns, subgraphs, scope))
    return found


def _parallel_writes(
    key: str,
    pairs: list[Together],
    writes: dict[str, Writes],
    returns: dict[str, Returns],
    subgraphs: dict[str, Any],
    scope: tuple[str, ...],
) -> Finding:
    """An error when some pair arrives by static edges and writes the key on every path, else a warning."""
    certain = any(
        t.definite
        and all(key in writes[a.node].always or returns.get(a.node, Returns()).whole_state for a in (t.first, t.second))
        for t in pairs
    )
    involved = sorted({a.node for t in pairs for a in (t.first, t.second)})
    title = (
        _("{nodes} write the plain key {key} in the same superstep")
        if certain
        else _("{nodes} can write the plain key {key} in the same superstep")
    ).format(nodes=names(involved), key=repr(key))
    return graph_finding(
        "concurrent_update",
        "error" if certain else "warning",
        Said(
            title,
            _parallel_explanation(key, pairs, involved, writes, certain),
            _parallel_fixes(key, involved, returns, subgraphs),
        ),
        scope,
        node=involved[0],
        key=key,
        nodes=tuple(involved),
        evidence=tuple(
            {"nodes": sorted({t.first.node, t.second.node}), "why": t.sentence(), "definite": t.definite} for t in pairs
        ),
    )


def _parallel_explanation(
    key: str, pairs: list[Together], involved: list[str], writes: dict[str, Writes], certain: bool
) -> str:
    """Why the nodes run together, how each writes the key, and what a step where both write it costs."""
    how = "; ".join(f"{n} {writes[n].how} {key!r}" for n in involved if writes[n].how != "returns")
    whys = " ".join(t.sentence() + "." for t in pairs[:3])
    can = _("Both can write {key}") if len(involved) == 2 else _("Each can write {key}")
    return (
        f"{whys} "
        + can.format(key=repr(key))
        + (f" ({how})" if how else "")
        + _(
            ". {key} has no reducer: it holds one value and accepts one write per superstep, so a step "
            "where two of them write it fails with InvalidUpdateError (INVALID_CONCURRENT_GRAPH_UPDATE) and "
            "loses all its writes."
        ).format(key=repr(key))
        + (
            ""
            if certain
            else _(
                " This depends on the path the run takes (a router, a Send, a Command or a "
                "branch in the node's code), so it may not happen on every run."
            )
        )
    )


def _parallel_fixes(
    key: str, involved: list[str], returns: dict[str, Returns], subgraphs: dict[str, Any]
) -> list[tuple[str, str]]:
    """The fixes that fit, best first: a subgraph's output schema, returning only what changed, a reducer, a
    key per node."""
    own_keys = "\n".join(f'return {{"{key}_{n}": ...}}   # in {n}' for n in involved[:3])
    fixes = [
        (
            _("Give {key} a reducer, so parallel writes are merged").format(key=repr(key)),
            f'{key}: Annotated[list, operator.add]   # each node returns {{"{key}": [its value]}}',
        ),
        (_("Give each node its own key"), own_keys),
    ]
    whole = [n for n in involved if returns.get(n, Returns()).whole_state]
    if whole:
        fixes.insert(
            0,
            (
                _("Return only what changed, not the whole state"),
                f'return {{"key_you_changed": ...}}   # in {whole[0]}, instead of `return state`',
            ),
        )
    if any(n in subgraphs for n in involved):
        fixes.insert(
            0,
            (
                _("Give the subgraph an output schema without {key}").format(key=repr(key)),
                "sub = StateGraph(SubState, output_schema=SubOutput)   # only the keys it changes",
            ),
        )
    return fixes
