"""A step's merge, ready to show: each reducer call with its values before and after, a sentence, its
writer as people read it, whether the barrier applied it, the items it repeated and diagnose's findings
about it; and the lost updates of a step (parallel writers of one key where one whole write replaced the
items the others added). Imports no Streamlit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from debugger.diagnostics import Finding
from debugger.diagnostics.facts import APPENDING, PLAIN, Repeat, same
from debugger.diagnostics.writes import lost_items
from debugger.i18n import _, ngettext
from debugger.model.present import appending_channels, explain_call, short
from engine.trace import ReducerCallRecord

if TYPE_CHECKING:
    from debugger.model.run_view import RunView


@dataclass(frozen=True)
class MergeCall:
    """One reducer call, ready to show."""

    call: ReducerCallRecord
    before: Any
    after: Any
    """What the reducer computed (equal to `before` for a refused write)."""
    sentence: str
    writer: str
    """The writing task as people read it (`write_joke[1] {"subject": "owls"}` for a Send)."""
    applied: bool
    """Whether the barrier wrote the result to the state: False for every call of a failed step."""
    repeats: tuple[Repeat, ...] = ()
    """Items of `after` that repeat items already in `before` (the subgraph trap), with their origin."""
    findings: tuple[Finding, ...] = ()
    """Findings of `diagnose` about this call (same step, key and writer)."""

    @property
    def duplicated(self) -> tuple[int, ...]:
        return tuple(r.index for r in self.repeats)


@dataclass(frozen=True)
class LostUpdate:
    """Parallel writers of one key in one step, where the reducer kept one write whole and the items
    the others added are gone, silently (the read-modify-write race)."""

    channel: str
    reducer: str
    kept: str
    """The writer whose write the key now holds."""
    lost: tuple[tuple[str, Any], ...]
    """(writer, item) of each item that is gone."""
    value: Any
    """The key's value after the step."""

    def sentence(self) -> str:
        """`Lost update: 'from A' (written by node_a) is not in 'messages': ...`."""
        items = ", ".join(
            _("{item} (written by {writer})").format(item=short(item, 40), writer=who) for who, item in self.lost[:4]
        )
        more = _(" and {count} more").format(count=len(self.lost) - 4) if len(self.lost) > 4 else ""
        writers = list(dict.fromkeys([*(who for who, _item in self.lost), self.kept]))
        return ngettext(
            "Lost update: {items} is not in {channel}. {writers} each wrote back the whole list in this step; "
            "{reducer} keeps one write, so {kept}'s {value} replaced the others. No error was raised.",
            "Lost update: {items} are not in {channel}. {writers} each wrote back the whole list in this step; "
            "{reducer} keeps one write, so {kept}'s {value} replaced the others. No error was raised.",
            len(self.lost),
        ).format(
            items=items + more,
            channel=repr(self.channel),
            writers=_(" and ").join(writers),
            reducer=self.reducer,
            kept=self.kept,
            value=short(self.value, 50),
        )


def merge_calls(view: RunView, step: int) -> list[MergeCall]:
    """The reducer calls of `step`, in the order they were applied, each ready to show."""
    record = view.by_step.get(step)
    if record is None:
        return []
    calls = []
    values = list(view.replay.call_values(step))
    appending = appending_channels(values)
    for call, before, after in values:
        writer = view.writer_label(record, call)
        repeats = tuple(view.facts.repeats(step, call.channel, before, after)) if call.error is None else ()
        marks = tuple(
            f for f in view.findings_at(step) if f.key == call.channel and call.writer_name in (f.nodes or (f.node,))
        )
        calls.append(
            MergeCall(
                call,
                before,
                after,
                explain_call(call, before, after, applied=record.committed, appends=call.channel in appending),
                writer,
                record.committed and call.error is None,
                repeats,
                marks,
            )
        )
    return calls


def lost_updates(view: RunView, step: int) -> list[LostUpdate]:
    """Keys whose final write in `step` replaced the items other writers of the step added (the same
    detector as `diagnose`'s read-modify-write finding)."""
    if not view.committed(step):
        return []
    found = []
    for channel, items in view.merge_by_channel(step).items():
        last = items[-1]
        call = last.call
        writers = {item.call.writer for item in items}
        if len(writers) < 2 or call.reducer in PLAIN or call.reducer in APPENDING or call.error is not None:
            continue
        if not isinstance(call.write, list) or not same(last.after, call.write):
            continue
        start = view.state_before(step).get(channel, [])
        lost = lost_items(view.facts, step, call, start if isinstance(start, list) else [], last.after)
        if lost:
            found.append(LostUpdate(channel, call.reducer, last.writer, tuple(lost), last.after))
    return found
