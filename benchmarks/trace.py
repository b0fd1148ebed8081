"""Trace cost, measured side by side in one process.

1. Size: a 10,000-step run that appends one message per step. The Trace, in memory (deep size of
   the object graph) and on disk (its JSON), against the final state (deep size, and its JSON).
   Target (issue 3): both ratios at most 10.
2. Time: the engine benchmark's loop and fan-out workloads, bare, with the full Recorder, and on
   langgraph. Target: recorder / langgraph at most 0.1.

Run: `.venv/bin/python benchmarks/trace.py [--steps N] [--repeat N]`.
"""

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repo first: `engine` is the package

import engine  # noqa: E402
from engine.codec import encode  # noqa: E402
from engine.trace import Recorder  # noqa: E402
from engine.tracefile import to_json  # noqa: E402


def deep_size(root: Any) -> int:
    """Bytes of every object reachable from `root` through containers, __dict__ and __slots__."""
    seen: set[int] = set()
    stack = [root]
    total = 0
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, type) or callable(obj) and not hasattr(obj, "__dict__"):
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        if isinstance(obj, dict):
            stack.extend(obj.keys())
            stack.extend(obj.values())
        elif isinstance(obj, (list, tuple, set, frozenset)):
            stack.extend(obj)
        else:
            if hasattr(obj, "__dict__"):
                stack.append(vars(obj))
            for klass in type(obj).__mro__:
                for slot in getattr(klass, "__slots__", ()):
                    if hasattr(obj, slot):
                        stack.append(getattr(obj, slot))
    return total


def size_report(steps: int) -> None:
    from workloads import build_messages

    graph, graph_input, config = build_messages(engine, steps)
    recorder = Recorder()
    start = time.perf_counter()
    final = graph.invoke(graph_input, config, hooks=recorder)
    elapsed = time.perf_counter() - start
    trace = recorder.trace
    state_memory = deep_size(final)
    state_disk = len(json.dumps(encode(final)))
    trace_memory = deep_size(trace)
    trace_disk = len(to_json(trace))
    print(f"size: {steps}-step add_messages append ({len(final['messages'])} messages), recorded in {elapsed:.2f} s")
    print(f"  in memory: trace {trace_memory / 1e6:.2f} MB / final state {state_memory / 1e6:.2f} MB = {trace_memory / state_memory:.2f}x")
    print(f"  on disk:   trace {trace_disk / 1e6:.2f} MB / final state {state_disk / 1e6:.2f} MB = {trace_disk / state_disk:.2f}x")


def timing(repeat: int) -> None:
    from workloads import build_fan, build_loop, langgraph_namespace

    langgraph = langgraph_namespace()
    print(f"time: median of {repeat} interleaved rounds, wall seconds")
    print(f"  {'workload':10} {'bare':>8} {'recorder':>9} {'langgraph':>10} {'rec/bare':>9} {'rec/lg':>7}")
    for title, build, times in (("loop", build_loop, 1), ("fan-out", build_fan, 20)):
        bare_app, inp, config = build(engine)
        lg_app, lg_inp, lg_config = build(langgraph)

        def bare() -> None:
            for _ in range(times):
                bare_app.invoke(inp, config)

        def recorded() -> None:
            for _ in range(times):
                bare_app.invoke(inp, config, hooks=Recorder())

        def reference() -> None:
            for _ in range(times):
                lg_app.invoke(lg_inp, lg_config)

        runs = {"bare": bare, "recorder": recorded, "langgraph": reference}
        for fn in runs.values():
            fn()
        samples: dict[str, list[float]] = {k: [] for k in runs}
        for _ in range(repeat):
            for name, fn in runs.items():
                t = time.perf_counter()
                fn()
                samples[name].append(time.perf_counter() - t)
        med = {k: statistics.median(v) for k, v in samples.items()}
        print(f"  {title:10} {med['bare']:8.4f} {med['recorder']:9.4f} {med['langgraph']:10.4f} "
              f"{med['recorder'] / med['bare']:9.2f} {med['recorder'] / med['langgraph']:7.3f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    size_report(args.steps)
    timing(args.repeat)


if __name__ == "__main__":
    main()
