"""The cost of recording a langgraph run, side by side in one process: langgraph alone, and the same
compiled graph run inside `debugger.runtimes.langgraph.recorder.recording` (every task, reducer call, version and
checkpoint turned into a Trace, kept in memory; storing it is `benchmarks/trace.py`'s subject).

Run: `.venv/bin/python benchmarks/langgraph_recorder.py [--repeat N]`. Prints, per workload, the median
and the best CPU time of this process (`time.process_time`: other programs on a shared machine do not
count) and the ratios recorded / alone for both. Rounds are interleaved (alone, recorded, alone, ...)
so a machine that drifts affects both alike. Target (issue 26): at most 1.2x on all three (issue 11 set
1.3x on the loop and the fan-out). On a busy shared machine a ratio moves by up to 0.1 from one run to
the next: compare the medians of several runs. `benchmarks/langgraph_traces.py` checks that a faster
recorder still records the same Traces.
"""

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workloads import (
    FAN_RUNS,
    FAN_WIDTH,
    LOOP_STEPS,
    MESSAGE_STEPS,
    build_fan,
    build_loop,
    build_messages,
    langgraph_namespace,
)  # noqa: E402

from debugger.runtimes.langgraph.recorder import recording  # noqa: E402


def runner(lib: Any, build: Callable, recorded: bool, times: int) -> Callable[[], Any]:
    app, inp, config = build(lib)

    def run() -> Any:
        if not recorded:
            for _ in range(times):
                out = app.invoke(inp, config)
            return out
        with recording(db=False) as session:
            for _ in range(times):
                out = app.invoke(inp, config)
        assert len(session.traces) == times and all(not s.mismatches for s in session.traces[-1].steps)
        return out

    return run


def measure(fn: Callable[[], Any]) -> float:
    start = time.process_time()
    fn()
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=9, help="interleaved rounds per workload (median reported)")
    args = parser.parse_args()
    langgraph = langgraph_namespace()
    workloads = [
        (f"loop: {LOOP_STEPS}-step self-loop, counter reducer", build_loop, 1),
        (f"fan-out: {FAN_WIDTH} wide + waiting edge, x{FAN_RUNS} runs", build_fan, FAN_RUNS),
        (f"messages: {MESSAGE_STEPS}-step add_messages loop", build_messages, 1),
    ]
    print(f"python {sys.version.split()[0]}; {args.repeat} interleaved rounds; CPU seconds of this process")
    header = (
        f"{'workload':48} {'langgraph':>10} {'recorded':>10} {'ratio (median)':>15} "
        f"{'best lg':>8} {'best rec':>9} {'ratio (best)':>13}"
    )
    print(header)
    print("-" * len(header))
    for title, build, times in workloads:
        candidates = {
            "alone": runner(langgraph, build, False, times),
            "recorded": runner(langgraph, build, True, times),
        }
        for fn in candidates.values():  # warm-up: imports, thread pools, the graph description cache
            fn()
        samples: dict[str, list[float]] = {name: [] for name in candidates}
        for _ in range(args.repeat):
            for name, fn in candidates.items():
                samples[name].append(measure(fn))
        med = {name: statistics.median(values) for name, values in samples.items()}
        best = {name: min(values) for name, values in samples.items()}
        print(
            f"{title:48} {med['alone']:10.4f} {med['recorded']:10.4f} {med['recorded'] / med['alone']:15.3f} "
            f"{best['alone']:8.4f} {best['recorded']:9.4f} {best['recorded'] / best['alone']:13.3f}"
        )


if __name__ == "__main__":
    main()
