"""The child process that runs typed code: `python -m debugger.sandbox.worker`, started by `client.py` in a
process group of its own. It imports the jobs once (so a request starts warm), then reads one JSON request a
line from stdin and answers each with one JSON line on stdout:

    {"job": "playground", "request": {...}, "limits": {...}, "language": "en"}
    -> {"answer": {...}} | {"limit": "cpu" | "memory"} | {"failed": "one line"}

Each request runs in a fresh fork of this process, which first limits itself (CPU time, address space, no
core file) and points its stdin/stdout at /dev/null, so typed code can neither lift the limits of the next
request nor print into the answers; its answer comes back through a pipe of its own. This process keeps the
request's wall limit, and when the child has ended (or was killed at that limit) it kills whatever the child
forked and left running, even a process that left the group with setsid(): it is their subreaper. This
process never runs typed code: it stays single-threaded, which forking needs. Each child's temporary files go
to a folder of the request's own, removed when the child has ended (however it ended)."""

from __future__ import annotations

import contextlib
import ctypes
import importlib
import json
import os
import resource
import select
import selectors
import shutil
import signal
import sys
import tempfile
import time
from typing import Any, Callable

from debugger import i18n
from debugger.sandbox.limits import MEGABYTE, Limits

JOBS = {
    "playground": "debugger.model.playground:fold_request",
    "exercise": "debugger.model.exercise_check:check_request",
}
"""The jobs a request may name: the function (request dict -> answer dict) that runs in the child."""

_PR_SET_CHILD_SUBREAPER = 36
"""prctl(2): orphans among this process's descendants are reparented to it, not to init."""
_CPU_SIGNALS = (signal.SIGXCPU, signal.SIGKILL)
"""How the kernel ends a child past its CPU limit: SIGXCPU at the soft limit, SIGKILL at the hard one."""


def _job(name: str) -> Callable[[dict[str, Any]], dict[str, Any]]:
    module, function = JOBS[name].split(":")
    return getattr(importlib.import_module(module), function)


