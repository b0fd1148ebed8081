"""Engine speed, side by side in one process: our engine bare, our engine with a hook that keeps every
event, our engine with the full trace `Recorder` attached (`eng+rec`: the run as its caller waits for
it; the Recorder keeps flat events as they come and builds their records when the Trace is first read)
and the same plus reading the whole Trace afterwards (`rec+read`), the real `langgraph`, and a bare
Python loop doing the same arithmetic (the floor).

Run: `.venv/bin/python benchmarks/engine.py [--repeat N]`. Prints the median wall time of each
workload per implementation and the ratios against langgraph. Rounds are interleaved (engine,
engine+hook, langgraph, floor, engine, ...) so a machine that drifts affects all of them alike.
Targets: engine with the hook (issue 2) and with the Recorder attached (issue 15, `rec/lg`) <= 0.1x
langgraph on the loop and on the fan-out. On a loaded machine wall times swing; `--cpu` measures each
round's CPU time of the process (all its threads) instead, which a busy machine disturbs far less.
"""

import argparse
import gc
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from workloads import (  # noqa: E402
    FAN_RUNS,
    FAN_WIDTH,
    LOOP_STEPS,
    MESSAGE_STEPS,
    KeepEverything,
    build_fan,
    build_loop,
    build_messages,
    floor_fan,
    floor_loop,
    floor_messages,
    langgraph_namespace,
)

import engine  # noqa: E402
from engine.trace import Recorder  # noqa: E402


def runner(lib: Any, build: Callable, with_hook: bool | str, times: int = 1) -> Callable[[], Any]:
    app, inp, config = build(lib)

    def run() -> Any:
        for _ in range(times):
            if with_hook in ("recorder", "recorder+read"):
                recorder = Recorder()
                out = app.invoke(inp, config, hooks=recorder)
                if with_hook == "recorder+read":
                    assert recorder.trace is not None and recorder.trace.steps  # every record built
            elif with_hook:
                out = app.invoke(inp, config, hooks=KeepEverything())
            else:
                out = app.invoke(inp, config)
        return out

    return run


def measure(fn: Callable[[], Any], clock: Callable[[], float] = time.perf_counter) -> float:
    gc.collect()  # garbage of the previous round is not this round's cost
    start = clock()
    fn()
    return clock() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="interleaved rounds per workload (median reported)")
    parser.add_argument("--cpu", action="store_true", help="CPU seconds of the process instead of wall seconds")
    args = parser.parse_args()
    clock = time.process_time if args.cpu else time.perf_counter
    langgraph = langgraph_namespace()
    workloads = [
        (f"loop: {LOOP_STEPS}-step self-loop, counter reducer", build_loop, 1, floor_loop),
        (f"fan-out: {FAN_WIDTH} wide + waiting edge, x{FAN_RUNS} runs", build_fan, FAN_RUNS, floor_fan),
        (f"messages: {MESSAGE_STEPS}-step add_messages loop", build_messages, 1, floor_messages),
    ]
    unit = "CPU seconds of the process" if args.cpu else "wall seconds"
    print(f"python {sys.version.split()[0]}; median of {args.repeat} interleaved rounds; {unit}")
    header = (
        f"{'workload':48} {'engine':>9} {'eng+hook':>9} {'eng+rec':>9} {'rec+read':>9} {'langgraph':>10} {'floor':>9} "
        f"{'eng/lg':>7} {'hook/lg':>8} {'rec/lg':>7} {'r+r/lg':>7}"
    )
    print(header)
    print("-" * len(header))
    for title, build, times, floor in workloads:
        candidates = {
            "engine": runner(engine, build, False, times),
            "hook": runner(engine, build, True, times),
            "recorder": runner(engine, build, "recorder", times),
            "read": runner(engine, build, "recorder+read", times),
            "langgraph": runner(langgraph, build, False, times),
            "floor": floor,
        }
        for fn in candidates.values():  # warm-up: imports, thread pools, caches
            fn()
        samples: dict[str, list[float]] = {name: [] for name in candidates}
        for _ in range(args.repeat):
            for name, fn in candidates.items():
                samples[name].append(measure(fn, clock))
        med = {name: statistics.median(values) for name, values in samples.items()}
        lg = med["langgraph"]
        print(
            f"{title:48} {med['engine']:9.4f} {med['hook']:9.4f} {med['recorder']:9.4f} {med['read']:9.4f} {lg:10.4f} "
            f"{med['floor']:9.5f} {med['engine'] / lg:7.3f} {med['hook'] / lg:8.3f} {med['recorder'] / lg:7.3f} "
            f"{med['read'] / lg:7.3f}"
        )


if __name__ == "__main__":
    main()
