"""Live runs: a graph running in the background that the app and the CLI watch, pause at breakpoints,
step one superstep at a time, edit at a pause and stop (`controller.LiveRun`, read through
`status.LiveSnapshot`; `follow.py` is `stepscope run --follow`)."""

from debugger.live.controller import LiveRun, LiveRunError
from debugger.live.edits import EditError
from debugger.live.status import Breakpoints, LiveSnapshot, Pause

__all__ = ["Breakpoints", "EditError", "LiveRun", "LiveRunError", "LiveSnapshot", "Pause"]
