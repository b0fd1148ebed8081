"""Trace files: a Trace as JSON with a `schema_version`, and back, refusing anything else clearly.

The file form leaves out fields that hold their default, and a reducer call's write (and the items
an append added) point at the writer task's write (`{"$write": k}`) instead of repeating it; loading
puts them back, so loading what was dumped gives an equal Trace. Loading is parsing only: nothing in
a file is imported or run. Every problem is a `TraceFileError` naming the file and what to do.

These checks are the engine's minimum (standard library only). The debugger reads every file through
`debugger.tracecheck`, which checks size, nesting and the whole schema before `from_dict` runs.
"""

from __future__ import annotations

import json
import shutil
import tempfile
from collections.abc import Sequence
from dataclasses import MISSING as MISSING_FIELD
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import IO, Any, Iterable, Iterator

from .blobs import BLOB_MIN, BlobPacker, load_json
from .step_form import leave_out, put_back  # put_back: for readers that check a step before building it
from .trace import SCHEMA_VERSION, ReducerCallRecord, RunRecord, StepRecord, TaskRecord, Trace


class TraceFileError(ValueError):
    """A file that is not a readable trace; the message names the file and what is wrong."""


def to_dict(trace: Trace, *, blobs: bool = False) -> dict[str, Any]:
    """The file form: fields holding their default are left out, a reducer call's write (and the
    items an append added) point at the writer task's write instead of repeating it, and each large
    value (`BLOB_MIN` bytes of JSON or more) is stored once in `blobs` and pointed at (`{"$blob": key}`)
    wherever it occurs (`blobs=True`, as `to_json` writes files; `from_dict` takes the other form)."""
    data = _record_to_dict(trace)
    data.pop("schema_version", None)
    # identity first, so a file opened in an editor says what it is at the top; then the blobs, so a
    # reader meets each large value before the first pointer to it
    head = {"schema_version": SCHEMA_VERSION, "run_id": data.pop("run_id", "")}
    if blobs:
        packer = BlobPacker()
        packer.pack_run(data)
        table = packer.take_fresh()
        if table:
            head["blobs"] = {"$blobs": table}
    return {**head, **data}


_DEFAULTS: dict[type, dict[str, Any]] = {}
_PLANS: dict[type, tuple[tuple[str, Any, bool], ...]] = {}
_NO_DEFAULT = object()
_NESTED = frozenset(("steps", "tasks", "reducer_calls", "subgraphs"))
"""The fields that hold records; every other field of a record holds plain data (values already
encoded, names, numbers), which the file form keeps as it is, without walking it again."""


def _defaults(cls: type) -> dict[str, Any]:
    if cls not in _DEFAULTS:
        found = {}
        for f in fields(cls):
            if f.default is not MISSING_FIELD:
                found[f.name] = f.default
            elif f.default_factory is not MISSING_FIELD:
                found[f.name] = f.default_factory()
        _DEFAULTS[cls] = found
    return _DEFAULTS[cls]


def _plan(cls: type) -> tuple[tuple[str, Any, bool], ...]:
    """Per field of a record class: its name, its default (or `_NO_DEFAULT`) and whether it holds records."""
    plan = _PLANS.get(cls)
    if plan is None:
        defaults = _defaults(cls)
        plan = _PLANS[cls] = tuple(
            (
                f.name,
                _NO_DEFAULT if f.name == "schema_version" else defaults.get(f.name, _NO_DEFAULT),
                f.name in _NESTED,
            )
            for f in fields(cls)
        )
    return plan


def _record_to_dict(record: Any, skip: tuple[str, ...] = ()) -> Any:
    """A record's file form: fields holding their default left out (`skip` leaves out more by name).
    Plain data is shared with the record, not copied: recorded values are never changed in place."""
    if isinstance(record, StepRecord):
        return _step_to_dict(record)
    if is_dataclass(record) and not isinstance(record, type):
        out = {}
        for name, default, nested in _plan(type(record)):
            value = getattr(record, name)
            if name in skip or (default is not _NO_DEFAULT and value == default):
                continue
            out[name] = [_record_to_dict(item) for item in value] if nested else value
        return out
    if isinstance(record, list) or isinstance(record, Sequence) and not isinstance(record, (str, bytes, tuple)):
        return [_record_to_dict(item) for item in record]  # a list, or steps a reader keeps on disk
    return record


