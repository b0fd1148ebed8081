"""The limits typed code runs under, and the one line that says which one it passed.

The child sets the CPU-time and memory limits on itself (`resource.setrlimit`, so the kernel enforces
them); the worker keeps the wall-clock one, for code that waits rather than computes."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from debugger.i18n import _

MEGABYTE = 1024 * 1024


@dataclass(frozen=True)
class Limits:
    """What one request may use before it is stopped."""

    cpu_seconds: int = 5
    """CPU time of the child that runs the code (RLIMIT_CPU: SIGXCPU, then SIGKILL one second later)."""
    memory_mb: int = 512
    """Address space the code may add to the child's (RLIMIT_AS: an allocation past it raises MemoryError)."""
    wall_seconds: float = 12.0
    """Real time the worker waits for the child's answer before it kills the child and all it forked."""

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def stopped_line(limit: str, limits: Limits, what: str) -> str:
    """The one line that says which limit `what` (e.g. "the reducer") passed: `cpu`, `memory` or `wall`."""
    if limit == "cpu":
        text = _("{what} ran past its {seconds} s CPU limit and was stopped: make sure it returns.")
        return text.format(what=what, seconds=limits.cpu_seconds)
    if limit == "memory":
        text = _("{what} used more than {megabytes} MB of memory and was stopped: make sure it does not keep growing.")
        return text.format(what=what, megabytes=limits.memory_mb)
    text = _("{what} did not answer within {seconds} s and was stopped: make sure it does not wait forever.")
    return text.format(what=what, seconds=f"{limits.wall_seconds:g}")


def raise_if_out_of_memory(error: dict[str, Any] | None) -> None:
    """Raises MemoryError when a recorded run's error (`trace.error`) is one: the run caught the memory
    limit's MemoryError and recorded it, but it is the limit that stopped it, not the learner's code."""
    if error and error.get("class") == "MemoryError":
        raise MemoryError
