"""Printing helpers for the samples' `python sample_graphs/NAME.py` output.

Not a sample (the leading underscore keeps it out of the gallery). It never imports `engine`, so a
sample module can be re-run against `langgraph` by swapping only its `from engine import ...` line.
"""

import copy
from typing import Any


def is_message(value: Any) -> bool:
    """A chat message object, from `engine` or from `langchain_core` (duck-typed)."""
    return (
        not isinstance(value, type)
        and hasattr(value, "content")
        and hasattr(value, "type")
        and (type(value).__name__.endswith("Message"))
    )


def brief(value: Any) -> Any:
    """`value` with every message shortened to `type/content/id` (plus tool calls or the call it answers)."""
    if is_message(value):
        text = f"{value.type}/{value.content}/{value.id}"
        calls = getattr(value, "tool_calls", None)
        if calls:
            text += " calls " + ", ".join(f"{c['name']}({c['args']})#{c['id']}" for c in calls)
        if getattr(value, "tool_call_id", None):
            text += f" answers #{value.tool_call_id}"
        return Brief(text)
    if isinstance(value, dict):
        return {k: brief(v) for k, v in value.items()}
    if isinstance(value, list):
        return [brief(v) for v in value]
    return value


class Brief(str):
    """A string that prints without quotes inside a list or dict repr."""

    def __repr__(self) -> str:
        return str(self)


def outcome(graph: Any, graph_input: Any, config: dict | None = None) -> Any:
    """The final state of `graph.invoke` on a deep copy of the input, or the exception it raised."""
    try:
        return graph.invoke(copy.deepcopy(graph_input), config)
    except Exception as exc:  # the lesson may be the error itself
        return exc


def describe(result: Any) -> str:
    """One readable line (or an indented block, for a multi-line error text)."""
    if isinstance(result, BaseException):
        text = f"{type(result).__name__}: {result}"
        return text.replace("\n", "\n        ")
    return repr(brief(result))


def show(label: str, graph: Any, graph_input: Any, config: dict | None = None) -> Any:
    """Run `graph` on `graph_input`, print `label: final state` (or the error) and return the result."""
    result = outcome(graph, graph_input, config)
    print(f"{label}: {describe(result)}")
    return result
