"""Diagnostics before running: `diagnose_graph(compiled)` reads the builder and the nodes' source.

- concurrent updates waiting to happen: a key without a reducer that two nodes able to run in the
  same superstep (`topology.py`) can write (`source.py`: their returned dicts, Command updates,
  the whole state, a subgraph's output keys);
- nodes that return the whole state they received;
- compiled subgraphs mounted as nodes that receive and return a key the parent appends to;
- read-modify-write in the code: `{"log": state["log"] + [x]}` into an appending reducer, or into a
  keep-the-last reducer that parallel nodes write;
- nodes that change a value of the state they received in place (`state["k"].append(x)`);
- reducer start values (`start.py`).

A finding is an `error` only when it is certain on every run that reaches it: two nodes that arrive
by static edges and write the key on every path. Anything that depends on a router, a Send, a
Command or on a code path is a `warning`.
"""

from __future__ import annotations

import typing
from typing import Any

from debugger.i18n import _
from engine import END, BinaryOperatorAggregate, LastValue
from engine.trace import schema_fields

from .facts import APPENDING, names
from .findings import Finding, graph_finding
from .source import Returns, describe_function, node_returns, returns_only_parent_commands
from .start import static_start_values
from .topology import Together, Topology


def diagnose_graph(compiled: Any, scope: tuple[str, ...] = ()) -> list[Finding]:
    builder = compiled.builder
    returns: dict[str, Returns] = {}
    subgraphs: dict[str, Any] = {}
    for name, spec in builder.nodes.items():
        if hasattr(spec.action, "builder") and hasattr(spec.action, "invoke"):
            subgraphs[name] = spec.action
        else:
            returns[name] = node_returns(spec.action)
    topology = Topology(builder, returns)
    writes = _writes(builder, returns, subgraphs)
    found: list[Finding] = []
    found += _parallel_plain_keys(builder, topology, writes, returns, subgraphs, scope)
    found += _whole_state(builder, returns, scope)
    found += _subgraph_echo(builder, topology, subgraphs, scope)
    found += _read_modify_write(builder, topology, writes, returns, scope)
    found += _in_place(builder, returns, scope)
    found += static_start_values(builder, scope)
    if topology.truncated:
        found.append(
            graph_finding(
                "concurrent_update",
                scope,
                severity="info",
                title=_("The graph is too large to check every step shape"),
                explanation=_(
                    "The search for nodes that can run in the same superstep stopped early, so some "
                    "parallel writes may not have been checked. Diagnose a recorded run for certainty."
                ),
            )
        )
    for name, sub in subgraphs.items():
        found += diagnose_graph(sub, (*scope, name))
    return found


class _Writes:
    """The keys a node may write, and those it writes on every path."""

    def __init__(self, maybe: set[str], always: set[str], how: str) -> None:
        self.maybe, self.always, self.how = maybe, always, how


def _writes(builder: Any, returns: dict[str, Returns], subgraphs: dict[str, Any]) -> dict[str, _Writes]:
    channels = set(builder.channels)
    out = {}
    for name, read in returns.items():
        maybe, always = set(read.keys) & channels, set(read.always) & channels
        how = "returns"
        if read.whole_state:
            received = set(builder.schemas.get(builder.nodes[name].input_schema, {})) & channels
            maybe |= received
            how = "returns the whole state, which includes"
        out[name] = _Writes(maybe, always, how)
    for name, sub in subgraphs.items():
        keys = set(sub.output_keys if isinstance(sub.output_keys, list) else [sub.output_keys]) & channels
        echoed = keys & set(sub.builder.schemas.get(sub.builder.input_schema, {}))
        out[name] = _Writes(
            keys,
            set(),
            "is a subgraph that returns its whole state, including"
            if echoed
            else "is a subgraph whose output includes",
        )
    return out


