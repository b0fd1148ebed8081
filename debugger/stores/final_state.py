"""A long stored run's output kept as what its steps fold to, not as the grown value again (issue 43, item 1).

A run's output is, most often, its state after its last step: a chat's 10,000 messages, which its steps
already hold one at a time (each step's reducer call adds its message). Stored as a value, it costs the
whole grown list once more: 1.29 MB of a 10,000-message run's 11.7 MB database. So when a run keeps states
(`debugger.diagnostics.snapshots`: its last step's state is then one row away), each large value of its
head (a blob, `engine.blobs`) that is a channel's value after the last step, and that no step row points
at, is stored as a pointer: `STATE_POINTER` and the channel's name as JSON, where the value's JSON was.
Reading the run folds it to its last step (its kept state there, or every step when that is gone: the
steps are the record, the kept state a cache) and puts the value back, so the run reads as it was saved.

A pointer is only written for a value whose blob key (the hash of its JSON) is the key of the folded
channel's value, so it never stands for anything but that value.
"""

from __future__ import annotations

import json
from typing import Any, Mapping

from engine.blobs import BlobPacker
from engine.codec import BLOB, MISSING_ENCODED
from engine.trace import Trace
from engine.tracefile import TraceFileError

STATE_POINTER = "state:"
"""How a blob row that stands for a channel's final state begins (then `{"channel": name, "items": {index:
item}}` as JSON, the items where the value differs from the state): no JSON value begins so, so a row
holding a value is never read as one."""

MAX_DIFFERENT = 0.25
"""At most this share of a list's items may differ from the state for it to be stored as the state and
those items: the input's messages, which the state holds as written (without the ids the reducer gave them)."""


def output_pointers(output: Any, final: Mapping[str, Any]) -> dict[str, str]:
    """{blob key: pointer row} for each key of a run's `output` whose value its head pools whole
    (`BlobPacker`, keyed alike) and which is the same key's value in `final` (the state after the run's
    last step, encoded as `Replay` folds it), or that state with a few list items changed."""
    if type(output) is not dict:
        return {}
    packer = BlobPacker()
    found: dict[str, str] = {}
    for channel, value in output.items():
        packed = packer.pack(value)
        if not (type(packed) is dict and len(packed) == 1 and BLOB in packed) or channel not in final:
            continue
        items = _different_items(value, final[channel])
        if items is not None:
            found[packed[BLOB]] = STATE_POINTER + json.dumps({"channel": channel, "items": items})
    return found


def _different_items(value: Any, state: Any) -> dict[str, Any] | None:
    """The items of list `value` that differ from list `state`'s, by index, or None when they are not one
    list with a few items changed (or the same value)."""
    if value == state:
        return {}
    if type(value) is not list or type(state) is not list or len(value) != len(state):
        return None
    items = {str(index): item for index, (item, kept) in enumerate(zip(value, state)) if item != kept}
    return items if len(items) <= MAX_DIFFERENT * len(value) else None


def pointed_channels(blobs: list[tuple[str, str]]) -> dict[str, tuple[str, dict[str, Any]]]:
    """{blob key: (channel, changed items)} of a stored run's blob rows that are pointers (`STATE_POINTER`)."""
    found = {}
    for key, data in blobs:
        if data.startswith(STATE_POINTER):
            try:
                pointer = json.loads(data[len(STATE_POINTER) :])
                found[key] = (pointer["channel"], pointer["items"])
            except (ValueError, TypeError, KeyError):
                pointer = None
            if pointer is None or type(found[key][0]) is not str or type(found[key][1]) is not dict:
                raise TraceFileError(f"its large value {key!r} points at no channel ({data[:60]!r})")
    return found


def final_values(trace: Trace, pointers: Mapping[str, tuple[str, dict[str, Any]]]) -> dict[str, Any]:
    """The values `pointers` ({blob key: (channel, changed items)}) stand for, from `trace`'s state after its
    last step."""
    from debugger.diagnostics.replay import Replay  # here: debugger.diagnostics imports the stores

    replay = Replay(trace)
    histories = replay.histories_after(replay.order[-1]) if len(replay.order) else {}
    values = {}
    for key, (channel, items) in pointers.items():
        history = histories.get(channel)
        state = MISSING_ENCODED if history is None else history.value
        if state == MISSING_ENCODED or items and (type(state) is not list or not _indices_in(items, len(state))):
            raise TraceFileError(
                f"its output is the value of {channel!r} after its last step, which its steps do not give"
            )
        value = list(state) if items else state  # a copy: the replay's state stays as folded
        for index, item in items.items():
            value[int(index)] = item
        values[key] = value
    return values


def _indices_in(items: dict[str, Any], length: int) -> bool:
    return all(index.isdigit() and int(index) < length for index in items)
