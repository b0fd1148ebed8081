"""Reading trace files safely: every trace the debugger opens (a file given to `import`, `show` or
`diagnose`, an upload in the app, a row of the run database) passes here before anything touches it.

Four gates, each ending in one `TraceFileError` line that names the source and the first problem:

1. Size and nesting: a file over `max_trace_bytes()` is refused unread; the file is then read one
   top-level value and one step at a time (`trace_stream`), and a value nested deeper than
   `MAX_NESTING` is refused as it is met, counted without recursion.
2. The schema: `TraceFile` below is the file format (`engine.tracefile`'s file form of
   `engine.trace`'s records), declared once with pydantic in strict mode; it checks every record,
   every field's type, the deltas, the errors and the tags of recorded values.
3. Consistency: the deltas of each channel must apply one after another (a `merge` on a list, or a
   splice past the end, cannot be replayed), and write references must point at writes.
4. Sense (`debugger/sources/runs/trace_sense.py`): the steps in order, calls into declared channels, edges
   between declared nodes, a plain key's new value its write.

Gates 2-4 run one step at a time (`StreamCheck`), so checking a long trace holds one step. Only then
is the Trace built (`engine.tracefile.from_dict`), a long one with its steps left on disk (`LazySteps`).
The engine stays standard-library only; this module is the debugger's side of the contract.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Annotated, Any, Literal, Union

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, ValidationError

from debugger.sources.file_index import FileIndexCache, content_stamp
from debugger.sources.trace_sense import SenseCheck
from debugger.sources.trace_stream import MAX_NESTING, STREAM_MIN_BYTES, FileSteps, LazySteps, StepIndex, nesting_depth
from engine.codec import TYPE
from engine.trace import SCHEMA_VERSION, RunStatus, StepRecord, Trace
from engine.tracefile import TraceFileError, from_dict, step_from_dict

MAX_TRACE_MB_ENV = "STEPSCOPE_MAX_TRACE_MB"
DEFAULT_MAX_TRACE_MB = 1024

__all__ = [
    "TraceFileError",
    "parse_trace",
    "read_trace_file",
    "validate",
    "max_trace_bytes",
    "MAX_NESTING",
    "nesting_depth",
]


def max_trace_bytes() -> int:
    try:
        return int(float(os.environ.get(MAX_TRACE_MB_ENV, DEFAULT_MAX_TRACE_MB)) * 1_000_000)
    except ValueError:
        return DEFAULT_MAX_TRACE_MB * 1_000_000


# ---- reading -------------------------------------------------------------------------------------


def read_trace_file(path: str | Path) -> Trace:
    """A checked Trace from a trace file, read step by step (`trace_stream`): a long one keeps its steps
    on disk and decodes each when asked for; `TraceFileError` (one line) for anything else."""
    path = Path(path)
    try:
        size = path.stat().st_size
        if size > max_trace_bytes():
            raise TraceFileError(_too_big(str(path), size))
        long_file = size >= STREAM_MIN_BYTES
        cache = FileIndexCache(path) if long_file else None  # indexed and checked once (`file_index`)
        stamp = content_stamp(path) if cache is not None and cache.path is not None else (0, "")
        opened_as = _stamp(path)
        index = cache.load(stamp, str(path)) if cache is not None else None
        indexed_before = index is not None
        if index is None:
            with path.open("rb") as handle:
                index = StepIndex(handle.read, str(path))
    except OSError as exc:
        raise TraceFileError(f"cannot read {path}: {exc.strerror or exc}.") from None
    steps = FileSteps(index, lambda: path.open("rb"), lambda: _stamp(path))
    trace = checked_trace(index.head, steps, str(path), keep_on_disk=long_file, checked_when_stored=indexed_before)
    if cache is not None and steps.opened_as == opened_as:  # not changed while it was read
        if not indexed_before:
            cache.save(stamp, index)
        steps.snapshots = cache.shelf(stamp, len(index))
    return trace


def _stamp(path: Path) -> tuple[int, int]:
    """What tells a file changed since it was indexed: its size and modification time."""
    try:
        status = path.stat()
    except OSError:
        return (-1, -1)
    return status.st_size, status.st_mtime_ns


def parse_trace(text: str | bytes, *, source: str = "<trace>") -> Trace:
    """A validated Trace from JSON text (an upload, a stored run's text), read the same way as a file:
    a long one keeps its steps as bytes until asked for; `TraceFileError` (one line) for anything else."""
    if len(text) > max_trace_bytes():
        raise TraceFileError(_too_big(source, len(text)))
    data = text.encode("utf-8", "surrogatepass") if isinstance(text, str) else bytes(text)
    index = StepIndex(io.BytesIO(data).read, source)
    steps = FileSteps(index, lambda: io.BytesIO(data), lambda: None)
    return checked_trace(index.head, steps, source, keep_on_disk=len(data) >= STREAM_MIN_BYTES)


def checked_trace(
    head: dict[str, Any], source: Any, name: str, *, keep_on_disk: bool, checked_when_stored: bool = False
) -> Trace:
    """The Trace of a head and its steps (`source`, as `LazySteps` takes it: a file's, a store's rows),
    every step checked first in one pass (`StreamCheck`); the steps then stay where they are
    (`keep_on_disk`) or are read into a list.

    `checked_when_stored`: a run store's own rows, which every writer of the store checked (an import reads
    its file through here; a recorder writes what it recorded). A long run's steps are then not read at
    all: each is still checked against the schema when it is decoded (`step_from_dict`), and its head here,
    but opening a 200,000-step run does not read 200,000 steps again to check what was checked."""
    check = StreamCheck(head, source=name)
    kept: list[StepRecord] = []
    for position, step in () if keep_on_disk and checked_when_stored else enumerate(source.loads()):
        check.step(position, step)
        if not keep_on_disk:
            kept.append(step_from_dict(step, source=name, index=position))
    try:
        trace = from_dict(head, source=name)
    except TraceFileError:
        raise
    except (KeyError, TypeError, ValueError, AttributeError, RecursionError) as exc:  # what the schema let through
        raise TraceFileError(f"{name} is damaged: {exc}. Re-export the run.") from None
    trace.steps = LazySteps(source, name) if keep_on_disk else kept  # type: ignore[assignment]
    return trace


def _too_big(source: str, size: int) -> str:
    return (
        f"{source} is {size / 1e6:.0f} MB; traces up to {max_trace_bytes() / 1e6:.0f} MB are opened "
        f"(set {MAX_TRACE_MB_ENV} to allow more)."
    )


# ---- the schema ----------------------------------------------------------------------------------

_MESSAGE_TYPES = ("human", "ai", "system", "tool", "remove", "function")
_TAGS: dict[str, dict[str, type | tuple[type, ...]]] = {
    # tag: required keys and their JSON types (values under them are checked as values again)
    "message": {"message": dict},
    "dict": {"items": list},
    "tuple": {"items": list},
    "set": {"items": list},
    "missing": {},
    "float": {"value": str},
    "int": {"hex": str},
    "Send": {"node": str, "arg": object},
    "Overwrite": {"value": object},
    "Command": {"fields": dict},
    "object": {"class": str, "fields": dict},
    "repr": {"class": str, "repr": str},
    "error": {"class": str, "message": str},
    "same_as_writes": {},
    "undefined": {},  # JavaScript's undefined, recorded from a LangGraph.js run
}


class _Bad(ValueError):
    """A problem inside a field: `inner` is the path below the field (`.message`, `[3].items`)."""

    def __init__(self, inner: str, problem: str) -> None:
        super().__init__(f"{inner.lstrip('.') or 'value'}: {problem}")
        self.inner = inner
        self.problem = problem


def check_value(value: Any) -> Any:
    """A recorded value (`engine.codec.encode`'s output) whose tags the debugger can read."""
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        item, where = stack.pop()
        if type(item) is list:
            stack.extend((v, f"{where}[{i}]") for i, v in enumerate(item))
        elif type(item) is dict:
            tag = item.get(TYPE)
            if tag is None:
                if "$view" in item and not (len(item) == 1 and _is_str_list(item["$view"])):
                    raise _Bad(where, "$view should be a list of state keys")
                stack.extend((v, f"{where}.{k}") for k, v in item.items())
                continue
            _check_tagged(item, tag, where)
            stack.extend((v, f"{where}.{k}") for k, v in item.items() if k not in (TYPE, "class", "repr"))
        elif type(item) is float and item != item:
            raise _Bad(where, "NaN is written as a tagged float")
    return value


def _check_tagged(item: dict[str, Any], tag: Any, where: str) -> None:
    required = _TAGS.get(tag) if isinstance(tag, str) else None
    if required is None:
        raise _Bad(where, f"unknown recorded value type {tag!r}")
    for key, kind in required.items():
        if key not in item:
            raise _Bad(where, f"a {tag} value needs {key!r}")
        if not isinstance(item[key], kind) or type(item[key]) is bool and kind is not object:
            raise _Bad(f"{where}.{key}", f"should be {getattr(kind, '__name__', kind)}")
    if tag in ("dict",) and not all(type(p) is list and len(p) == 2 for p in item["items"]):
        raise _Bad(f"{where}.items", "should be [key, value] pairs")
    if tag == "message":
        message = item["message"]
        if message.get("type") not in _MESSAGE_TYPES or not isinstance(message.get("data"), dict):
            raise _Bad(f"{where}.message", f"should be {{type: one of {', '.join(_MESSAGE_TYPES)}, data: {{...}}}}")
    if tag == "float":
        try:
            float(item["value"])
        except ValueError:
            raise _Bad(f"{where}.value", f"{item['value']!r} is not a float") from None
    if tag == "int":
        try:
            int(item["hex"], 16)
        except ValueError:
            raise _Bad(f"{where}.hex", f"{item['hex']!r} is not a hexadecimal int") from None
    if tag == "Command" and not set(item["fields"]) <= {"graph", "update", "resume", "goto"}:
        raise _Bad(f"{where}.fields", "a Command has only graph, update, resume and goto")


def _is_str_list(value: Any) -> bool:
    return type(value) is list and all(type(v) is str for v in value)


def check_delta(change: Any) -> Any:
    """One of `engine.codec`'s deltas (`same`, `extend`, `splice`, `merge`/`drop`, `set`)."""
    if type(change) is not dict:
        raise ValueError("a delta should be an object")
    keys = set(change)
    if keys == {"same"} and change["same"] is True:
        return change
    if keys == {"extend"}:
        added = change["extend"]
        if type(added) is list or _is_write_ref(added):
            return check_value(change)
        raise ValueError("extend: should be a list of values")
    if keys == {"splice", "items"}:
        if type(change["splice"]) is not int or change["splice"] < 0 or type(change["items"]) is not list:
            raise ValueError("a splice needs an index >= 0 and a list of items")
        return check_value(change)
    if keys in ({"merge"}, {"merge", "drop"}):
        if type(change["merge"]) is not dict or not _is_str_list(change.get("drop", [])):
            raise ValueError("a merge needs an object of changed keys (and a list of dropped keys)")
        return check_value(change)
    if keys == {"set"}:
        return check_value(change)
    raise ValueError(
        f"not a delta: it has {sorted(keys)}; expected one of same, extend, splice+items, merge(+drop), set"
    )


def _is_write_ref(value: Any) -> bool:
    return type(value) is dict and set(value) == {"$write"} and type(value["$write"]) is int and value["$write"] >= 0


def check_pair(pair: Any) -> Any:
    if type(pair) is not list or len(pair) != 2 or type(pair[0]) is not str:
        raise ValueError("should be a [name, value] pair")
    check_value(pair[1])
    return pair


def check_write(write: Any) -> Any:
    return write if _is_write_ref(write) else check_value(write)


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
    if len(edge) != 2 or not _is_str_list(edge[0]) or type(edge[1]) is not str:
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


# ---- validation ----------------------------------------------------------------------------------


def validate(data: Any, *, source: str = "<trace>") -> None:
    """Raises `TraceFileError` naming `source` and the first field that breaks the schema, the first
    delta that cannot apply or the first thing that cannot have happened (`StreamCheck`, step by step)."""
    steps = data.get("steps") if isinstance(data, dict) else None
    if steps is not None and type(steps) is not list:
        StreamCheck(data, source=source)  # the schema says what is wrong with the steps field
        return
    check = StreamCheck({k: v for k, v in data.items() if k != "steps"} if steps else data, source=source)
    for index, step in enumerate(steps or ()):
        check.step(index, step)


class StreamCheck:
    """The checks of `validate` for a trace read one step at a time: the head (every field but `steps`) at
    once, then each step as it comes, keeping per channel and per graph what the checks need and nothing
    per step, so a trace of any length is checked in memory that does not grow with its steps."""

    def __init__(self, head: Any, *, source: str = "<trace>") -> None:
        self.source = source
        self.head = head
        if not isinstance(head, dict) or "schema_version" not in head:
            raise TraceFileError(
                f"{source} is not a StepScope trace: it has no schema_version. "
                "Export one with `stepscope run TARGET --out FILE`."
            )
        version = head["schema_version"]
        if type(version) is int and version > SCHEMA_VERSION:
            raise TraceFileError(
                f"{source} was written by a newer StepScope (trace schema {version}; this one reads "
                f"up to {SCHEMA_VERSION}). Upgrade StepScope to open it."
            )
        try:
            TraceFile.model_validate(head)
        except ValidationError as exc:
            raise TraceFileError(f"{source}: {_first_problem(exc, head)}") from None
        except RecursionError:
            raise TraceFileError(f"{source} is nested too deeply to check.") from None
        self.replay = ReplayCheck()
        self.sense = SenseCheck(head.get("graph") or {})
        problem = self.sense.graph_problem()
        if problem:
            raise TraceFileError(f"{source}: {problem}, so the file describes no run that can have happened.")

    def step(self, index: int, step: Any) -> None:
        """Checks the run's `index`-th step (its file form) after those before it."""
        source = self.source
        try:
            StepFile.model_validate(step)
        except ValidationError as exc:
            raise TraceFileError(f"{source}: {_first_problem(exc, self.head, within=f'steps[{index}]')}") from None
        except RecursionError:
            raise TraceFileError(f"{source} is nested too deeply to check.") from None
        problem = self.replay.step(index, step)
        if problem:
            raise TraceFileError(f"{source}: {problem}. The file is damaged; re-export the run.")
        problem = self.sense.step(index, step)
        if problem:
            raise TraceFileError(f"{source}: {problem}, so the file describes no run that can have happened.")


def _first_problem(exc: ValidationError, data: Any, within: str = "") -> str:
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
    if isinstance(cause, _Bad):
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


def _replay_problem(run: dict[str, Any], where: str = "") -> str | None:
    """Whether every channel's deltas apply in order (see `ReplayCheck`)."""
    check = ReplayCheck(where)
    for s, step in enumerate(run.get("steps", ())):
        problem = check.step(s, step)
        if problem:
            return problem
    return None


class ReplayCheck:
    """Whether every channel's deltas apply in order, one step at a time, tracking only each value's kind
    and length: linear in the file, memory per channel (not per step), and it catches what a later
    replay would crash on."""

    def __init__(self, where: str = "") -> None:
        self.where = where
        self.kinds: dict[str, tuple[str, int]] = {}

    def _apply(self, channel: str, change: dict[str, Any], at: str) -> str | None:
        kind, length = self.kinds.get(channel, ("missing", 0))
        if "same" in change:
            return None
        if "set" in change:
            self.kinds[channel] = _kind(change["set"])
            return None
        if "extend" in change:
            if kind != "list":
                return f"{at} extends {channel!r}, which is not a list there"
            added = change["extend"]
            self.kinds[channel] = ("list", length + (len(added) if type(added) is list else 0))
            return None
        if "splice" in change:
            if kind != "list" or change["splice"] > length:
                return f"{at} splices {channel!r} at {change['splice']}, past its end or not a list"
            self.kinds[channel] = ("list", change["splice"] + len(change["items"]))
            return None
        if kind != "dict":
            return f"{at} merges keys into {channel!r}, which is not an object there"
        return None

    def step(self, s: int, step: dict[str, Any]) -> str | None:
        """The first delta of `step` (the run's `s`-th) that cannot apply after the steps before it, or None."""
        where = self.where
        tasks = step.get("tasks", ())
        writes = {t["id"]: t.get("writes", ()) for t in tasks}
        for c, call in enumerate(step.get("reducer_calls", ())):
            at = f"{where}steps[{s}].reducer_calls[{c}]"
            ref = call["write"]
            if _is_write_ref(ref) and ref["$write"] >= len(writes.get(call["writer"], ())):
                return f"{at}.write points at a write its task does not have"
            problem = self._apply(call["channel"], call["before"], f"{at}.before")
            if problem is None and call.get("error") is None:
                after = call["after"]
                if "extend" in after and _is_write_ref(after["extend"]):
                    written = writes.get(call["writer"], ())[ref["$write"]][1] if _is_write_ref(ref) else None
                    if type(written) is not list:
                        return f"{at}.after extends with a write that is not a list"
                    after = {"extend": written}
                problem = self._apply(call["channel"], after, f"{at}.after")
            if problem:
                return problem
        for key, change in step.get("state", {}).items():
            problem = self._apply(key, change, f"{where}steps[{s}].state.{key}")
            if problem:
                return problem
        for t, task in enumerate(tasks):
            for r, sub in enumerate(task.get("subgraphs", ())):
                problem = _replay_problem(sub, f"{where}steps[{s}].tasks[{t}].subgraphs[{r}].")
                if problem:
                    return problem
        return None


def _kind(value: Any) -> tuple[str, int]:
    if type(value) is list:
        return "list", len(value)
    if type(value) is dict and TYPE not in value:
        return "dict", len(value)
    return "other", 0
