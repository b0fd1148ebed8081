"""What code running inside a node can ask the run for, as LangGraph's `langgraph.config` offers it."""

from __future__ import annotations

from typing import Any, Callable


def get_stream_writer() -> Callable[[Any], None]:
    """The writer of the `custom` stream mode: each call `writer(chunk)` makes `chunk` a `custom`
    chunk of `stream()` / `astream()` as it happens, while the node is still running (in a nested
    run, only with `subgraphs=True`, as in LangGraph). Without the `custom` mode the chunks go to the
    hooks only (`Hooks.custom_streamed`). Call it inside a node or router."""
    from .runner import current_task  # late: runner imports the modules this one is imported from

    context = current_task.get()
    if context is None:
        raise RuntimeError("Called get_config outside of a runnable context")
    loop, task = context.loop, context.task
    hooks = loop.hooks
    if hooks is None:
        return _discard

    def write(chunk: Any) -> None:
        hooks.custom_streamed(ns=loop.ns, step=task.step, task=task, chunk=chunk)

    return write


def _discard(chunk: Any) -> None:
    """The writer of a run nobody observes."""
