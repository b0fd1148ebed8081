"""langgraph itself as a runtime: a real langgraph compiled graph runs on langgraph, and StepScope records
it by watching that run (`debugger/runtimes/langgraph/recorder/`). Importing this does not import langgraph."""

from __future__ import annotations

from debugger.runtimes.langgraph.record import LangGraphRuntime

LANGGRAPH = LangGraphRuntime()
"""The one langgraph runtime the registry hands out."""

__all__ = ["LANGGRAPH", "LangGraphRuntime"]
