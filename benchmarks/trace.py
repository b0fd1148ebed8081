"""Trace cost, measured side by side in one process.

1. Size: a 10,000-step run that appends one message per step. The Trace, in memory (deep size of
   the object graph) and on disk (its JSON), against the final state (deep size, and its JSON; and
   the JSON of langchain-core's `dumpd` of it). Targets: both ratios at most 10 (issue 3); the file
   at most 5x langchain-core's serialisation (issue 26).
2. Time: the engine benchmark's loop and fan-out workloads, bare, with the full Recorder, and on
   langgraph. Target: recorder / langgraph at most 0.1.
3. Files and reads (issue 14): trace bytes per superstep; the file size for one 5 MB value carried
   through ten steps (target: about 5 MB); peak memory of recording 1k and 10k steps while streaming
   to a run database (target: about the same); the time of `stepscope show` and `stepscope diagnose`
   on runs of 2k and 8k supersteps, each in a fresh process (target: ratio near 4, i.e. linear).

4. Long traces (issue 26): a counter loop of 20k and 200k supersteps, recorded
   in memory and written out, then `import`, `export`, `show`, `diagnose` and the app's opening of the
   run at its last step (the file, first and again, and the stored run), each in a fresh process: its
   peak resident memory (VmHWM, interpreter and imports included), its CPU seconds (imports excluded)
   and wall seconds. Target: flat memory, at most 11x the time for 10x the steps, the app's open under 2 s.

Run: `.venv/bin/python benchmarks/trace.py [--steps N] [--repeat N] [--only files|long] [--long-steps N,N]`.
"""

import argparse
import json
import os
import statistics
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repo first: `engine` is the package

import engine  # noqa: E402
from engine.codec import encode  # noqa: E402
from engine.trace import Recorder  # noqa: E402
from engine.tracefile import to_json, write_json  # noqa: E402


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
    print(
        f"  in memory: trace {trace_memory / 1e6:.2f} MB / final state {state_memory / 1e6:.2f} MB "
        f"= {trace_memory / state_memory:.2f}x"
    )
    print(
        f"  on disk:   trace {trace_disk / 1e6:.2f} MB / final state {state_disk / 1e6:.2f} MB "
        f"= {trace_disk / state_disk:.2f}x"
    )
    langchain_disk = langchain_size(final)
    if langchain_disk:
        print(
            f"  on disk:   trace {trace_disk / 1e6:.2f} MB / final state as langchain-core serialises it "
            f"{langchain_disk / 1e6:.2f} MB = {trace_disk / langchain_disk:.2f}x (target, issue 26: at most 5x)"
        )
        store_disk, parts = stored_size(trace)
        print(
            f"  stored:    run database {store_disk / 1e6:.2f} MB ({parts}) / final state as langchain-core "
            f"serialises it = {store_disk / langchain_disk:.2f}x (target, issue 43: at most 5x)"
        )


def stored_size(trace: Any) -> tuple[int, str]:
    """Bytes of a SQLite run database holding only `trace`, and what its tables' rows hold."""
    import sqlite3
    import tempfile

    from debugger.stores.sqlite import RunStore

    with tempfile.TemporaryDirectory(prefix="stepscope-size-") as work:
        path = Path(work) / "runs.sqlite3"
        RunStore(path).save(trace)
        with sqlite3.connect(path) as db:
            db.execute("VACUUM")
            parts = ", ".join(
                f"{table} {db.execute(f'SELECT total(length(data)) FROM {table}').fetchone()[0] / 1e6:.2f} MB"
                for table in ("run_steps", "run_blobs", "run_snapshots")
            )
        db.close()
        return path.stat().st_size, parts


def langchain_size(state: dict[str, Any]) -> int | None:
    """Bytes of the JSON of `state` with its messages as langchain-core's own (`dumpd`, what a langgraph
    app's state is stored as), or None without langchain-core installed."""
    try:
        from langchain_core.load import dumpd
        from langchain_core.messages import messages_from_dict
    except ImportError:
        return None
    # the trace's own encoding of a message is langchain-core's `message_to_dict` shape, defaults left out
    messages = messages_from_dict([item["message"] for item in encode(state["messages"])])
    return len(json.dumps(dumpd({**state, "messages": messages})))


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
        print(
            f"  {title:10} {med['bare']:8.4f} {med['recorder']:9.4f} {med['langgraph']:10.4f} "
            f"{med['recorder'] / med['bare']:9.2f} {med['recorder'] / med['langgraph']:7.3f}"
        )


