"""`stepscope run TARGET --follow`: the run goes on in the background (`LiveRun`) while this prints
each superstep as it commits, and the nodes of the step running now. Ctrl-C stops the run, stores
what was recorded and says how to reopen it.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any, TextIO

from debugger.commands.files import not_written, write_whole
from debugger.commands.recovery import OUT_FAILED, STORE_FAILED, recover
from debugger.commands.terminal import safe_print as print  # every line shown goes through one filter: no escape codes
from debugger.diagnostics.value_text import task_name
from debugger.i18n import _, say
from debugger.live.controller import LiveRun, LiveRunError
from debugger.live.start import start_live_run
from debugger.live.status import LiveSnapshot
from debugger.model.failures import is_stopped
from debugger.model.present import interrupt_line, short
from engine.codec import encode
from engine.trace import StepRecord
from engine.tracefile import to_json


def step_line(step: StepRecord) -> str:
    """One committed superstep in one line: its tasks, the keys they wrote, its first error."""
    if step.kind == "update":
        writers = sorted({c.writer_name for c in step.reducer_calls})
        return (
            f"step {step.step}: edit as {', '.join(writers)} -> "
            f"{', '.join(sorted({c.channel for c in step.reducer_calls}))}"
        )
    if not step.committed and not step.reducer_calls:
        failure = next((t.error for t in step.tasks if t.error and not is_stopped(t.error)), None)
        why = f"failed, {failure['class']}" if failure else "stopped"
        ran = ", ".join(task_name(t) for t in step.tasks)
        return f"step {step.step}: {ran} -> never committed ({why}): nothing written"
    keys = sorted({c.channel for c in step.reducer_calls})
    errors = [t.error for t in step.tasks if t.error] + [c.error for c in step.reducer_calls if c.error]
    line = f"step {step.step}: {', '.join(task_name(t) for t in step.tasks) or '(input)'}"
    line += f" -> {', '.join(keys)}" if keys else " -> (no state change)"
    line += f"  [{len(step.reducer_calls)} reducer call{'s' if len(step.reducer_calls) != 1 else ''}]"
    if errors:
        line += (
            f"  {errors[0]['class']}: {short(errors[0]['message'].splitlines()[0] if errors[0]['message'] else '', 70)}"
        )
    return line


class _Printer:
    """Prints what is new in each snapshot: committed steps once, and the running step's progress."""

    def __init__(self, out: TextIO) -> None:
        self.out = out
        self.printed = 0
        self.step: int | None = None
        self.progress: dict[str, str] = {}

    def show(self, snap: LiveSnapshot) -> None:
        steps = [s for s in snap.trace.steps if s.step >= 0] if snap.trace is not None else []
        for step in steps[self.printed :]:
            self._print(step_line(step))
        self.printed = max(self.printed, len(steps))
        if snap.step is None or not snap.running:
            return
        if snap.step != self.step:
            self.step, self.progress = snap.step, {}
            self._print(f"step {snap.step}: running {', '.join(t.name for t in snap.running)} ...")
        for task in snap.running:
            state = "running" if task.state == "waiting" else task.state
            if self.progress.get(task.id, "running") != state:
                took = f" in {task.duration:.2f} s" if task.duration is not None else ""
                self._print(f"  {task.name} {state}{took}" + (f": {short(task.error, 80)}" if task.error else ""))
            self.progress[task.id] = state

    def _print(self, text: str) -> None:
        print(text, file=self.out, flush=True)


def follow(
    target: str,
    graph: Any,
    graph_input: Any,
    config: dict[str, Any],
    *,
    db: str | None = None,
    out_file: str | None = None,
    out: TextIO | None = None,
    timeout: float | None = None,
) -> int:
    """Runs and prints as it goes; returns the exit code (0 done, 1 failed, 2 cannot run live, 3 the run
    database failed, 4 the --out file could not be written, 130 Ctrl-C). `timeout`: seconds the whole run
    may take (`--timeout`); it then ends `timeout`, its committed steps stored."""
    out = out or sys.stdout
    try:
        live: LiveRun = start_live_run(graph, graph_input, config, target=target, db=db, ask=False, run_timeout=timeout)
    except LiveRunError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    printer = _Printer(out)
    try:
        snap = _watch(live, printer)
    except KeyboardInterrupt:
        return _stopped_by_ctrl_c(live, printer, out_file, out)
    return _ended(live, snap, out_file, out)


def _watch(live: LiveRun, printer: _Printer) -> LiveSnapshot:
    """Prints the run as it goes until it finishes; its last snapshot."""
    version = -1
    while True:
        snap = live.wait(version, timeout=0.5)
        version = snap.version
        printer.show(snap)
        if snap.finished:
            return snap


def _stopped_by_ctrl_c(live: LiveRun, printer: _Printer, out_file: str | None, out: TextIO) -> int:
    """Stops the run, keeps what it recorded and says how to reopen it."""
    snap = live.stop()
    printer.show(snap)
    written = _finish(snap, out_file, out)
    print(_("stopped by Ctrl-C. {message}").format(message=say(snap.message)), file=out)
    if _lost(live, snap, written):
        return STORE_FAILED
    reopen = _("reopen it: `stepscope show {short_id}`, or `stepscope app` at /?run={run_id}")
    print(reopen.format(short_id=snap.run_id[:12], run_id=snap.run_id), file=out)
    return 130


def _ended(live: LiveRun, snap: LiveSnapshot, out_file: str | None, out: TextIO) -> int:
    """Keeps the finished run and prints how it ended: its interrupts, its error or its final state."""
    written = _finish(snap, out_file, out)
    if _lost(live, snap, written):
        return STORE_FAILED
    if snap.status == "interrupted" and snap.trace is not None and snap.trace.interrupts:
        for item in snap.trace.interrupts:
            print(interrupt_line(item), file=out)
        print(
            _(
                "--follow stops at interrupt(): answer it on the Live run page (`stepscope app`), or run without "
                "--follow, which prints the command that answers it (the graph needs a checkpointer)."
            ),
            file=out,
        )
    if snap.status in ("error", "recursion_limit", "timeout"):
        print(f"error: {say(snap.message)}", file=sys.stderr)
        return 1
    if snap.trace is not None:
        print(
            f"final state: {short(snap.trace.output if snap.trace.output is not None else encode(None), 400)}", file=out
        )
    return OUT_FAILED if out_file and written is None else 0


def _lost(live: LiveRun, snap: LiveSnapshot, out_file: str | None) -> bool:
    """True (and the trace kept, with the command that stores it) when the database failed to store the run."""
    if not live.store or snap.trace is None or snap.stored:
        return False
    beside = Path(live.db).parent if live.db else None
    recover(snap.trace, say(snap.message), written=out_file, db=live.db, beside=beside)
    return True


def _finish(snap: LiveSnapshot, out_file: str | None, out: TextIO) -> str | None:
    """Writes `--out` (whole or not at all) and prints the status line; the file written, or None."""
    written = None
    if out_file and snap.trace is not None:
        try:
            write_whole(out_file, to_json(snap.trace, indent=1))
            written = out_file
        except OSError as exc:
            print(f"error: {not_written(out_file, exc)}.", file=sys.stderr)
    where = f"   stored in {snap.stored}" if snap.stored else "   NOT stored"
    print(f"status: {snap.status}   run: {snap.run_id}" + (f"   trace: {written}" if written else "") + where, file=out)
