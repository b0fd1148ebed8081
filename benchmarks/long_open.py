"""Opening a long stored run in the app at its last step (issue 26 item 2), in AppTest (no browser).

The counter loop of `benchmarks/trace.py` (`_counter_loop`, 200,000 supersteps by default) is recorded,
stored in a run database of its own, and opened from its link (`?run=ID&step=LAST`) in a fresh AppTest
session. Printed: the wall and CPU seconds of the first `at.run()` (the step page on screen), how long the
findings then take in their background thread, and a rerun once they are there (the page's own work, the
run loaded). CPU seconds count every thread of the process. Target: the first paint under 2 s.

With `--running` the run is opened in a server that has already served a page (the default lesson), as a
user's link opens it in a running `stepscope app`: the app's own imports (about 1 s) are not counted.
With `--alone` the background threads wait until the page is measured (`HEAD_START`), so the first paint
is the page's own cost; without it they start once the page is drawn, or after `HEAD_START` seconds.

Run: `.venv/bin/python benchmarks/long_open.py [--steps N] [--alone]`.
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the repo first: `engine` is the package, not benchmarks/engine.py

import engine  # noqa: E402
from engine.trace import Recorder  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=200_000)
    parser.add_argument("--alone", action="store_true", help="the background threads wait for the measurement")
    parser.add_argument(
        "--running", action="store_true", help="measure in a server that has served a page already (imports done)"
    )
    args = parser.parse_args()

    import importlib.util

    spec = importlib.util.spec_from_file_location("trace_benchmark", ROOT / "benchmarks" / "trace.py")
    trace_benchmark = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(trace_benchmark)  # its counter loop, not the standard library's `trace`
    from debugger.stores.sqlite import RunStore

    graph, graph_input, config = trace_benchmark._counter_loop(engine, args.steps)
    recorder = Recorder()
    graph.invoke(graph_input, config, hooks=recorder)
    db = Path(tempfile.mkdtemp(prefix="stepscope-long-open-")) / "runs.sqlite3"
    run_id = RunStore(db).save(recorder.trace)
    del recorder
    os.environ["STEPSCOPE_DB"] = str(db)

    from streamlit.testing.v1 import AppTest

    from debugger.model import background

    if args.alone:
        background.HEAD_START = 3600.0
    if args.running:  # a server that has served a page: the app's modules are imported, nothing of this run
        start = time.perf_counter()
        AppTest.from_file(str(ROOT / "debugger" / "app.py"), default_timeout=600).run()
        print(f"(a first page of the default lesson, the app's imports: {time.perf_counter() - start:.2f} s wall)")
    at = AppTest.from_file(str(ROOT / "debugger" / "app.py"), default_timeout=3600)
    at.query_params.update({"run": run_id, "step": str(args.steps)})
    start, cpu = time.perf_counter(), time.process_time()
    at.run()
    wall, cpu = time.perf_counter() - start, time.process_time() - cpu
    if at.exception:
        raise SystemExit(f"the page failed: {at.exception}")
    print(f"{args.steps} supersteps: first paint {wall:.2f} s wall, {cpu:.2f} s CPU")
    view = at.session_state["stepscope_run"].view
    view.drawn()
    start = time.perf_counter()
    while view.findings_pending:
        time.sleep(0.1)
    print(f"  findings ready {time.perf_counter() - start:.1f} s later ({len(view.findings)} findings)")
    start, cpu = time.perf_counter(), time.process_time()
    at.run()
    print(f"  rerun with them: {time.perf_counter() - start:.2f} s wall, {time.process_time() - cpu:.2f} s CPU")


if __name__ == "__main__":
    main()
