"""A run in stored pieces: both stores keep a run as its head (the trace file without its steps), one
row per superstep and each large value once (`engine.blobs`); these functions cut a Trace into those
pieces and name the run-list columns."""

from __future__ import annotations

import hashlib
import json

from debugger.stores.protocol import first_line
from engine.blobs import BlobPacker
from engine.trace import StepRecord, Trace
from engine.tracefile import compose_json, dumps, head_dict, step_json

StepRows = list[tuple[int, str]]
"""(step number, the step's JSON) of each step, in order."""

BlobRows = list[tuple[str, str]]
"""(key, JSON) of each large value pooled by a run's head or steps (`engine.blobs`)."""


def digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def packed_trace(trace: Trace) -> tuple[str, StepRows, BlobRows, str]:
    """A whole trace as stored: its head, its steps, its large values (each once) and its file text."""
    packer = BlobPacker()
    steps = [(step.step, step_json(step, packer)) for step in trace.steps]
    head = dumps(head_dict(trace, packer))
    blobs = _fresh(packer)
    return head, steps, blobs, compose_json(head, [data for _, data in steps], blobs)


def packed_steps(steps: list[StepRecord]) -> tuple[StepRows, BlobRows]:
    """Finished steps of a run being recorded, and the large values they hold."""
    packer = BlobPacker()
    rows = [(step.step, step_json(step, packer)) for step in steps]
    return rows, _fresh(packer)


def packed_head(trace: Trace) -> tuple[str, BlobRows]:
    """The head of a run (all but its steps), and the large values it holds (its input, its output)."""
    packer = BlobPacker()
    head = dumps(head_dict(trace, packer))
    return head, _fresh(packer)


def supersteps(rows: StepRows) -> int:
    """How many of the rows the run list counts: supersteps, not the input step (-1)."""
    return len([n for n, _ in rows if n >= 0])


def _fresh(packer: BlobPacker) -> BlobRows:
    return [(key, dumps(value)) for key, value in packer.take_fresh().items()]


def summary_row(trace: Trace, steps: int) -> tuple[str, str, str, str, str, int, str]:
    """The run list's columns: id, graph, target, started, status, steps, first line of the error."""
    return (
        trace.run_id,
        str(trace.graph.get("name", "")),
        trace.target,
        trace.started_at,
        trace.status,
        steps,
        first_line(str((trace.error or {}).get("message", ""))),
    )


def split_trace_text(text: str) -> tuple[str, list[tuple[int, str]]]:
    """A version 1 row's whole trace as a head and its steps; text that does not parse is kept as
    the head, so opening the run says what is wrong with it (and `delete` removes it)."""
    try:
        data = json.loads(text)
        steps = data.pop("steps", [])
        return dumps(data), [(s.get("step", 0) if isinstance(s, dict) else 0, dumps(s)) for s in steps]
    except (ValueError, TypeError, AttributeError, RecursionError):
        return text, []
