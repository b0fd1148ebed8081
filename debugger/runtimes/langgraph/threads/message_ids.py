"""Message ids that langgraph's `add_messages` made up during the run, taken back from the checkpoint.

`add_messages` gives every message that arrives without an id a random `uuid4` when it merges it. The
task's write is stored before the merge (without the id), the merged list after it (with the id), so
folding the stored write again would make up another id, and every such step would look like a
mismatch. Before a stored step is re-folded, each id-less message written to a key whose stored value
is a list of messages gets the id the checkpoint gave it: the new messages of the stored list (ids not
there before the step, not written with an id), in order, matched one to one and only when they are
equal apart from the id. Anything else is left alone, so a real difference still shows.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Sequence


def _is_message(value: Any) -> bool:
    return hasattr(value, "id") and hasattr(value, "content") and hasattr(value, "model_copy")


def _as_messages(value: Any) -> list[Any] | None:
    """The write as langchain messages (what `add_messages` converts it to), or None if it is not one."""
    try:
        from langchain_core.messages import convert_to_messages
    except ImportError:  # without langchain_core there are no such messages
        return None
    items = value if isinstance(value, list) else [value]
    try:
        return [m.model_copy() if _is_message(m) else m for m in convert_to_messages(items)]
    except Exception:  # not messages at all: leave the write as it is
        return None


def adopt_stored_ids(
    tasks: Sequence[Any], keys: Sequence[str], before: dict[str, Any], stored: dict[str, Any]
) -> list[Any]:
    """`tasks` (in application order) with id-less messages given the ids the stored value has; tasks
    whose writes need nothing are returned as they are."""
    from langgraph.checkpoint.base import writes_sort_key
    from langgraph.pregel._algo import task_path_str

    ordered = sorted(tasks, key=lambda t: writes_sort_key(task_path_str(t.path)))
    replaced: dict[int, list[tuple[str, Any]]] = {}
    for key in keys:
        needs = [(t, i) for t in ordered for i, (c, v) in enumerate(t.writes) if c == key and _lacks_id(v)]
        if not needs:  # looked at first: the writes are short, the stored list grows with the thread
            continue
        value = stored.get(key)
        if not isinstance(value, list) or not value or not all(_is_message(m) for m in value):
            continue
        known = {m.id for m in before.get(key) or [] if _is_message(m)}
        known |= {
            m.id
            for t in ordered
            for c, v in t.writes
            if c == key
            for m in (v if isinstance(v, list) else [v])
            if _is_message(m) and m.id is not None
        }
        fresh = iter([m for m in value if m.id not in known])
        for task, index in needs:
            messages = _as_messages(task.writes[index][1])
            if messages is None:
                continue
            for message in messages:
                if getattr(message, "id", "") is None:
                    match = next(fresh, None)
                    if match is None or message.model_copy(update={"id": match.id}) != match:
                        break
                    message.id = match.id
            writes = replaced.setdefault(id(task), list(task.writes))
            writes[index] = (key, messages)
    return [replace(t, writes=replaced[id(t)]) if id(t) in replaced else t for t in tasks]


def _lacks_id(value: Any) -> bool:
    items = value if isinstance(value, list) else [value]
    return any(not _is_message(m) or m.id is None for m in items)
