"""Start values of reducer keys, and reducers that raise.

A reducer key starts from its annotated type's constructor (`list` -> [], `int` -> 0): that is the
Python form of seed 000's `default: () => []`, the value the first write is folded into. Three traps:

- the start value does not suit the reducer (`Annotated[dict, operator.add]`: `{} + {...}` raises);
- the type has no usable constructor (`list[str] | None`), so the key starts *empty*: nodes reading
  it before the first write get a KeyError, and the first write is stored as is, reducer not called;
- a dataclass or pydantic default on a reducer field (`= field(default_factory=lambda: ["seed"])`) is
  never the start value: the channel starts from the type's constructor and the default is ignored.

Before running, only reducers from `operator` (and `add_messages`) are tried on the start value:
they are known to be pure. User reducers are judged from the trace, where a reducer call that
raised records its error and the value it got.
"""

from __future__ import annotations

import dataclasses
import typing
from typing import Any

from debugger.diagnostics.replay import MISSING_VALUE
from debugger.diagnostics.value_text import short
from debugger.i18n import _
from engine import BinaryOperatorAggregate, add_messages
from engine.codec import TYPE
from engine.trace import schema_fields

from .facts import PLAIN, RunFacts
from .findings import Finding, Said, graph_finding, trace_finding
from .walk import Collecting, SeenStep, findings_of

# ---- before running --------------------------------------------------------------------------------


def static_start_values(builder: Any, scope: tuple[str, ...] = ()) -> list[Finding]:
    """A finding for each reducer key whose start value is a trap: none, one the reducer raises on, or a
    schema default that is never used."""
    found = []
    annotations = _annotations(builder)
    for key, channel in builder.channels.items():
        if not isinstance(channel, BinaryOperatorAggregate):
            continue
        if channel.initial is None:
            trap = _starts_empty(key, channel.reducer_name, _type_text(annotations.get(key)))
        elif (failure := _fails_on_start(channel)) is not None:
            trap = _cannot_fold(key, channel, failure)
        elif (default := _schema_default(builder, key)) is not _NO_DEFAULT and default != channel.initial():
            trap = _default_unused(key, channel, default)
        else:
            continue
        severity, said, evidence = trap
        found.append(graph_finding("reducer_start_value", severity, said, scope, key=key, evidence=evidence))
    return found


StartTrap = tuple[str, Said, tuple[dict[str, Any], ...]]
"""A start value's trap as its finding tells it: (severity, what it says, evidence)."""


def _starts_empty(key: str, reducer: str, declared: str) -> StartTrap:
    explanation = _(
        "{key} has a reducer ({reducer}) but its type {declared} has no usable constructor, so "
        "LangGraph cannot build a start value and the key starts empty. Nodes that read "
        "state[{key}] before the first write get a KeyError, and the first write is stored as it "
        "is, without calling {reducer} (so it is not merged, coerced or deduplicated)."
    ).format(key=repr(key), reducer=reducer, declared=declared)
    concrete = (
        _("Declare a concrete type whose constructor gives the start value"),
        f"{key}: Annotated[list, {reducer}]   # a concrete type: starts at list() == []",
    )
    defensive = (_("Read it defensively until the first write"), f'items = state.get("{key}") or []')
    title = _("{key} starts empty, not at a default value").format(key=repr(key))
    return "warning", Said(title, explanation, [concrete, defensive]), ()


def _cannot_fold(key: str, channel: BinaryOperatorAggregate, failure: str) -> StartTrap:
    start, reducer = channel.initial(), channel.reducer_name
    explanation = _(
        "{key} starts at {start} ({kind}()), and {reducer}({start}, {start}) raises {failure}. "
        "The first write to {key} will fail its step with the same error."
    ).format(key=repr(key), start=repr(start), kind=_type_name(channel.initial), reducer=reducer, failure=failure)
    title = _("{reducer} cannot fold into the start value of {key}").format(reducer=reducer, key=repr(key))
    said = Said(title, explanation, [(_("Pick a reducer that works on the key's type"), _start_fix(key, channel))])
    return "error", said, ({"start": repr(start), "error": failure},)


