"""Time travel's copy of a LangGraph.js app: the checkpoint calls `debugger/timetravel.py` makes between
its recorded runs (`get_state_history`, `update_state`), each answered by a node process of its own
(`fork.mjs`) on the debugger's own `MemorySaver`, whose checkpoints live in a file between processes
(`saved_thread.mjs`). The runs themselves are recorded by `record_js_app(..., fresh_saver=True)`."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any

from .process import JSAppError, NodeRun
from .reader import EventReader

REQUEST_TIMEOUT = 60.0
"""Seconds node may take to load the app and answer one checkpoint call."""


@dataclass(frozen=True)
class JSState:
    """One checkpoint of the copy's thread, as `get_state_history` yields it (what time travel reads)."""

    config: dict[str, Any]
    metadata: dict[str, Any]


@dataclass(frozen=True)
class JSResume:
    """The input that answers an interrupt: node sends it as `new Command({resume: answer})`."""

    answer: Any


class _AnswerReader(EventReader):
    """Reads the one answer of a history or update request."""

    answer: dict[str, Any] | None = None

    def _on_history(self, event: dict[str, Any]) -> None:
        self.answer = event

    _on_updated = _on_history
    _on_fork_error = _on_history


def checkpoint_call(app: str, export: str, mode: str, saver_file: str, config: dict[str, Any], **extra: Any) -> dict:
    """One `history` or `update` request answered by node; JSAppError (one line) when it cannot be."""
    reader = _AnswerReader(target=f"{app}:{export}", run_id=uuid.uuid4().hex)
    request = {"app": app, "export": export, "mode": mode, "config": config, "thread_file": saver_file}
    request.update(fresh_saver=True, **extra)
    run = NodeRun(request, reader)
    stopped = run.wait(REQUEST_TIMEOUT)
    answer = reader.answer
    if reader.fatal is not None:
        raise JSAppError(reader.fatal)
    if answer is None:
        why = "it timed out" if stopped else run.stderr_line() or f"node exited with {run.process.returncode}"
        raise JSAppError(f"LangGraph.js did not answer the time-travel {mode} request: {why}")
    if answer.get("e") == "fork_error":
        raise JSAppError(f"LangGraph.js refused the time-travel {mode}: {str(answer.get('message')).splitlines()[0]}")
    return answer