def file_report(only_memory: bool = False) -> None:
    import subprocess
    import tempfile

    from workloads import build_messages

    from debugger.sources.recording import StoreSink
    from debugger.stores.sqlite import RunStore

    work = Path(tempfile.mkdtemp(prefix="stepscope-bench-"))
    print("files and reads (issue 14)")

    if not only_memory:
        graph, graph_input, config = build_messages(engine, 2000)
        recorder = Recorder()
        graph.invoke(graph_input, config, hooks=recorder)
        size = len(to_json(recorder.trace).encode())
        print(f"  trace bytes per superstep (add_messages loop, 2000 steps): {size / 2000:.0f}")
        print(f"  one 5 MB value carried through ten steps: {_carried_size(5_000_000) / 1e6:.2f} MB trace file")

    for title, build in (
        ("counter loop, constant state", _counter_loop),
        ("add_messages loop, growing state", build_messages),
    ):
        warm, warm_input, warm_config = build(engine, 50)  # imports and one-time caches, before measuring
        warm.invoke(
            warm_input, warm_config, hooks=Recorder(sink=StoreSink(RunStore(work / f"warm-{title[:3]}.sqlite3")))
        )
        peaks = {}
        for steps in (1000, 10_000):
            graph, graph_input, config = build(engine, steps)
            store = RunStore(work / f"mem-{len(peaks)}-{steps}-{title[:3]}.sqlite3")
            tracemalloc.start()
            sink = StoreSink(store)
            recorder = Recorder(sink=sink)
            graph.invoke(graph_input, config, hooks=recorder)
            sink.finish(recorder.trace)
            peaks[steps] = tracemalloc.get_traced_memory()[1]
            tracemalloc.stop()
        print(
            f"  recording memory streamed to the run database, {title}: 1k steps {peaks[1000] / 1e6:.2f} MB, "
            f"10k steps {peaks[10_000] / 1e6:.2f} MB (x{peaks[10_000] / peaks[1000]:.2f})"
        )

    if only_memory:
        return
    times: dict[tuple[str, int], float] = {}
    for steps in (2000, 8000):
        graph, graph_input, config = build_messages(engine, steps)
        recorder = Recorder()
        graph.invoke(graph_input, config, hooks=recorder)
        path = work / f"run{steps}.json"
        path.write_text(to_json(recorder.trace))
        for command in ("show", "diagnose"):
            out = subprocess.run(
                [sys.executable, __file__, "--time-command", command, str(path), str(work / "db")],
                capture_output=True,
                text=True,
                check=True,
            )
            times[command, steps] = float(out.stdout.strip().splitlines()[-1])
    for command in ("show", "diagnose"):
        small, large = times[command, 2000], times[command, 8000]
        print(f"  {command:8} 2k supersteps {small:6.2f} s   8k supersteps {large:6.2f} s   ratio {large / small:.2f}")


def _counter_loop(lib: Any, steps: int) -> tuple[Any, dict, dict]:
    """A loop whose state stays one int: what grows with the steps here is only the recording."""
    from workloads import Counter

    g = lib.StateGraph(Counter)
    g.add_node("inc", lambda state: {"n": 1})
    g.add_edge(lib.START, "inc")
    g.add_conditional_edges("inc", lambda state: "inc" if state["n"] < steps else lib.END)
    return g.compile(), {"n": 0}, {"recursion_limit": steps + 10}


def _carried_size(size: int) -> int:
    from typing import TypedDict

    class Doc(TypedDict):
        doc: str
        n: int

    g = engine.StateGraph(Doc)
    g.add_node("step", lambda s: {"n": s["n"] + 1})
    g.add_edge(engine.START, "step")
    g.add_conditional_edges("step", lambda s: "step" if s["n"] < 10 else engine.END)
    recorder = Recorder()
    g.compile().invoke({"doc": "x" * size, "n": 0}, hooks=recorder)
    return len(to_json(recorder.trace).encode())


LONG_COMMANDS = ("import", "export", "show", "diagnose", "open file", "open again", "open stored")
"""`open file` is the first open of the exported file (indexed, checked and folded; its index and kept states
are then saved in the file cache), `open again` the next one; `open stored` the imported run's, whose kept
states `import` stored."""


