"""Reading long runs (issue 43, items 3 and 4): `show --step N`, `diagnose`, `import` and the app's open of a
20,000- and a 200,000-step trace, side by side.

The traces are the counter loop of `benchmarks/trace.py` (`_counter_loop`: one tiny node, its state one int),
recorded once by the engine with the Recorder and cached under `build/long_reads/` (delete it to record again).
Each command runs as a whole `stepscope` process (interpreter and imports included), with a run database and a
file cache of its own, so nothing is read from an earlier command: its wall seconds and peak resident memory
(the child's own `ru_maxrss`, from `os.wait4`). The app's open is what the Step-through page asks of the model
for a run link (`?run=ID&step=LAST`), in a fresh process with its modules imported first (a running server
has them): the stored run read (`import`'s database), its `TraceView`, the stepper's model of the last window
(`stepper_windows.model_for`) and the step's state and merge tabs; then a change of step into the window
before (`WINDOW` steps back): its model, state and merge.

Goals: each command at most 60 s and 300 MB at 200k steps, time linear (x10 steps at most about x10 time);
the open at most 2 s and a change of step at most 1 s. Each command's CPU seconds are printed beside its wall
seconds (a loaded machine stretches the wall time, not the CPU time), and `diagnose`'s count of step decodes
at the smaller size (one walk over the run feeds every rule: about one per step).

Run: `.venv/bin/python benchmarks/long_reads.py [--steps 20000,200000] [--only show,diagnose,import,open]`.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CACHE = ROOT / "build" / "long_reads"
COMMANDS = ("show", "diagnose", "import", "open")
GOAL_SECONDS, GOAL_MB, GOAL_OPEN, GOAL_STEP = 60.0, 300.0, 2.0, 1.0


def trace_file(steps: int) -> Path:
    """The cached trace of a `steps`-step counter loop, recorded in a child process (so this one stays small:
    a child's peak memory starts from its parent's at fork)."""
    path = CACHE / f"counter{steps}.json"
    if not path.exists():
        CACHE.mkdir(parents=True, exist_ok=True)
        subprocess.run([sys.executable, __file__, "--record", str(steps), str(path)], check=True)
    return path


def record(steps: int, out: str) -> None:
    """Records the counter loop and writes its trace to `out` (through a temporary name: a cut run leaves none)."""
    sys.path.insert(0, str(ROOT))  # the repo first: `engine` is the package, not benchmarks/engine.py
    sys.path.insert(1, str(ROOT / "benchmarks"))
    import importlib.util

    import engine
    from engine.trace import Recorder
    from engine.tracefile import write_json

    spec = importlib.util.spec_from_file_location("trace_benchmark", ROOT / "benchmarks" / "trace.py")
    trace_benchmark = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(trace_benchmark)  # its counter loop, not the standard library's `trace`
    graph, graph_input, config = trace_benchmark._counter_loop(engine, steps)
    recorder = Recorder()
    graph.invoke(graph_input, config, hooks=recorder)
    partial = Path(out + ".part")
    with partial.open("w", encoding="utf-8") as handle:
        write_json(recorder.trace, handle)
    partial.replace(out)


def whole_process(argv: list[str], env: dict[str, str], ok: tuple[int, ...] = (0,)) -> dict[str, float]:
    """Runs `argv` to its end: wall seconds, CPU seconds (user and system: what a loaded machine does not
    stretch), peak RSS in MB (the child's own, from `os.wait4`), and its stdout's last line."""
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out, stderr=err, env=env, text=True)
        _, status, usage = os.wait4(proc.pid, 0)  # reaped here, not by Popen: its usage comes with it
        wall = time.perf_counter() - start
        proc.returncode = code = os.waitstatus_to_exitcode(status)
        out.seek(0), err.seek(0)
        if code not in ok:
            raise SystemExit(f"{' '.join(argv[3:6])} failed (exit {code}): {err.read().strip()[-400:]}")
        last = (out.read().strip().splitlines() or [""])[-1]
    return {"wall": wall, "cpu": usage.ru_utime + usage.ru_stime, "rss_mb": usage.ru_maxrss / 1024, "last": last}


def command_line(command: str, path: Path, steps: int, db: Path) -> list[str]:
    stepscope = [sys.executable, "-c", "import sys; from debugger.cli import main; sys.exit(main())"]
    if command == "show":
        return [*stepscope, "show", str(path), "--step", str(steps)]
    if command == "diagnose":
        return [*stepscope, "diagnose", str(path)]
    if command == "import":
        return [*stepscope, "import", str(path), "--db", str(db)]
    return [sys.executable, __file__, "--open", str(db)]


def open_run(db: str) -> None:
    """The app's open of the one run stored in `db` at its last step, then a step into the window before;
    prints the seconds of each (modules imported first, as in a running server) as JSON."""
    sys.path.insert(0, str(ROOT))
    from debugger.model import background, stepper_data
    from debugger.model.trace_view import Scope, TraceView
    from debugger.stores.sqlite import RunStore

    background.HEAD_START = 3600.0  # the findings wait: the figure is the page's own cost
    store = RunStore(db)
    run_id = store.list(limit=1)[0].run_id
    start = time.perf_counter()
    traced = TraceView(store.load(run_id), background=True)
    last = traced.view(Scope()).last
    loaded = time.perf_counter() - start
    page_at(traced, last)
    opened = time.perf_counter() - start
    start = time.perf_counter()
    page_at(traced, last - stepper_data.WINDOW)
    moved = time.perf_counter() - start
    print(json.dumps({"load": loaded, "open": opened, "step": moved}))


def page_at(traced, step: int) -> None:
    """What the Step-through page builds at `step`: the stepper's window, the state and merge tabs."""
    from debugger.model import stepper_windows
    from debugger.model.trace_view import Scope

    stepper_windows.model_for(traced, Scope(), step, svg_of=lambda dot: "<svg/>", errors_tab=True)
    view = traced.view(Scope())
    view.state(step)
    view.merge(step)


def count_decodes(path: str) -> None:
    """Runs `stepscope diagnose` on `path` in this process and prints how many steps it decoded (the trace's
    own reads included): the work of the rules' walk over the run, as a count."""
    sys.path.insert(0, str(ROOT))
    import contextlib
    import io

    from debugger import cli
    from debugger.sources import trace_stream

    decoded = [0]
    build = trace_stream.step_from_dict

    def counted(data, *, source, index):
        decoded[0] += 1
        return build(data, source=source, index=index)

    trace_stream.step_from_dict = counted
    with contextlib.redirect_stdout(io.StringIO()):
        cli.main(["diagnose", path])
    print(decoded[0])


def report(sizes: list[int], only: list[str]) -> None:
    work = Path(tempfile.mkdtemp(prefix="stepscope-long-reads-"))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    results: dict[tuple[str, int], dict] = {}
    for steps in sizes:
        path = trace_file(steps)
        db = work / f"runs{steps}.sqlite3"
        print(f"{steps} steps: {path.stat().st_size / 1e6:.0f} MB trace file", flush=True)
        for command in COMMANDS:
            if command not in only and not (command == "import" and "open" in only):  # the open reads import's run
                continue
            run_env = {**env, "STEPSCOPE_FILE_CACHE": str(work / f"cache-{command}-{steps}")}
            ok = (0, 1) if command == "diagnose" else (0,)  # diagnose exits 1 when a finding is an error
            results[command, steps] = whole_process(command_line(command, path, steps, db), run_env, ok)
            got = results[command, steps]
            print(
                f"  {command:9} {got['wall']:7.2f} s wall {got['cpu']:7.2f} s cpu {got['rss_mb']:6.0f} MB peak",
                flush=True,
            )
        if "diagnose" in only and steps == sizes[0]:  # a count: the same on a loaded machine, linear in steps
            count = int(whole_process([sys.executable, __file__, "--decodes", str(path)], env, (0, 1))["last"])
            print(f"  diagnose decoded {count} steps: {count / steps:.2f} per step of the run", flush=True)
    print_table(sizes, only, results)


def print_table(sizes: list[int], only: list[str], results: dict) -> None:
    small, large = sizes[0], sizes[-1]
    print(f"{'command':9} {small:>7} steps: s  cpu s    MB {large:>7} steps: s  cpu s    MB  time x  goal")
    for command in COMMANDS:
        if (command, large) not in results:
            continue
        a, b = results[command, small], results[command, large]
        goal = f"{GOAL_SECONDS:.0f} s, {GOAL_MB:.0f} MB"
        print(
            f"{command:9} {a['wall']:17.2f} {a['cpu']:6.2f} {a['rss_mb']:5.0f} {b['wall']:17.2f} {b['cpu']:6.2f} "
            f"{b['rss_mb']:5.0f} {b['wall'] / a['wall']:7.2f}  {goal}"
        )
        if command == "open":
            first, second = json.loads(a["last"]), json.loads(b["last"])
            for part, goal in (("load", None), ("open", GOAL_OPEN), ("step", GOAL_STEP)):
                print(
                    f"  app {part:5} {first[part]:17.2f} {'':12} {second[part]:17.2f} {'':12} "
                    f"{second[part] / max(first[part], 1e-9):7.2f}  {f'{goal:.0f} s' if goal else ''}"
                )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", default="20000,200000", help="the run lengths, smallest first")
    parser.add_argument("--only", default=",".join(COMMANDS), help="the commands measured")
    parser.add_argument("--record", nargs=2, metavar=("STEPS", "OUT"), help=argparse.SUPPRESS)
    parser.add_argument("--open", metavar="DB", help=argparse.SUPPRESS)
    parser.add_argument("--decodes", metavar="TRACE", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.record:
        record(int(args.record[0]), args.record[1])
    elif args.open:
        open_run(args.open)
    elif args.decodes:
        count_decodes(args.decodes)
    else:
        report([int(n) for n in args.steps.split(",")], args.only.split(","))


if __name__ == "__main__":
    main()
