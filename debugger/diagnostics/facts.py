"""Facts the trace checks share: every run of a trace with its scope, the state each step started
from, what a channel is, and why a task ran (its fired channels and the earlier tasks that wrote them).

All values stay encoded (`engine.codec`), as the trace records them; `debugger.diagnostics.value_text.short` makes
them readable.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Iterator, Sequence

from debugger import i18n
from debugger.diagnostics.replay import MISSING_VALUE, Origin, Replay, StepsByNumber, canonical, repeated_items
from debugger.diagnostics.value_text import cut, short, task_name
from debugger.i18n import _
from engine import START
from engine.codec import TYPE, decode
from engine.trace import PUSH, TASKS, VIEW, RunRecord, TaskRecord

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

    @property
    def steps(self) -> StepsByNumber:
        """The run's steps by number, read when asked for (a long trace keeps them on disk)."""
        return self.replay.steps

    @property
    def order(self) -> Sequence[int]:
        return self.replay.order

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
            self.remember_start(step, self.replay.state_before(step))
        return self._starts[step]

    def remember_start(self, step: int, state: dict[str, Any]) -> None:
        """Keeps `state` as the start of `step`, folded elsewhere (`walk.py` folds the run as it goes)."""
        if step not in self._starts and len(self._starts) >= 8:  # the rules look at the current step, a few back
            del self._starts[next(iter(self._starts))]
        self._starts[step] = state

    def start_value(self, step: int, key: str) -> Any:
        return self.start_state(step).get(key, MISSING_VALUE)

    def initial_value(self, key: str) -> Any:
        """The channel's value before the input was written (its start value), as step -1 recorded it."""
        change = self._initial_changes.get(key)
        if change is not None:
            return change.get("set", MISSING_VALUE) if "set" in change else MISSING_VALUE
        return MISSING_VALUE

    @cached_property
    def _initial_changes(self) -> dict[str, Any]:
        """Step -1's recorded changes, read once: a long run's first step is not read again for each look-up."""
        first = self.steps.get(-1)
        return dict(first.state) if first is not None else {}

    def tasks(self, step: int) -> list[TaskRecord]:
        record = self.steps.get(step)
        return list(record.tasks) if record else []

    def task(self, step: int, task_id: str) -> TaskRecord | None:
        return next((t for t in self.tasks(step) if t.id == task_id), None)

    def input_keys(self, task: TaskRecord) -> list[str]:
        """The state keys a task received (its input view, or the keys of an encoded dict input)."""
        value = task.input
        if isinstance(value, dict) and VIEW in value:
            return list(value[VIEW])
        if isinstance(value, dict) and TYPE not in value:
            return list(value)
        return []

    def state_writes(self, task: TaskRecord) -> list[tuple[str, Any]]:
        channels = self.run.graph.get("channels", {})
        return [(c, v) for c, v in task.writes if c in channels]

    # ---- duplicates ----------------------------------------------------------------------------------

    def origins_before(self, step: int, key: str) -> list[Origin]:
        """Who put each item of `key` there, as of the start of `step`."""
        index = self.replay.position.get(step, 0)  # a dict: `order.index` per call made diagnose quadratic
        if index == 0:
            return []
        try:
            return self.replay.provenance(self.order[index - 1], key)
        except KeyError:
            return []

    def repeats(self, step: int, key: str, before: Any, after: Any) -> list[Repeat]:
        """The items a reducer call appended that were already in the list, each with where the first
        copy came from (the one duplicate detector: the app's marks and `diagnose` both use it)."""
        repeated = repeated_items(before, after)
        if not repeated:
            return []
        start = self.start_value(step, key)
        first: dict[str, int] = {}
        for index, item in enumerate(start if isinstance(start, list) else []):
            first.setdefault(canonical(item), index)
        origins = self.origins_before(step, key)
        found = []
        for index in repeated:
            item = after[index]
            at = first.get(canonical(item))
            found.append(Repeat(index, item, origins[at] if at is not None and at < len(origins) else None))
        return found

    # ---- channels ------------------------------------------------------------------------------------

    def channel_role(self, channel: str) -> dict[str, Any]:
        """`{"role": "state" | "edge" | "waiting_edge" | "sends" | "input" | "internal", ...}`.

        The trace's graph description records the control channels (`control_channels`); traces recorded
        before it did are read by LangGraph's channel names, here and nowhere else."""
        recorded = self.run.graph.get("control_channels")
        if channel in self.run.graph.get("channels", {}):
            return {"role": "state"}
        if recorded is not None:
            return recorded.get(channel, {"role": "internal"})
        if channel.startswith("branch:to:"):
            return {"role": "edge", "target": channel[len("branch:to:") :]}
        if channel.startswith("join:") and channel.count(":") >= 2:
            _kind, sources, target = channel.split(":", 2)
            return {"role": "waiting_edge", "sources": sources.split("+"), "target": target}
        return {"role": {START: "input", TASKS: "sends"}.get(channel, "internal")}

    # ---- why a task ran ------------------------------------------------------------------------------

    def label(self, task: TaskRecord) -> str:
        """The task as people should read it: `write_joke[1] {"subject": "owls"}` for a Send, else its name."""
        name = task_name(task)  # `write_joke[1]` for a Send
        return f"{name} {short_json(task.input)}" if name != task.name else name

    def reasons(self, step: int, task: TaskRecord) -> list[Reason]:
        """Why `task` ran in `step`: one reason per fired channel and earlier writer of it."""
        reasons: list[Reason] = []
        for channel in task.fired:
            writer_step, writers = self._writers_of(step, TASKS if channel == PUSH else channel)
            if not writers:
                reasons.append(Reason(self._unwritten_words(channel, task.name), channel))
                continue
            for earlier in writers:
                text, edge = self._edge_words(writer_step, step, earlier, task.name, channel, writers)
                reasons.append(Reason(text, channel, earlier.name, writer_step, edge))
        if not reasons:
            reasons.append(self._pending_reason(step, task))
        unique = {(r.text, r.edge): r for r in reasons}  # one per edge: each edge taken is drawn bold
        return list(unique.values())

    def why(self, step: int, task: TaskRecord) -> str:
        """`p1 finished (edge p1 → child)`, in words."""
        return i18n.join_sentences(dict.fromkeys(r.text for r in self.reasons(step, task)))

    def ran_because(self, step: int, tasks: list[TaskRecord]) -> str:
        """`a ran because …. b ran because ….`: why each of `tasks` ran in `step`, each sentence once."""
        return " ".join(
            dict.fromkeys(_("{node} ran because {why}.").format(node=t.name, why=self.why(step, t)) for t in tasks)
        )

    def _pending_reason(self, step: int, task: TaskRecord) -> Reason:
        """A task no channel fired for in its own step: it was already due when the run picked up (a
        resumed or forked run starts at a checkpoint whose tasks are pending), or it runs again after an
        interrupt. Its triggers, when something recorded wrote them, say who made it due."""
        for channel in task.triggers:
            writer_step, writers = self._writers_of(step, TASKS if channel == PUSH else channel)
            if writers:
                text, edge = self._edge_words(writer_step, step, writers[0], task.name, channel, writers)
                return Reason(
                    _("{reason}, and it was still due").format(reason=text), channel, writers[0].name, writer_step, edge
                )
        earlier = [s for s in self.order if s < step]
        if any(t.name == task.name and t.error for s in earlier for t in self.tasks(s)):
            return Reason(
                _("{task} was interrupted earlier and runs again now that the run resumed").format(task=task.name), ""
            )
        return Reason(
            _(
                "the run resumed from a saved checkpoint where {task} was still due to run (what made it due "
                "happened before that checkpoint)"
            ).format(task=task.name),
            "",
        )

    def _unwritten_words(self, channel: str, target: str) -> str:
        role = self.channel_role(channel)
        if role["role"] == "input" or target == START:
            return _("the run was given its input")
        if role["role"] == "sends":
            return _("a Send asked for it")
        if role["role"] in ("edge", "waiting_edge"):
            return _("an edge into {target} was taken").format(target=target)
        return _("{channel} changed").format(channel=channel)

    def _writers_of(self, step: int, channel: str) -> tuple[int, list[TaskRecord]]:
        """The latest earlier step whose tasks wrote `channel`, and those tasks."""
        index = self.replay.position.get(step, len(self.order))
        for earlier_step in (self.order[i] for i in range(index - 1, -1, -1)):
            writers = [t for t in self.tasks(earlier_step) if any(c == channel for c, _value in t.writes)]
            if writers:
                return earlier_step, writers
        return -1, []

    def _edge_words(
        self,
        writer_step: int,
        step: int,
        earlier: TaskRecord,
        target: str,
        channel: str,
        writers: list[TaskRecord],
    ) -> tuple[str, tuple[str, str] | None]:
        source = "START" if earlier.name == START else earlier.name
        waited = self._previous_step(step) != writer_step
        finished = (
            _("the input was written")
            if earlier.name == START
            else _("{task} finished").format(task=earlier.name)
            + (_(" in step {step}").format(step=writer_step) if waited else "")
        )
        edge = (earlier.name, target)
        if channel == PUSH:
            routes = [name for name, chosen in earlier.routes if _mentions(chosen, target)]
            how = _("its router {router}").format(router=routes[0]) if routes else _("a Command")
            return _("{task} sent a Send to {target} from {how}").format(
                task=earlier.name, target=target, how=how
            ), edge
        role = self.channel_role(channel)
        if role["role"] == "waiting_edge":
            sources = ", ".join(role.get("sources", []))
            last = list(dict.fromkeys(w.name for w in writers))  # the sources that finished in writer_step
            when = (
                _("last: {task}").format(task=last[0])
                if len(last) == 1
                else _("last: {tasks}, together").format(tasks=_(" and ").join(last))
            )
            return _("every node of the waiting edge [{sources}] → {target} had finished ({when})").format(
                sources=sources, target=target, when=when
            ), edge
        routes = [name for name, chosen in earlier.routes if _mentions(chosen, target)]
        if routes:
            return _("{finished} and its router {router} chose {target}").format(
                finished=finished, router=routes[0], target=target
            ), edge
        if [earlier.name, target] in self.run.graph.get("edges", []):
            return _("{finished} (edge {source} → {target})").format(
                finished=finished, source=source, target=target
            ), edge
        if isinstance(earlier.result, dict) and earlier.result.get(TYPE) == "Command":
            return _("{finished} and returned Command(goto={target})").format(
                finished=finished, target=repr(target)
            ), edge
        return _("{finished} and triggered {target}").format(finished=finished, target=target), edge

    def _previous_step(self, step: int) -> int | None:
        index = self.replay.position.get(step, 0)
        return self.order[index - 1] if index > 0 else None


