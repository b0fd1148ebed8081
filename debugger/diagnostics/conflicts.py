"""Concurrent updates in a recorded run: the `InvalidUpdateError` of a key written twice in one step.

LangGraph's message names the key only ("At key 'v': Can receive only one value per step"). The trace
has the rest: every reducer call the barrier refused (`call.error`), so every node that wrote the key
in that superstep and what it wrote; and, from each writer's `fired` channels and the earlier tasks
that wrote them, why those nodes ran in the same step. The finding names them all and offers the
fixes that fit: a reducer, one writer per key, running them in sequence, and for writers that echo
the value they received (a subgraph, a node returning the whole state), not writing the key at all.
"""

from __future__ import annotations

from typing import Any

from debugger.diagnostics.replay import MISSING_VALUE
from debugger.diagnostics.value_text import short
from engine.codec import TYPE, decode

from .facts import RunFacts, both, names, same
from .findings import Finding


def concurrent_updates(facts: RunFacts) -> list[Finding]:
    found = []
    for record in facts.run.steps:
        refused: dict[str, list[Any]] = {}
        for call in record.reducer_calls:
            if call.error is not None and call.error.get("class") == "InvalidUpdateError":
                refused.setdefault(call.channel, []).append(call)
        for key, calls in refused.items():
            writes = [c for c in record.reducer_calls if c.channel == key]
            found.append(_finding(facts, record.step, key, writes, calls[0].error.get("message", "")))
    return found


def _finding(facts: RunFacts, step: int, key: str, calls: list[Any], message: str) -> Finding:
    """Long because it words one finding whole (the writers, why they ran together, echoes of a subgraph or a
    whole state, the fixes), which reads better in one place."""
    overwrite = "Overwrite" in message
    if overwrite:
        calls = [c for c in calls if isinstance(c.write, dict) and c.write.get(TYPE) == "Overwrite"] or calls
    writers = list(dict.fromkeys(c.writer_name for c in calls))
    start = facts.start_value(step, key)
    evidence = []
    echoes, subgraphs = [], []
    for call in calls:
        task = facts.task(step, call.writer)
        echoed = start != MISSING_VALUE and same(call.write, start)
        if echoed:
            echoes.append(call.writer_name)
        if task is not None and (task.subgraphs or facts.is_subgraph_node(task.name)):
            subgraphs.append(call.writer_name)
        evidence.append(
            {
                "node": call.writer_name,
                "value": call.write,
                "text": short(call.write, 60),
                "why": facts.why(step, task) if task is not None else "",
                "echoes_received_value": echoed,
            }
        )
    values = "; ".join(f"{e['node']} wrote {e['text']}" for e in evidence)
    why = " ".join(dict.fromkeys(f"{e['node']} ran because {e['why']}." for e in evidence if e["why"]))
    who = names(writers)
    if overwrite:
        explanation = (
            f"{who} each wrote Overwrite(...) to {key!r} in step {step} ({values}). An Overwrite replaces the "
            f"value, bypassing the reducer, and only one per key per superstep is allowed, since two would each "
            f"claim to be the final value. The step failed and none of its writes reached the state. {why}"
        )
        fix = f'return {{"{key}": Overwrite(new_value)}}   # in one node only; the others return plain updates'
        return Finding(
            kind="concurrent_update",
            severity="error",
            title=f"Two Overwrite writes to {key!r} in one superstep ({who})",
            explanation=explanation,
            fix=fix,
            fix_label="Let one node replace the value; the others add to it",
            step=step,
            node=writers[0],
            key=key,
            nodes=tuple(writers),
            scope=facts.scope,
            evidence=tuple(evidence),
        )
    if len(writers) == 1:
        situation = (
            f"{who} wrote {key!r} {len(calls)} times in step {step} ({values}): as several tasks of "
            f"the same node (Sends), or one task writing the key twice."
        )
    else:
        situation = f"{who} {both(writers)} wrote {key!r} in step {step} ({values})."
    explanation = (
        f"{situation} {key!r} has no reducer, so it holds one value and accepts one write per superstep; with "
        f"{len(calls)}, LangGraph does not guess which one you meant: it raises InvalidUpdateError "
        f"(INVALID_CONCURRENT_GRAPH_UPDATE) and the whole step is lost, none of its writes reach the state. "
        f"{why} Nodes triggered by the same superstep always run together in the next one."
    )
    if echoes:
        explanation += (
            f" {names(echoes)} wrote back the value {key!r} already had ({short(start, 40)}): "
            + (
                "a subgraph returns its whole final state, including keys it only received. "
                if subgraphs
                else "a node that returns the whole state (or copies a key it did not change) writes every key again. "
            )
            + "Leaving unchanged keys out of the update removes the conflict."
        )
    fixes = _fixes(key, calls, writers, echoes, subgraphs)
    label, code = fixes[0]
    return Finding(
        kind="concurrent_update",
        severity="error",
        title=f"{who} wrote the plain key {key!r} in one superstep",
        explanation=explanation,
        fix=code,
        fix_label=label,
        other_fixes=tuple(fixes[1:]),
        step=step,
        node=writers[0],
        key=key,
        nodes=tuple(writers),
        scope=facts.scope,
        evidence=tuple(evidence),
    )


