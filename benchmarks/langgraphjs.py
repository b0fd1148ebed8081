"""LangGraph.js recording speed, side by side in one run: the app's graph.invoke in a plain node process
(LangGraph.js alone) against the same invoke under StepScope's recorder (`record_js_app`'s node process,
its events read by Python), on a 2,000-step loop and a 64-wide fan-out (20 rounds), from
`benchmarks/langgraphjs_apps/`.

Run: `.venv/bin/python benchmarks/langgraphjs.py [--repeat N]` (needs node and `npm ci` at the repo root).
Rounds are interleaved (plain, recorded, plain, ...) and medians printed. Node's start-up (starting node
and importing the app and @langchain/langgraph) is measured on its own and reported separately, not in
the ratios. CPU seconds are the measure that matters on a shared machine (a loaded one stretches wall
time for both alike); wall seconds are printed beside them. Columns:

    invoke      graph.invoke alone, inside node (wall / CPU), plain vs recorded: what the patches cost
    end-to-end  everything the recording costs beyond start-up: the recorded node process's CPU plus the
                Python reader's CPU, against the plain node process's CPU (both minus start-up)
    events      the bytes of events the run produced (deltas keep a growing list linear in steps)

Goal (issue 23): recorded / plain <= 1.5x on both workloads.
"""

from __future__ import annotations

import argparse
import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from debugger.runtimes.langgraphjs.process import NodeRun, find_node  # noqa: E402
from debugger.runtimes.langgraphjs.reader import EventReader  # noqa: E402

APPS = Path(__file__).with_name("langgraphjs_apps")
WORKLOADS = {"loop 2000": "loop.mjs", "fan-out 64x20": "fanout.mjs"}
CONFIGS = {"loop.mjs": {"recursionLimit": 2010}, "fanout.mjs": {"recursionLimit": 200}}
INPUTS = {"loop.mjs": {"n": 0}, "fanout.mjs": {"results": []}}


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def plain(app: str, *extra: str) -> dict[str, float]:
    """One plain node process: the invoke's own wall/CPU seconds and the whole process's CPU."""
    cpu = children_cpu()
    started = time.perf_counter()
    done = subprocess.run(
        [find_node(), str(APPS / "plain.mjs"), str(APPS / app), *extra], capture_output=True, text=True, check=True
    )
    measured = json.loads(done.stdout.splitlines()[-1]) if not extra else {"seconds": 0.0, "cpu_seconds": 0.0}
    return {**measured, "process_cpu": children_cpu() - cpu, "process_wall": time.perf_counter() - started}


def recorded(app: str) -> dict[str, float]:
    """One recording: the invoke's wall/CPU inside the recorder's node, that process's CPU, Python's CPU."""
    cpu, python_cpu = children_cpu(), time.process_time()
    started = time.perf_counter()
    reader = EventReader(target=app, run_id="bench")
    run = NodeRun({"app": str(APPS / app), "export": "graph", "input": INPUTS[app], "config": CONFIGS[app]}, reader)
    run.wait(None)
    trace = reader.close(empty_run=lambda: None)
    assert trace.status == "done", trace.error
    result = reader.result or {}
    return {
        "seconds": result["seconds"],
        "cpu_seconds": result["cpu_seconds"],
        "process_cpu": children_cpu() - cpu,
        "python_cpu": time.process_time() - python_cpu,
        "process_wall": time.perf_counter() - started,
        "bytes": run.bytes_read,
        "steps": len(trace.steps),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    if not (ROOT / "node_modules" / "@langchain" / "langgraph").exists():
        sys.exit("@langchain/langgraph is not installed at the repo root: run `npm ci` there")
    startup = [plain("loop.mjs", "--startup") for _ in range(args.repeat)]
    start_cpu = statistics.median(s["process_cpu"] for s in startup)
    start_wall = statistics.median(s["process_wall"] for s in startup)
    print(
        f"node start-up (node + importing the app and @langchain/langgraph): {start_wall:.3f} s wall, "
        f"{start_cpu:.3f} s CPU"
    )
    print(
        f"{'workload':<15}{'plain invoke':>22}{'recorded invoke':>22}{'invoke x':>14}"
        f"{'e2e CPU plain/rec':>22}{'e2e x':>8}{'events':>12}"
    )
    for label, app in WORKLOADS.items():
        rounds = [(plain(app), recorded(app)) for _ in range(args.repeat)]
        p = {k: statistics.median(r[0][k] for r in rounds) for k in rounds[0][0]}
        r = {k: statistics.median(r[1][k] for r in rounds) for k in rounds[0][1]}
        plain_e2e = max(p["process_cpu"] - start_cpu, 1e-9)
        rec_e2e = r["process_cpu"] + r["python_cpu"] - start_cpu
        print(
            f"{label:<15}{p['seconds']:>9.3f} s/{p['cpu_seconds']:>7.3f} cpu"
            f"{r['seconds']:>9.3f} s/{r['cpu_seconds']:>7.3f} cpu"
            f"{r['seconds'] / p['seconds']:>6.2f}/{r['cpu_seconds'] / p['cpu_seconds']:.2f}cpu"
            f"{plain_e2e:>10.3f}/{rec_e2e:.3f} s{rec_e2e / plain_e2e:>7.2f}x{r['bytes'] / 1e6:>9.2f} MB"
        )


if __name__ == "__main__":
    main()