def _address_space() -> int:
    """This process's address space in bytes (what RLIMIT_AS counts), or 0 where /proc does not say."""
    try:
        with open("/proc/self/statm", encoding="ascii") as statm:
            return int(statm.read().split()[0]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return 0


def _limit_myself(limits: Limits) -> None:
    """Kernel-enforced limits, soft and hard alike where it matters: the code cannot raise them again."""
    resource.setrlimit(resource.RLIMIT_CPU, (limits.cpu_seconds, limits.cpu_seconds + 1))
    memory = _address_space() + limits.memory_mb * MEGABYTE
    resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
    resource.setrlimit(resource.RLIMIT_CORE, (0, 0))


def _quiet_standard_streams() -> None:
    """stdin and stdout are the server's pipes: typed code must not read the next request or print an answer."""
    null = os.open(os.devnull, os.O_RDWR)
    os.dup2(null, 0)
    os.dup2(null, 1)
    os.close(null)
    sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115 - lives as long as this child


def _run_child(message: dict[str, Any], answer_fd: int) -> None:
    """In the fork: limit, run the job, write the answer to `answer_fd`, end without returning."""
    reply: dict[str, Any]
    try:
        _quiet_standard_streams()
        _limit_myself(Limits(**message["limits"]))
        with i18n.using(message.get("language") or i18n.DEFAULT):
            reply = {"answer": _job(message["job"])(message["request"])}
        text = json.dumps(reply)
    except MemoryError:
        text = json.dumps({"limit": "memory"})
    except BaseException as exc:  # the job's own failure: one line for the server, never a traceback
        first = (str(exc).splitlines() or [""])[0]
        text = json.dumps({"failed": f"{type(exc).__name__}: {first}" if first else type(exc).__name__})
    data = text.encode("utf-8") + b"\n"
    while data:  # a pipe takes a long answer in parts
        data = data[os.write(answer_fd, data) :]
    os._exit(0)  # threads the code left behind end with this process


def _read_answer(fd: int, pid: int, seconds: float) -> bytes | None:
    """The child's answer line (b"" when it ended without one), or None when it gave none within `seconds`.
    Stops waiting when the child has ended, even if a process it forked still holds the pipe open."""
    deadline = time.monotonic() + seconds
    ended = _exit_watch(pid)
    data = b""
    try:
        with selectors.DefaultSelector() as selector:
            selector.register(fd, selectors.EVENT_READ)
            if ended is not None:
                selector.register(ended, selectors.EVENT_READ)
            while b"\n" not in data:
                left = deadline - time.monotonic()
                ready = {key.fd for key, _ in selector.select(left)} if left > 0 else set()
                if not ready:
                    return None
                if fd in ready:
                    chunk = os.read(fd, 1 << 16)
                    if not chunk:
                        break
                    data += chunk
                else:  # it ended: all it wrote is in the pipe already
                    data += _drain(fd)
                    break
    finally:
        if ended is not None:
            os.close(ended)
        os.close(fd)
    return data.split(b"\n", 1)[0]


def _exit_watch(pid: int) -> int | None:
    """A file descriptor that becomes readable when `pid` ends (Linux's pidfd), or None where there is none."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def _drain(fd: int) -> bytes:
    """What the pipe holds now, without waiting for writers that are still alive."""
    data = b""
    while select.select([fd], [], [], 0)[0]:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        data += chunk
    return data


def _end_strays() -> None:
    """Kills what a child forked and left running: this process is their subreaper (`_adopt_strays`), so even
    one that left the process group with setsid() is reparented here when its parent ends. Rounds, because
    killing one hands its own children to this process."""
    for _round in range(100):
        try:
            with open(f"/proc/self/task/{os.getpid()}/children", encoding="ascii") as listing:
                strays = [int(pid) for pid in listing.read().split()]
        except OSError:  # no /proc: strays in the process group still die with it
            return
        if not strays:
            return
        for pid in strays:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        for pid in strays:
            with contextlib.suppress(ChildProcessError):
                os.waitpid(pid, 0)


def _adopt_strays() -> None:
    """Makes this process the subreaper of everything it forks (Linux's PR_SET_CHILD_SUBREAPER)."""
    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)


def answer(message: dict[str, Any]) -> bytes:
    """Runs one request in a fresh fork and says how it ended, as one JSON text: the child's answer (passed
    on as it wrote it), or the limit that stopped it. Whatever the child left running is killed."""
    if message.get("job") not in JOBS:
        return _reply({"failed": f"unknown job {message.get('job')!r}; known: {', '.join(JOBS)}"})
    limits = Limits(**message["limits"])
    scratch = tempfile.mkdtemp(prefix="request-")
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        tempfile.tempdir = scratch
        _run_child(message, write_fd)
    os.close(write_fd)
    data = _read_answer(read_fd, pid, limits.wall_seconds)
    if data is None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    _, status = os.waitpid(pid, 0)
    _end_strays()
    shutil.rmtree(scratch, ignore_errors=True)  # the files of a child its limit killed, too
    if data is None:
        return _reply({"limit": "wall"})
    return data or _ended_without_answer(status)


def _ended_without_answer(status: int) -> bytes:
    if os.WIFSIGNALED(status):
        if os.WTERMSIG(status) in _CPU_SIGNALS:
            return _reply({"limit": "cpu"})
        return _reply({"failed": f"the child process was ended by {signal.Signals(os.WTERMSIG(status)).name}"})
    code = os.waitstatus_to_exitcode(status)
    return _reply({"failed": f"the child process ended (exit code {code}) without an answer"})


def _reply(reply: dict[str, Any]) -> bytes:
    return json.dumps(reply).encode("utf-8")


def _warm_up() -> None:
    """Imports the jobs and what they import lazily (the engine's graph builder, loaded when a graph file
    first imports it: 70 ms a request otherwise, as each fork would do it again). It builds the playground's
    first graph, written by StepScope (no typed code), and runs nothing: no thread starts before a fork."""
    for name in JOBS:
        _job(name)
    from debugger.model import playground

    playground.load(playground.graph_source(playground.Setup()))


def main() -> None:
    _adopt_strays()
    _warm_up()
    replies = sys.stdout.buffer
    for line in sys.stdin.buffer:
        replies.write(answer(json.loads(line)) + b"\n")
        replies.flush()


if __name__ == "__main__":
    main()
