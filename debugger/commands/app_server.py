"""`stepscope app`: starts the Streamlit debugger, bound to 127.0.0.1 unless told otherwise."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlencode

from debugger.runtimes.checkpointers.open import CHECKPOINTER_ENV

APP = Path(__file__).resolve().parents[1] / "app.py"
"""The Streamlit entry, `debugger/app.py` (this module is in `debugger/commands/`)."""


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
    ]


def launch(
    *,
    host: str = "127.0.0.1",
    port: int = 8501,
    sample: str | None = None,
    db: str | None = None,
    checkpointer: str | None = None,
    thread: str | None = None,
) -> int:
    """Starts the app's Streamlit server on `host:port`, opening `sample` (or the thread of the checkpointer);
    returns its exit code."""
    env = dict(os.environ)
    if db:
        env["STEPSCOPE_DB"] = db
    query = f"?{urlencode({'sample': sample})}" if sample else ""
    if checkpointer:  # the URL stays on the server (it may hold a password); the address names the thread
        env[CHECKPOINTER_ENV] = checkpointer
        query = f"?{urlencode({k: v for k, v in (('graph', sample), ('thread', thread)) if v})}"
    print(f"StepScope is at http://{host}:{port}/{query}  (Ctrl+C stops it)", flush=True)
    try:
        return subprocess.call(streamlit_command(host=host, port=port), env=env)
    except KeyboardInterrupt:
        return 0