def _step_to_dict(step: StepRecord) -> dict[str, Any]:
    plain = {f.name: getattr(step, f.name) for f in fields(step)}
    plain["tasks"] = [_record_to_dict(t) for t in step.tasks]
    writes_by_task = {t.id: t.writes for t in step.tasks}
    calls = []
    for call in step.reducer_calls:
        data = _record_to_dict(call)
        writes = writes_by_task.get(call.writer, ())
        ref = next(
            (i for i, (channel, value) in enumerate(writes) if channel == call.channel and value is call.write), None
        )
        if ref is not None:
            data["write"] = {"$write": ref}
            added = call.after.get("extend")
            if (
                isinstance(added, list)
                and isinstance(call.write, list)
                and len(added) == len(call.write)
                and all(a is b for a, b in zip(added, call.write))
            ):
                data["after"] = {"extend": {"$write": ref}}
        calls.append(data)
    plain["reducer_calls"] = calls
    leave_out(step, plain["tasks"], calls)
    defaults = _defaults(StepRecord)
    return {k: v for k, v in plain.items() if k == "step" or v != defaults.get(k, object())}


def to_json(trace: Trace, *, indent: int | None = None) -> str:
    """The file's text (see `dumps`)."""
    return dumps(to_dict(trace, blobs=True), indent=indent)


def dumps(data: Any, *, indent: int | None = None) -> str:
    """JSON that is always valid UTF-8: a string holding a lone surrogate (a value decoded with
    `surrogateescape`, half of an emoji) is written as a JSON escape, which loads back the same."""
    text = json.dumps(data, ensure_ascii=False, indent=indent, allow_nan=False)
    if not text.isascii():
        try:
            text.encode("utf-8")
        except UnicodeEncodeError:
            text = json.dumps(data, ensure_ascii=True, indent=indent, allow_nan=False)
    return text


# ---- a trace in pieces: written step by step, read back as one file ------------------------------


def head_dict(trace: Trace, packer: BlobPacker) -> dict[str, Any]:
    """The file form of everything but the steps and the blobs (large values go to `packer`); the steps are
    not read (a store calls this per run, twice; a long trace's steps stay on disk)."""
    data = _record_to_dict(trace, skip=("steps",))
    data.pop("schema_version", None)
    packer.pack_run(data)
    return {"schema_version": SCHEMA_VERSION, "run_id": data.pop("run_id", ""), **data}


def step_dict(step: StepRecord, packer: BlobPacker) -> dict[str, Any]:
    """One step's file form (large values go to `packer`)."""
    data = _step_to_dict(step)
    packer.pack_run({"steps": [data]})
    return data


def step_json(step: StepRecord, packer: BlobPacker) -> str:
    """`dumps(step_dict(step, packer))`, without sizing each value of a step too small to hold a large one."""
    data = _step_to_dict(step)
    text = dumps(data)
    # `BlobPacker` sizes values as ASCII JSON, at most 12 characters per character here (a surrogate pair)
    if len(text) < BLOB_MIN and (text.isascii() or 12 * len(text) < BLOB_MIN):
        return text
    packer.pack_run({"steps": [data]})
    return dumps(data)


def compose_json(head: str, steps: list[str], blobs: list[tuple[str, str]]) -> str:
    """One trace file's text from the JSON of its head, of each step and of each pooled value (the
    form a store keeps a run in while it is recorded), without parsing any of them."""
    return "".join(composed_parts(head, steps, blobs))


def composed_parts(head: str, steps: Iterable[str], blobs: Iterable[tuple[str, str]]) -> Iterator[str]:
    """`compose_json`'s text in pieces, one step at a time, so a long run can be written to a file
    while only one of its steps is in memory."""
    yield "{"
    first = True
    for key, value in blobs:
        yield ('"blobs": {"$blobs": {' if first else ", ") + f"{json.dumps(key)}: {value}"
        first = False
    if not first:
        yield "}}, "
    yield head.strip()[1:-1].strip()
    yield ', "steps": ['
    for index, step in enumerate(steps):
        yield f", {step}" if index else step
    yield "]}"


def write_json(trace: Trace, out: IO[str]) -> None:
    """The trace file `to_json` gives (its parts in the order `compose_json` puts them), written one step
    at a time: the steps go to a spool file as they are packed, since the pooled values they find must
    come first in the file; memory holds one step and the pooled values, however long the run."""
    packer = BlobPacker()
    pooled: dict[str, Any] = {}
    with tempfile.TemporaryFile("w+", encoding="utf-8") as spool:
        for index, step in enumerate(trace.steps):
            spool.write(f", {dumps(step_dict(step, packer))}" if index else dumps(step_dict(step, packer)))
            pooled.update(packer.take_fresh())
        head = dumps(head_dict(trace, packer))
        pooled.update(packer.take_fresh())
        *opening, closing = composed_parts(head, [], [(key, dumps(value)) for key, value in pooled.items()])
        out.writelines(opening)
        spool.seek(0)
        shutil.copyfileobj(spool, out)
        out.write(closing)


def read_file(path: str | Path) -> Trace:
    """A trace file from disk; an unreadable file is a `TraceFileError` too, naming it."""
    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise TraceFileError(f"cannot read {path}: {exc.strerror}.") from None
    return from_json(data, source=str(path))


