"""Live runs: a graph running in the background that the app and the CLI watch, pause at breakpoints,
step one superstep at a time, edit at a pause and stop (`controller.LiveRun`, read through
`status.LiveSnapshot`; `langgraph_run.LangGraphLiveRun` does the same for apps written with langgraph,
and `new_live_run` picks the one a graph needs; `follow.py` is `stepscope run --follow`)."""

from debugger.live.controller import LiveRun, LiveRunError
from debugger.live.edits import EditError
from debugger.live.langgraph_run import LangGraphLiveRun, new_live_run
from debugger.live.status import Breakpoints, LiveSnapshot, Pause

__all__ = [
    "Breakpoints",
    "EditError",
    "LangGraphLiveRun",
    "LiveRun",
    "LiveRunError",
    "LiveSnapshot",
    "Pause",
    "new_live_run",
]
