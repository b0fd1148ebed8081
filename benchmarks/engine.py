"""Engine speed, side by side in one process: our engine bare, our engine with a hook that keeps every
event, our engine with the full trace `Recorder` attached (a Trace built and read at the end of each
run), the real `langgraph`, and a bare Python loop doing the same arithmetic (the floor).

Run: `.venv/bin/python benchmarks/engine.py [--repeat N]`. Prints the median wall time of each
workload per implementation and the ratios against langgraph. Rounds are interleaved (engine,
engine+hook, langgraph, floor, engine, ...) so a machine that drifts affects all of them alike.
Targets: engine with the hook (issue 2) and with the Recorder (issue 15) <= 0.1x langgraph on the loop
and on the fan-out.
"""

import argparse
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import engine  # noqa: E402
from engine.trace import Recorder  # noqa: E402
from workloads import (  # noqa: E402
    FAN_RUNS, FAN_WIDTH, LOOP_STEPS, MESSAGE_STEPS, KeepEverything, build_fan, build_loop, build_messages,
    floor_fan, floor_loop, floor_messages, langgraph_namespace,
)

def runner(lib: Any, build: Callable, with_hook: bool | str, times: int = 1) -> Callable[[], Any]:
    app, inp, config = build(lib)

    def run() -> Any:
        for _ in range(times):
            if with_hook == "recorder":
                recorder = Recorder()
                out = app.invoke(inp, config, hooks=recorder)
                assert recorder.trace is not None and recorder.trace.steps  # the Trace is built and read
            elif with_hook:
                out = app.invoke(inp, config, hooks=KeepEverything())
            else:
                out = app.invoke(inp, config)
        return out

    return run


def measure(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="interleaved rounds per workload (median reported)")
    args = parser.parse_args()
    langgraph = langgraph_namespace()
    workloads = [
        (f"loop: {LOOP_STEPS}-step self-loop, counter reducer", build_loop, 1, floor_loop),
        (f"fan-out: {FAN_WIDTH} wide + waiting edge, x{FAN_RUNS} runs", build_fan, FAN_RUNS, floor_fan),
        (f"messages: {MESSAGE_STEPS}-step add_messages loop", build_messages, 1, floor_messages),
    ]
    print(f"python {sys.version.split()[0]}; median of {args.repeat} interleaved rounds; wall seconds")
    header = (
        f"{'workload':48} {'engine':>9} {'eng+hook':>9} {'eng+rec':>9} {'langgraph':>10} {'floor':>9} {'eng/lg':>7} "
        f"{'hook/lg':>8} {'rec/lg':>7}"
    )
    print(header)
    print("-" * len(header))
    for title, build, times, floor in workloads:
        candidates = {
            "engine": runner(engine, build, False, times),
            "hook": runner(engine, build, True, times),
            "recorder": runner(engine, build, "recorder", times),
            "langgraph": runner(langgraph, build, False, times),
            "floor": floor,
        }
        for fn in candidates.values():  # warm-up: imports, thread pools, caches
            fn()
        samples: dict[str, list[float]] = {name: [] for name in candidates}
        for _ in range(args.repeat):
            for name, fn in candidates.items():
                samples[name].append(measure(fn))
        med = {name: statistics.median(values) for name, values in samples.items()}
        lg = med["langgraph"]
        print(
            f"{title:48} {med['engine']:9.4f} {med['hook']:9.4f} {med['recorder']:9.4f} {lg:10.4f} {med['floor']:9.5f} "
            f"{med['engine'] / lg:7.3f} {med['hook'] / lg:8.3f} {med['recorder'] / lg:7.3f}"
        )


if __name__ == "__main__":
    main()
