"""Long trace files indexed and checked once: where each step lies in the file, its head and pooled
values, and the kept states of its run (`debugger.diagnostics.snapshots`), saved the first time the file
is read, so opening it again reads neither every step to index and check them nor every step to fold
the state at its last step.

One small SQLite file per trace file, named by a hash of the file's real path, in `$STEPSCOPE_FILE_CACHE`
(`off` turns it off), else `$XDG_CACHE_HOME/stepscope/files`, else `~/.cache/stepscope/files`. It holds
for the file's bytes as they were indexed (their SHA-256, about 0.1 s for 150 MB: a modification time
can stay the same through a rewrite of the same size): other bytes are indexed and checked again. A
cache that cannot be read or written is passed over without a word: it only saves time. Its files are
readable by their owner only, since they hold the run's values.
"""

from __future__ import annotations

import hashlib
import json
import operator
import os
import sqlite3
import zlib
from array import array
from itertools import accumulate, chain
from pathlib import Path

from debugger.diagnostics.snapshots import SnapshotShelf
from debugger.sources.trace_stream import StepIndex

FILE_CACHE_ENV = "STEPSCOPE_FILE_CACHE"
FORMAT = 2
"""The layout of a cache file; one of another format is indexed again (2: the offsets and numbers `packed`)."""

Stamp = tuple[int, str]
"""A file's size and the SHA-256 of its bytes (`content_stamp`)."""

_TABLES = (
    """CREATE TABLE IF NOT EXISTS file (
        one INTEGER PRIMARY KEY CHECK (one = 1),
        format INTEGER NOT NULL, path TEXT NOT NULL, size INTEGER NOT NULL, digest TEXT NOT NULL,
        head TEXT NOT NULL, blobs TEXT NOT NULL, starts BLOB NOT NULL, ends BLOB NOT NULL, numbers BLOB NOT NULL
    )""",
    "CREATE TABLE IF NOT EXISTS snapshots (position INTEGER PRIMARY KEY, data TEXT NOT NULL)",
)


def user_cache_folder(env_var: str, name: str) -> Path | None:
    """`$env_var` (`off`: no cache), else `$XDG_CACHE_HOME/stepscope/<name>`, else `~/.cache/stepscope/<name>`."""
    given = os.environ.get(env_var, "").strip()
    if given.lower() == "off":
        return None
    if given:
        return Path(given).expanduser()
    base = os.environ.get("XDG_CACHE_HOME", "").strip() or str(Path.home() / ".cache")
    return Path(base) / "stepscope" / name


def content_stamp(path: Path) -> Stamp:
    """The size and SHA-256 of the file's bytes, read in 1 MB pieces."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        while piece := handle.read(1 << 20):
            digest.update(piece)
    return path.stat().st_size, digest.hexdigest()


def packed(values: array) -> bytes:
    """A file's step offsets or numbers (`array("q")`, rising by about the same at each step) as their
    differences, compressed: a 200,000-step file's 4.8 MB of them take a few KB, and saving them no longer
    copies them whole into SQLite's row (12 MB more at the peak of a long file's first open)."""
    return zlib.compress(array("q", map(operator.sub, values, chain((0,), values))), 1)


def unpacked(data: bytes) -> array:
    """The `array("q")` that `packed` was given."""
    differences = array("q")
    differences.frombytes(zlib.decompress(data))
    return array("q", accumulate(differences))


class FileIndexCache:
    """The saved index of one trace file (see the module)."""

    def __init__(self, path: Path) -> None:
        self.real = os.path.realpath(path)
        folder = user_cache_folder(FILE_CACHE_ENV, "files")
        self.path = None if folder is None else folder / f"{hashlib.sha256(self.real.encode()).hexdigest()}.sqlite3"

    def _connect(self) -> sqlite3.Connection:
        if self.path is None:  # an OSError, which every caller already takes as "no saved index"
            raise FileNotFoundError(f"no cache folder for file indexes (${FILE_CACHE_ENV}=off)")
        if not self.path.exists():
            self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
            os.close(os.open(self.path, os.O_WRONLY | os.O_CREAT, 0o600))
        db = sqlite3.connect(self.path, timeout=2, isolation_level=None)
        for statement in _TABLES:
            db.execute(statement)
        return db

    def load(self, stamp: Stamp, source: str) -> StepIndex | None:
        """The index saved for the file as it is now (`stamp`), or None."""
        if self.path is None or not self.path.exists():
            return None
        try:
            db = self._connect()
            try:
                row = db.execute(
                    "SELECT format, path, size, digest, head, blobs, starts, ends, numbers FROM file"
                ).fetchone()
            finally:
                db.close()
            if row is None or row[0] != FORMAT or row[1] != self.real or (row[2], row[3]) != stamp:
                return None
            starts, ends, numbers = unpacked(row[6]), unpacked(row[7]), unpacked(row[8])
            if not len(starts) == len(ends) == len(numbers):
                return None
            return StepIndex.restored(source, json.loads(row[4]), json.loads(row[5]), starts, ends, numbers)
        except (sqlite3.Error, OSError, ValueError, TypeError, zlib.error):
            return None

    def save(self, stamp: Stamp, index: StepIndex) -> None:
        """Keeps `index` of the file as it was read (`stamp`), checked; its old kept states go."""
        if self.path is None:
            return
        try:
            db = self._connect()
            try:
                db.execute("BEGIN IMMEDIATE")
                db.execute("DELETE FROM snapshots")
                db.execute(
                    "INSERT OR REPLACE INTO file VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    (
                        FORMAT,
                        self.real,
                        *stamp,
                        json.dumps(index.head, ensure_ascii=False),
                        json.dumps(index.blobs, ensure_ascii=False),
                        packed(index.starts),
                        packed(index.ends),
                        packed(index.numbers),
                    ),
                )
                db.execute("COMMIT")
            finally:
                db.close()
        except (sqlite3.Error, OSError, ValueError, TypeError):  # a full or read-only disk: it only saves time
            pass

    def shelf(self, stamp: Stamp, count: int) -> SnapshotShelf | None:
        """The file's kept states; new ones are written only while the saved index is the file's (`stamp`)."""
        if self.path is None or not self.path.exists():
            return None

        def still_this_file(db: sqlite3.Connection) -> bool:
            row = db.execute("SELECT path, size, digest FROM file").fetchone()
            return row is not None and (row[0], row[1], row[2]) == (self.real, *stamp)

        def read(position: int) -> str | None:
            try:
                db = self._connect()
                try:
                    if not still_this_file(db):
                        return None
                    found = db.execute("SELECT data FROM snapshots WHERE position = ?", (position,)).fetchone()
                finally:
                    db.close()
            except sqlite3.Error:
                return None
            return found[0] if found else None

        def write(rows: list[tuple[int, str]]) -> None:
            try:
                db = self._connect()
                try:
                    db.execute("BEGIN IMMEDIATE")
                    if still_this_file(db):
                        db.executemany("INSERT OR IGNORE INTO snapshots VALUES (?, ?)", rows)
                    db.execute("COMMIT")
                finally:
                    db.close()
            except (sqlite3.Error, OSError):
                pass

        try:
            db = self._connect()
            try:
                positions = [p for (p,) in db.execute("SELECT position FROM snapshots")] if still_this_file(db) else []
            finally:
                db.close()
        except (sqlite3.Error, OSError):
            return None
        return SnapshotShelf(positions, read, write, count)
