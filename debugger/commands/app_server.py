"""`stepscope app`: starts the Streamlit debugger, bound to 127.0.0.1 unless told otherwise, and stops it
with itself: SIGTERM, SIGINT (Ctrl+C) and SIGHUP (the terminal closed) stop the Streamlit server too."""

from __future__ import annotations

import errno
import os
import signal
import socket
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlencode

from debugger.code_access import CODE_ENV, allowed_for, is_loopback
from debugger.runtimes.checkpointers.open import CHECKPOINTER_ENV

APP = Path(__file__).resolve().parents[1] / "app.py"
"""The Streamlit entry, `debugger/app.py` (this module is in `debugger/commands/`)."""

STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT, signal.SIGHUP)
"""The signals that stop the app, and with it its server."""
STOP_GRACE_SECONDS = 3.0
"""How long the server has to stop on SIGTERM before it is killed (the port must be free within 5 s)."""


def streamlit_command(*, host: str, port: int) -> list[str]:
    return [
        sys.executable,
        "-m",
        "streamlit",
        "run",
        str(APP),
        "--server.address",
        host,
        "--server.port",
        str(port),
        "--server.headless",
        "true",
        "--browser.gatherUsageStats",
        "false",
        "--server.fileWatcherType",
        "none",
        "--server.runOnSave",
        "false",
        "--client.toolbarMode",
        "viewer",  # a local debugger has nothing to deploy
        "--client.showErrorDetails",
        "none",  # errors are told in one line by the app, never as a traceback
        "--runner.postScriptGC",
        "false",  # a full collection after every script run held the GIL 70 ms (115,000 objects) on each step
    ]


def exposure_warning(host: str, port: int, *, allow_code: bool) -> str | None:
    """The one line `stepscope app` prints on stderr when `host` is reachable from beyond this machine."""
    if is_loopback(host):
        return None
    code = (
        "pages that run typed code are ON (--allow-code): anyone who reaches it can run code on this machine"
        if allow_code
        else "pages that run typed code are off (--allow-code turns them on)"
    )
    return (
        f"warning: --host {host} listens beyond this machine: anyone who can reach port {port} can read every "
        f"stored run; {code}; --host 127.0.0.1 keeps it to this machine"
    )


def server_environment(*, host: str, allow_code: bool, db: str | None, checkpointer: str | None) -> dict[str, str]:
    """The Streamlit server's environment: this one, plus the run store, the checkpointer and whether its
    pages may run typed code (always set, so an inherited value never decides)."""
    env = dict(os.environ)
    if db:
        env["STEPSCOPE_DB"] = db
    if checkpointer:  # the URL stays on the server (it may hold a password); the address names the thread
        env[CHECKPOINTER_ENV] = checkpointer
    env[CODE_ENV] = "1" if allowed_for(host, allow_code=allow_code) else "0"
    return env


def port_refusal(host: str, port: int) -> str:
    """Why the app cannot listen on `host:port` ('' when it can): tried with a socket of its own before the
    server starts, so `stepscope app` never announces a URL that another program answers."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except OSError as exc:
        return f"--host {host}: not an address of this machine ({exc.strerror or exc}); give e.g. --host 127.0.0.1"
    family, kind, _proto, _name, address = infos[0]
    with socket.socket(family, kind) as probe:
        probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as the server binds: a closed port is free
        try:
            probe.bind(address)
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                other = port + 1 if port < 65535 else 8501
                return (
                    f"port {port} is in use on {host} (another server, or a StepScope app already open): "
                    f"stop it, or give --port {other}"
                )
            return f"cannot listen on {host}:{port}: {exc.strerror or exc}; give another --host or --port"
    return ""


def launch(
    *,
    host: str = "127.0.0.1",
    port: int = 8501,
    sample: str | None = None,
    db: str | None = None,
    checkpointer: str | None = None,
    thread: str | None = None,
    allow_code: bool = False,
) -> int:
    """Starts the app's Streamlit server on `host:port`, opening `sample` (or the thread of the checkpointer);
    returns its exit code, or 128 + the signal's number when a signal stopped it."""
    warning = exposure_warning(host, port, allow_code=allow_code)
    if warning:
        print(warning, file=sys.stderr, flush=True)
    env = server_environment(host=host, allow_code=allow_code, db=db, checkpointer=checkpointer)
    query = f"?{urlencode({'sample': sample})}" if sample else ""
    if checkpointer:
        query = f"?{urlencode({k: v for k, v in (('graph', sample), ('thread', thread)) if v})}"
    print(f"StepScope is at http://{host}:{port}/{query}  (Ctrl+C stops it)", flush=True)
    return serve(streamlit_command(host=host, port=port), env)


class _Stopped(Exception):
    """Raised in the main thread by the first stop signal, out of the wait for the server."""


class _Serving:
    """The server process, once started, and the first stop signal received."""

    def __init__(self) -> None:
        self.server: subprocess.Popen | None = None
        self.signum: int | None = None

    def on_signal(self, signum: int, frame: object) -> None:
        first = self.signum is None
        self.signum = self.signum or signum
        if first and self.server is not None and self.server.returncode is None:  # later ones wait for its stop
            raise _Stopped


def serve(command: list[str], env: dict[str, str]) -> int:
    """Runs the server `command` in a process group of its own until it exits or a stop signal comes; then
    stops it (SIGTERM to its group, SIGKILL after `STOP_GRACE_SECONDS`) before returning."""
    serving = _Serving()
    previous = {signum: signal.signal(signum, serving.on_signal) for signum in STOP_SIGNALS}
    server = None
    try:
        # its own group: a terminal's Ctrl+C reaches this process alone, which stops the server once, in order
        server = subprocess.Popen(command, env=env, process_group=0)
        serving.server = server
        if serving.signum is None:  # a signal during the start is stopped below
            return server.wait()
    except _Stopped:
        pass
    finally:
        if serving.signum is not None and server is not None:
            _stop_group(server)
        for signum, handler in previous.items():
            signal.signal(signum, handler)
    name = signal.Signals(serving.signum).name
    print(f"stopped ({name}): the app's server is stopped too.", file=sys.stderr, flush=True)
    return 128 + serving.signum


def _stop_group(server: subprocess.Popen) -> None:
    """SIGTERM to the server's process group (Streamlit closes its port and exits), SIGKILL if it lingers."""
    for stop, grace in ((signal.SIGTERM, STOP_GRACE_SECONDS), (signal.SIGKILL, None)):
        try:
            os.killpg(server.pid, stop)
        except ProcessLookupError:  # already gone
            pass
        try:
            server.wait(timeout=grace)
            return
        except subprocess.TimeoutExpired:
            continue
