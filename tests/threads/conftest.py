"""Fixtures for checkpointer threads and the PostgreSQL run store: a real PostgreSQL server started
for the session (`postgres_server.py`), a fresh database per test, and langgraph apps run on real
savers (`apps.py`)."""

from __future__ import annotations

import hashlib
import itertools
import sqlite3
from pathlib import Path
from typing import Any, Iterator

import psycopg
import pytest
from postgres_server import PostgresServer
from psycopg.rows import dict_row

_numbers = itertools.count()


@pytest.fixture(autouse=True)
def own_thread_cache(tmp_path, monkeypatch):
    """Each test its own cache of rebuilt threads (`threads/cache.py`), so no test reads another's."""
    monkeypatch.setenv("STEPSCOPE_THREAD_CACHE", str(tmp_path / "thread-cache"))


@pytest.fixture(scope="session")
def pg_server():
    server = PostgresServer().start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def pg_url(pg_server) -> str:
    """A fresh, empty database on the session's server."""
    return pg_server.create_database(f"t{next(_numbers)}")


class Backend:
    """An app's checkpointer as production runs it, and a fingerprint of everything stored in it."""

    def __init__(self, kind: str, tmp_path: Path, pg_url: str | None) -> None:
        self.kind = kind
        if kind == "sqlite":
            from langgraph.checkpoint.sqlite import SqliteSaver

            self.url = str(tmp_path / "app-checkpoints.sqlite")
            self.conn = sqlite3.connect(self.url, check_same_thread=False)
            self.saver = SqliteSaver(self.conn)
        else:
            from langgraph.checkpoint.postgres import PostgresSaver

            self.url = pg_url
            self.conn = psycopg.connect(pg_url, autocommit=True, prepare_threshold=0, row_factory=dict_row)
            self.saver = PostgresSaver(self.conn)
        self.saver.setup()

    def fingerprint(self) -> Any:
        if self.kind == "sqlite":
            # the database and its write-ahead log; not `-shm`, the shared-memory index every reader of a
            # WAL database (the app's own included) updates to coordinate, which holds no data
            folder = Path(self.url).parent
            return {
                p.name: hashlib.sha256(p.read_bytes()).hexdigest()
                for p in sorted(folder.iterdir())
                if p.name.startswith(Path(self.url).name) and not p.name.endswith("-shm")
            }
        with psycopg.connect(self.url) as conn:
            return {
                table: conn.execute(
                    f"SELECT count(*), md5(coalesce(string_agg(t::text, '|' ORDER BY t::text), '')) FROM {table} t"
                ).fetchone()
                for table in ("checkpoints", "checkpoint_blobs", "checkpoint_writes", "checkpoint_migrations")
            }

    def close(self) -> None:
        self.conn.close()


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request, tmp_path) -> Iterator[Backend]:
    pg_url = request.getfixturevalue("pg_url") if request.param == "postgres" else None
    made = Backend(request.param, tmp_path, pg_url)
    yield made
    made.close()
