"""`[]` into an additive list: a node returning `{"log": []}` to clear it adds nothing, so nothing is cleared.

Whether the node meant to clear is read from its code where it is known (a literal `[]` against the "nothing
to add" side of a choice); else from the run: a node that adds items to the key elsewhere means "nothing to
add" by its `[]`. The run is only known whole at its end, so those findings wait for `finish`.
"""

from __future__ import annotations

from typing import Any

from debugger.diagnostics.value_text import MESSAGE_REDUCERS, short
from debugger.i18n import _, ngettext

from .facts import RunFacts, same
from .findings import Finding, Said, trace_finding
from .source import empty_write_intent


class EmptyClears:
    """The `[]` writes that cleared nothing, and what the run says about the nodes that made them."""

    def __init__(self, facts: RunFacts) -> None:
        self.facts = facts
        self.adders: set[tuple[str, str]] = set()
        """(node, key) of every write of a non-empty list: a node adding items to the key somewhere."""
        self.unsure: dict[int, tuple[str, str]] = {}
        """A finding's place in the rule's findings, for those the node's code cannot decide: kept unless the
        node adds items to the key somewhere in the run."""
        self.intents: dict[tuple[str, str], str | None] = {}

    def note(self, call: Any) -> None:
        """Every reducer call of the run goes by here (what `[]` means is decided by the whole run)."""
        if isinstance(call.write, list) and call.write:
            self.adders.add((call.writer_name, call.channel))

    @staticmethod
    def cleared_nothing(call: Any, before: Any, after: Any) -> bool:
        return call.write == [] and isinstance(before, list) and bool(before) and same(after, before)

    def judge(self, step: int, call: Any, before: list[Any], found: list[Finding]) -> None:
        """Adds the finding for `call` to `found`, unless the node's code says its `[]` means "nothing to add"."""
        writer = (call.writer_name, call.channel)
        if writer not in self.intents:
            self.intents[writer] = _intent(self.facts, *writer)
        if self.intents[writer] is None:
            self.unsure[len(found)] = writer
        if self.intents[writer] != "nothing to add":
            found.append(_empty_clear(self.facts, step, call, before))

    def kept(self, found: list[Finding]) -> list[Finding]:
        """`found` without the unsure findings of nodes that add items to their key elsewhere in the run."""
        return [f for index, f in enumerate(found) if self.unsure.get(index) not in self.adders]


def _intent(facts: RunFacts, node: str, key: str) -> str | None:
    """`clear` when the node's code writes a literal `[]` to the key, `nothing to add` when it writes `[]` only
    as one side of a choice; None when its code does not say (`source.empty_write_intent`)."""
    builder = getattr(facts.graph, "builder", None)
    spec = builder.nodes.get(node) if builder is not None else None
    return empty_write_intent(spec.action, key) if spec is not None else None


def _empty_clear(facts: RunFacts, step: int, call: Any, before: list[Any]) -> Finding:
    key, node, reducer = call.channel, call.writer_name, call.reducer
    messages = reducer in MESSAGE_REDUCERS
    explanation = ngettext(
        "{node} returned {key} = [] in step {step}, as if to clear it, but every write to {channel} goes through "
        "{reducer}, and {reducer}({before}, []) is the same list: nothing was cleared and the {count} old item "
        "is still there. A reducer key has no 'set' of its own: an empty write means 'nothing to add'. (If "
        "{node} simply had nothing to add, ignore this.)",
        "{node} returned {key} = [] in step {step}, as if to clear it, but every write to {channel} goes through "
        "{reducer}, and {reducer}({before}, []) is the same list: nothing was cleared and the {count} old items "
        "are still there. A reducer key has no 'set' of its own: an empty write means 'nothing to add'. (If "
        "{node} simply had nothing to add, ignore this.)",
        len(before),
    ).format(
        node=node, key=key, step=step, channel=repr(key), reducer=reducer, before=short(before, 40), count=len(before)
    )
    if messages:
        fix = f'return {{"{key}": [RemoveMessage(id=REMOVE_ALL_MESSAGES)]}}   # add_messages: delete every message'
    else:
        fix = f'return {{"{key}": Overwrite([])}}   # replaces the value once, bypassing {reducer}'
    marker = (
        _("Give the key a reducer that understands a clear marker"),
        f"def add_or_clear(old, new):\n    return [] if new is None else old + new\n\n"
        f'{key}: Annotated[list, add_or_clear]   # return {{"{key}": None}} to clear',
    )
    title = _("{node} returned [] to {key}, which clears nothing").format(node=node, key=repr(key))
    said = Said(title, explanation, [(_("Bypass the reducer to replace the value"), fix), marker])
    evidence = ({"before": before, "text": short(before, 60), "write": []},)
    return trace_finding("empty_list_clear", "warning", said, facts.scope, step, node=node, key=key, evidence=evidence)
