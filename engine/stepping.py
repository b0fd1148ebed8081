"""What a caller that owns the loop may use to drive a run one superstep at a time.

`CompiledStateGraph.loop(...)` hands out the run's `Loop`; the debugger's live runs (breakpoints,
step mode, an edit at a pause) tick it themselves. They need a little more than the public API: the
plan of the next step before it runs (`Loop.preview()`), hooks that hear each task start and end
(`Hooks.task_started`/`task_ended`), an asker that answers `interrupt()` while the task waits
(`graph.loop(..., asker=...)`, `NO_ANSWER`), and the writes an edit makes as if a node had returned
it (`node_writes`, `apply_writes`, with `infer_as_node` naming the node, as `update_state` does).
This module names that surface in one place; the modules behind it are the engine's own.
"""

from .algo import RunState, Task, apply_writes
from .constants import INTERRUPT
from .hooks import combine
from .interrupts import NO_ANSWER, Asker
from .state_api import infer_as_node
from .writes import node_writes

__all__ = [
    "RunState",
    "Task",
    "apply_writes",
    "INTERRUPT",
    "combine",
    "NO_ANSWER",
    "Asker",
    "node_writes",
    "infer_as_node",
]
