"""The cost of recording a langgraph run in machine instructions (valgrind's cachegrind), which other
programs on a shared machine do not change: `benchmarks/langgraph_recorder.py`'s ratios move by 0.1
from one run to the next on a busy 2-core machine, an instruction count does not move at all.

Run: `.venv/bin/python benchmarks/langgraph_instructions.py [loop messages fan]` (needs `valgrind`;
about 20 s a process, 4 processes a workload). For each workload, langgraph alone and recorded in
memory, each in processes that run it once and four times after a warm-up, so the imports cancel
out: the instructions of one run, and the ratio recorded / alone; beside them the engine with its
`Recorder` on the same workload, and its ratio to langgraph alone (issue 43: at most 0.1 on the loop,
0.4 on the messages loop). Smaller than the timed benchmark
(a 300-step loop, 150 messages, the fan-out once), as valgrind runs Python about 40 times slower.
Instructions leave out what memory and branches cost: the timed ratio's excess over 1 has been
about 1.5 times the instructions' on this machine.
"""

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import cachegrind  # noqa: E402

RUNS = (1, 4)


def child(which: str, mode: str, runs: int) -> None:
    sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]
    import workloads

    from debugger.runtimes.langgraph.recorder import recording

    lg = workloads.langgraph_namespace()
    workloads.LOOP_STEPS = 300
    builds = {
        "loop": workloads.build_loop,
        "messages": lambda lib: workloads.build_messages(lib, 150),
        "fan": workloads.build_fan,
    }
    app, inp, config = builds[which](lg)
    import engine
    from engine.trace import Recorder

    own_app, own_inp, own_config = builds[which](engine)

    def recorded() -> None:
        with recording(db=False) as session:
            app.invoke(inp, config)
        assert all(not step.mismatches for step in session.traces[-1].steps)

    def alone() -> None:
        app.invoke(inp, config)

    def own_engine() -> None:
        own_app.invoke(own_inp, own_config, hooks=Recorder())

    modes = {"recorded": recorded, "alone": alone, "engine": own_engine}
    for warm_up in modes.values():  # imports, caches
        warm_up()
    for _ in range(runs):
        modes[mode]()


def instructions(which: str, mode: str, runs: int) -> int:
    return cachegrind.instructions([sys.executable, __file__, "--child", which, mode, str(runs)], f"{which} {mode}")


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], sys.argv[3], int(sys.argv[4]))
        return
    workloads = sys.argv[1:] or ["loop", "messages", "fan"]
    print(
        f"{'workload':10} {'langgraph':>14} {'recorded':>14} {'ratio':>7} {'engine+Recorder':>16} {'/langgraph':>10}"
        "   (instructions of one run)"
    )
    for which in workloads:
        per_run = {}
        for mode in ("alone", "recorded", "engine"):
            counts = [instructions(which, mode, runs) for runs in RUNS]
            per_run[mode] = (counts[1] - counts[0]) / (RUNS[1] - RUNS[0])
        alone, recorded, own = per_run["alone"], per_run["recorded"], per_run["engine"]
        print(f"{which:10} {alone:14,.0f} {recorded:14,.0f} {recorded / alone:7.3f} {own:16,.0f} {own / alone:10.3f}")


if __name__ == "__main__":
    main()
