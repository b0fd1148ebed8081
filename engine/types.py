"""The small value types nodes hand back to the engine: `Send`, `Command`, `Overwrite`, `Interrupt`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, Generic, Hashable, Sequence, TypeVar

N = TypeVar("N", bound=Hashable)


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
            for name, value in (("graph", self.graph), ("update", self.update), ("resume", self.resume), ("goto", self.goto))
            if value
        )
        return f"Command({shown})"

    def goto_targets(self) -> list[Any]:
        if isinstance(self.goto, (list, tuple)):
            return list(self.goto)
        return [self.goto] if self.goto else []
