"""The savers' own tables read directly, read-only: a thread decoded once, its unchanged parts shared.

`SqliteSaver` stores each checkpoint whole (one msgpack blob holding every channel's value), and
`PostgresSaver.list()` joins every checkpoint with the blob of each channel version it names; both
decode every value again for each checkpoint, so a conversation of n messages costs n^2 message
constructions to read. Here each checkpoint's values go through one `SharedDecoder` per thread read:
the saver's own serializer, except that each msgpack extension object (a message, a pydantic model, a
dataclass) is built once per distinct stored bytes and shared by every checkpoint that holds it (the
rebuild never changes a stored value). Writes are decoded plainly, once each: the rebuild may give an
id-less written message its stored id, so they are never shared.

- SQLite: `sqlite_checkpoint` reads one checkpoint and its writes (two indexed queries);
  `sqlite_thread` a whole thread in two queries (what one `saver.list()` costs, or less).
- PostgreSQL: `postgres_thread` reads a whole thread in three queries (its `checkpoints`,
  `checkpoint_blobs` and `checkpoint_writes` rows); each blob row is decoded at most once, when a
  checkpoint first names its version. Inline primitive values come from the checkpoint's JSON, the blobs
  over them, as the saver's `_load_checkpoint_tuple` does.

These queries name the savers' tables and columns, so they run only on a layout they were written for:
`POSTGRES_MIGRATION` and `POSTGRES_COLUMNS`, `SQLITE_COLUMNS`. Anything else is refused by name
(`postgres_layout_problem`, `sqlite_layout_problem`) before a query runs. PostgreSQL checkpoints written
before checkpoint format 4 (pending sends stored as writes) are left to the saver, which migrates them.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from debugger.runtimes.threads_api import CheckpointKey


@dataclass
class DamagedCheckpoint:
    """Stands in for a checkpoint whose stored bytes cannot be decoded: where it sits, and why."""

    config: dict[str, Any]
    parent_config: dict[str, Any] | None
    reason: str
    """`damaged(exc)`: the decoder's complaint in words."""
    metadata: dict[str, Any] = field(default_factory=dict)


DECODE_ERRORS = (ValueError, TypeError, EOFError, KeyError, AttributeError, IndexError, ImportError)
"""What langgraph's serializer (msgpack, JSON, pickle) raises on bytes that are not what it wrote: a
damaged blob, a truncated row. Caught only around decoding a checkpoint."""


DAMAGED = "damaged checkpoint: "
"""How `damaged` begins: a refusal that says so already takes it off."""


def damaged(exc: BaseException) -> str:
    """A decoding failure in words, for a thread's status or a refusal."""
    return f"{DAMAGED}{type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''}".rstrip(": ")


def damaged_at(thread_id: str, key: CheckpointKey, reason: str) -> DamagedCheckpoint:
    """The stand-in for checkpoint `key` of `thread_id`, which cannot be decoded for `reason`."""
    parent = checkpoint_config(thread_id, key.parent_id, key.ns) if key.parent_id else None
    return DamagedCheckpoint(checkpoint_config(thread_id, key.checkpoint_id, key.ns), parent, reason)


def checkpoint_config(thread_id: str, checkpoint_id: str, ns: str = "") -> dict[str, Any]:
    """The config that names one checkpoint, as the savers take it."""
    return {"configurable": {"thread_id": thread_id, "checkpoint_ns": ns, "checkpoint_id": checkpoint_id}}


def decoded_by_key(thread_id: str, keys: list[CheckpointKey], found: dict[tuple[str, str], Any], read: Any) -> dict:
    """`found` (tuples, decoding errors, or None for "ask the saver") as `preload` returns it, for `keys`."""
    out = {}
    for key in keys:
        saved = found.get((key.ns, key.checkpoint_id))
        if saved is None:  # an older checkpoint format, or written since the index: read one at a time
            out[(key.ns, key.checkpoint_id)] = read(thread_id, key)
        elif isinstance(saved, BaseException):
            out[(key.ns, key.checkpoint_id)] = damaged_at(thread_id, key, damaged(saved))
        else:
            out[(key.ns, key.checkpoint_id)] = saved
    return out


POSTGRES_MIGRATION = 9
"""The last migration of `PostgresSaver.MIGRATIONS` these queries know (9 added `checkpoint_writes.task_path`)."""

