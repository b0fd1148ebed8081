"""`stepscope app` stops its Streamlit server with itself: SIGTERM, SIGINT and SIGHUP to the command leave
no server behind, and its port can be bound again within 5 s (issue 38, item 7). Each test starts the real
command (about 3 s of Streamlit starting), so they are slow."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
FREE_WITHIN = 5.0
"""Seconds from the signal until the server is gone and its port is free."""

pytestmark = pytest.mark.slow


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _answers(port: int) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as response:
            return response.status == 200
    except OSError:
        return False


def _bindable(port: int) -> bool:
    """Whether a new server could listen on the port (SO_REUSEADDR, as Streamlit's own server sets)."""
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind(("127.0.0.1", port))
        except OSError:
            return False
        return True


def _alive(pid: int) -> bool:
    """Running, not a zombie waiting to be reaped."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def _children(pid: int) -> list[int]:
    text = Path(f"/proc/{pid}/task/{pid}/children").read_text()
    return [int(word) for word in text.split()]


def _start_app(tmp_path: Path) -> tuple[subprocess.Popen, int, int]:
    """`python -m debugger.cli app` on a free port with a store and home of its own, once its port answers;
    the command, its Streamlit server's pid and the port."""
    port = _free_port()
    home = tmp_path / "home"
    home.mkdir()
    env = {
        **os.environ,
        "HOME": str(home),
        "XDG_DATA_HOME": str(home / "data"),
        "STEPSCOPE_DB": str(tmp_path / "runs.sqlite3"),
        "PYTHONPATH": str(ROOT),
    }
    log = open(tmp_path / "app.log", "wb")
    app = subprocess.Popen(
        [sys.executable, "-m", "debugger.cli", "app", "subgraph_trap", "--port", str(port)],
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,  # a group of its own, as a terminal's job is
    )
    log.close()
    deadline = time.monotonic() + 60
    while not _answers(port):
        if app.poll() is not None or time.monotonic() > deadline:
            _cleanup(app, [])
            pytest.fail(f"the app did not start (exit {app.poll()}):\n{(tmp_path / 'app.log').read_text()[-3000:]}")
        time.sleep(0.1)
    servers = _children(app.pid)
    assert len(servers) == 1, servers
    return app, servers[0], port


def _cleanup(app: subprocess.Popen, pids: list[int]) -> None:
    """Whatever a failing test left running."""
    for pid in [app.pid, *pids]:
        if _alive(pid):
            os.kill(pid, signal.SIGKILL)
    app.wait(timeout=10)


SENT = [
    (signal.SIGTERM, os.kill),
    (signal.SIGINT, os.kill),
    (signal.SIGHUP, os.kill),
    (signal.SIGINT, os.killpg),  # Ctrl+C in the terminal: to the whole job
    (signal.SIGHUP, os.killpg),  # the terminal closed
]


@pytest.mark.parametrize(("stop", "send"), SENT, ids=[f"{s.name}-{f.__name__}" for s, f in SENT])
def test_a_signal_to_the_app_stops_its_server_and_frees_the_port(stop, send, tmp_path):
    app, server, port = _start_app(tmp_path)
    try:
        signalled = time.monotonic()
        send(app.pid, stop)
        code = app.wait(timeout=FREE_WITHIN)
        while (_alive(server) or not _bindable(port)) and time.monotonic() - signalled < FREE_WITHIN:
            time.sleep(0.05)
        took = time.monotonic() - signalled
        assert not _alive(server), f"the Streamlit server {server} still runs {took:.1f} s after {stop.name}"
        assert _bindable(port), f"port {port} is still taken {took:.1f} s after {stop.name}"
        assert code == 128 + stop, (code, (tmp_path / "app.log").read_text()[-2000:])
        assert f"stopped ({stop.name})" in (tmp_path / "app.log").read_text()
        print(f"{stop.name}: server gone and port free after {took:.2f} s")
    finally:
        _cleanup(app, [server])


def test_a_server_that_ignores_sigterm_is_killed_after_the_grace(tmp_path):
    from debugger.commands import app_server

    ready = tmp_path / "pid"
    stubborn = (
        "import os, signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
        f"open({str(ready)!r}, 'w').write(str(os.getpid())); time.sleep(60)"
    )
    started = time.monotonic()

    def stop_when_ready() -> None:
        while not ready.exists() and time.monotonic() - started < 30:
            time.sleep(0.05)
        os.kill(os.getpid(), signal.SIGTERM)  # to this process, which runs `serve`

    threading.Thread(target=stop_when_ready, daemon=True).start()
    before = signal.getsignal(signal.SIGTERM)
    code = app_server.serve([sys.executable, "-c", stubborn], dict(os.environ))
    took = time.monotonic() - started
    assert code == 128 + signal.SIGTERM
    assert not _alive(int(ready.read_text()))
    assert signal.getsignal(signal.SIGTERM) is before  # the handlers are put back
    assert app_server.STOP_GRACE_SECONDS <= took < app_server.STOP_GRACE_SECONDS + 5, took
