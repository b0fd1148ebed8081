"""Damaged data in a thread, shown as damaged steps: the rest of the thread stays readable.

Two kinds, both the stored bytes' fault and never the app's:

- a checkpoint whose bytes cannot be decoded (`tables.DamagedCheckpoint`): its step is recorded with its
  address and what the decoder said; the run goes on from the next checkpoint that decodes;
- writes the app merged (the next checkpoint exists, so its run did merge them) that the graph's
  reducers refuse now, such as a corrupt write blob that decodes to 0 for a list: the refused calls are
  taken out of the step, which says what was written instead.

Each is a `StepRecord.mismatches` entry with `damaged` set (`TraceWriter.mark_damaged`), which
`stepscope diagnose` reports as `damaged_data` (`debugger/diagnostics/mismatch.py`). The app shows such
steps; `stepscope show` prints the steps that read and then refuses in one line (`DamagedThread`, exit 2):
the file is at fault, so no run status of the app stands in for what could not be read.
"""

from __future__ import annotations

from typing import Any

from debugger.runtimes.checkpointers.tables import DAMAGED, DamagedCheckpoint
from debugger.runtimes.threads_api import DamagedThread, damaged_thread
from engine.trace import TraceWriter


class DamagedData(Exception):
    """The thread's newest checkpoint cannot be decoded: how the rebuilt run ends (status `running`, as a
    run whose end is not known: never a failure of the app, which may well have finished)."""


def damaged_ending(step: int, child: DamagedCheckpoint) -> str:
    """The ending of a thread whose newest checkpoint (`child`, step `step`) cannot be decoded: cut off there
    (`run_status.stored_reason` shows these words)."""
    checkpoint_id = child.config["configurable"]["checkpoint_id"]
    return (
        f"Cut off at step {step}: its checkpoint {checkpoint_id} cannot be decoded "
        f"({child.reason.removeprefix(DAMAGED)}), so how the run ended is not known; the checkpointer's "
        "stored bytes are damaged there, the app is not at fault"
    )


def nothing_decodes(label: str, thread_id: str, chain: list[DamagedCheckpoint]) -> DamagedThread:
    """The refusal for a lineage of checkpoints (`chain`, oldest first) none of which decodes."""
    where = chain[-1].config["configurable"]
    sub = f" (subgraph {where['checkpoint_ns']})" if where["checkpoint_ns"] else ""
    reason = chain[-1].reason.removeprefix(DAMAGED)
    return damaged_thread(
        label, thread_id, f"checkpoint {where['checkpoint_id']}{sub} cannot be decoded ({reason})", len(chain) - 1
    )


def mark_damaged_checkpoint(writer: TraceWriter, step: int, child: DamagedCheckpoint) -> None:
    """Records step `step` as the checkpoint `child` that cannot be decoded, with its address."""
    record = writer.open_step(step)
    checkpoint_id = child.config["configurable"]["checkpoint_id"]
    writer.mark_damaged(
        record,
        f"checkpoint {checkpoint_id} is damaged data, not an app bug ({child.reason}): the bytes the saver "
        "stored cannot be decoded, so this step cannot be replayed; the steps around it can",
    )
    writer.checkpoint(step, child.config, child.parent_config)


def mark_refused_merge(writer: TraceWriter, step: int, refused: BaseException | None) -> None:
    """When the open step `step`'s stored writes were refused by a reducer (`refused`, or a call recorded
    with an error) though the app merged them: the step is marked damaged and the refused calls go."""
    record = writer.step
    if record is None or record.step != step:
        return
    bad = [c for c in record.reducer_calls if c.error is not None]
    if refused is None and not bad:
        return
    record.reducer_calls = [c for c in record.reducer_calls if c.error is None]
    what = "; ".join(f"{c.writer_name} wrote {_short(c.write)} to {c.channel!r}" for c in bad)
    cause: Any = refused if refused is not None else (bad[0].error or {}).get("message", "")
    writer.mark_damaged(
        record,
        f"the writes stored for step {step} cannot be merged, though the app merged them (its next checkpoint "
        f"exists): damaged data, not an app bug ({what or type(cause).__name__}: {_first_line(cause)}), "
        "or the graph given is not the version that wrote the thread",
    )


def keep_damage_only(writer: TraceWriter) -> None:
    """On a damaged open step, the key mismatches its commit found are the damage's doing: only it stays."""
    record = writer.step
    if record is not None and any(m.get("damaged") for m in record.mismatches):
        record.mismatches = [m for m in record.mismatches if m.get("damaged")]


def _first_line(exc: Any) -> str:
    return str(exc).splitlines()[0] if str(exc) else ""


def _short(encoded: Any) -> str:
    """A recorded (encoded) write in a few characters."""
    text = repr(encoded)
    return text if len(text) <= 40 else text[:39] + "…"
