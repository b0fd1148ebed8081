"""The Trace: everything that happened in one run, as data. The contract between engine and debugger.

A `Recorder` is a hook (`engine.hooks`): attach it to `invoke`/`stream` (or a `Loop`) and it builds a
`Trace`. The debugger reads Traces and never needs the engine to do so: `to_json`/`from_json` store
one as a file, with a `schema_version`.

Shape: a `Trace` is a `RunRecord` (the root run) plus identity. A run has `steps`: one `StepRecord`
per superstep (step -1 is the input). A step has its `tasks` (each with its input view, raw return
value, writes, routes, duration, error, and the nested runs of subgraphs it started), every reducer
call of its barrier in application order, the channel versions that changed, and the state changes
not explained by reducer calls (channels that clear themselves).

Every runtime writes its records through `TraceWriter` (`engine.trace_writer`; the engine's
`Recorder` too); what happens to a trace afterwards (stopped, forked, joined, edited) is
`engine.trace_edits`. Files are `engine.tracefile`'s job. Values are recorded with `engine.codec`:
deep JSON-able snapshots, so history cannot change when a node later mutates a list in place.
Whatever only grows is stored as a delta: a reducer call stores its `before` against the channel's
last recorded value (normally `{"same": true}`; anything else means the value changed outside the
reducers, e.g. a node mutated its input in place) and its `after` against `before`. A node's input
is stored as a view, `{"$view": [keys]}`, when it is the recorded state. So a trace grows with what
changed, not with state size times steps. `debugger.replay` rebuilds full values from these deltas.
"""

from .channels import reducer_display_name
from .constants import PULL, PUSH, TASKS
from .hooks import watching
from .recorder import Recorder, StepSink
from .records import (
    SAME,
    SAME_AS_WRITES,
    SCHEMA_VERSION,
    VIEW,
    ReducerCallRecord,
    RunRecord,
    StepRecord,
    TaskRecord,
    Trace,
    describe,
    fields_of,
    same_as_writes,
    utc_now,
)
from .run_start import CHECKPOINT_KEYS, new_run, plain_config
from .schema import schema_fields, takes_config
from .trace_edits import (
    join_segments,
    keep_stopped_step,
    mark_ended,
    stepscope_error,
    stopped_step,
    update_step,
    where_stopped,
    with_fork_step,
)
from .trace_writer import TraceWriter
from .types import RunStatus, StepKind, TaskPathKind

__all__ = [
    # the records
    "Trace",
    "RunRecord",
    "StepRecord",
    "TaskRecord",
    "ReducerCallRecord",
    "SCHEMA_VERSION",
    "VIEW",
    "SAME",
    "SAME_AS_WRITES",
    "RunStatus",
    "StepKind",
    "TaskPathKind",
    "PUSH",
    "PULL",
    "TASKS",
    # recording a run and describing its graph
    "Recorder",
    "watching",
    "StepSink",
    # the one writer of a trace, for every runtime (engine/trace_writer.py), and every later edit (trace_edits.py)
    "TraceWriter",
    "new_run",
    "plain_config",
    "CHECKPOINT_KEYS",
    "stepscope_error",
    "mark_ended",
    "stopped_step",
    "keep_stopped_step",
    "where_stopped",
    "update_step",
    "with_fork_step",
    "join_segments",
    "fields_of",
    "same_as_writes",
    "describe",
    "utc_now",
    "reducer_display_name",
    "schema_fields",
    "takes_config",
]
"""What the debugger may use: the records it reads, and what it needs to record runs (langgraph's too)
and name what it sees as the engine does. The rest of the engine's modules are its own."""
