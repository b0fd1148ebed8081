"""Facts the trace checks share: every run of a trace with its scope, the state each step started
from, what a channel is, and why a task ran (its fired channels and the earlier tasks that wrote them).

All values stay encoded (`engine.codec`), as the trace records them; `debugger.present.short` makes
them readable.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Iterator

from debugger.replay import MISSING_VALUE, Replay
from engine.constants import PUSH, START, TASKS
from engine.trace import ReducerCallRecord, RunRecord, StepRecord, TaskRecord

INPUT_WRITERS = (START, "__input__")
"""Writers that are the input, not a node."""
APPENDING = ("operator.add", "operator.concat", "operator.iadd", "operator.iconcat")
"""Reducers that append their write to the value: re-sent items are repeated."""
PLAIN = ("LastValue", "AnyValue", "EphemeralValue")
"""Channels without a reducer function."""


@dataclass
class RunFacts:
    """One recorded run (the root, or a subgraph's) and where it sits."""

    run: RunRecord
    scope: tuple[str, ...]
    graph: Any = None
    """The live compiled graph of this run when known (only used for its reducers)."""

    @cached_property
    def replay(self) -> Replay:
        return Replay(self.run)

    @cached_property
    def steps(self) -> dict[int, StepRecord]:
        return {s.step: s for s in self.run.steps}

    @cached_property
    def order(self) -> list[int]:
        return [s.step for s in self.run.steps]

    def channel(self, key: str) -> dict[str, Any]:
        """`{"kind": "LastValue" | "BinaryOperatorAggregate" | ..., "reducer": name}` from the trace."""
        return self.run.graph.get("channels", {}).get(key, {})

    def reducer(self, key: str) -> str:
        return self.channel(key).get("reducer", "")

    def is_subgraph_node(self, name: str) -> bool:
        return any(n.get("name") == name and n.get("subgraph") for n in self.run.graph.get("nodes", []))

    @cached_property
    def _starts(self) -> dict[int, dict[str, Any]]:
        return {}

    def start_state(self, step: int) -> dict[str, Any]:
        """The state `step` started from (encoded; empty keys left out). Do not mutate it."""
        if step not in self.steps:
            return {}
        if step not in self._starts:
            if len(self._starts) >= 8:  # checks walk the steps in order: a few recent ones are all they reuse
                del self._starts[next(iter(self._starts))]
            self._starts[step] = self.replay.state_before(step)
        return self._starts[step]

    def start_value(self, step: int, key: str) -> Any:
        return self.start_state(step).get(key, MISSING_VALUE)

    def initial_value(self, key: str) -> Any:
        """The channel's value before the input was written (its start value), as step -1 recorded it."""
        first = self.steps.get(-1)
        if first is not None and key in first.state:
            change = first.state[key]
            return change.get("set", MISSING_VALUE) if "set" in change else MISSING_VALUE
        return MISSING_VALUE

    def tasks(self, step: int) -> list[TaskRecord]:
        record = self.steps.get(step)
        return list(record.tasks) if record else []

    def task(self, step: int, task_id: str) -> TaskRecord | None:
        return next((t for t in self.tasks(step) if t.id == task_id), None)

    def input_keys(self, task: TaskRecord) -> list[str]:
        """The state keys a task received (its input view, or the keys of an encoded dict input)."""
        value = task.input
        if isinstance(value, dict) and "$view" in value:
            return list(value["$view"])
        if isinstance(value, dict) and "$type" not in value:
            return list(value)
        return []

    def state_writes(self, task: TaskRecord) -> list[tuple[str, Any]]:
        channels = self.run.graph.get("channels", {})
        return [(c, v) for c, v in task.writes if c in channels]

    # ---- why a task ran ------------------------------------------------------------------------------

    def why(self, step: int, task: TaskRecord) -> str:
        """`__start__ (step 0) took the edge START → lookup_order`, in words."""
        reasons = []
        for channel in task.fired:
            writer_step, writers = self._writers_of(step, TASKS if channel == PUSH else channel)
            if not writers:
                reasons.append(f"{channel} changed")
                continue
            for earlier in writers:
                reasons.append(self._edge_words(writer_step, earlier, task.name, channel))
        return "; ".join(dict.fromkeys(reasons)) or "it was scheduled"

    def _writers_of(self, step: int, channel: str) -> tuple[int, list[TaskRecord]]:
        """The latest earlier step whose tasks wrote `channel`, and those tasks."""
        index = self.replay.position.get(step, len(self.order))
        for earlier_step in (self.order[i] for i in range(index - 1, -1, -1)):
            writers = [t for t in self.tasks(earlier_step) if any(c == channel for c, _ in t.writes)]
            if writers:
                return earlier_step, writers
        return -1, []

    def _edge_words(self, step: int, earlier: TaskRecord, target: str, channel: str) -> str:
        source = "START" if earlier.name == START else earlier.name
        who = f"{earlier.name} (step {step})"
        if channel == PUSH:
            routes = [name for name, chosen in earlier.routes if _mentions(chosen, target)]
            how = f"its router {routes[0]}" if routes else "a Command"
            return f"{who} sent a Send to {target} from {how}"
        if channel.startswith("join:"):
            return f"the waiting edge [{channel.split(':')[1].replace('+', ', ')}] → {target} was complete after {who}"
        routes = [name for name, chosen in earlier.routes if _mentions(chosen, target)]
        if routes:
            return f"the router {routes[0]} of {who} chose {target}"
        edges = self.run.graph.get("edges", [])
        if [earlier.name, target] in edges or (earlier.name == START and [START, target] in edges):
            return f"{who} took the edge {source} → {target}"
        if isinstance(earlier.result, dict) and earlier.result.get("$type") == "Command":
            return f"{who} returned Command(goto={target!r})"
        return f"{who} triggered {target}"


def _mentions(encoded: Any, target: str) -> bool:
    """Whether a router's recorded result names `target` (a name, a list of names, Sends)."""
    if encoded == target:
        return True
    if isinstance(encoded, list):
        return any(_mentions(item, target) for item in encoded)
    if isinstance(encoded, dict) and encoded.get("$type") == "Send":
        return encoded.get("node") == target
    return False


def runs(trace: RunRecord, graph: Any = None, scope: tuple[str, ...] = ()) -> Iterator[RunFacts]:
    """The run and every subgraph run nested in its tasks, depth first, each with its scope."""
    yield RunFacts(trace, scope, graph)
    for step in trace.steps:
        for task in step.tasks:
            for index, nested in enumerate(task.subgraphs):
                label = f"{task.name}@{step.step}" + (f"#{index + 1}" if index else "")
                yield from runs(nested, _subgraph_of(graph, task.name), (*scope, label))


def _subgraph_of(graph: Any, node: str) -> Any:
    builder = getattr(graph, "builder", None)
    spec = builder.nodes.get(node) if builder is not None else None
    action = getattr(spec, "action", None)
    return action if hasattr(action, "builder") else None


def calls_with_values(facts: RunFacts, step: int) -> Iterator[tuple[ReducerCallRecord, Any, Any, Any]]:
    """Each reducer call of `step` with the channel's recorded value before the call's `before` delta
    (`prior`), the value the reducer received (`before`) and its result (`after`)."""
    from engine.codec import apply_delta

    values = dict(facts.start_state(step))
    for call in facts.steps[step].reducer_calls:
        prior = values.get(call.channel, MISSING_VALUE)
        before = apply_delta(prior, call.before)
        after = before if call.error is not None else apply_delta(before, call.after)
        values[call.channel] = after
        yield call, prior, before, after


def same(a: Any, b: Any) -> bool:
    return canonical(a) == canonical(b)


def canonical(value: Any) -> str:
    return json.dumps(value, sort_keys=True, ensure_ascii=False)


def names(items: list[str]) -> str:
    """`a`, `a and b`, `a, b and c`."""
    items = list(dict.fromkeys(items))
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + " and " + items[-1]


def both(items: list[str]) -> str:
    """`both` for two, `all` for more: "a and b both wrote"."""
    return "both" if len(set(items)) == 2 else "all"
