"""The PostgreSQL run store on a full disk (issue 38, 4c), as `tests/test_disk_full.py` does for SQLite: its
tables on a 2 MB tmpfs tablespace, so the server's own "could not extend file" (DiskFull, SQLSTATE 53100)
stops the run's storing mid-run. The stored run then says at which step and what it kept where the server
has room for that one-row note; a server that keeps an aborted insert's pages (PostgreSQL does, until a
vacuum) may have none, and `stepscope run` then says on stderr that the note was refused too."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

_spec = importlib.util.spec_from_file_location("disk_full", Path(__file__).parents[1] / "test_disk_full.py")
disk_full = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(disk_full)  # the same app and the same checks as the SQLite test
APP, _assert_says_the_disk_filled = disk_full.APP, disk_full._assert_says_the_disk_filled


@pytest.mark.slow
def test_a_full_postgres_tablespace(tmp_path, pg_url):
    """The PostgreSQL store the same way: its tables on a 2 MB tmpfs tablespace, so the server's own
    `could not extend file` (DiskFull, SQLSTATE 53100) stops the run's storing mid-run."""
    import pwd

    import psycopg

    from debugger.stores.postgres import PostgresRunStore

    mount = Path(tempfile.mkdtemp(prefix="stepscope-full-"))  # not under tmp_path, which only root may enter
    mount.chmod(0o755)
    owner = pwd.getpwnam("postgres").pw_uid
    options = f"size=2m,uid={owner},mode=0700"
    made = subprocess.run(["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(mount)], capture_output=True)
    if made.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {made.stderr.decode().strip()}")
    name = pg_url.rsplit("/", 1)[1]
    try:
        with psycopg.connect(pg_url, autocommit=True) as conn:
            conn.execute(f"CREATE TABLESPACE small_{name} LOCATION '{mount}'")
            conn.execute(f"ALTER DATABASE {name} SET default_tablespace = small_{name}")
        PostgresRunStore(pg_url)  # its tables, on the small tablespace
        # a step every 0.25 s, so each is a batch of its own (`store_sink.BATCH_SECONDS`): PostgreSQL keeps the
        # pages of a transaction the disk refused, so the steps of a refused batch are not stored one by one
        (tmp_path / "grow.py").write_text(
            APP.replace("def step(state):\n", "def step(state):\n    __import__('time').sleep(0.25)\n")
        )
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
        run = subprocess.run(
            [sys.executable, "-m", "debugger.cli", "run", "grow.py:graph", "--db", pg_url, "--recursion-limit", "100"],
            capture_output=True,
            text=True,
            env=env,
            cwd=tmp_path,
        )
        assert run.returncode == 3, run.stderr
        assert "Traceback" not in run.stderr and "No space left on device" in run.stderr
        store = PostgresRunStore(pg_url)
        (summary,) = store.list()
        if "could not be marked" in run.stderr:  # PostgreSQL keeps an aborted insert's pages: the note had no room
            assert summary.status == "running" and 0 < summary.steps < 20, summary
            assert "No space left on device" in run.stderr.strip().splitlines()[-1], "said last, on stderr"
        else:
            _assert_says_the_disk_filled(summary, store.load(summary.run_id))
    finally:
        with psycopg.connect(pg_url, autocommit=True) as conn:
            for table in ("stepscope_blobs", "stepscope_steps", "stepscope_snapshots", "stepscope_runs"):
                conn.execute(f"DROP TABLE IF EXISTS {table} CASCADE")
            conn.execute("DROP TABLE IF EXISTS stepscope_meta")
            conn.execute(f"ALTER DATABASE {name} RESET default_tablespace")
        with psycopg.connect(pg_url.rsplit("/", 1)[0] + "/postgres", autocommit=True) as conn:
            conn.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")  # its catalog may still name the space
            conn.execute(f"DROP TABLESPACE IF EXISTS small_{name}")  # the server restarts later: no dangling space
        subprocess.run(["umount", "-l", str(mount)], check=False)
        mount.rmdir()
