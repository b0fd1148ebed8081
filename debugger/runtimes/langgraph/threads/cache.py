"""Rebuilt threads kept on disk, so opening a thread again costs only its new checkpoints.

A whole thread's rebuild (what `diagnose` and `show` read) is saved as a trace file keyed by the
checkpointer (its masked URL or path), the thread, the app's target and its graph's description, with
the checkpoint id it was rebuilt up to. Opening the thread again:

- at the same head checkpoint: the saved trace, nothing decoded;
- at a head that descends from the saved one (the conversation went on): only the checkpoints after the
  saved head are decoded and rebuilt, from the state the saved head stored, and their steps follow the
  saved ones (`splice`); the recorded deltas of the new steps are against that same state, so the
  result is the trace a rebuild from the start would give;
- at any other head (time travel made a branch, the thread was pruned, the graph changed): rebuilt whole.

The cache lives in `$STEPSCOPE_THREAD_CACHE` (`off` turns it off), else `$XDG_CACHE_HOME/stepscope/threads`,
else `~/.cache/stepscope/threads`: never in the app's checkpointer, which is only ever read. A cache that
cannot be read or written is skipped without a word: it only saves time. Files are readable by their
owner only, since they hold the thread's values.
"""

from __future__ import annotations

import hashlib
import json
import os
import tempfile
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from debugger.sources.file_index import user_cache_folder
from engine.trace import Trace
from engine.tracefile import from_json, to_json

CACHE_ENV = "STEPSCOPE_THREAD_CACHE"


def cache_folder() -> Path | None:
    """Where rebuilt threads are kept, or None when the cache is turned off."""
    return user_cache_folder(CACHE_ENV, "threads")


@dataclass
class Cached:
    """A thread as it was rebuilt last: up to checkpoint `head`."""

    head: str
    trace: Trace


class ThreadCache:
    """The saved rebuild of one thread of one checkpointer, for one graph."""

    def __init__(self, label: str, thread_id: str, target: str, graph_description: Any, *, off: bool = False) -> None:
        identity = json.dumps([label, thread_id, target, graph_description], sort_keys=True, default=str)
        folder = None if off else cache_folder()
        self.path = None if folder is None else folder / f"{hashlib.sha256(identity.encode()).hexdigest()}.json"

    def load(self) -> Cached | None:
        """The saved rebuild, or None (none saved, the cache off, or a file that does not read back)."""
        if self.path is None:
            return None
        try:
            saved = json.loads(self.path.read_text(encoding="utf-8"))
            return Cached(str(saved["head"]), from_json(saved["trace"], source=str(self.path)))
        except Exception:  # a missing, partial or foreign file: rebuilt instead, and written again
            return None

    def save(self, head: str, trace: Trace) -> None:
        """Keeps `trace`, rebuilt up to checkpoint `head` (written whole, then moved into place)."""
        if self.path is None:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            text = json.dumps({"head": head, "trace": to_json(trace)})
            handle, name = tempfile.mkstemp(dir=self.path.parent, suffix=".tmp")  # created 0600
            with os.fdopen(handle, "w", encoding="utf-8") as out:
                out.write(text)
            os.replace(name, self.path)
        except OSError:  # a read-only or full disk: the cache only saves time
            pass


def splice(saved: Trace, head: str, later: Trace) -> Trace | None:
    """`saved` (rebuilt up to checkpoint `head`) followed by the steps of `later`, a rebuild that starts
    at `head` (its first step is `head`'s commit again, so it is left out); None when `saved` has no step
    with that checkpoint."""
    at = next(
        (
            i
            for i in range(len(saved.steps) - 1, -1, -1)
            if ((saved.steps[i].checkpoint or {}).get("configurable") or {}).get("checkpoint_id") == head
        ),
        None,
    )
    if at is None or not later.steps:
        return None
    return replace(
        later,
        steps=saved.steps[: at + 1] + later.steps[1:],
        input=saved.input,
        config=saved.config,
        started_at=saved.started_at,
    )
