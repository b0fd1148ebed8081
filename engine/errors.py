"""Errors raised by the engine, with LangGraph's exact texts where LangGraph has them.

Build-time problems are `ValueError`s raised by the builder or `compile()`; run-time problems carry
the node and key. The texts are LangGraph's so people recognise them and can search for them; the
debugger explains them in more words.
"""

from __future__ import annotations

from enum import Enum
from typing import Any, TypeVar

E = TypeVar("E", bound=Exception)


class ErrorCode(Enum):
    GRAPH_RECURSION_LIMIT = "GRAPH_RECURSION_LIMIT"
    INVALID_CONCURRENT_GRAPH_UPDATE = "INVALID_CONCURRENT_GRAPH_UPDATE"
    INVALID_GRAPH_NODE_RETURN_VALUE = "INVALID_GRAPH_NODE_RETURN_VALUE"
    MULTIPLE_SUBGRAPHS = "MULTIPLE_SUBGRAPHS"
    INVALID_CHAT_HISTORY = "INVALID_CHAT_HISTORY"


def create_error_message(*, message: str, error_code: ErrorCode) -> str:
    return (
        f"{message}\n"
        "For troubleshooting, visit: https://docs.langchain.com/oss/python/langgraph/"
        f"errors/{error_code.value}"
    )


class GraphRecursionError(RecursionError):
    """The run reached `recursion_limit` supersteps without finishing."""


class InvalidUpdateError(Exception):
    """A node's return value, or the set of writes of one superstep, cannot be applied."""


class EmptyChannelError(Exception):
    """Raised by `Channel.get()` on a channel that holds no value yet."""


class EmptyInputError(Exception):
    """`invoke(None)` (or an empty Command) on a thread that has nothing to resume."""


class GraphBubbleUp(Exception):
    """Base of the control-flow exceptions that travel up through nested graphs."""


class GraphInterrupt(GraphBubbleUp):
    """Raised by `interrupt()` inside a node; the root graph turns it into `__interrupt__`."""

    def __init__(self, interrupts: Any = ()) -> None:
        super().__init__(interrupts)
        self.interrupts = interrupts


class ParentCommand(GraphBubbleUp):
    """Carries a `Command(graph=Command.PARENT)` from a subgraph to the graph that runs it."""

    def __init__(self, command: Any) -> None:
        super().__init__(command)
        self.command = command


def coded_error(error: type[E], code: ErrorCode, message: str) -> E:
    """`error` with LangGraph's text for `code`: the message, then the troubleshooting link."""
    return error(create_error_message(message=message, error_code=code))


def concurrent_update_error(key: str) -> InvalidUpdateError:
    message = f"At key '{key}': Can receive only one value per step. Use an Annotated key to handle multiple values."
    return coded_error(InvalidUpdateError, ErrorCode.INVALID_CONCURRENT_GRAPH_UPDATE, message)


def invalid_return_error(value: Any) -> InvalidUpdateError:
    return coded_error(InvalidUpdateError, ErrorCode.INVALID_GRAPH_NODE_RETURN_VALUE, f"Expected dict, got {value}")


def recursion_limit_error(limit: int) -> GraphRecursionError:
    message = (
        f"Recursion limit of {limit} reached without hitting a stop condition. "
        "You can increase the limit by setting the `recursion_limit` config key."
    )
    return coded_error(GraphRecursionError, ErrorCode.GRAPH_RECURSION_LIMIT, message)
