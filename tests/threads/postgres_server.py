"""A real PostgreSQL server for the tests: Debian's `postgresql` package, started in a temporary folder.

`PostgresServer().start()` runs `initdb` in a fresh folder, starts `postgres` listening on 127.0.0.1 on
a free port (its socket in the same folder, so it never meets a system server), and `url(db)` gives
a `postgresql://` URL; `create_database(name)` makes a fresh database per test module. `stop()` stops
the server and removes the folder. PostgreSQL refuses to run as root: as root the server runs as the
`postgres` user the package creates (via `runuser`).

Used by the session fixture `postgres_server` in tests/conftest.py; `make test` installs the package.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

SEARCH = [f"/usr/lib/postgresql/{v}/bin" for v in (17, 16, 15, 14, 13)] + ["/usr/local/bin", "/usr/bin"]


def find_binaries() -> Path | None:
    """The folder holding `initdb`, `pg_ctl` and `postgres`, or None when PostgreSQL is not installed."""
    for folder in SEARCH:
        path = Path(folder)
        if all((path / name).exists() for name in ("initdb", "pg_ctl", "postgres")):
            return path
    return None


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class PostgresServer:
    def __init__(self, *, fsync: bool = False) -> None:
        self.fsync = fsync
        """Off for the tests (nothing there must survive a power cut); on to measure what production pays."""
        self.bin = find_binaries()
        self.folder: Path | None = None
        self.port = 0
        self.user = "postgres"

    def _run(self, *args: str, check: bool = True) -> subprocess.CompletedProcess:
        command = list(args)
        if os.geteuid() == 0:  # postgres refuses root
            command = ["runuser", "-u", "postgres", "--", *command]
        return subprocess.run(command, check=check, capture_output=True, text=True, timeout=120)

    def start(self) -> "PostgresServer":
        if self.bin is None:
            raise RuntimeError("PostgreSQL is not installed: `make test` installs it (apt-get install postgresql).")
        self.folder = Path(tempfile.mkdtemp(prefix="stepscope-pg-"))
        if os.geteuid() == 0:
            shutil.chown(self.folder, "postgres", "postgres")
        data = self.folder / "data"
        self._run(str(self.bin / "initdb"), "-D", str(data), "-U", self.user, "-A", "trust", "-E", "UTF8", "--no-sync")
        for attempt in range(5):
            self.port = free_port()
            started = self._pg_ctl_start()
            if started.returncode == 0:
                return self
            time.sleep(0.2)  # the port was taken between choosing it and binding it: try another
        log = (self.folder / "server.log").read_text(errors="replace") if (self.folder / "server.log").exists() else ""
        raise RuntimeError(f"PostgreSQL did not start: {started.stderr}\n{log[-2000:]}")

    def _pg_ctl_start(self) -> subprocess.CompletedProcess:
        options = (
            f"-c listen_addresses=127.0.0.1 -p {self.port} -k {self.folder} "
            f"-c fsync={'on' if self.fsync else 'off'} -c max_connections=60"
        )
        data, log = str(self.folder / "data"), str(self.folder / "server.log")
        command = [str(self.bin / "pg_ctl"), "-D", data, "-o", options, "-l", log, "-w", "-t", "60", "start"]
        return self._run(*command, check=False)

    def pause(self) -> list[str]:
        """The command that stops the server but keeps its data (`restart` starts it again on the same port),
        as a list for `subprocess.run`: a test may have the code under test run it."""
        command = [str(self.bin / "pg_ctl"), "-D", str(self.folder / "data"), "-m", "fast", "-w", "stop"]
        return ["runuser", "-u", "postgres", "--", *command] if os.geteuid() == 0 else command

    def restart(self) -> None:
        started = self._pg_ctl_start()
        if started.returncode != 0:
            raise RuntimeError(f"PostgreSQL did not start again: {started.stderr}")

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://{self.user}@127.0.0.1:{self.port}/{database}"

    def create_database(self, name: str) -> str:
        import psycopg

        with psycopg.connect(self.url(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}"')
            conn.execute(f'CREATE DATABASE "{name}"')
        return self.url(name)

    def stop(self) -> None:
        if self.folder is None:
            return
        if self.bin is not None and (self.folder / "data").exists():
            self._run(
                str(self.bin / "pg_ctl"), "-D", str(self.folder / "data"), "-m", "immediate", "-w", "stop", check=False
            )
        shutil.rmtree(self.folder, ignore_errors=True)
        self.folder = None
