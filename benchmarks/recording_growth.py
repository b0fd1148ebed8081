"""Recording time and memory against the number of steps (issue 43, item 1): the engine's 1,000- and
10,000-step `add_messages` loop (one AI message a step, `workloads.build_messages`), recorded

- to a trace file: a `Recorder`, then the whole Trace written with `engine.tracefile.write_json`;
- to the run store: a `Recorder` whose sink is `StoreSink` into a SQLite `RunStore` (what `stepscope
  run` does), `finish` included;

and, beside them, the same loop run bare (no hook): the run's own growth, which no recorder can undo.
Each figure comes from a process of its own, after a 50-step warm-up there (imports, caches): CPU
seconds of the recording alone, and in another process the peak of Python's heap while recording
(tracemalloc, which slows it, so never timed) beside the final state's (the state a 10,000-message
loop holds grows with its steps; recording memory is flat when it grows no faster). Printed side by
side: the ratio 10k/1k of CPU time (goal at most 12) and of the peaks. `--grows` prints what a
store recording holds at the end, by line, against the smallest size (tracemalloc), to find what grows.

`--instructions` counts machine instructions instead (valgrind's cachegrind, the warm-up's own count taken
off), which the load of a shared machine does not change: the figure to decide a change by.

Run: `.venv/bin/python benchmarks/recording_growth.py [--steps 1000,10000] [--grows] [--instructions]`.
"""

import argparse
import json
import subprocess
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]

import cachegrind  # noqa: E402
from workloads import build_messages  # noqa: E402

import engine  # noqa: E402
from engine.trace import Recorder  # noqa: E402


def record(sink_kind: str, steps: int, work: Path) -> Any:
    """One run of the `steps`-step messages loop: bare (its final state), or recorded to a file or
    into a store under `work` (its Recorder)."""
    from debugger.sources.store_sink import StoreSink
    from debugger.stores.sqlite import RunStore
    from engine.tracefile import write_json

    graph, graph_input, config = build_messages(engine, steps)
    if sink_kind == "bare":
        return graph.invoke(graph_input, config)
    if sink_kind == "file":
        recorder = Recorder()
        graph.invoke(graph_input, config, hooks=recorder)
        with open(work / f"run-{steps}.json", "w") as out:
            write_json(recorder.trace, out)
        return recorder
    sink = StoreSink(RunStore(work / f"runs-{steps}.sqlite3"))
    recorder = Recorder(sink=sink)
    graph.invoke(graph_input, config, hooks=recorder)
    sink.finish(recorder.trace)
    assert sink.error is None, sink.error
    return recorder


def child(sink_kind: str, steps: int, work: Path, measure: str) -> None:
    record(sink_kind, 50, work / "warm")
    if measure == "instructions":  # counted by valgrind around the whole process; 0 steps: the warm-up alone
        if steps:
            record(sink_kind, steps, work)
        return
    if measure == "memory":
        tracemalloc.start()
        record(sink_kind, steps, work)
        print(json.dumps({"peak_mb": tracemalloc.get_traced_memory()[1] / 1e6}))
        return
    started = time.process_time()
    record(sink_kind, steps, work)
    print(json.dumps({"cpu": time.process_time() - started}))


def measured(sink_kind: str, steps: int, measure: str) -> float:
    with tempfile.TemporaryDirectory(prefix="stepscope-growth-") as work:
        (Path(work) / "warm").mkdir()
        done = subprocess.run(
            [sys.executable, __file__, "--child", sink_kind, str(steps), work, measure], capture_output=True, text=True
        )
        if done.returncode != 0:
            raise SystemExit(f"recording {steps} steps ({sink_kind}) failed:\n{done.stderr[-2000:]}")
        row = json.loads(done.stdout.strip().splitlines()[-1])
        return row["peak_mb" if measure == "memory" else "cpu"]


