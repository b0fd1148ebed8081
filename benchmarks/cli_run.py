"""`stepscope run` of a langgraph app against `python app.py`, each as a whole process.

The app is a 2,000-superstep langgraph counter loop (`workloads.build_loop`'s graph, importing only
langgraph, as an app does), written to a temporary `app.py` that runs itself when executed. Each round
starts `python app.py` and `python -m debugger.cli run app.py --db ...` (interleaved, so a machine that
drifts affects both alike) and measures the CPU seconds (user + system) each child process used, which
other programs on a shared machine disturb far less than wall time. Prints the medians and their
ratio. Target (issue 26): at most 1.3x.

Both processes get a byte-code cache in the temporary folder (PYTHONPYCACHEPREFIX, with
PYTHONDONTWRITEBYTECODE cleared), filled by the warm-up round, as an installed StepScope and langgraph
have theirs. Without it (a shell with PYTHONDONTWRITEBYTECODE=1, as some of ours have) langgraph's
modules still come compiled from site-packages while every StepScope module is compiled from source in
each run, about 0.15-0.25 CPU s that no user pays; `--env-bytecode` measures that way all the same.

Run: `.venv/bin/python benchmarks/cli_run.py [--repeat N] [--env-bytecode]`.
"""

import argparse
import os
import resource
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the repo first: `engine` is the package, not benchmarks/engine.py

from workloads import LOOP_STEPS  # noqa: E402

APP = f'''"""A {LOOP_STEPS}-superstep langgraph counter loop (benchmarks/cli_run.py): langgraph only, as an app is."""
import operator
from typing import Annotated, TypedDict

from langgraph.graph import END, START, StateGraph


class Counter(TypedDict):
    n: Annotated[int, operator.add]


def inc(state: Counter) -> dict:
    return {{"n": 1}}


def again(state: Counter) -> str:
    return "inc" if state["n"] < {LOOP_STEPS} else END


builder = StateGraph(Counter)
builder.add_node("inc", inc)
builder.add_edge(START, "inc")
builder.add_conditional_edges("inc", again, ["inc", END])
graph = builder.compile()
example_input = {{"n": 0}}
example_config = {{"recursion_limit": {LOOP_STEPS + 10}}}

if __name__ == "__main__":
    graph.invoke(example_input, example_config)
'''


def child_cpu(command: list[str], env: dict[str, str], cwd: Path) -> float:
    """CPU seconds (user + system) of one child process run to its end in `cwd`; its output is discarded."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    subprocess.run(command, env=env, cwd=cwd, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="interleaved rounds (median reported)")
    parser.add_argument(
        "--env-bytecode",
        action="store_true",
        help="byte-code caching as the environment says (PYTHONDONTWRITEBYTECODE), not a cache of the run's own",
    )
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="stepscope-cli-run-"))
    app = work / "app.py"
    app.write_text(APP)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    if not args.env_bytecode:  # both sides read compiled modules, as installed packages do (module docstring)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(work / "pycache")
    bytecode = (
        "as the environment says (PYTHONDONTWRITEBYTECODE=" + os.environ.get("PYTHONDONTWRITEBYTECODE", "") + ")"
        if args.env_bytecode
        else "cached (PYTHONPYCACHEPREFIX in the run's folder)"
    )
    commands = {
        "python app.py": [sys.executable, str(app)],
        "stepscope run": [sys.executable, "-m", "debugger.cli", "run", str(app), "--db", str(work / "runs.sqlite3")],
    }
    for command in commands.values():  # warm-up: byte-code caches, the database's first creation
        child_cpu(command, env, work)
    samples: dict[str, list[float]] = {name: [] for name in commands}
    for _ in range(args.repeat):
        for name, command in commands.items():
            samples[name].append(child_cpu(command, env, work))
    med = {name: statistics.median(values) for name, values in samples.items()}
    print(f"python {sys.version.split()[0]}; median of {args.repeat} interleaved rounds; CPU seconds of each process")
    print(f"  byte-code      {bytecode}")
    for name, value in med.items():
        print(f"  {name:14} {value:7.3f} s   (all: {', '.join(f'{v:.2f}' for v in samples[name])})")
    print(f"  ratio          {med['stepscope run'] / med['python app.py']:7.3f}x   (target: at most 1.3x)")


if __name__ == "__main__":
    main()
