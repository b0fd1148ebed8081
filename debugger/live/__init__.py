"""Live runs: a graph running in the background that the app and the CLI watch, pause at breakpoints,
step one superstep at a time, edit at a pause and stop (`controller.LiveRun` over a runtime's
`DrivenRun`, started by `start_live_run`, read through `status.LiveSnapshot`; `follow.py` is
`stepscope run --follow`)."""

from debugger.live.controller import LiveRun, LiveRunError
from debugger.live.start import start_live_run
from debugger.live.status import Breakpoints, LiveSnapshot, Pause
from debugger.runtimes.driven import EditError

__all__ = [
    "Breakpoints",
    "EditError",
    "LiveRun",
    "LiveRunError",
    "LiveSnapshot",
    "Pause",
    "start_live_run",
]
