"""The two backends of the differential suite: the real LangGraph stack and our `engine`.

Each backend is a namespace with the same attribute names, so a graph is written once against
`lg.StateGraph`, `lg.START`, `lg.add_messages`, ... and built on either side.

`langgraph_backend()` needs `langgraph` (the test modules skip cleanly without it).
`engine_backend()` imports `engine` lazily and lets an ImportError propagate: a missing or broken
engine must make its tests fail, never skip. A name the engine does not export yet is simply absent
from its namespace, so only the cases that use it fail (with an AttributeError naming it);
`test_differential.py::test_public_surface` lists every missing name in one place.
"""

from __future__ import annotations

import importlib
from types import SimpleNamespace

#: Every public name a graph in `cases.py` may use, with where LangGraph defines it.
NAMES: dict[str, str] = {
    "StateGraph": "langgraph.graph",
    "START": "langgraph.graph",
    "END": "langgraph.graph",
    "MessagesState": "langgraph.graph",
    "add_messages": "langgraph.graph",
    "Send": "langgraph.types",
    "Command": "langgraph.types",
    "Overwrite": "langgraph.types",
    "InvalidUpdateError": "langgraph.errors",
    "GraphRecursionError": "langgraph.errors",
    "EmptyInputError": "langgraph.errors",
    "Interrupt": "langgraph.types",
    "interrupt": "langgraph.types",
    "StateSnapshot": "langgraph.types",
    "InMemorySaver": "langgraph.checkpoint.memory",
    "MemorySaver": "langgraph.checkpoint.memory",
    "HumanMessage": "langchain_core.messages",
    "AIMessage": "langchain_core.messages",
    "SystemMessage": "langchain_core.messages",
    "ToolMessage": "langchain_core.messages",
    "RemoveMessage": "langchain_core.messages",
    "REMOVE_ALL_MESSAGES": "langgraph.graph.message",
}

#: The exception classes of the public surface; an error raised by a backend is also checked to be
#: an instance of that backend's class of the same name.
ERROR_NAMES = ("InvalidUpdateError", "GraphRecursionError", "EmptyInputError")

BACKEND_NAMES = ("langgraph", "engine")


def langgraph_backend() -> SimpleNamespace:
    ns = SimpleNamespace(name="langgraph", missing=())
    for attr, module in NAMES.items():
        setattr(ns, attr, getattr(importlib.import_module(module), attr))
    return ns


def engine_backend() -> SimpleNamespace:
    engine = importlib.import_module("engine")  # ImportError propagates: fail, never skip
    missing = []
    ns = SimpleNamespace(name="engine")
    for attr in NAMES:
        if hasattr(engine, attr):
            setattr(ns, attr, getattr(engine, attr))
        else:
            missing.append(attr)
    ns.missing = tuple(missing)
    return ns


_CACHE: dict[str, SimpleNamespace] = {}


def get_backend(name: str) -> SimpleNamespace:
    """The namespace for `name` ("langgraph" or "engine"), built once per session."""
    if name not in _CACHE:
        if name == "langgraph":
            _CACHE[name] = langgraph_backend()
        elif name == "engine":
            _CACHE[name] = engine_backend()
        else:  # pragma: no cover
            raise ValueError(f"unknown backend {name!r}")
    return _CACHE[name]