def _fixes(
    key: str, calls: list[Any], writers: list[str], echoes: list[str], subgraphs: list[str]
) -> list[tuple[str, str]]:
    """The fixes that fit, best first. Which reducer fits depends on what the writes are: lists are
    merged by concatenation and dicts by union, keeping the key's type; scalars (a str, an int) have no
    natural merge, so their first fix keeps one writer per key and collecting them is offered as a
    change of type."""
    values = [decode_or_raw(c.write) for c in calls]
    if all(isinstance(v, list) for v in values):
        reducer = (
            f"Give {key!r} a reducer that concatenates, so parallel lists are merged",
            f"{key}: Annotated[list, operator.add]   # each node's list is appended",
        )
    elif all(isinstance(v, dict) for v in values):
        reducer = (
            f"Give {key!r} a reducer that merges the dicts",
            f"{key}: Annotated[dict, lambda old, new: {{**old, **new}}]   # later keys win",
        )
    else:
        item = _item_type([c.write for c in calls])
        reducer = (
            f"Or collect every value: make {key!r} a list with a reducer (its type changes from {item} "
            f"to list[{item}])",
            f'{key}: Annotated[list[{item}], operator.add]   # each node returns {{"{key}": [its value]}}',
        )
    own_keys = (
        "Give each node its own key, if the values mean different things",
        "\n".join(f'return {{"{key}_{w}": ...}}   # in {w}' for w in writers[:3]),
    )
    sequence = (
        "Run them one after the other instead of in parallel",
        f'builder.add_edge("{writers[0]}", "{writers[-1]}")   # instead of both edges from the same node',
    )
    fixes = []
    if subgraphs:
        fixes.append(
            (
                f"Give the subgraph an output schema without {key!r}, so it does not echo it back",
                "sub = StateGraph(SubState, output_schema=SubOutput)   # SubOutput lists only the keys it changes",
            )
        )
    if echoes and not subgraphs:
        fixes.append(
            (
                "Return only what changed, not the whole state",
                f'return {{"other_key": new_value}}   # leave {key!r} out of the update (not `return state`)',
            )
        )
    scalar = reducer[0].startswith("Or collect")
    if scalar and len(writers) > 1:
        fixes += [own_keys, reducer, sequence]
    else:
        fixes.append(reducer)
        if len(writers) > 1:
            fixes += [own_keys, sequence]
    return fixes


def decode_or_raw(encoded: Any) -> Any:
    try:
        return decode(encoded)
    except Exception:  # a value the codec cannot rebuild: judge its recorded form
        return encoded


def _item_type(values: list[Any]) -> str:
    kinds = {type(v).__name__ for v in values if not isinstance(v, dict)}
    if len(kinds) == 1 and kinds <= {"int", "str", "float", "bool"}:
        return kinds.pop()
    return "Any"