def from_json(text: str | bytes, *, source: str = "<trace>") -> Trace:
    """Parses a trace file as data only; raises `TraceFileError` naming `source` and the problem."""
    try:
        data = load_json(text)
    except json.JSONDecodeError as exc:
        cut = exc.msg.startswith("Unterminated string") or exc.pos >= len(text) - 1
        kind = "is truncated" if cut else "is not valid JSON"
        where = f"line {exc.lineno}, column {exc.colno}"
        # json's "Unterminated string starting at" names the place it means: the line and column go there
        problem = f": {exc.msg} {where}" if exc.msg.endswith(" at") else f" ({where}): {exc.msg}"
        raise TraceFileError(
            f"{source} {kind}{problem}. Re-export the run, or open a complete .json trace file."
        ) from None
    except UnicodeDecodeError as exc:
        raise TraceFileError(f"{source} is not text ({exc.reason}); a trace file is UTF-8 JSON.") from None
    except (RecursionError, ValueError) as exc:  # a depth bomb; an int of more than 4,300 digits
        raise TraceFileError(f"{source} cannot be parsed: {type(exc).__name__}: {exc}.") from None
    return from_dict(data, source=source)


def from_dict(data: Any, *, source: str = "<trace>") -> Trace:
    if not isinstance(data, dict) or "schema_version" not in data:
        raise TraceFileError(
            f"{source} is not a StepScope trace: it has no schema_version. "
            "Export one with `stepscope run TARGET --out FILE`."
        )
    version = data["schema_version"]
    if not isinstance(version, int):
        raise TraceFileError(f"{source}: schema_version is {version!r}, not a number.")
    if version > SCHEMA_VERSION:
        raise TraceFileError(
            f"{source} was written by a newer StepScope (trace schema {version}; this one reads "
            f"up to {SCHEMA_VERSION}). Upgrade StepScope to open it."
        )
    try:
        return _build(Trace, data, "trace")
    except (KeyError, TypeError, ValueError, AttributeError, RecursionError) as exc:
        raise TraceFileError(f"{source} is damaged: {exc}. Re-export the run.") from None


def step_from_dict(data: Any, *, source: str = "<trace>", index: int = 0) -> StepRecord:
    """One step of a trace read on its own (its file form, large values already put back), for readers
    that hold one step at a time; a `TraceFileError` naming `source` when it does not build."""
    try:
        return _build(StepRecord, data, f"trace.steps[{index}] (step)")
    except (KeyError, TypeError, ValueError, AttributeError, RecursionError) as exc:
        raise TraceFileError(f"{source} is damaged: {exc}. Re-export the run.") from None


_NESTED = {
    "steps": (StepRecord, "step"),
    "tasks": (TaskRecord, "task"),
    "reducer_calls": (ReducerCallRecord, "reducer call"),
    "subgraphs": (RunRecord, "subgraph run"),
}
"""The fields that hold records, with the record type and its name in messages."""
_FIELD_NAMES: dict[type, frozenset[str]] = {}
"""Per record type, its field names: `fields()` per record cost a long trace's reader a third of its time."""


def _build(cls: type, data: Any, where: str) -> Any:
    if not isinstance(data, dict):
        raise TypeError(f"{where} should be an object, found {type(data).__name__}")
    if cls is StepRecord:
        put_back(data)
    names = _FIELD_NAMES.get(cls)
    if names is None:
        names = _FIELD_NAMES[cls] = frozenset(f.name for f in fields(cls))
    if not names.issuperset(data):
        raise KeyError(f"{where} has unknown fields {sorted(set(data) - names)}")
    kwargs = dict(data)
    for name, (item_cls, label) in _NESTED.items():
        if name in kwargs and name in names:
            items = kwargs[name]
            if not isinstance(items, list):
                raise TypeError(f"{where}.{name} should be a list")
            kwargs[name] = [_build(item_cls, item, f"{where}.{name}[{i}] ({label})") for i, item in enumerate(items)]
    try:
        built = cls(**kwargs)
    except TypeError as exc:
        raise TypeError(f"{where}: {exc}") from None
    if cls is StepRecord:
        _resolve_write_refs(built, where)
    return built


def _resolve_write_refs(step: StepRecord, where: str) -> None:
    """Puts back the writes that the file form points at (see `to_dict`)."""
    writes_by_task = {t.id: t.writes for t in step.tasks}
    for call in step.reducer_calls:
        if isinstance(call.write, dict) and "$write" in call.write:
            index = call.write["$write"]
            writes = writes_by_task.get(call.writer)
            if writes is None or not isinstance(index, int) or not 0 <= index < len(writes):
                raise ValueError(f"{where}: reducer call #{call.index} points at a write that is not there")
            call.write = writes[index][1]
            if isinstance(call.after.get("extend"), dict):
                call.after = {"extend": list(call.write)}