def _default_unused(key: str, channel: BinaryOperatorAggregate, default: Any) -> StartTrap:
    explanation = _(
        "The schema gives {key} the default {default}, but a reducer key does not start from "
        "field defaults: it starts from its type's constructor, {start}, and {reducer} "
        "folds every write into that. Nodes never see {default} unless the input sends it."
    ).format(key=repr(key), default=repr(default), start=repr(channel.initial()), reducer=channel.reducer_name)
    in_input = (
        _("Send the start value in the input (or from the first node)"),
        f'graph.invoke({{"{key}": {default!r}, ...}})   # pass the start value in the input',
    )
    first = (_("Write it from the first node"), f'def first(state):\n    return {{"{key}": {default!r}}}')
    title = _("The default of {key} is never used").format(key=repr(key))
    return "warning", Said(title, explanation, [in_input, first]), ({"default": repr(default)},)


def _fails_on_start(channel: BinaryOperatorAggregate) -> str | None:
    fn = channel.operator
    if not (getattr(fn, "__module__", None) in ("operator", "_operator") or fn is add_messages):
        return None
    try:
        fn(channel.initial(), channel.initial())
    except Exception as exc:  # the point of the check
        return f"{type(exc).__name__}: {exc}"
    return None


def _start_fix(key: str, channel: BinaryOperatorAggregate) -> str:
    kind = channel.initial
    if kind is dict:
        return f"{key}: Annotated[dict, operator.or_]   # dict union: {{**old, **new}}"
    if kind in (set, frozenset):
        return f"{key}: Annotated[set, operator.or_]   # set union"
    return f"{key}: Annotated[list, operator.add]   # a type the reducer can fold into"


_NO_DEFAULT = object()


def _schema_default(builder: Any, key: str) -> Any:
    for schema in builder.schemas:
        if dataclasses.is_dataclass(schema):
            for f in dataclasses.fields(schema):
                if f.name == key:
                    if f.default is not dataclasses.MISSING:
                        return f.default
                    if f.default_factory is not dataclasses.MISSING:
                        return f.default_factory()
        model_fields = getattr(schema, "model_fields", None)
        if isinstance(model_fields, dict) and key in model_fields:
            info = model_fields[key]
            factory = getattr(info, "default_factory", None)
            if factory is not None:
                return factory()
            default = getattr(info, "default", _NO_DEFAULT)
            if default is not _NO_DEFAULT and type(default).__name__ != "PydanticUndefinedType":
                return default
    return _NO_DEFAULT


def _annotations(builder: Any) -> dict[str, Any]:
    found: dict[str, Any] = {}
    for schema in builder.schemas:
        for key, annotation in schema_fields(schema).items():
            found.setdefault(key, annotation)
    return found


def _type_text(annotation: Any) -> str:
    if annotation is None:
        return "?"
    if typing.get_origin(annotation) is typing.Annotated:
        annotation = typing.get_args(annotation)[0]
    text = annotation.__name__ if isinstance(annotation, type) else repr(annotation)
    return text.replace("typing.", "")


def _type_name(kind: Any) -> str:
    return getattr(kind, "__name__", repr(kind))


# ---- from a trace -------------------------------------------------------------------------------------


class ReducerErrors(Collecting):
    """The rule: reducer calls that raised (other than the concurrent-update refusals), and reads of a reducer
    key that was still empty because it has no start value."""

    def __init__(self, facts: RunFacts) -> None:
        super().__init__(facts)
        self.succeeded: set[str] = set()
        """The channels some reducer call has merged into without an error."""

    def observe(self, seen: SeenStep) -> None:
        facts, record, values = self.facts, seen.record, seen.start
        for call in record.reducer_calls:
            error = call.error
            if error is None:
                self.succeeded.add(call.channel)
                continue
            if error.get("class") == "InvalidUpdateError" or call.reducer in PLAIN:
                continue
            before = values.get(call.channel, MISSING_VALUE)
            first = call.channel not in self.succeeded and before == facts.initial_value(call.channel)
            self.found.append(_raised(facts, record.step, call, before, first))
            break  # the barrier stops at the first failing reducer
        for task in record.tasks:
            key = _missing_key(task.error)
            if key is None or facts.channel(key).get("kind") != "BinaryOperatorAggregate":
                continue
            if facts.initial_value(key) == MISSING_VALUE and key not in values:
                self.found.append(_read_empty(facts, record.step, task.name, key))


def reducer_errors(facts: RunFacts) -> list[Finding]:
    return findings_of(facts, ReducerErrors(facts))