POSTGRES_COLUMNS = {
    "checkpoints": {"thread_id", "checkpoint_ns", "checkpoint_id", "parent_checkpoint_id", "checkpoint", "metadata"},
    "checkpoint_blobs": {"thread_id", "checkpoint_ns", "channel", "version", "type", "blob"},
    "checkpoint_writes": {
        "thread_id",
        "checkpoint_ns",
        "checkpoint_id",
        "task_id",
        "task_path",
        "idx",
        "channel",
        "type",
        "blob",
    },
}
"""The columns read, per table."""

SQLITE_COLUMNS = {
    "checkpoints": {
        "thread_id",
        "checkpoint_ns",
        "checkpoint_id",
        "parent_checkpoint_id",
        "type",
        "checkpoint",
        "metadata",
    },
    "writes": {"thread_id", "checkpoint_ns", "checkpoint_id", "task_id", "idx", "channel", "type", "value"},
}
"""The columns read, per table (`writes.task_path`, added later, is read when it is there)."""


def postgres_missing_columns(conn: Any) -> str | None:
    """Which column of the saver's tables these queries read is not there (a layout they cannot read), or None."""
    rows = conn.execute(
        "SELECT table_name, column_name FROM information_schema.columns "
        "WHERE table_schema = current_schema() AND table_name = ANY(%s)",
        (list(POSTGRES_COLUMNS),),
    ).fetchall()
    found: dict[str, set[str]] = {}
    for row in rows:
        found.setdefault(row["table_name"], set()).add(row["column_name"])
    for table, needed in POSTGRES_COLUMNS.items():
        missing = sorted(needed - found.get(table, set()))
        if missing:
            return f"its table {table} has no column {', '.join(missing)}"
    return None


def postgres_layout_problem(migration: int) -> str | None:
    """Why these queries may not read tables at `migration` (a layout they were not written for), or None."""
    if migration != POSTGRES_MIGRATION:
        return (
            f"its checkpointer tables are at migration {migration}, and StepScope reads the layout of migration "
            f"{POSTGRES_MIGRATION} only"
        )
    return None


def postgres_checkpoints(
    conn: Any,
    decoder: "SharedDecoder",
    thread_id: str,
    decode_errors: tuple[type[BaseException], ...],
    only: tuple[str, list[str]] | None = None,
) -> dict[tuple[str, str], Any]:
    """Every checkpoint of `thread_id` (or only those of `only`, a namespace and checkpoint ids) by
    (namespace, id): a `CheckpointTuple`, the exception that stopped its decoding (one of `decode_errors`),
    or None for a checkpoint of an older format (ask the saver). Three queries either way."""
    rows, blob_rows, write_rows = _postgres_rows(conn, thread_id, only)
    blobs = _BlobReader(decoder, blob_rows)
    writes: dict[tuple[str, str], list[Any]] = {}
    for r in write_rows:
        writes.setdefault((r["checkpoint_ns"], r["checkpoint_id"]), []).append(r)
    out: dict[tuple[str, str], Any] = {}
    for row in rows:
        where = (row["checkpoint_ns"], row["checkpoint_id"])
        if row["checkpoint"].get("v", 0) < 4 and row["parent_checkpoint_id"]:
            out[where] = None
            continue
        try:
            out[where] = _postgres_tuple(decoder, blobs, thread_id, row, writes.get(where, []))
        except decode_errors as exc:
            out[where] = exc
    return out


def _postgres_rows(
    conn: Any, thread_id: str, only: tuple[str, list[str]] | None
) -> tuple[list[Any], list[Any], list[Any]]:
    """The `checkpoints`, `checkpoint_blobs` and `checkpoint_writes` rows of a thread, or of some of its
    checkpoints (then only the blob versions they name), oldest first."""
    checkpoints = (
        "SELECT checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata FROM checkpoints "
        "WHERE thread_id = %s"
    )
    blobs = "SELECT checkpoint_ns, channel, version, type, blob FROM checkpoint_blobs WHERE thread_id = %s"
    writes = (
        "SELECT checkpoint_ns, checkpoint_id, task_id, task_path, idx, channel, type, blob FROM checkpoint_writes "
        "WHERE thread_id = %s"
    )
    if only is None:
        rows = conn.execute(checkpoints + " ORDER BY checkpoint_id", (thread_id,)).fetchall()
        return rows, conn.execute(blobs, (thread_id,)).fetchall(), conn.execute(writes, (thread_id,)).fetchall()
    ns, ids = only
    some = " AND checkpoint_ns = %s AND checkpoint_id = ANY(%s)"
    rows = conn.execute(checkpoints + some + " ORDER BY checkpoint_id", (thread_id, ns, ids)).fetchall()
    named = sorted({(c, str(v)) for row in rows for c, v in (row["checkpoint"].get("channel_versions") or {}).items()})
    blob_rows = conn.execute(
        blobs + " AND checkpoint_ns = %s AND (channel, version) IN (SELECT * FROM unnest(%s::text[], %s::text[]))",
        (thread_id, ns, [c for c, _ in named], [v for _, v in named]),
    ).fetchall()
    return rows, blob_rows, conn.execute(writes + some, (thread_id, ns, ids)).fetchall()


