"""StepScope's debugger: the Streamlit app (`app.py`, `views/`) and the `stepscope` command line
(`cli.py` over `commands/`), both reading one analysis of a recorded run (`model/` over
`diagnostics/`); graphs run on a runtime (`runtimes/`: the engine, langgraph or LangGraph.js) picked once.

`from debugger import record, recording` records real langgraph apps from your own code
(`runtimes/langgraph/recorder/`); `from debugger import show` steps through a run in a notebook
(`notebook/`). Importing `debugger` imports neither langgraph, the recorder nor the widget until one of
them is used."""

from __future__ import annotations

from typing import Any

__all__ = ["record", "recording", "show"]


def __getattr__(name: str) -> Any:
    """`record`, `recording` and `show`, imported on first use (a command that never records never loads them)."""
    if name == "show":
        from debugger.notebook import show  # lazy on purpose: see the module docstring

        return show
    if name in __all__:
        from debugger.runtimes.langgraph import recorder  # lazy on purpose: see the module docstring

        return getattr(recorder, name)
    raise AttributeError(f"module 'debugger' has no attribute {name!r}")
