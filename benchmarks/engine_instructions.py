"""What the engine and its Recorder cost on the 2,000-step loop, in machine instructions (valgrind's
cachegrind), as a ratio to langgraph running the same graph (issue 43: engine + Recorder at most 0.1x).
`benchmarks/engine.py` times the same thing; this counts, so the load of a shared machine moves nothing.

Run: `.venv/bin/python benchmarks/engine_instructions.py [steps]` (needs `valgrind`; about 3 minutes).
Each row runs in processes of its own that run it once and twice after a warm-up, so the imports
cancel out: the instructions of one run. Beside the full Recorder, two floors show where the cost is:

- `engine + Hooks()`: the engine reporting every event to hooks that do nothing;
- `engine + floor recorder`: hooks that keep one tuple per event, of the fields a trace needs, and
  check nothing (no copies of values a node may change in place, no view or same-as-writes test).
  No recorder that keeps a trace can cost less than this one.
"""

import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

import cachegrind  # noqa: E402

RUNS = (1, 2)
MODES = ("langgraph", "engine", "engine + Hooks()", "engine + floor recorder", "engine + Recorder")


def floor_recorder() -> Any:
    from engine import Hooks

    class FloorRecorder(Hooks):
        def __init__(self) -> None:
            self.events: list[tuple[Any, ...]] = []

        def step_planned(self, *, ns: tuple[str, ...], step: int, tasks: Any) -> None:
            for t in tasks:
                self.events.append((step, t.id, t.name, t.path, t.triggers, t.fired, t.input, t.seen_versions))

        def tasks_finished(self, *, ns: tuple[str, ...], step: int, tasks: Any) -> None:
            for t in tasks:
                self.events.append((t.id, t.result, t.duration, t.writes, t.routes))

        def reducer_called(self, *, ns: tuple[str, ...], call: Any) -> None:
            c = call
            self.events.append(
                (c.step, c.channel, c.reducer, c.writer, c.writer_name, c.index, c.before, c.write, c.after)
            )

        def step_committed(self, *, ns: tuple[str, ...], commit: Any) -> None:
            c = commit
            self.events.append((c.step, c.kind, c.updated_channels, c.versions, c.read(None)))

    return FloorRecorder()


def child(mode: str, steps: int, runs: int) -> None:
    sys.path[:0] = [str(ROOT), str(ROOT / "benchmarks")]
    import workloads

    import engine
    from engine import Hooks
    from engine.trace import Recorder

    workloads.LOOP_STEPS = steps
    if mode == "langgraph":
        app, inp, config = workloads.build_loop(workloads.langgraph_namespace())
        run = lambda: app.invoke(inp, config)  # noqa: E731
    else:
        app, inp, config = workloads.build_loop(engine)
        hooks = {"engine + Hooks()": Hooks, "engine + floor recorder": floor_recorder, "engine + Recorder": Recorder}
        make = hooks.get(mode)
        run = (lambda: app.invoke(inp, config)) if make is None else (lambda: app.invoke(inp, config, hooks=make()))  # noqa: E731
    run()  # imports, caches
    for _ in range(runs):
        run()


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        child(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]))
        return
    steps = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
    print(f"the {steps}-step loop, instructions of one run (goal: engine + Recorder <= 0.1x langgraph)")
    langgraph = None
    for mode in MODES:
        counts = [
            cachegrind.instructions([sys.executable, __file__, "--child", mode, str(steps), str(r)], mode) for r in RUNS
        ]
        one = (counts[1] - counts[0]) / (RUNS[1] - RUNS[0])
        langgraph = langgraph or one
        print(f"{mode:24} {one:16,.0f} {one / langgraph:8.4f}x langgraph {one / steps:10,.0f} a step")


if __name__ == "__main__":
    main()