def _parallel_plain_keys(
    builder: Any,
    topology: Topology,
    writes: dict[str, _Writes],
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
    writes: dict[str, _Writes],
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
    fixes = _parallel_fixes(key, involved, returns, subgraphs)
    title = (
        _("{nodes} write the plain key {key} in the same superstep")
        if certain
        else _("{nodes} can write the plain key {key} in the same superstep")
    ).format(nodes=names(involved), key=repr(key))
    return graph_finding(
        "concurrent_update",
        scope,
        severity="error" if certain else "warning",
        title=title,
        explanation=_parallel_explanation(key, pairs, involved, writes, certain),
        fix=fixes[0][1],
        fix_label=fixes[0][0],
        other_fixes=tuple(fixes[1:]),
        node=involved[0],
        key=key,
        nodes=tuple(involved),
        evidence=tuple(
            {"nodes": sorted({t.first.node, t.second.node}), "why": t.sentence(), "definite": t.definite} for t in pairs
        ),
    )


def _parallel_explanation(
    key: str, pairs: list[Together], involved: list[str], writes: dict[str, _Writes], certain: bool
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


def _whole_state(builder: Any, returns: dict[str, Returns], scope: tuple[str, ...]) -> list[Finding]:
    found = []
    for name, read in returns.items():
        if not read.whole_state:
            continue
        received = list(builder.schemas.get(builder.nodes[name].input_schema, {}))
        adding = [k for k in received if _appending(builder.channels.get(k))]
        plain = [k for k in received if type(builder.channels.get(k)) is LastValue]
        consequences = []
        if adding:
            consequences.append(
                _("its reducer keys {keys} get their whole value added again each time it runs").format(
                    keys=", ".join(repr(k) for k in adding)
                )
            )
        if plain:
            consequences.append(
                _("its plain keys ({keys}) conflict with any node writing them in the same superstep").format(
                    keys=", ".join(repr(k) for k in plain[:4])
                )
            )
        function = describe_function(builder.nodes[name].action)
        found.append(
            graph_finding(
                "returns_whole_state",
                scope,
                severity="warning",
                title=_("{node} returns the whole state").format(node=name),
                explanation=_(
                    "{node} ({function}) returns the state it received (line {line}) instead of an update. "
                    "A node's return value is a set of writes, one per key: returning the state writes every key "
                    "again{consequences}."
                ).format(
                    node=name,
                    function=function,
                    line=read.whole_state,
                    consequences=(": " + _("; and ").join(consequences)) if consequences else "",
                ),
                fix='return {"key_you_changed": new_value}   # only the keys this node changed',
                fix_label=_("Return only what the node changed"),
                node=name,
                evidence=({"line": read.whole_state},),
            )
        )
    return found


def _subgraph_echo(
    builder: Any, topology: Topology, subgraphs: dict[str, Any], scope: tuple[str, ...]
) -> list[Finding]:
    found = []
    for name, sub in subgraphs.items():
        if _always_leaves_by_parent_command(sub.builder):
            continue  # it never returns its final state to this graph
        if topology.reached_only_by_send(name):
            continue  # it starts from its Send's argument, not the parent's state: nothing of the parent to echo
        received = set(sub.builder.schemas.get(sub.builder.input_schema, {}))
        returned = set(sub.output_keys if isinstance(sub.output_keys, list) else [sub.output_keys])
        for key in sorted(received & returned):
            channel = builder.channels.get(key)
            if not _appending(channel):
                continue
            found.append(
                graph_finding(
                    "subgraph_duplication",
                    scope,
                    severity="warning",
                    title=_("Subgraph node {node} can re-append {key}").format(node=name, key=repr(key)),
                    explanation=_(
                        "{node} is a compiled subgraph mounted as a node. It receives the parent's {key} and "
                        "returns its whole final state, which starts with that same value; the parent's reducer "
                        "{reducer} then appends it again, so every item the parent had before {node} "
                        "ran appears twice."
                    ).format(node=name, key=repr(key), reducer=channel.reducer_name),
                    fix=(
                        f"def call_{name}(state):\n    out = subgraph.invoke({{...}})   # a schema of its own, "
                        f'without {key!r}\n    return {{"{key}": [...]}}   # only the new items'
                    ),
                    fix_label=_(
                        "Wrap the subgraph in a function node with its own schema that returns only the new items"
                    ),
                    other_fixes=(
                        (
                            _("Give the key a reducer that merges by id"),
                            f"{key}: Annotated[list, merge_by_id]   # messages: add_messages already does this",
                        ),
                    ),
                    node=name,
                    key=key,
                )
            )
    return found


def _read_modify_write(
    builder: Any, topology: Topology, writes: dict[str, _Writes], returns: dict[str, Returns], scope: tuple[str, ...]
) -> list[Finding]:
    """A node whose code writes a reducer key as the value it read plus its change: appended (or added) again,
    or, into a keep-the-last reducer with parallel writers, a lost update."""
    found = []
    for name, read in returns.items():
        for key, line in dict(read.rmw).items():
            channel = builder.channels.get(key)
            if not isinstance(channel, BinaryOperatorAggregate) or channel.reducer_name == "add_messages":
                continue
            if _appending(channel):
                explanation, fix = _added_again(name, key, line, channel)
            else:
                rivals = sorted(
                    n for n, w in writes.items() if key in w.maybe and n != name and topology.together(name, n)
                )
                if not rivals:
                    continue
                explanation, fix = _lost_in_race(name, key, line, channel.reducer_name, rivals)
            found.append(
                graph_finding(
                    "read_modify_write",
                    scope,
                    severity="warning",
                    title=_("{node} writes back {key} plus its change").format(node=name, key=repr(key)),
                    explanation=explanation,
                    fix=fix,
                    fix_label=_("Return only the change; let the reducer merge it"),
                    node=name,
                    key=key,
                    evidence=({"line": line},),
                )
            )
    return found


def _added_again(name: str, key: str, line: int, channel: BinaryOperatorAggregate) -> tuple[str, str]:
    """(explanation, fix) for the old value written into an appending reducer: counted or appended again."""
    number = channel.initial in (int, float)
    explanation = _(
        "{node} writes {key} as the value it read plus its change (line {line}), into {reducer}, "
        "which adds every write to the current value: {result}"
    ).format(
        node=name,
        key=repr(key),
        line=line,
        reducer=channel.reducer_name,
        result=_("the old total is counted again each time.")
        if number
        else _("the items it read are appended again, so the list repeats itself."),
    )
    fix = (
        f'return {{"{key}": 1}}   # the increment'
        if number
        else f'return {{"{key}": [new_item]}}   # only the new items'
    )
    return explanation, fix


def _lost_in_race(name: str, key: str, line: int, reducer: str, rivals: list[str]) -> tuple[str, str]:
    """(explanation, fix) for the old value written into a keep-the-last reducer that parallel nodes write."""
    explanation = _(
        "{node} writes {key} as the value it read plus its change (line {line}), and "
        "{rivals} can write {key} in the same superstep. {reducer} folds the writes one after "
        "the other, so whichever is folded last replaces the others: their changes are lost without an "
        "error (a read-modify-write race)."
    ).format(node=name, key=repr(key), line=line, rivals=names(rivals), reducer=reducer)
    fix = (
        f"{key}: Annotated[list, operator.add]   # declare the merge on the key\n"
        f'return {{"{key}": [new_item]}}   # and return only the delta'
    )
    return explanation, fix


def _in_place(builder: Any, returns: dict[str, Returns], scope: tuple[str, ...]) -> list[Finding]:
    found = []
    for name, read in returns.items():
        seen: dict[str, tuple[int, str]] = {}
        for key, line, how in read.mutations:
            if key in builder.channels and key not in seen and (how != "+=" or _mutable(builder, key)):
                seen[key] = (line, how)
        for key, (line, how) in seen.items():
            found.append(
                graph_finding(
                    "in_place_mutation",
                    scope,
                    severity="warning",
                    title=_("{node} changes {key} in place").format(node=name, key=repr(key)),
                    explanation=_(
                        "{node} changes the {key} it received in place ({how}, line {line}). A node gets the "
                        "state's own lists and dicts, not copies, so this edits the state behind the engine's back: "
                        "no write records it, the `updates` stream and checkpoints miss it, and if the node also "
                        "returns that value, a reducer like operator.add merges the grown value into itself."
                    ).format(node=name, key=repr(key), how=how, line=line),
                    fix=f'return {{"{key}": [new_item]}}   # return the change instead of editing state["{key}"]',
                    fix_label=_("Treat the state as read-only and return an update"),
                    other_fixes=(
                        (
                            _("If the node needs a changed copy, copy first"),
                            f'items = list(state["{key}"])   # then change the copy',
                        ),
                    ),
                    node=name,
                    key=key,
                    evidence=({"line": line, "how": how},),
                )
            )
    return found


def _mutable(builder: Any, key: str) -> bool:
    """Whether a key holds a list, dict or set (so `+=` on it changes the value in place)."""
    channel = builder.channels.get(key)
    if isinstance(channel, BinaryOperatorAggregate) and channel.initial in (list, dict, set):
        return True
    for schema in builder.schemas:
        annotation = schema_fields(schema).get(key)
        if annotation is None:
            continue
        while typing.get_origin(annotation) is typing.Annotated:
            annotation = typing.get_args(annotation)[0]
        origin = typing.get_origin(annotation) or annotation
        if origin in (list, dict, set):
            return True
    return False


def _appending(channel: Any) -> bool:
    return isinstance(channel, BinaryOperatorAggregate) and channel.reducer_name in APPENDING


def _always_leaves_by_parent_command(builder: Any) -> bool:
    """Every node that can end the subgraph (an edge to END, or no way out) returns only
    `Command(graph=Command.PARENT, ...)`."""
    ways_out = {e.source for e in builder.edges if e.target != END} | set(builder.branches)
    enders = [
        name
        for name in builder.nodes
        if name not in ways_out or any(e.source == name and e.target == END for e in builder.edges)
    ]
    return bool(enders) and all(returns_only_parent_commands(builder.nodes[name].action) for name in enders)
