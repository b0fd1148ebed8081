"""Gate 2 of `trace_check`, for records: `TraceFile` is the file format (`engine.tracefile`'s file form
of `engine.trace`'s records), declared once with pydantic in strict mode; every record, every field's type,
the deltas, the errors and the tags of recorded values (`trace_values`). `first_problem` turns pydantic's
first error into one sentence naming the field.
"""

from __future__ import annotations

import json
from typing import Annotated, Any, Literal, Union

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

from debugger.sources.trace_values import BadValue, check_delta, check_pair, check_value, check_write, is_str_list
from engine.codec import TYPE
from engine.trace import SCHEMA_VERSION, RunStatus

Value = Annotated[Any, AfterValidator(check_value)]
Delta = Annotated[Any, AfterValidator(check_delta)]
Pair = Annotated[Any, AfterValidator(check_pair)]
Write = Annotated[Any, AfterValidator(check_write)]


class _Record(BaseModel):
    model_config = ConfigDict(strict=True, extra="forbid")


class ErrorRecord(_Record):
    """An exception as recorded (`engine.codec.encode_error`)."""

    tag: Literal["error"] = Field(alias=TYPE)
    cls: str = Field(alias="class")
    module: str = ""
    message: str
    notes: list[str] = []
    traceback: str = ""


class TaskFile(_Record):
    id: str
    name: str
    path: list[Value]
    triggers: list[str]
    fired: list[str]
    seen_versions: dict[str, int]
    input: Value
    result: Value = None
    writes: list[Pair] = []
    routes: list[Pair] = []
    duration: float = 0.0
    error: ErrorRecord | None = None
    subgraphs: list["RunFile"] = []
    attempts: list["AttemptFile"] = []
    managed: dict[str, Value] = {}


class AttemptFile(_Record):
    """A failed attempt of a task under a retry policy (`TaskRecord.attempts`)."""

    attempt: int = Field(default=0, ge=0)
    error: ErrorRecord
    duration: float = 0.0
    retry_in: float | None = None


class MismatchFile(_Record):
    """A state key whose committed value differs from what the recorded reducer calls fold to."""

    channel: str
    recorded: Value
    committed: Value
    damaged: str | None = None
    """Set (with an empty `channel`) when the step's stored data is damaged: what could not be read."""


class InterruptFile(_Record):
    """An `interrupt()` that stopped the run."""

    id: str = ""
    value: Value = None
    node: str = ""
    task: str = ""


class ReducerCallFile(_Record):
    index: int = Field(ge=0)
    channel: str
    reducer: str
    writer: str
    writer_name: str
    write: Write
    before: Delta
    after: Delta
    error: ErrorRecord | None = None


class StepFile(_Record):
    step: int = Field(ge=-1)
    tasks: list[TaskFile] = []
    reducer_calls: list[ReducerCallFile] = []
    versions: dict[str, int] = {}
    updated_channels: list[str] = []
    state: dict[str, Delta] = {}
    committed: bool = False
    checkpoint: dict[str, Any] | None = None
    parent_checkpoint: dict[str, Any] | None = None
    mismatches: list[MismatchFile] = []
    kind: Literal["loop", "update"] = "loop"


class NodeFile(BaseModel):
    model_config = ConfigDict(strict=True, extra="allow")
    name: str
    subgraph: bool = False
    defer: bool = False


class ChannelFile(BaseModel):
    model_config = ConfigDict(strict=True, extra="allow")
    kind: str
    reducer: str | None = None


class DrawNodeFile(_Record):
    id: str
    name: str
    metadata: dict[str, Any] | None = None


class DrawEdgeFile(_Record):
    source: str
    target: str
    data: str | None = None
    conditional: bool = False


class DrawingFile(_Record):
    """`engine.draw.DrawableGraph.to_dict()`."""

    nodes: list[DrawNodeFile]
    edges: list[DrawEdgeFile]


class BranchFile(BaseModel):
    model_config = ConfigDict(strict=True, extra="allow")
    source: str
    name: str
    targets: dict[str, str] | None = None


def check_waiting_edge(edge: Any) -> Any:
    if len(edge) != 2 or not is_str_list(edge[0]) or type(edge[1]) is not str:
        raise ValueError("should be [[source, ...], target]")
    return edge


class ControlChannelFile(_Record):
    """What a control channel carries (`engine.trace.describe`'s `control_channels`)."""

    role: Literal["input", "sends", "edge", "waiting_edge", "internal"]
    target: str = ""
    sources: list[str] = []


class GraphFile(BaseModel):
    """`engine.trace.describe(graph)`; more keys are allowed (descriptions grow; readers use .get)."""

    model_config = ConfigDict(strict=True, extra="allow")
    name: str
    nodes: list[NodeFile]
    edges: list[Annotated[list[str], Field(min_length=2, max_length=2)]]
    channels: dict[str, ChannelFile]
    waiting_edges: list[Annotated[list[Any], AfterValidator(check_waiting_edge)]] = []
    branches: list[BranchFile] = []
    input_keys: list[str] = []
    output_keys: Union[str, list[str]] = []
    drawing: DrawingFile
    drawing_flat: DrawingFile
    control_channels: dict[str, ControlChannelFile] | None = None


class RunFile(_Record):
    ns: list[str]
    graph: GraphFile
    input: Value
    config: Value
    recursion_limit: int = Field(default=0, ge=0)
    steps: list[StepFile] = []
    status: RunStatus = "running"
    output: Value = None
    error: ErrorRecord | None = None
    started_at: str = ""
    duration: float = Field(default=0.0, ge=0)
    interrupts: list[InterruptFile] = []


class TraceFile(RunFile):
    """A whole trace file: the root run plus its identity."""

    schema_version: int = Field(ge=1, le=SCHEMA_VERSION)
    run_id: str = Field(min_length=1)
    target: str = ""
    thread_id: str = ""


TaskFile.model_rebuild()


def first_problem(exc: ValidationError, data: Any, within: str = "") -> str:
    """One sentence for the first error pydantic found in `data` (or in its part `within`, e.g. `steps[3]`)."""
    error = exc.errors(include_url=False)[0]
    where = _path(error["loc"])
    if within:
        where = within if where == "the file" else f"{within}{'' if where.startswith('[') else '.'}{where}"
    message = error["msg"]
    if error["type"] == "missing":
        return f"{where} is missing (a required field). The file is damaged; re-export the run."
    if error["type"] == "extra_forbidden":
        return (
            f"{where} is not a field of this trace schema (version {data.get('schema_version')}). "
            "Was it written by another program?"
        )
    cause = (error.get("ctx") or {}).get("error")
    if isinstance(cause, BadValue):
        return f"{where}{cause.inner}: {cause.problem}. The file is damaged; re-export the run."
    found = error.get("input")
    shown = json.dumps(found)[:60] if isinstance(found, (str, int, float, bool, type(None))) else type(found).__name__
    if where == "schema_version":
        return f"schema_version is {shown}; trace files have versions 1 to {SCHEMA_VERSION}."
    return f"{where} is {shown}: {message.removeprefix('Value error, ')}. The file is damaged; re-export the run."


def _path(loc: tuple[Any, ...]) -> str:
    text = ""
    for part in loc:
        if isinstance(part, int):
            text += f"[{part}]"
        elif str(part).startswith("function-after["):  # pydantic's name for an Annotated validator
            continue
        else:
            text += f".{part}" if text else str(part)
    return text or "the file"
