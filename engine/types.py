"""The small value types nodes hand back to the engine (`Send`, `Command`, `Overwrite`, `Interrupt`) and
`RetryPolicy`, which `add_node` takes."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Generic, Hashable, Literal, NamedTuple, Sequence, TypeVar

N = TypeVar("N", bound=Hashable)

RunStatus = Literal["running", "done", "interrupted", "error", "recursion_limit", "cancelled", "timeout"]
"""A run's status: `running` until it ends `done`, `interrupted`, `error` or `recursion_limit`;
`cancelled` (Ctrl-C, or Stop on a live run) and `timeout` are set by a caller that stopped the run."""
StepKind = Literal["loop", "input", "resume", "interrupt", "update"]
"""What a barrier committed (`hooks.StepCommit.kind`); `update` is a state edit made between
supersteps (`Loop.update_state`: a person editing a paused live run)."""
TaskPathKind = Literal["__pregel_pull", "__pregel_push"]
"""The first item of a task's path (`constants.PULL`, `constants.PUSH`): edge-triggered or a `Send`."""


class Send:
    """A packet for one PUSH task: run `node` in the next superstep with exactly `arg` as its input.

    Routers return Sends to fan out map-reduce style; their writes are applied after every PULL task
    of that step, in the order the Sends were made.
    """

    __slots__ = ("node", "arg")
    node: str
    arg: Any

    def __init__(self, node: str, arg: Any) -> None:
        self.node = node
        self.arg = arg

    def __hash__(self) -> int:
        return hash((self.node, repr(self.arg)))

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Send) and self.node == other.node and self.arg == other.arg

    def __repr__(self) -> str:
        return f"Send(node={self.node!r}, arg={self.arg!r})"


@dataclass(frozen=True)
class Overwrite:
    """Write `value` to a reducer channel as is, bypassing its reducer for this superstep."""

    value: Any


OVERWRITE_KEY = "__overwrite__"


def as_overwrite(write: Any) -> Overwrite | None:
    """The Overwrite a write stands for, accepting LangGraph's two dict spellings too."""
    if isinstance(write, Overwrite):
        return write
    if isinstance(write, dict) and len(write) == 1 and OVERWRITE_KEY in write:
        return Overwrite(write[OVERWRITE_KEY])
    if isinstance(write, dict) and write.get("type") == OVERWRITE_KEY and "value" in write:
        return Overwrite(write["value"])
    return None


@dataclass(frozen=True)
class Interrupt:
    """A pause requested by `interrupt(value)`; `id` names it when resuming several at once."""

    value: Any
    id: str = ""
    response_schema: Any = None


@dataclass(frozen=True, repr=False)
class Command(Generic[N]):
    """A node's return value that both updates the state and says where to go next.

    `update` is applied like a returned dict; `goto` (a node name, a list of names, a `Send` or a list
    of Sends) adds to the node's static edges; `graph=Command.PARENT` sends the command to the graph
    that runs this one as a subgraph; `resume` answers pending interrupts when given as input.
    """

    graph: str | None = None
    update: Any = None
    resume: Any = None
    goto: Send | Sequence[Send | N] | N = ()

    PARENT: ClassVar[str] = "__parent__"

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{name}={value!r}"
            for name, value in (
                ("graph", self.graph),
                ("update", self.update),
                ("resume", self.resume),
                ("goto", self.goto),
            )
            if value
        )
        return f"Command({shown})"

    def goto_targets(self) -> list[Any]:
        if isinstance(self.goto, (list, tuple)):
            return list(self.goto)
        return [self.goto] if self.goto else []


def default_retry_on(exc: Exception) -> bool:
    """LangGraph's default: retry anything except errors that will fail the same way again (bad
    values, bad code, missing keys, OS errors), but do retry connection errors and HTTP 5xx answers.
    httpx and requests are recognised by their class names, so the engine imports neither."""
    if isinstance(exc, ConnectionError):
        return True
    kind = type(exc)
    module = kind.__module__.split(".")[0]
    if module == "httpx" and any(c.__name__ == "HTTPStatusError" for c in kind.__mro__):
        return 500 <= exc.response.status_code < 600  # type: ignore[attr-defined]
    if module == "requests" and any(c.__name__ == "HTTPError" for c in kind.__mro__):
        response = getattr(exc, "response", None)
        return 500 <= response.status_code < 600 if response else True
    if isinstance(
        exc,
        (
            ValueError,
            TypeError,
            ArithmeticError,
            ImportError,
            LookupError,
            NameError,
            SyntaxError,
            RuntimeError,
            ReferenceError,
            StopIteration,
            StopAsyncIteration,
            OSError,
        ),
    ):
        return False
    return True


class RetryPolicy(NamedTuple):
    """How to retry a node that raised (`add_node(..., retry_policy=RetryPolicy(...))`).

    A failed attempt is retried when `retry_on` accepts the exception, until `max_attempts` attempts
    (the first included) have failed; then the last exception fails the run as usual. Before retry n
    (1-based) the task sleeps `min(max_interval, initial_interval * backoff_factor ** (n - 1))`
    seconds, plus a random 0-1 s when `jitter`. LangGraph's defaults.
    """

    initial_interval: float = 0.5
    """Seconds before the first retry."""
    backoff_factor: float = 2.0
    """Multiplier of the interval after each retry."""
    max_interval: float = 128.0
    """Upper bound of the interval, in seconds."""
    max_attempts: int = 3
    """Attempts in all, the first included."""
    jitter: bool = True
    """Add a random 0-1 s to each interval."""
    retry_on: type[Exception] | Sequence[type[Exception]] | Callable[[Exception], bool] = default_retry_on
    """An exception class, a sequence of them, or a predicate on the exception."""

    def accepts(self, exc: Exception) -> bool:
        retry_on = self.retry_on
        if isinstance(retry_on, Sequence):
            return isinstance(exc, tuple(retry_on))
        if isinstance(retry_on, type) and issubclass(retry_on, Exception):
            return isinstance(exc, retry_on)
        if callable(retry_on):
            return retry_on(exc)  # type: ignore[call-arg]
        raise TypeError("retry_on must be an Exception class, a list or tuple of Exception classes, or a callable")

    def interval(self, failures: int) -> float:
        """Seconds to wait after the `failures`-th failed attempt (jitter included)."""
        interval = min(self.max_interval, self.initial_interval * (self.backoff_factor ** (failures - 1)))
        return interval + random.uniform(0, 1) if self.jitter else interval
