"""A thread's status, read from its newest checkpoint alone (no graph): what `stepscope threads` lists."""

from __future__ import annotations

from typing import Any


def tuple_status(saved: Any) -> tuple[str, tuple[str, ...]]:
    """The status of a thread whose newest checkpoint is `saved`, read from the checkpoint alone (no graph):
    what its pending writes say, else whether it still has work planned (edge triggers or Sends)."""
    from langgraph._internal._constants import ERROR, INTERRUPT, NULL_TASK_ID, TASKS

    writes = saved.pending_writes or []
    channels = {channel for _, channel, _ in writes}
    if ERROR in channels:
        return "error", ()
    if INTERRUPT in channels:
        return "interrupted", ()
    if any(task != NULL_TASK_ID for task, _, _ in writes):
        return f"stopped in step {int(saved.metadata.get('step', -1)) + 1}", ()
    values = saved.checkpoint.get("channel_values", {})
    updated = saved.checkpoint.get("updated_channels") or []
    pending = tuple(
        sorted(
            {c.split(":", 2)[2] for c in updated if c.startswith("branch:to:")}
            | {s.node for s in values.get(TASKS, []) or [] if hasattr(s, "node")}
        )
    )
    if saved.metadata.get("source") == "input" or pending:
        return "paused", pending
    return "done", ()
