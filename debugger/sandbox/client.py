"""The server's side of typed code: one warm worker process per server (`worker.py`), asked one request at a
time. The worker starts on the first request, in a process group of its own, and stops each request at its
wall limit itself; a worker that has not answered a few seconds after that is killed with its whole process
group, and a new one is started at once, which warms up while the learner reads the line. Waiting is a
`select` on the worker's stdout in the asking thread: no thread of the server's is left behind.

    answer = run("playground", {"source": ..., "writers": 2}, Limits(wall_seconds=12), what=_("the reducer"))
"""

from __future__ import annotations

import atexit
import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import IO, Any, cast

from debugger import i18n
from debugger.i18n import _
from debugger.sandbox.limits import Limits, stopped_line

ROOT = Path(__file__).resolve().parents[2]
"""The folder that holds `debugger/` and `sample_graphs/`: the worker imports them from there."""


BACKSTOP_SECONDS = 3.0
"""The worker answers at the wall limit itself; the server kills it when it has not answered this much later."""


class TypedCodeStopped(Exception):
    """The typed code passed a limit or its process failed; the message is the one line to show."""


class _Worker:
    """The worker process and the bytes read from it that do not make a whole line yet."""

    def __init__(self) -> None:
        environ = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])))
        environ["MALLOC_ARENA_MAX"] = "2"  # each thread's malloc arena would take 64 MB of the memory limit
        self.scratch = tempfile.mkdtemp(prefix="stepscope-typed-code-")
        environ["TMPDIR"] = self.scratch  # what a killed worker leaves in temporary files goes with it
        self.process = subprocess.Popen(
            [sys.executable, "-m", "debugger.sandbox.worker"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            env=environ,
            cwd=ROOT,
            start_new_session=True,  # its own process group: one killpg ends it and every child it forked
        )
        self.pending = b""

    def ask(self, message: dict[str, Any], wall_seconds: float) -> dict[str, Any] | None:
        """The worker's reply to `message`, or None when none came within `wall_seconds`."""
        requests = cast(IO[bytes], self.process.stdin)  # piped in __init__
        requests.write(json.dumps(message).encode("utf-8") + b"\n")
        requests.flush()
        line = self._line(wall_seconds)
        return None if line is None else json.loads(line)

    def _line(self, wall_seconds: float) -> bytes | None:
        deadline = time.monotonic() + wall_seconds
        stdout = cast(IO[bytes], self.process.stdout)
        with selectors.DefaultSelector() as selector:
            selector.register(stdout, selectors.EVENT_READ)
            while b"\n" not in self.pending:
                left = deadline - time.monotonic()
                if left <= 0 or not selector.select(left):
                    return None
                chunk = os.read(stdout.fileno(), 1 << 16)
                if not chunk:
                    raise EOFError
                self.pending += chunk
        line, self.pending = self.pending.split(b"\n", 1)
        return line

    def kill(self) -> None:
        """Ends the worker and everything in its process group, and reaps it (no zombie is left)."""
        try:
            os.killpg(self.process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.process.wait()
        shutil.rmtree(self.scratch, ignore_errors=True)
        for pipe in (self.process.stdin, self.process.stdout):
            if pipe is not None:
                pipe.close()


_worker: _Worker | None = None
_asking = threading.Lock()
"""One request at a time: the sessions of one server share its worker."""


def run(job: str, request: dict[str, Any], limits: Limits, *, what: str) -> dict[str, Any]:
    """The answer of `job` (a name of `worker.JOBS`) to `request`, computed in the worker's child under
    `limits`. Raises TypedCodeStopped, with one line naming the limit `what` passed or how its process failed."""
    global _worker
    message = {"job": job, "request": request, "limits": limits.to_dict(), "language": i18n.current()}
    with _asking:
        if _worker is None or _worker.process.poll() is not None:
            _worker = _Worker()
        try:
            reply = _worker.ask(message, limits.wall_seconds + BACKSTOP_SECONDS)
        except (OSError, EOFError, ValueError):  # the worker died or spoke garbage: a new one next time
            reply = {"failed": _("the process that runs it ended unexpectedly; try again")}
            _worker.kill()
            _worker = None
        if reply is None:
            _worker.kill()
            _worker = _Worker()  # starting now, so the next fold finds it warm
            raise TypedCodeStopped(stopped_line("wall", limits, what))
    if "limit" in reply:
        raise TypedCodeStopped(stopped_line(reply["limit"], limits, what))
    if "failed" in reply:
        raise TypedCodeStopped(_("{what} could not be run: {reason}").format(what=what, reason=reply["failed"]))
    return reply["answer"]


@atexit.register
def stop() -> None:
    """Ends the worker (the server is stopping; the next request would start a new one)."""
    global _worker
    with _asking:
        if _worker is not None:
            _worker.kill()
            _worker = None


def worker_pid() -> int | None:
    """The warm worker's process id (its process group's too), None before the first request."""
    return None if _worker is None else _worker.process.pid
