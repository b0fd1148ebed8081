"""Shared by every section of the differential cases: the `Built` and `Case` records, the `case`
registry, pinned error texts and small helpers. See `cases/__init__.py` for what a case is."""

# No `from __future__ import annotations`: state schemas defined inside builders refer to local names.
import time
from dataclasses import dataclass, field
from typing import Any, Callable

CONCURRENT = (
    "\nFor troubleshooting, visit: https://docs.langchain.com/oss/python/langgraph/errors/"
    "INVALID_CONCURRENT_GRAPH_UPDATE"
)
NODE_RETURN = (
    "\nFor troubleshooting, visit: https://docs.langchain.com/oss/python/langgraph/errors/"
    "INVALID_GRAPH_NODE_RETURN_VALUE"
)
RECURSION = "\nFor troubleshooting, visit: https://docs.langchain.com/oss/python/langgraph/errors/GRAPH_RECURSION_LIMIT"
COERCION = (
    "\nFor troubleshooting, visit: https://docs.langchain.com/oss/python/langchain/errors/MESSAGE_COERCION_FAILURE "
)


def conflict(key: str) -> str:
    return (
        f"At key '{key}': Can receive only one value per step. "
        "Use an Annotated key to handle multiple values." + CONCURRENT
    )


def recursion(limit: int) -> str:
    return (
        f"Recursion limit of {limit} reached without hitting a stop condition. "
        "You can increase the limit by setting the `recursion_limit` config key." + RECURSION
    )


def task_note(node: str) -> str:
    """The Python 3.11+ exception note LangGraph adds to an error raised inside a task."""
    return f"During task with name '{node}' and id '<id>'"


@dataclass
class Built:
    builder: Any = None
    """The uncompiled graph builder; the harness calls `builder.compile(**compile_kwargs)`."""
    input: Any = None
    config: dict | None = None
    probe: Callable[[], Any] | None = None
    """Called after the run; its value is normalised and compared like the output."""
    compile_kwargs: dict = field(default_factory=dict)
    graph: Any = None
    """An already compiled graph, used instead of `builder` when given."""


@dataclass
class Case:
    name: str
    build: Callable[[Any], Built]
    expect: dict
    aspects: tuple[str, ...]
    doc: str


CASES: dict[str, Case] = {}

#: What is compared for every case; see harness.ASPECTS.
ALL_ASPECTS = (
    "invoke",
    "stream_default",
    "updates",
    "values",
    "updates_values",
    "subgraphs",
    "subgraphs_values",
)
#: Cases whose error comes before anything runs only need one aspect.
BUILD_ONLY = ("invoke",)


def case(expect: dict | None = None, aspects: tuple[str, ...] = ALL_ASPECTS):
    def register(fn: Callable[[Any], Built]) -> Callable[[Any], Built]:
        assert fn.__name__.startswith("build_"), fn.__name__
        name = fn.__name__[len("build_") :]
        assert name not in CASES, name
        CASES[name] = Case(name, fn, dict(expect or {}), aspects, (fn.__doc__ or "").strip())
        return fn

    return register


def sleep_ms(ms: float) -> None:
    assert ms <= 20
    time.sleep(ms / 1000)


def logging_add(calls: list) -> Callable[[Any, Any], Any]:
    """operator.add that records each call `(left, right)`: shows the fold order of a reducer."""

    def add(left, right):
        calls.append((list(left) if isinstance(left, list) else left, right))
        return left + right

    return add


@dataclass
class FunctionCase:
    name: str
    args: Callable[[Any], tuple[Any, Any]]
    """Returns `(left, right)` built from the backend namespace."""
    expect: dict


FUNCTION_CASES: dict[str, FunctionCase] = {}


def fcase(expect: dict):
    def register(fn):
        name = fn.__name__[len("args_") :]
        FUNCTION_CASES[name] = FunctionCase(name, fn, expect)
        return fn

    return register
