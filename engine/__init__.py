"""StepScope's embedded superstep engine: LangGraph's API and semantics, standard library only.

Code written for `langgraph` runs unchanged after switching its imports to `engine`. Every run can be
observed through hooks (`engine.hooks`): each task, each write, each reducer call and each channel
version, which is what the StepScope debugger records and shows.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .channels import BinaryOperatorAggregate, LastValue
    from .compiled import CompiledStateGraph
    from .config import get_stream_writer
    from .constants import END, START
    from .errors import EmptyInputError, GraphRecursionError, InvalidUpdateError
    from .graph import StateGraph
    from .hooks import Hooks, ReducerCall, StepCommit
    from .interrupts import interrupt
    from .managed import IsLastStep, RemainingSteps
    from .message_reducer import REMOVE_ALL_MESSAGES, MessagesState, add_messages
    from .messages import AIMessage, AnyMessage, BaseMessage, HumanMessage, RemoveMessage, SystemMessage, ToolMessage
    from .savers import BaseCheckpointSaver, InMemorySaver, MemorySaver
    from .sqlite_saver import SqliteSaver
    from .state_api import PregelTask, StateSnapshot
    from .types import Command, Interrupt, Overwrite, RetryPolicy, Send

__all__ = [
    "StateGraph",
    "CompiledStateGraph",
    "START",
    "END",
    "MessagesState",
    "add_messages",
    "Send",
    "Command",
    "Overwrite",
    "RetryPolicy",
    "Interrupt",
    "interrupt",
    "get_stream_writer",
    "RemainingSteps",
    "IsLastStep",
    "InMemorySaver",
    "MemorySaver",
    "SqliteSaver",
    "BaseCheckpointSaver",
    "StateSnapshot",
    "PregelTask",
    "InvalidUpdateError",
    "GraphRecursionError",
    "EmptyInputError",
    "BaseMessage",
    "AnyMessage",
    "HumanMessage",
    "AIMessage",
    "SystemMessage",
    "ToolMessage",
    "RemoveMessage",
    "REMOVE_ALL_MESSAGES",
    "Hooks",
    "ReducerCall",
    "StepCommit",
    "BinaryOperatorAggregate",
    "LastValue",
]

_LAZY = {
    "BinaryOperatorAggregate": "channels",
    "LastValue": "channels",
    "CompiledStateGraph": "compiled",
    "get_stream_writer": "config",
    "END": "constants",
    "START": "constants",
    "EmptyInputError": "errors",
    "GraphRecursionError": "errors",
    "InvalidUpdateError": "errors",
    "StateGraph": "graph",
    "Hooks": "hooks",
    "ReducerCall": "hooks",
    "StepCommit": "hooks",
    "interrupt": "interrupts",
    "IsLastStep": "managed",
    "RemainingSteps": "managed",
    "REMOVE_ALL_MESSAGES": "message_reducer",
    "AIMessage": "messages",
    "AnyMessage": "messages",
    "BaseMessage": "messages",
    "HumanMessage": "messages",
    "MessagesState": "message_reducer",
    "RemoveMessage": "messages",
    "SystemMessage": "messages",
    "ToolMessage": "messages",
    "add_messages": "message_reducer",
    "BaseCheckpointSaver": "savers",
    "InMemorySaver": "savers",
    "MemorySaver": "savers",
    "SqliteSaver": "sqlite_saver",
    "PregelTask": "state_api",
    "StateSnapshot": "state_api",
    "Command": "types",
    "Interrupt": "types",
    "Overwrite": "types",
    "RetryPolicy": "types",
    "Send": "types",
}
"""Where each public name lives, imported when first used (PEP 562): the debugger imports `engine.trace`
and friends to record any runtime's run (a langgraph app's too), and importing the package must not
load the engine's graph builder, loop, runner and savers for that (`stepscope run` of a langgraph app
never runs the engine; tests/test_cli_lazy.py pins it)."""


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        value = getattr(importlib.import_module(f"{__name__}.{_LAZY[name]}"), name)
        globals()[name] = value  # once: later reads are plain module attributes
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
