"""Threads that outlive the command: an app compiled with `InMemorySaver` keeps its checkpoints in
the process, so `stepscope run --thread T` saves that thread's checkpoints to a file when the run
ends and puts them back into the saver before the next run on the same thread (`--resume`, or the
next turn of a conversation), in a later process. Apps with a saver of their own (SQLite,
PostgreSQL) keep their threads themselves and are left alone.

The file holds exactly what the saver held: langgraph's own serialized checkpoints, writes and
channel values (`(type, bytes)` pairs from its serializer), as JSON with the bytes in base64.
Files live next to the run database, in `langgraph-threads/`, one per target and thread.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
from pathlib import Path
from typing import Any

IN_MEMORY_SAVERS = ("InMemorySaver", "MemorySaver")


class ThreadFileError(Exception):
    """A saved thread that cannot be read back; the message names the file and what to do."""


def is_in_memory(saver: Any) -> bool:
    return type(saver).__name__ in IN_MEMORY_SAVERS and hasattr(saver, "storage") and hasattr(saver, "blobs")


def thread_file(db_path: Path, target: str, thread_id: str) -> Path:
    digest = hashlib.sha1(target.encode()).hexdigest()[:10]
    safe = re.sub(r"[^A-Za-z0-9_.-]", "_", thread_id)[:80]
    return db_path.parent / "langgraph-threads" / f"{digest}-{safe}.json"


def has_saved(path: Path) -> bool:
    return path.is_file()


def save_thread(saver: Any, thread_id: str, path: Path) -> None:
    data = {
        "thread_id": thread_id,
        "storage": [
            [ns, cid, _out(entry)]
            for ns, by_id in saver.storage.get(thread_id, {}).items()
            for cid, entry in by_id.items()
        ],
        "writes": [
            [_out(key), [[_out(k), _out(v)] for k, v in inner.items()]]
            for key, inner in saver.writes.items()
            if key[0] == thread_id
        ],
        "blobs": [[_out(key), _out(value)] for key, value in saver.blobs.items() if key[0] == thread_id],
    }
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(data), encoding="utf-8")
    tmp.replace(path)


def restore_thread(saver: Any, thread_id: str, path: Path) -> bool:
    """Puts a saved thread back into `saver`; False when there is none."""
    if not path.is_file():
        return False
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        for ns, cid, entry in data["storage"]:
            saver.storage[thread_id][ns][cid] = _in(entry)
        for key, inner in data["writes"]:
            saver.writes[_in(key)].update({_in(k): _in(v) for k, v in inner})
        for key, value in data["blobs"]:
            saver.blobs[_in(key)] = _in(value)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ThreadFileError(
            f"cannot read the saved thread {thread_id!r} from {path}: {exc}. "
            f"Delete the file to start the thread afresh."
        ) from None
    return True


def _out(value: Any) -> Any:
    if isinstance(value, bytes):
        return {"b64": base64.b64encode(value).decode()}
    if isinstance(value, tuple):
        return {"t": [_out(v) for v in value]}
    if isinstance(value, list):
        return [_out(v) for v in value]
    return value


def _in(value: Any) -> Any:
    if isinstance(value, dict) and "b64" in value:
        return base64.b64decode(value["b64"])
    if isinstance(value, dict) and "t" in value:
        return tuple(_in(v) for v in value["t"])
    if isinstance(value, list):
        return [_in(v) for v in value]
    return value
