"""StepScope's debugger: the Streamlit app (`app.py`, `views/`) and the `stepscope` command line
(`cli.py` over `commands/`), both reading one analysis of a recorded run (`model/` over
`diagnostics/`); graphs run on a runtime (`runtimes/`: the engine, langgraph or LangGraph.js) picked once.

`from debugger import record, recording` records real langgraph apps from your own code
(the runtime that declares `CodeRecording`: langgraph's, `runtimes/registry.py` `code_recording`);
`from debugger import show` steps through a run in a notebook
(`notebook/`). Importing `debugger` imports neither langgraph, the recorder nor the widget until one of
them is used."""

from __future__ import annotations

from typing import Any

__all__ = ["record", "recording", "show"]
_CODE_RECORDING = {"record": "recorded_graph", "recording": "recording"}
"""This package's names for the requests of `debugger.runtimes.capabilities.CodeRecording`."""


def __getattr__(name: str) -> Any:
    """`record`, `recording` and `show`, imported on first use (a command that never records never loads them)."""
    if name == "show":
        from debugger.notebook import show  # lazy on purpose: see the module docstring

        return show
    if name in _CODE_RECORDING:
        from debugger.runtimes.registry import code_recording  # lazy on purpose: see the module docstring

        return getattr(code_recording(), _CODE_RECORDING[name])
    raise AttributeError(f"module 'debugger' has no attribute {name!r}")
