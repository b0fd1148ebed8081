"""A whole thread read straight from `langgraph-checkpoint-postgres`'s tables, each stored value decoded once.

`PostgresSaver.list()` joins every checkpoint with the blobs of every channel version it names and
decodes them again for each checkpoint, so a value that stays at one version for many steps is decoded
once per step. Here a thread is three read-only queries (its `checkpoints`, `checkpoint_blobs` and
`checkpoint_writes` rows); each blob row is decoded at most once, when a checkpoint first names its
version, and shared by every checkpoint that names it (the rebuild never changes a stored value), and
each write is decoded once. The tuples are built as the saver's own `_load_checkpoint_tuple` builds them:
inline primitive values from the checkpoint's JSON, then the blobs over them, writes in
`writes_sort_key` order.

These queries name the saver's tables and columns, so they are only run on a layout they were written
for: `LAYOUT_MIGRATION` (the `checkpoint_migrations` version) and the columns of `COLUMNS`. Anything else
is refused by name (`layout_problem`) before a query runs. Checkpoints written before checkpoint format 4
(pending sends stored as writes) are left to the saver, which migrates them (`None` in the result).
"""

from __future__ import annotations

from typing import Any

LAYOUT_MIGRATION = 9
"""The last migration of `PostgresSaver.MIGRATIONS` these queries know (9 added `checkpoint_writes.task_path`)."""

COLUMNS = {
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


def layout_problem(conn: Any, migration: int) -> str | None:
    """Why these queries cannot read this database (a layout they were not written for), or None."""
    if migration != LAYOUT_MIGRATION:
        return (
            f"its checkpointer tables are at migration {migration}, and StepScope reads the layout of migration "
            f"{LAYOUT_MIGRATION} only"
        )
    rows = conn.execute(
        "SELECT table_name, column_name FROM information_schema.columns "
        "WHERE table_schema = current_schema() AND table_name = ANY(%s)",
        (list(COLUMNS),),
    ).fetchall()
    found: dict[str, set[str]] = {}
    for row in rows:
        found.setdefault(row["table_name"], set()).add(row["column_name"])
    for table, needed in COLUMNS.items():
        missing = sorted(needed - found.get(table, set()))
        if missing:
            return f"its table {table} has no column {', '.join(missing)}"
    return None


def read_thread_tables(
    conn: Any, serde: Any, thread_id: str, decode_errors: tuple[type[BaseException], ...]
) -> dict[tuple[str, str], Any]:
    """Every checkpoint of `thread_id` by (namespace, id): a `CheckpointTuple`, the exception that stopped
    its decoding (one of `decode_errors`), or None for a checkpoint of an older format (ask the saver)."""
    from langgraph.checkpoint.base import CheckpointTuple, writes_sort_key

    blobs = _BlobReader(conn, serde, thread_id)
    writes = _writes_by_checkpoint(conn, thread_id)
    out: dict[tuple[str, str], Any] = {}
    rows = conn.execute(
        "SELECT checkpoint_ns, checkpoint_id, parent_checkpoint_id, checkpoint, metadata FROM checkpoints "
        "WHERE thread_id = %s",
        (thread_id,),
    ).fetchall()
    for row in rows:
        ns, checkpoint_id, checkpoint = row["checkpoint_ns"], row["checkpoint_id"], row["checkpoint"]
        where = (ns, checkpoint_id)
        if checkpoint.get("v", 0) < 4 and row["parent_checkpoint_id"]:
            out[where] = None
            continue
        try:
            values = dict(checkpoint.get("channel_values") or {})
            for channel, version in (checkpoint.get("channel_versions") or {}).items():
                blobs.add_to(values, ns, channel, str(version))
            pending = [
                (task_id, channel, _decoded(serde, kind, blob))
                for task_id, channel, kind, blob, _ in sorted(
                    writes.get(where, []), key=lambda w: writes_sort_key(w[4][0], w[0], w[4][1])
                )
            ]
        except decode_errors as exc:
            out[where] = exc
            continue
        config = {"configurable": {"thread_id": thread_id, "checkpoint_ns": ns, "checkpoint_id": checkpoint_id}}
        parent = row["parent_checkpoint_id"]
        parent_config = (
            {"configurable": {"thread_id": thread_id, "checkpoint_ns": ns, "checkpoint_id": parent}} if parent else None
        )
        out[where] = CheckpointTuple(
            config, {**checkpoint, "channel_values": values}, row["metadata"], parent_config, pending
        )
    return out


class _BlobReader:
    """The thread's `checkpoint_blobs` rows, each decoded the first time a checkpoint names it."""

    def __init__(self, conn: Any, serde: Any, thread_id: str) -> None:
        self.serde = serde
        self.raw: dict[tuple[str, str, str], tuple[str, Any]] = {
            (r["checkpoint_ns"], r["channel"], r["version"]): (r["type"], r["blob"])
            for r in conn.execute(
                "SELECT checkpoint_ns, channel, version, type, blob FROM checkpoint_blobs WHERE thread_id = %s",
                (thread_id,),
            ).fetchall()
        }
        self.decoded: dict[tuple[str, str, str], Any] = {}

    def add_to(self, values: dict[str, Any], ns: str, channel: str, version: str) -> None:
        """Puts the blob of `channel` at `version` into `values` (over an inline marker), as the saver's
        join does: a version without a blob row, or an `empty` one, leaves `values` as it is."""
        key = (ns, channel, version)
        if key not in self.decoded:
            kind, blob = self.raw.pop(key, ("empty", None))
            self.decoded[key] = _EMPTY if kind == "empty" else _decoded(self.serde, kind, blob)
        value = self.decoded[key]
        if value is not _EMPTY:
            values[channel] = value


_EMPTY = object()


def _decoded(serde: Any, kind: str, blob: Any) -> Any:
    return serde.loads_typed((kind, bytes(blob) if blob is not None else None))


def _writes_by_checkpoint(conn: Any, thread_id: str) -> dict[tuple[str, str], list[tuple[Any, ...]]]:
    """The thread's `checkpoint_writes` rows (undecoded) by the checkpoint they are pending on."""
    grouped: dict[tuple[str, str], list[tuple[Any, ...]]] = {}
    for r in conn.execute(
        "SELECT checkpoint_ns, checkpoint_id, task_id, task_path, idx, channel, type, blob FROM checkpoint_writes "
        "WHERE thread_id = %s",
        (thread_id,),
    ).fetchall():
        grouped.setdefault((r["checkpoint_ns"], r["checkpoint_id"]), []).append(
            (r["task_id"], r["channel"], r["type"], r["blob"], (r["task_path"], r["idx"]))
        )
    return grouped

