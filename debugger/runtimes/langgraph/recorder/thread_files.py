"""Threads that outlive the command: an app compiled with `InMemorySaver` keeps its checkpoints in
the process, so `stepscope run --thread T` saves that thread's checkpoints to a file when the run
ends and puts them back into the saver before the next run on the same thread (`--resume`, or the
next turn of a conversation), in a later process. Apps with a saver of their own (SQLite,
PostgreSQL) keep their threads themselves and are left alone.

The file holds exactly what the saver held: langgraph's own serialized checkpoints, writes and
channel values (`(type, bytes)` pairs from its serializer), as JSON with the bytes in base64.
Files live next to the run database, in `langgraph-threads/`, one per target and thread
(`debugger.runtimes.threads_api.thread_file`, which LangGraph.js's saved threads use too).

A graph compiled with an `InMemoryStore` (`compile(store=...)`, long-term memory) is carried the same way:
the store's items (values serialized by langgraph's `JsonPlusSerializer`, with their timestamps and any
index vectors) go to one file per target, `<target>-store.json`, restored before each run and saved
after it. One per target, not per thread: a store is shared by every thread of the graph, as in the
app's own process.
"""

from __future__ import annotations

import base64
import hashlib
import json
from datetime import datetime
from pathlib import Path
from typing import Any

IN_MEMORY_SAVERS = ("InMemorySaver", "MemorySaver")
IN_MEMORY_STORES = ("InMemoryStore",)


class ThreadFileError(Exception):
    """A saved thread that cannot be read back; the message names the file and what to do."""


def is_in_memory(saver: Any) -> bool:
    return type(saver).__name__ in IN_MEMORY_SAVERS and hasattr(saver, "storage") and hasattr(saver, "blobs")


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


def is_in_memory_store(store: Any) -> bool:
    """Whether `store` is langgraph's `InMemoryStore`, whose items live only in this process."""
    return type(store).__name__ in IN_MEMORY_STORES and hasattr(store, "_data") and hasattr(store, "_vectors")


def store_file(db_path: Path, target: str) -> Path:
    """Where the `InMemoryStore` of `target`'s graph is kept between runs (one file per target)."""
    digest = hashlib.sha1(target.encode()).hexdigest()[:10]
    return db_path.parent / "langgraph-threads" / f"{digest}-store.json"


def save_store(store: Any, path: Path) -> None:
    """Writes every item of an `InMemoryStore` (and its index vectors) to `path`."""
    serde = _serializer()
    items = [
        [list(ns), key, _out(serde.dumps_typed(item.value)), item.created_at.isoformat(), item.updated_at.isoformat()]
        for ns, by_key in store._data.items()
        for key, item in by_key.items()
    ]
    vectors = [
        [list(ns), key, field_path, vector]
        for ns, by_key in store._vectors.items()
        for key, by_path in by_key.items()
        for field_path, vector in by_path.items()
    ]
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps({"items": items, "vectors": vectors}), encoding="utf-8")
    tmp.replace(path)


def restore_store(store: Any, path: Path) -> bool:
    """Puts the items saved at `path` back into an `InMemoryStore`; False when there is no file."""
    if not path.is_file():
        return False
    from langgraph.store.base import Item  # optional heavy package: only for a graph with an InMemoryStore

    serde = _serializer()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        for ns, key, value, created, updated in data["items"]:
            namespace = tuple(ns)
            store._data[namespace][key] = Item(
                value=serde.loads_typed(_in(value)),
                key=key,
                namespace=namespace,
                created_at=datetime.fromisoformat(created),
                updated_at=datetime.fromisoformat(updated),
            )
        for ns, key, field_path, vector in data["vectors"]:
            store._vectors[tuple(ns)][key][field_path] = vector
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ThreadFileError(
            f"cannot read the saved InMemoryStore from {path}: {exc}. Delete the file to start the store afresh."
        ) from None
    return True


def _serializer() -> Any:
    from langgraph.checkpoint.serde.jsonplus import JsonPlusSerializer  # optional heavy package, as above

    return JsonPlusSerializer()


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