def instructions(sink_kind: str, steps: int) -> int:
    """Machine instructions of a child process that records `steps` steps after its warm-up."""
    with tempfile.TemporaryDirectory(prefix="stepscope-growth-") as work:
        (Path(work) / "warm").mkdir()
        argv = [sys.executable, __file__, "--child", sink_kind, str(steps), work, "instructions"]
        return cachegrind.instructions(argv, f"{steps} steps ({sink_kind})")


def count_instructions(sizes: tuple[int, ...]) -> None:
    """The instructions of each recording (the warm-up's taken off), and the ratio of the largest to the smallest."""
    small, large = sizes[0], sizes[-1]
    print(f"{'run':8} {'steps':>7} {'instructions':>16}   (valgrind; the process's warm-up taken off)")
    bare: dict[int, int] = {}
    for sink_kind in ("bare", "file", "store"):
        base = instructions(sink_kind, 0)
        counted = {steps: instructions(sink_kind, steps) - base for steps in (small, large)}
        for steps in (small, large):
            print(f"{sink_kind:8} {steps:7,} {counted[steps]:16,}")
        ratio = counted[large] / counted[small]
        line = f"{sink_kind:8} {large // small}x the steps: instructions x{ratio:.2f} (goal at 10x: 12)"
        if bare:
            own = {steps: counted[steps] - bare[steps] for steps in (small, large)}
            line += f"; the recording's own (recorded - bare) x{own[large] / own[small]:.2f}"
        print(line)
        bare = bare or counted


def grows(sizes: tuple[int, ...]) -> None:
    """The lines whose allocations still held grow most from the smallest size to each larger one."""
    snapshots: dict[int, Any] = {}
    with tempfile.TemporaryDirectory(prefix="stepscope-growth-") as work:
        record("store", 50, Path(work))
        for steps in sizes:
            tracemalloc.start(1)
            recorder = record("store", steps, Path(work))
            snapshots[steps] = tracemalloc.take_snapshot()
            tracemalloc.stop()
            del recorder
    first = sizes[0]
    for steps in sizes[1:]:
        print(f"held after {steps:,} steps, against {first:,} (top lines):")
        for stat in snapshots[steps].compare_to(snapshots[first], "lineno")[:8]:
            print(f"  {stat.size_diff / 1e6:+8.2f} MB {stat.count_diff:+9,} blocks  {stat.traceback}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", default="1000,10000", help="step counts, smallest first")
    parser.add_argument("--grows", action="store_true", help="what a store recording holds, by line (tracemalloc)")
    parser.add_argument("--instructions", action="store_true", help="count instructions (valgrind), not CPU time")
    args = parser.parse_args()
    sizes = tuple(int(n) for n in args.steps.split(","))
    if args.grows:
        grows(sizes)
        return
    if args.instructions:
        count_instructions(sizes)
        return
    small, large = sizes[0], sizes[-1]
    print(f"{'run':8} {'steps':>7} {'CPU s':>8} {'peak MB':>8}   (peak: Python heap while it runs)")
    bare: dict[int, float] = {}
    for sink_kind in ("bare", "file", "store"):
        cpu = {steps: measured(sink_kind, steps, "time") for steps in (small, large)}
        bare = bare or cpu
        peak = {steps: measured(sink_kind, steps, "memory") for steps in (small, large)}
        for steps in (small, large):
            print(f"{sink_kind:8} {steps:7,} {cpu[steps]:8.2f} {peak[steps]:8.2f}")
        print(
            f"{sink_kind:8} {large // small}x the steps: CPU time x{cpu[large] / cpu[small]:.2f} (goal at 10x: 12), "
            f"peak memory x{peak[large] / peak[small]:.2f} (the bare run's is its state's)"
        )
        if cpu is not bare:  # what recording adds to the run, beside the run's own growth
            own = {steps: cpu[steps] - bare[steps] for steps in (small, large)}
            print(f"{sink_kind:8} the recording's own CPU time (recorded - bare): x{own[large] / own[small]:.2f}")


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], int(sys.argv[3]), Path(sys.argv[4]), sys.argv[5])
    else:
        main()