def _postgres_tuple(decoder: "SharedDecoder", blobs: "_BlobReader", thread_id: str, row: Any, writes: list[Any]) -> Any:
    """A checkpoint row, its blobs and its writes as the saver's `_load_checkpoint_tuple` builds them."""
    from langgraph.checkpoint.base import CheckpointTuple, writes_sort_key  # langgraph is optional: loaded on use

    ns, checkpoint_id, checkpoint = row["checkpoint_ns"], row["checkpoint_id"], _shaped("checkpoint", row["checkpoint"])
    values = dict(checkpoint.get("channel_values") or {})
    for channel, version in (checkpoint.get("channel_versions") or {}).items():
        blobs.add_to(values, ns, channel, str(version))
    pending = [
        (w["task_id"], w["channel"], decoder.plain(w["type"], w["blob"]))
        for w in sorted(writes, key=lambda w: writes_sort_key(w["task_path"], w["task_id"], w["idx"]))
    ]
    config = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ns, "checkpoint_id": checkpoint_id}}
    parent = row["parent_checkpoint_id"]
    parent_config = (
        {"configurable": {"thread_id": thread_id, "checkpoint_ns": ns, "checkpoint_id": parent}} if parent else None
    )
    metadata = _shaped("metadata", row["metadata"])
    return CheckpointTuple(config, {**checkpoint, "channel_values": values}, metadata, parent_config, pending)


class _BlobReader:
    """`checkpoint_blobs` rows, each decoded the first time a checkpoint names it."""

    def __init__(self, decoder: "SharedDecoder", rows: list[Any]) -> None:
        self.decoder = decoder
        self.raw: dict[tuple[str, str, str], tuple[str, Any]] = {
            (r["checkpoint_ns"], r["channel"], r["version"]): (r["type"], r["blob"]) for r in rows
        }
        self.decoded: dict[tuple[str, str, str], Any] = {}

    def add_to(self, values: dict[str, Any], ns: str, channel: str, version: str) -> None:
        """Puts the blob of `channel` at `version` into `values` (over an inline marker), as the saver's
        join does: a version without a blob row, or an `empty` one, leaves `values` as it is."""
        key = (ns, channel, version)
        if key not in self.decoded:
            kind, blob = self.raw.pop(key, ("empty", None))
            self.decoded[key] = _EMPTY if kind == "empty" else self.decoder.shared(kind, blob)
        value = self.decoded[key]
        if value is not _EMPTY:
            values[channel] = value


_EMPTY = object()


# ---- decoding ------------------------------------------------------------------------------------


class SharedDecoder:
    """The saver's serializer, with each msgpack extension object of a checkpoint's values built once per
    distinct bytes (for one thread read). A serializer without langgraph's msgpack hook (an encrypting
    one, say) decodes as it always does."""

    def __init__(self, serde: Any) -> None:
        self.serde = serde
        self.hook = getattr(serde, "_unpack_ext_hook", None)
        self.built: dict[tuple[int, bytes], Any] = {}

    def plain(self, kind: str, blob: Any) -> Any:
        """A value decoded as the saver decodes it, shared with nothing (a write)."""
        return self.serde.loads_typed((kind, bytes(blob) if blob is not None else None))

    def shared(self, kind: str, blob: Any) -> Any:
        """A checkpoint's value: its extension objects shared with every other value that stored the same bytes."""
        if kind != "msgpack" or self.hook is None:
            return self.plain(kind, blob)
        import ormsgpack  # langgraph's serializer's own dependency, there whenever the hook is

        return ormsgpack.unpackb(bytes(blob), ext_hook=self._extension, option=ormsgpack.OPT_NON_STR_KEYS)

    def _extension(self, code: int, data: bytes) -> Any:
        key = (code, data)
        built = self.built.get(key, _EMPTY)
        if built is _EMPTY:
            built = self.built[key] = self.hook(code, data)
        return built


