"""StepScope's debugger: the Streamlit app (`app.py`, `views/`) and the `stepscope` command line
(`cli.py` over `commands/`), both reading one analysis of a recorded run (`model/` over
`diagnostics/`); graphs run on a runtime (`runtimes/`: the engine, langgraph or LangGraph.js) picked once.

`from debugger import record, recording` records real langgraph apps from your own code
(`runtimes/langgraph/recorder/`); importing `debugger` imports neither langgraph nor the recorder
until one of them is used."""

from __future__ import annotations

from typing import Any

__all__ = ["record", "recording"]


def __getattr__(name: str) -> Any:
    """`record` and `recording`, imported on first use (a command that never records never loads them)."""
    if name in __all__:
        from debugger.runtimes.langgraph import recorder  # lazy on purpose: see the module docstring

        return getattr(recorder, name)
    raise AttributeError(f"module 'debugger' has no attribute {name!r}")