def _raised(facts: RunFacts, step: int, call: Any, before: Any, first: bool) -> Finding:
    """A reducer that raised: on the key's start value (`first`: no write had been merged yet), or on a write."""
    error = call.error
    message = f"{error.get('class')}: {error.get('message', '').splitlines()[0] if error.get('message') else ''}"
    words = _failed_on_start(call, before, message, step) if first else _failed_on_write(call, before, message, step)
    return Finding(step=step, node=call.writer_name, key=call.channel, scope=facts.scope, **words)


def _failed_on_start(call: Any, before: Any, message: str, step: int) -> dict[str, Any]:
    key, reducer = call.channel, call.reducer
    explanation = _(
        "In step {step}, {node} wrote {write} to {key}, and {reducer} raised "
        "{message} when folding it into the key's start value {start}: the start value comes "
        "from the annotated type's constructor and the reducer cannot work with it. The step failed and "
        "none of its writes were applied."
    ).format(
        step=step,
        node=call.writer_name,
        write=short(call.write, 40),
        key=repr(key),
        reducer=reducer,
        message=message,
        start=short(before, 30),
    )
    accept = (
        _("Make the reducer accept the empty start value"),
        "def merge(old, new):\n    if not old:\n        return new\n    ...",
    )
    return {
        "kind": "reducer_start_value",
        "severity": "error",
        "title": _("{reducer} failed on the start value of {key}").format(reducer=reducer, key=repr(key)),
        "explanation": explanation,
        "fix": _recorded_start_fix(key, reducer, before),
        "fix_label": _("Declare a type whose empty value the reducer accepts, or a reducer that accepts it"),
        "other_fixes": (accept,),
        "evidence": ({"start": before, "write": call.write, "error": message},),
    }


def _failed_on_write(call: Any, before: Any, message: str, step: int) -> dict[str, Any]:
    key, reducer, node = call.channel, call.reducer, call.writer_name
    explanation = _(
        "In step {step}, merging {node}'s write to {key}, {reducer}({before}, {write}) raised {message}. "
        "The barrier stopped there and none of the step's writes were applied."
    ).format(
        step=step,
        node=node,
        key=repr(key),
        reducer=reducer,
        before=short(before, 40),
        write=short(call.write, 40),
        message=message,
    )
    return {
        "kind": "reducer_failed",
        "severity": "error",
        "title": _("{reducer} raised merging {node}'s write to {key}").format(
            reducer=reducer, node=node, key=repr(key)
        ),
        "explanation": explanation,
        "fix": f'return {{"{key}": <a value {reducer} accepts>}}   # in {node}',
        "fix_label": _("Write a value of the shape {reducer} expects (or make the reducer accept it)").format(
            reducer=reducer
        ),
        "evidence": ({"before": before, "write": call.write, "error": message},),
    }


def _recorded_start_fix(key: str, reducer: str, start: Any) -> str:
    if isinstance(start, dict) and start.get(TYPE) in (None, "dict"):
        return f"{key}: Annotated[dict, operator.or_]   # dict union: {{**old, **new}}"
    if isinstance(start, dict) and start.get(TYPE) == "set":
        return f"{key}: Annotated[set, operator.or_]   # set union"
    return f"{key}: Annotated[<a type {reducer} accepts>, {reducer}]   # or a reducer that accepts {short(start, 20)}"


def _missing_key(error: dict[str, Any] | None) -> str | None:
    if not error or error.get("class") != "KeyError":
        return None
    message = error.get("message", "")
    return message[1:-1] if len(message) > 1 and message[0] == message[-1] and message[0] in "'\"" else None


def _read_empty(facts: RunFacts, step: int, node: str, key: str) -> Finding:
    reducer = facts.reducer(key)
    return trace_finding(
        "reducer_start_value",
        "error",
        Said(
            _("{node} read {key} before it had a value").format(node=node, key=repr(key)),
            _(
                "{node} failed in step {step} with KeyError: {key}. {key} has a reducer ({reducer}) but started "
                "empty: its type has no usable constructor (e.g. `list[str] | None`), so there was no start value "
                "and the key is absent until the first write."
            ).format(node=node, step=step, key=repr(key), reducer=reducer),
            [
                (
                    _("Declare a concrete type, so the key starts at its empty value"),
                    f"{key}: Annotated[list, {reducer}]   # a concrete type: starts at []",
                ),
                (_("Read it defensively"), f'state.get("{key}") or []'),
            ],
        ),
        facts.scope,
        step,
        node=node,
        key=key,
    )
