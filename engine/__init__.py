"""StepScope's embedded superstep engine: LangGraph's API and semantics, standard library only.

Code written for `langgraph` runs unchanged after switching its imports to `engine`. Every run can be
observed through hooks (`engine.hooks`): each task, each write, each reducer call and each channel
version, which is what the StepScope debugger records and shows.
"""

from .channels import BinaryOperatorAggregate, LastValue
from .compiled import CompiledStateGraph
from .config import get_stream_writer
from .constants import END, START
from .errors import EmptyInputError, GraphRecursionError, InvalidUpdateError
from .graph import StateGraph
from .hooks import Hooks, ReducerCall, StepCommit
from .interrupts import interrupt
from .managed import IsLastStep, RemainingSteps
from .messages import (
    REMOVE_ALL_MESSAGES,
    AIMessage,
    AnyMessage,
    BaseMessage,
    HumanMessage,
    MessagesState,
    RemoveMessage,
    SystemMessage,
    ToolMessage,
    add_messages,
)
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