# ---- SQLite --------------------------------------------------------------------------------------


def sqlite_layout_problem(conn: Any) -> str | None:
    """Why these queries cannot read this SQLite file (a layout they were not written for), or None."""
    for table, needed in SQLITE_COLUMNS.items():
        found = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
        missing = sorted(needed - found)
        if missing:
            return f"its table {table} has no column {', '.join(missing)}"
    return None


def _sqlite_writes_sql(has_task_path: bool) -> str:
    task_path = "task_path" if has_task_path else "''"
    return f"SELECT checkpoint_ns, checkpoint_id, task_id, channel, type, value, {task_path}, idx FROM writes "


def sqlite_checkpoint(
    conn: Any, decoder: SharedDecoder, has_task_path: bool, thread_id: str, ns: str, checkpoint_id: str
) -> Any:
    """One checkpoint tuple and its pending writes, or None when it is not there (decoding errors raise)."""
    row = conn.execute(
        "SELECT checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata FROM checkpoints "
        "WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?",
        (thread_id, ns, checkpoint_id),
    ).fetchone()
    if row is None:
        return None
    writes = conn.execute(
        _sqlite_writes_sql(has_task_path) + "WHERE thread_id = ? AND checkpoint_ns = ? AND checkpoint_id = ?",
        (thread_id, ns, checkpoint_id),
    ).fetchall()
    return _sqlite_tuple(decoder, thread_id, row, writes)


def sqlite_thread(
    conn: Any,
    decoder: SharedDecoder,
    has_task_path: bool,
    thread_id: str,
    decode_errors: tuple[type[BaseException], ...],
) -> dict[tuple[str, str], Any]:
    """Every checkpoint of `thread_id` by (namespace, id): a `CheckpointTuple`, or the exception (one of
    `decode_errors`) that stopped its decoding. Two queries; oldest first, so shared objects are built
    where they first appear."""
    writes: dict[tuple[str, str], list[Any]] = {}
    for w in conn.execute(_sqlite_writes_sql(has_task_path) + "WHERE thread_id = ?", (thread_id,)):
        writes.setdefault((w[0], w[1]), []).append(w)
    out: dict[tuple[str, str], Any] = {}
    for row in conn.execute(
        "SELECT checkpoint_ns, checkpoint_id, parent_checkpoint_id, type, checkpoint, metadata FROM checkpoints "
        "WHERE thread_id = ? ORDER BY checkpoint_id",
        (thread_id,),
    ):
        try:
            out[(row[0], row[1])] = _sqlite_tuple(decoder, thread_id, row, writes.get((row[0], row[1]), []))
        except decode_errors as exc:
            out[(row[0], row[1])] = exc
    return out


def _sqlite_tuple(decoder: SharedDecoder, thread_id: str, row: Any, writes: list[Any]) -> Any:
    """A checkpoint row and its writes as the saver's `get_tuple` builds them."""
    from langgraph.checkpoint.base import CheckpointTuple, writes_sort_key  # langgraph is optional: loaded on use

    ns, checkpoint_id, parent, kind, blob, metadata = row
    pending = [
        (task_id, channel, decoder.plain(kind_, value))
        for _, _, task_id, channel, kind_, value, task_path, idx in sorted(
            writes, key=lambda w: writes_sort_key(w[6], w[2], w[7])
        )
    ]
    config = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ns, "checkpoint_id": checkpoint_id}}
    parent_config = (
        {"configurable": {"thread_id": thread_id, "checkpoint_ns": ns, "checkpoint_id": parent}} if parent else None
    )
    return CheckpointTuple(
        config,
        _shaped("checkpoint", decoder.shared(kind, blob)),
        _shaped("metadata", json.loads(metadata) if metadata is not None else {}),
        parent_config,
        pending,
    )


def _shaped(what: str, value: Any) -> Any:
    """`value` when it is the object a saver stores as `what`; bytes that decode to something else (a
    blob overwritten with `00`, which msgpack reads as the number 0) are damaged like any undecodable ones."""
    if not isinstance(value, dict) or not isinstance(value.get("channel_values", {}), dict):
        raise ValueError(f"its {what} decodes to {type(value).__name__} {str(value)[:40]}, not a {what} object")
    return value
