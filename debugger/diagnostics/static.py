"""Diagnostics before running: `diagnose_graph(compiled)` reads the builder and the nodes' source.

- concurrent updates waiting to happen: a key without a reducer that two nodes able to run in the
  same superstep can write (`parallel_writes.py`);
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
from .findings import Finding, Said, graph_finding
from .parallel_writes import Writes, node_writes, parallel_plain_keys
from .source import Returns, describe_function, node_returns, returns_only_parent_commands
from .start import static_start_values
from .topology import Topology


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
    writes = node_writes(builder, returns, subgraphs)
    found: list[Finding] = []
    found += parallel_plain_keys(builder, topology, writes, returns, subgraphs, scope)
    found += _whole_state(builder, returns, scope)
    found += _subgraph_echo(builder, topology, subgraphs, scope)
    found += _read_modify_write(builder, topology, writes, returns, scope)
    found += _in_place(builder, returns, scope)
    found += static_start_values(builder, scope)
    if topology.truncated:
        found.append(
            graph_finding(
                "concurrent_update",
                "info",
                Said(
                    _("The graph is too large to check every step shape"),
                    _(
                        "The search for nodes that can run in the same superstep stopped early, so some "
                        "parallel writes may not have been checked. Diagnose a recorded run for certainty."
                    ),
                ),
                scope,
            )
        )
    for name, sub in subgraphs.items():
        found += diagnose_graph(sub, (*scope, name))
    return found


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
        said = _whole_state_said(name, describe_function(builder.nodes[name].action), read.whole_state, consequences)
        evidence = ({"line": read.whole_state},)
        found.append(graph_finding("returns_whole_state", "warning", said, scope, node=name, evidence=evidence))
    return found


def _whole_state_said(name: str, function: str, line: int, consequences: list[str]) -> Said:
    explanation = _(
        "{node} ({function}) returns the state it received (line {line}) instead of an update. "
        "A node's return value is a set of writes, one per key: returning the state writes every key "
        "again{consequences}."
    ).format(
        node=name,
        function=function,
        line=line,
        consequences=(": " + _("; and ").join(consequences)) if consequences else "",
    )
    only_changed = (
        _("Return only what the node changed"),
        'return {"key_you_changed": new_value}   # only the keys this node changed',
    )
    return Said(_("{node} returns the whole state").format(node=name), explanation, [only_changed])


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
            said = _echo_said(name, key, channel.reducer_name)
            found.append(graph_finding("subgraph_duplication", "warning", said, scope, node=name, key=key))
    return found


def _echo_said(name: str, key: str, reducer: str) -> Said:
    explanation = _(
        "{node} is a compiled subgraph mounted as a node. It receives the parent's {key} and "
        "returns its whole final state, which starts with that same value; the parent's reducer "
        "{reducer} then appends it again, so every item the parent had before {node} "
        "ran appears twice."
    ).format(node=name, key=repr(key), reducer=reducer)
    wrap = (
        _("Wrap the subgraph in a function node with its own schema that returns only the new items"),
        f"def call_{name}(state):\n    out = subgraph.invoke({{...}})   # a schema of its own, "
        f'without {key!r}\n    return {{"{key}": [...]}}   # only the new items',
    )
    by_id = (
        _("Give the key a reducer that merges by id"),
        f"{key}: Annotated[list, merge_by_id]   # messages: add_messages already does this",
    )
    return Said(
        _("Subgraph node {node} can re-append {key}").format(node=name, key=repr(key)), explanation, [wrap, by_id]
    )


def _read_modify_write(
    builder: Any, topology: Topology, writes: dict[str, Writes], returns: dict[str, Returns], scope: tuple[str, ...]
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
            title = _("{node} writes back {key} plus its change").format(node=name, key=repr(key))
            said = Said(title, explanation, [(_("Return only the change; let the reducer merge it"), fix)])
            evidence = ({"line": line},)
            found.append(
                graph_finding("read_modify_write", "warning", said, scope, node=name, key=key, evidence=evidence)
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
            said, evidence = _in_place_said(name, key, how, line), ({"line": line, "how": how},)
            found.append(
                graph_finding("in_place_mutation", "warning", said, scope, node=name, key=key, evidence=evidence)
            )
    return found


def _in_place_said(name: str, key: str, how: str, line: int) -> Said:
    explanation = _(
        "{node} changes the {key} it received in place ({how}, line {line}). A node gets the "
        "state's own lists and dicts, not copies, so this edits the state behind the engine's back: "
        "no write records it, the `updates` stream and checkpoints miss it, and if the node also "
        "returns that value, a reducer like operator.add merges the grown value into itself."
    ).format(node=name, key=repr(key), how=how, line=line)
    update = (
        _("Treat the state as read-only and return an update"),
        f'return {{"{key}": [new_item]}}   # return the change instead of editing state["{key}"]',
    )
    copy = (_("If the node needs a changed copy, copy first"), f'items = list(state["{key}"])   # then change the copy')
    return Said(_("{node} changes {key} in place").format(node=name, key=repr(key)), explanation, [update, copy])


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