@dataclass(frozen=True)
class Repeat:
    """A list item added again: its index in the new value, the item, and where its first copy came from."""

    index: int
    item: Any
    origin: Origin | None

    def origin_words(self) -> str:
        return origin_words(self.origin)


def origin_words(origin: Origin | None) -> str:
    if origin is None:
        return _("changed during this step")
    if origin.task == START:
        return _("from the input")
    if origin.call_index is None:
        return _("changed outside the reducers in step {step}").format(step=origin.step)
    return _("written by {task} in step {step}").format(task=origin.task, step=origin.step)


@dataclass(frozen=True)
class Reason:
    """One reason a task ran: a fired channel and the earlier task that wrote it."""

    text: str
    channel: str
    writer: str | None = None
    writer_step: int | None = None
    edge: tuple[str, str] | None = None
    """The (source, target) edge this reason followed, for the drawing."""


def short_json(encoded: Any, limit: int = 60) -> str:
    """A Send's argument as compact JSON, e.g. `{"subject": "owls"}`; the tool call a langgraph agent
    sends to its ToolNode (`{"__type": "tool_call_with_context", "tool_call": ..., "state": ...}`) as
    the call itself, `get_weather({"city": "Paris"})`: the wrapper and the state it carries are noise."""
    call = encoded.get("tool_call") if isinstance(encoded, dict) else None
    if encoded_type(encoded) == "tool_call_with_context" and isinstance(call, dict) and "name" in call:
        return f"{call['name']}({short_json(call.get('args', {}), max(limit - len(str(call['name'])) - 2, 10))})"
    try:
        text = json.dumps(decode(encoded), ensure_ascii=False, separators=(", ", ": "), default=str)
    except Exception:  # a value the codec cannot decode is still shown
        text = short(encoded, limit)
    return cut(text, limit)


