"""What a step changed: its state compared key by key with the state it started from, and every
channel's version after its barrier with what the channel is. Imports no Streamlit.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from debugger.diagnostics.facts import RunFacts
from engine.trace import RunRecord


@dataclass(frozen=True)
class DiffEntry:
    """One state key compared with the previous step."""

    key: str
    kind: str
    """`added`, `removed`, `changed` or `same`."""
    before: Any
    after: Any
    added_items: tuple[int, ...] = ()
    """For lists that grew: the indexes of the new items in `after`."""


def state_diff(before: dict[str, Any], after: dict[str, Any]) -> list[DiffEntry]:
    """Every key of either state, in the order of `before` then the keys `after` added."""
    entries = []
    for key in [*before, *(k for k in after if k not in before)]:
        if key not in after:
            entries.append(DiffEntry(key, "removed", before[key], None))
        elif key not in before:
            entries.append(DiffEntry(key, "added", None, after[key]))
        elif before[key] == after[key]:
            entries.append(DiffEntry(key, "same", before[key], after[key]))
        else:
            old, new = before[key], after[key]
            grown = ()
            if isinstance(old, list) and isinstance(new, list) and new[: len(old)] == old:
                grown = tuple(range(len(old), len(new)))
            entries.append(DiffEntry(key, "changed", old, new, grown))
    return entries


def channel_versions(run: RunRecord, facts: RunFacts, step: int) -> list[dict[str, Any]]:
    """Every channel's version after `step`'s barrier, what it is, and whether that barrier changed it
    (`change`: `written`, or `cleared`: an edge or the input channel emptied after the node it
    triggered has run, which LangGraph also counts as a new version)."""
    current: dict[str, int] = {}
    for record in run.steps:
        current.update(record.versions)
        if record.step == step:
            rows = []
            for channel, version in current.items():
                role = facts.channel_role(channel)
                changed = channel in record.versions
                change = ("written" if channel in record.updated_channels else "cleared") if changed else ""
                rows.append(
                    {
                        "channel": channel,
                        "version": version,
                        "changed": changed,
                        "change": change,
                        "what": _role_words(role, channel),
                    }
                )
            return sorted(rows, key=lambda r: (r["what"] != "state key", r["channel"]))
    return []


def _role_words(role: dict[str, Any], channel: str) -> str:
    kind = role.get("role")
    if kind == "state":
        return "state key"
    if kind == "edge":
        return f"edge into {role.get('target')}"
    if kind == "waiting_edge":
        return f"waiting edge [{', '.join(role.get('sources', []))}] → {role.get('target')}"
    if kind == "sends":
        return "Send packets"
    if kind == "input":
        return "the input"
    return "internal"
