"""Large values stored once: a trace file keeps each value of `BLOB_MIN` bytes of JSON or more in
its `blobs` table and points at it (`{"$blob": key}`, the key a hash of the value's JSON) wherever it
occurs, so a 5 MB document carried through ten steps costs 5 MB, not 25.

The table comes first in a file (`{"blobs": {"$blobs": {key: value, ...}}, ...}`), so `load_json`
puts every value back in one pass as it parses, as the same object everywhere. A node's own dict
with a `$blob`/`$blobs` key is recorded wrapped (`engine.codec.RESERVED`), never read as a pointer.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

from .codec_types import BLOB

BLOB_MIN = 32 * 1024
"""Values whose JSON is at least this long are stored once per file, however often they occur."""


class BlobPacker:
    """Replaces large values in a file-form run by pointers to one shared copy each. Only a value's
    largest parts that stand alone are pooled: a long string, or a container none of whose items is
    itself large; a container holding a large item keeps its small items in place."""

    def __init__(self) -> None:
        self.fresh: dict[str, Any] = {}
        """Values pooled since the last `take_fresh`."""
        self.known: set[str] = set()
        """Keys of every value pooled so far (a streamed run stores each once, in its first step)."""
        self.seen: dict[int, tuple[Any, Any]] = {}

    def take_fresh(self) -> dict[str, Any]:
        """The values pooled since the last call; forgets the objects seen, so a long streamed run
        holds only keys, never the values of steps already written."""
        fresh, self.fresh = self.fresh, {}
        self.seen.clear()
        return fresh

    def pack_run(self, run: dict[str, Any]) -> None:
        """Packs a file-form run (or `{"steps": [step]}`) in place."""
        for key in ("input", "output", "config"):
            if key in run:
                run[key] = self.pack(run[key])
        for step in run.get("steps", ()):
            for task in step.get("tasks", ()):
                for key in ("input", "result"):
                    if key in task:
                        task[key] = self.pack(task[key])
                for key in ("writes", "routes"):
                    if key in task:
                        task[key] = [[name, self.pack(value)] for name, value in task[key]]
                for sub in task.get("subgraphs", ()):
                    self.pack_run(sub)
            for call in step.get("reducer_calls", ()):
                for key in ("write", "before", "after"):
                    if key in call:
                        call[key] = self.pack(call[key])
            if "state" in step:
                step["state"] = {key: self.pack(change) for key, change in step["state"].items()}

    def pack(self, value: Any) -> Any:
        kind = type(value)
        if kind is str:
            return self._pool(value, value) if len(value) >= BLOB_MIN else value
        if kind is not list and kind is not dict or not value:
            return value
        hit = self.seen.get(id(value))
        if hit is not None and hit[0] is value:
            return hit[1]
        text = json.dumps(value, ensure_ascii=True, allow_nan=False)
        if len(text) < BLOB_MIN:
            packed = value
        else:
            if kind is list:
                inner: Any = [self.pack(item) for item in value]
                changed = any(a is not b for a, b in zip(inner, value))
            else:
                inner = {k: self.pack(v) for k, v in value.items()}
                changed = any(inner[k] is not v for k, v in value.items())
            packed = inner if changed else self._pool(value, text)
        self.seen[id(value)] = (value, packed)
        return packed

    def _pool(self, value: Any, text: str) -> dict[str, str]:
        key = hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:32]
        if key not in self.known:
            self.known.add(key)
            self.fresh[key] = value
        return {BLOB: key}


def load_json(text: str | bytes) -> Any:
    """Parses a trace file's JSON, putting each pooled large value back where it is pointed at (the
    same object everywhere: a value stored once is held once in memory too)."""
    data = PooledDecoder({}).decode(text)
    if isinstance(data, dict):
        data.pop("blobs", None)
    return data


class PooledDecoder:
    """Parses pieces of one trace (a whole file, or its head and then one step at a time) with its pooled
    values in `table`: each `{"$blob": key}` becomes the value, and a `{"$blobs": ...}` table met on the
    way is added to `table`. One decoder for many pieces: a reader of a long trace makes one, not one a step."""

    def __init__(self, table: dict[str, Any]) -> None:
        self.table = table
        self.missing: list[str] = []
        self.decoder = json.JSONDecoder(object_hook=self._hook)

    def _hook(self, obj: dict[str, Any]) -> Any:
        if len(obj) == 1:
            if BLOB in obj:
                key = obj[BLOB]
                if isinstance(key, str) and key in self.table:
                    return self.table[key]
                self.missing.append(str(key)[:40])
            elif "$blobs" in obj and isinstance(obj["$blobs"], dict):
                self.table.update(obj["$blobs"])
        return obj

    def decode(self, text: str | bytes) -> Any:
        """One piece parsed (`json.loads` rules; bytes are UTF-8); ValueError when it points at a value
        the table does not hold."""
        del self.missing[:]
        data = self.decoder.decode(text.decode("utf-8") if isinstance(text, (bytes, bytearray)) else text)
        self.check()
        return data

    def check(self) -> None:
        """ValueError when a piece read so far pointed at a value the table does not hold."""
        if self.missing:
            raise ValueError(
                f"it points at a large value it does not hold ({self.missing[0]!r}): the file is incomplete"
            )