def encoded_type(encoded: Any) -> str:
    """The `__type` tag langgraph puts on a dict it sends (e.g. `tool_call_with_context`), or ''."""
    return str(encoded.get("__type", "")) if isinstance(encoded, dict) else ""


def _mentions(encoded: Any, target: str) -> bool:
    """Whether a router's recorded result names `target` (a name, a list of names, Sends)."""
    if encoded == target:
        return True
    if isinstance(encoded, list):
        return any(_mentions(item, target) for item in encoded)
    if isinstance(encoded, dict) and encoded.get(TYPE) == "Send":
        return encoded.get("node") == target
    return False


def runs(trace: RunRecord, graph: Any = None, scope: tuple[str, ...] = ()) -> Iterator[RunFacts]:
    """The run and every subgraph run nested in its tasks, depth first, each with its scope."""
    yield RunFacts(trace, scope, graph)
    for step in trace.steps:
        for task in step.tasks:
            for index, nested in enumerate(task.subgraphs):
                yield from runs(
                    nested, subgraph_of(graph, task.name), (*scope, scope_label(task.name, step.step, index))
                )


def scope_label(node: str, step: int, index: int = 0) -> str:
    """How a finding names a subgraph run: `child@2` (`child@2#2` for the task's second run)."""
    return f"{node}@{step}" + (f"#{index + 1}" if index else "")


def subgraph_of(graph: Any, node: str) -> Any:
    """The live compiled subgraph a node of `graph` runs, or None."""
    builder = getattr(graph, "builder", None)
    spec = builder.nodes.get(node) if builder is not None else None
    action = getattr(spec, "action", None)
    return action if hasattr(action, "builder") else None


def same(a: Any, b: Any) -> bool:
    return canonical(a) == canonical(b)


def names(items: list[str]) -> str:
    """`a`, `a and b`, `a, b and c`."""
    items = list(dict.fromkeys(items))
    if len(items) <= 1:
        return "".join(items)
    return i18n.join_names(items[:-1]) + _(" and ") + items[-1]


def both(items: list[str]) -> str:
    """`both` for two, `all` for more: "a and b both wrote"."""
    return _("both") if len(set(items)) == 2 else _("all")
