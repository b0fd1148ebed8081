"""What the trace `Recorder` costs a run, counted rather than timed: the Python opcodes and calls the
engine runs bare, what attaching a Recorder adds while the run goes (its hooks, and the engine's
work to call them), and what reading `recorder.trace` then runs to build the records. The counts are
the same on every run, so a change to the Recorder can be judged on a shared machine whose timings
swing by a third (`benchmarks/engine.py --cpu` is the timing). C code is not counted: an opcode
that calls into C (a dict lookup, `all(map(...))`) counts as one.

Run: `.venv/bin/python benchmarks/recorder_ops.py [--by-function]`. Per workload, per step.
"""

import argparse
import collections
import sys
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workloads import LOOP_STEPS, MESSAGE_STEPS, build_fan, build_loop, build_messages  # noqa: E402

import engine  # noqa: E402
from engine.trace import Recorder  # noqa: E402


def counted(fn: Callable[[], Any]) -> collections.Counter:
    """Opcodes and calls of `fn()` in this thread, in total and per function."""
    count: collections.Counter = collections.Counter()

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        frame.f_trace_opcodes = True
        where = f"{Path(frame.f_code.co_filename).name}:{frame.f_code.co_name}"
        if event == "opcode":
            count["ops"] += 1
            count["ops " + where] += 1
        elif event == "call":
            count["calls"] += 1
        return tracer

    sys.settrace(tracer)
    try:
        fn()
    finally:
        sys.settrace(None)
    return count


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--by-function", action="store_true", help="the functions that run the most opcodes")
    args = parser.parse_args()
    workloads = [
        (f"loop: {LOOP_STEPS}-step self-loop", build_loop, LOOP_STEPS),
        (f"messages: {MESSAGE_STEPS}-step add_messages", build_messages, MESSAGE_STEPS),
        ("fan-out: 64 wide + waiting edge (main thread)", build_fan, 3),
    ]
    print(
        f"{'workload':48} {'engine ops':>11} {'+capture':>9} {'build':>9} {'calls +capture':>15} {'build':>7}  per step"
    )
    for title, build, steps in workloads:
        app, given, config = build(engine)
        app.invoke(given, config, hooks=Recorder())  # warm-up: imports, caches
        bare = counted(lambda: app.invoke(given, config))
        recorder = Recorder()
        capture = counted(lambda: app.invoke(given, config, hooks=recorder))
        reading = counted(lambda: recorder.trace)
        print(
            f"{title:48} {bare['ops'] / steps:11.0f} {(capture['ops'] - bare['ops']) / steps:9.0f} "
            f"{reading['ops'] / steps:9.0f} {(capture['calls'] - bare['calls']) / steps:15.1f} "
            f"{reading['calls'] / steps:7.1f}"
        )
        if args.by_function:
            added = collections.Counter(capture)
            added.subtract(bare)
            for label, phase in (("capture", added), ("build", reading)):
                top = [(k, v) for k, v in phase.most_common() if k.startswith("ops ")][:8]
                for key, value in top:
                    print(f"    {label:8} {value / steps:7.0f}  {key[4:]}")


if __name__ == "__main__":
    main()