def long_report(sizes: tuple[int, ...]) -> None:
    """Section 4 of the module docstring."""
    import subprocess
    import tempfile

    work = Path(tempfile.mkdtemp(prefix="stepscope-long-"))
    print("long traces (issue 26): counter loop; each command in a fresh process: peak RSS MB (VmHWM) / CPU s / wall s")
    results: dict[tuple[str, int], dict[str, float]] = {}
    for steps in sizes:
        graph, graph_input, config = _counter_loop(engine, steps)
        recorder = Recorder()  # in memory: the run database's recorder takes a transaction a step
        graph.invoke(graph_input, config, hooks=recorder)
        run_id = recorder.trace.run_id
        recorded = work / f"recorded{steps}.json"
        with recorded.open("w", encoding="utf-8") as out:
            write_json(recorder.trace, out)
        del recorder
        db = work / f"runs{steps}.sqlite3"  # `import` fills it; `export` and `open stored` read it
        path = work / f"run{steps}.json"  # `export` writes it; the file commands read it
        for command in LONG_COMMANDS:
            ref = {"export": run_id, "import": str(recorded), "open stored": run_id}.get(command, str(path))
            command_db = db
            out = subprocess.run(
                [sys.executable, __file__, "--measure", command, ref, str(command_db), str(path)],
                capture_output=True,
                text=True,
                # a file cache of each command's own (`show` and `diagnose` fill one too), but for `open again`,
                # which opens the file after `open file` did
                env={
                    **os.environ,
                    "STEPSCOPE_FILE_CACHE": str(work / f"cache-{steps}-{command.replace('again', 'file')}"),
                },
            )
            if out.returncode != 0:
                raise SystemExit(f"{command} at {steps} steps failed: {out.stderr.strip()[-400:]}")
            results[command, steps] = json.loads(out.stdout.strip().splitlines()[-1])
        print(f"  {steps} supersteps: trace file {path.stat().st_size / 1e6:.0f} MB")
    small, large = sizes[0], sizes[-1]
    print(f"  {'command':12} {small:>7} steps: MB   cpu s  wall s  {large:>7} steps: MB   cpu s  wall s   cpu x")
    for command in LONG_COMMANDS:
        a, b = results[command, small], results[command, large]
        print(
            f"  {command:12} {a['rss_mb']:18.0f} {a['cpu']:7.2f} {a['wall']:7.2f} {b['rss_mb']:18.0f} "
            f"{b['cpu']:7.2f} {b['wall']:7.2f} {b['cpu'] / max(a['cpu'], 1e-9):7.2f}"
        )


def measure(command: str, ref: str, db: str, out: str) -> None:
    """Runs one long-trace command (`LONG_COMMANDS`) in this process (`export` writes `out`); prints its
    peak RSS, CPU seconds and wall seconds as JSON."""
    import contextlib
    import os

    from debugger import cli
    from debugger.model.run_view import RunView
    from debugger.stores.opening import load_trace

    start, cpu = time.perf_counter(), time.process_time()
    if command.startswith("open"):  # what the app does to show a run at its last step: its state and merge
        view = RunView(load_trace(ref, db))
        view.state(view.last)
        view.merge(view.last)
    else:
        argv = [command, ref, out] if command == "export" else [command, ref]
        with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):  # a StringIO would hold the output
            code = cli.main([*argv, "--db", db])
        if code not in (0, 1, None):  # diagnose exits 1 when a finding is an error
            raise SystemExit(f"{command} exited {code}")
    result = {
        "cpu": time.process_time() - cpu,
        "wall": time.perf_counter() - start,
        "rss_mb": _peak_rss_kb() / 1024,
    }
    print(json.dumps(result))


def _peak_rss_kb() -> int:
    """This process's peak resident memory since it started its program (`VmHWM`): `ru_maxrss` would
    count the memory of the benchmark it was forked from, which Linux keeps across `exec`."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1])
    import resource

    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def time_command(command: str, path: str, db: str) -> None:
    """Runs one CLI command in this process and prints its wall time (imports excluded)."""
    import contextlib
    import io

    from debugger import cli

    start = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        cli.main([command, path, "--db", db])
    print(f"{time.perf_counter() - start:.4f}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--only", choices=["size", "time", "files", "memory", "long"])
    parser.add_argument("--long-steps", default="20000,200000", help="the run lengths of section 4")
    parser.add_argument("--measure", nargs=4, metavar=("COMMAND", "REF", "DB", "OUT"), help=argparse.SUPPRESS)
    parser.add_argument("--time-command", nargs=3, metavar=("COMMAND", "FILE", "DB"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.time_command:
        time_command(*args.time_command)
        return
    if args.measure:
        measure(*args.measure)
        return
    if args.only == "long":
        long_report(tuple(int(n) for n in args.long_steps.split(",")))
        return
    if args.only in (None, "size"):
        size_report(args.steps)
    if args.only in (None, "time"):
        timing(args.repeat)
    if args.only in (None, "files"):
        file_report()
    if args.only == "memory":
        file_report(only_memory=True)


if __name__ == "__main__":
    main()
