"""Fixtures for checkpointer threads and the PostgreSQL run store: a real PostgreSQL server started
for the session (`postgres_server.py`), a fresh database per test, and langgraph apps run on real
savers (`apps.py`)."""

from __future__ import annotations

import itertools

import pytest

from postgres_server import PostgresServer

_numbers = itertools.count()


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
