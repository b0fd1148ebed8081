"""Running `recorder.mjs` in node: the request in, the events out (read as they come), stopping it.

node gets a pipe of its own for the events (`events_fd`), so the app's console.log cannot corrupt them;
its stdout and stderr are drained (their tails kept for error lines). node runs in its own session: Ctrl-C
here is forwarded as one SIGTERM, which the recorder answers by flushing and exiting.
"""

from __future__ import annotations

import json
import os
import subprocess
import threading
import time
from collections import deque
from pathlib import Path
from typing import Any

from debugger.runtimes.node import node_binary

from .reader import EventReader

RECORDER = Path(__file__).with_name("recorder.mjs")
GRACE = 2.0
"""Seconds node gets to flush and exit after SIGTERM before it is killed."""
_TAIL = 64 * 1024


class JSAppError(Exception):
    """A LangGraph.js app that cannot be recorded; the message is one line that says how to fix it."""


def find_node() -> str:
    """The node binary, or JSAppError saying how to install it."""
    found = node_binary()
    if not found:
        raise JSAppError("node is not installed: apt-get install nodejs npm")
    return found


class NodeRun:
    """One recorder process: started with a request, read on a thread, waited for or stopped."""

    def __init__(self, request: dict[str, Any], reader: EventReader, *, keep_stdin: bool = False) -> None:
        """Starts node with `request`; `keep_stdin` leaves its stdin open for more lines (`send`, a live run)."""
        self.reader = reader
        self.stderr: deque[bytes] = deque()
        self.stdout: deque[bytes] = deque()
        self.bad_lines = 0
        self.bytes_read = 0
        events_read, events_write = os.pipe()
        try:
            payload = json.dumps({**request, "events_fd": events_write}) + "\n"
        except (TypeError, ValueError) as exc:
            os.close(events_read)
            os.close(events_write)
            raise JSAppError(f"the input, config and resume must be JSON for a LangGraph.js app: {exc}") from None
        try:
            self.process = subprocess.Popen(
                [find_node(), str(RECORDER)],
                stdin=subprocess.PIPE,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                pass_fds=(events_write,),
                start_new_session=True,
            )
        except BaseException:
            os.close(events_read)
            raise
        finally:
            os.close(events_write)  # node holds the only write end: its exit ends the stream
        self.threads = [
            threading.Thread(target=self._read_events, args=(events_read,), name="stepscope-js-events", daemon=True),
            threading.Thread(target=_drain, args=(self.process.stdout, self.stdout), daemon=True),
            threading.Thread(target=_drain, args=(self.process.stderr, self.stderr), daemon=True),
        ]
        for thread in self.threads:
            thread.start()
        try:
            self.process.stdin.write(payload.encode())
            if keep_stdin:
                self.process.stdin.flush()
            else:
                self.process.stdin.close()
        except BrokenPipeError:  # node died at once: its stderr says why
            pass

    def send(self, line: dict[str, Any]) -> bool:
        """Writes one more JSON line to node's stdin (a live run's command); False when node is gone."""
        try:
            self.process.stdin.write((json.dumps(line) + "\n").encode())
            self.process.stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            return False
        return True

    def _read_events(self, fd: int) -> None:
        with os.fdopen(fd, "rb") as stream:
            for line in stream:
                self.bytes_read += len(line)
                try:
                    event = json.loads(line)
                except ValueError:
                    self.bad_lines += 1
                    continue
                self.reader.feed(event)

    def wait(self, timeout: float | None) -> str | None:
        """Waits for node to finish; returns None, or "timeout"/"cancelled" when it was stopped here."""
        started = time.monotonic()
        stopped = None
        try:
            while self.process.poll() is None:
                left = None if timeout is None else timeout - (time.monotonic() - started)
                if left is not None and left <= 0:
                    stopped = "timeout"
                    break
                try:
                    self.process.wait(0.2 if left is None else min(0.2, left))
                except subprocess.TimeoutExpired:
                    pass
        except KeyboardInterrupt:
            stopped = "cancelled"
        if stopped is not None:
            self.stop()
        for thread in self.threads:
            thread.join(GRACE + 3)
        return stopped

    def stop(self) -> None:
        """SIGTERM (the recorder flushes and exits), then SIGKILL after GRACE seconds."""
        if self.process.poll() is not None:
            return
        self.process.terminate()
        try:
            self.process.wait(GRACE)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait()

    def stderr_line(self) -> str:
        """The last meaningful line node wrote to stderr (why it died), or ''."""
        text = b"".join(self.stderr).decode("utf8", "replace")
        lines = [line.strip() for line in text.splitlines() if line.strip() and not line.startswith("    at ")]
        return lines[-1] if lines else ""


def _drain(stream: Any, tail: deque[bytes]) -> None:
    size = 0
    for chunk in iter(lambda: stream.read1(8192), b""):
        tail.append(chunk)
        size += len(chunk)
        while size > _TAIL and len(tail) > 1:
            size -= len(tail.popleft())
    stream.close()
