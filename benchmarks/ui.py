"""Debugger responsiveness, measured side by side: a 6-node sample, a 200-node graph, a 1,000-step run.

For each of the three runs it prints:

1. **server**: the page's rerun after the stepper reported a step, measured with Streamlit's AppTest
   (the tabs below the stepper follow; median over `--clicks` steps). AppTest runs the app in this
   process, so this is the Python side only: view-model and tables. The user does not wait for it.
2. **page: key->drawn**: in chromium (Debian's, via Playwright), from an arrow key to the new step
   drawn by the page's stepper (its nodes restyled, its summary set, the frame painted; median over
   `--browser-steps`). The stepper steps in the browser: no server round trip.
3. **HTML file**: the same, in the run's one-file HTML export opened from file:// (the same stepper).

and each one's ratio to the 6-node case, plus the time to open each run (record it, store it,
draw its first step), and the time to the first drawn graph when a sample's link is opened in a new
browser session, side by side with a bare Streamlit page that draws one graphviz chart (the floor any
Streamlit app pays; `benchmarks/first_paint.py`: both served alike, a fresh chromium each visit, the
pages visited in turns so that a shared machine's load falls on both; timed on the page's own clock, with
the bytes, JavaScript files and websocket messages before the drawing). Then the Live run page's step
click while a run goes on in the background, next to the same click on the finished run
(`benchmarks/live_ui.py`). Each run is opened as a user would, from the sidebar's "Graph file" (a small
module in a temporary folder), so it has its live graph and the What-if tab does its work too.
Runs go to a temporary run store (`STEPSCOPE_DB`). A step change is Next, or Prev once at the end.

- small: `sample_graphs/fan_out_search` (6 nodes drawn with START and END, 4 supersteps).
- wide: `wide_graph()`, 200 nodes in 10 parallel chains of 20 with a router in each chain (dashed
  edges), then a join and a compiled subgraph (204 drawn): 23 supersteps, 20 of them of 10 tasks.
- long: `long_loop()`, plan -> act -> check looping until END: 1,000 supersteps, with a log list
  that grows by one item in two steps out of three.

Run: `.venv/bin/python benchmarks/ui.py [--clicks 20] [--browser-steps 10] [--first-paints 5] [--no-live]
[--no-browser] [--profile]`.
`--profile` prints the top of a cProfile of the server-side step changes of each run (the script
runs in AppTest's thread; that is what is profiled). No targets are asserted; the numbers are for
reading, and on a busy machine they move a lot.
"""

from __future__ import annotations

import argparse
import contextlib
import cProfile
import io
import json
import operator
import os
import pstats
import re
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Annotated, TypedDict

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # the repo first: `engine`, `debugger`, `sample_graphs`

from benchmarks.first_paint import measure as first_paint  # noqa: E402
from benchmarks.live_ui import live_click_times  # noqa: E402
from benchmarks.live_ui import report as live_report
from benchmarks.live_ui import write_workload as write_live_workload
from debugger.model.trace_view import Scope  # noqa: E402
from engine import END, START, StateGraph  # noqa: E402

APP = str(ROOT / "debugger" / "app.py")
CHROMIUM = "/usr/bin/chromium"
CHAINS, CHAIN_LENGTH = 10, 20
LOOP_STEPS = 1000
FIRST_PAINT_PATH = "/?sample=fan_out_search"


# ---- workloads ----------------------------------------------------------------------------------------


class WideState(TypedDict):
    log: Annotated[list[str], operator.add]
    hops: Annotated[int, operator.add]


def wide_graph():
    """200 nodes: 10 chains of 20 (`c<i>_n<j>`), a router at each chain's 10th node (skip ahead or
    not: dashed edges), a join waiting for every chain, and a compiled subgraph node after it."""
    sub = StateGraph(WideState)
    sub.add_node("inner", lambda s: {"log": ["inner"]})
    sub.add_edge(START, "inner")

    g = StateGraph(WideState)
    last_nodes = []
    for c in range(CHAINS):
        names = [f"c{c}_n{j:02d}" for j in range(CHAIN_LENGTH)]
        for j, name in enumerate(names):
            g.add_node(name, lambda s, name=name: {"log": [name], "hops": 1})
        g.add_edge(START, names[0])
        for j in range(CHAIN_LENGTH - 1):
            if j == 9:
                route = {"on": names[j + 1], "skip": names[j + 2]}
                g.add_conditional_edges(names[j], lambda s: "on", route)
            elif j != 10:
                g.add_edge(names[j], names[j + 1])
        g.add_edge(names[10], names[11])
        last_nodes.append(names[-1])
    g.add_node("join", lambda s: {"log": ["join"]})
    g.add_edge(last_nodes, "join")
    g.add_node("sub", sub.compile())
    g.add_edge("join", "sub")
    g.add_edge("sub", END)
    return g.compile(), {"log": [], "hops": 0}, {"recursion_limit": 100}


class LoopState(TypedDict):
    log: Annotated[list[str], operator.add]
    turns: Annotated[int, operator.add]


def long_loop():
    """plan -> act -> check, and check routes back to plan until 1,000 supersteps have run."""
    g = StateGraph(LoopState)
    g.add_node("plan", lambda s: {"log": [f"plan {s['turns']}"]})
    g.add_node("act", lambda s: {"log": [f"act {s['turns']}"]})
    g.add_node("check", lambda s: {"turns": 1})
    g.add_edge(START, "plan")
    g.add_edge("plan", "act")
    g.add_edge("act", "check")
    g.add_conditional_edges("check", lambda s: "plan" if 3 * s["turns"] < LOOP_STEPS - 1 else END, ["plan", END])
    return g.compile(), {"log": [], "turns": 0}, {"recursion_limit": LOOP_STEPS + 10}


MODULES = {
    "small": "from sample_graphs.fan_out_search import graph, example_input\n",
    "wide": "from benchmarks.ui import wide_graph\n\ngraph, example_input, example_config = wide_graph()\n",
    "long": "from benchmarks.ui import long_loop\n\ngraph, example_input, example_config = long_loop()\n",
}


def write_workloads(folder: Path) -> dict[str, str]:
    """name -> a graph file the app opens (sidebar: Graph file), so each run has its live graph (what-if)."""
    targets = {}
    for name, text in MODULES.items():
        path = folder / f"bench_{name}.py"
        path.write_text(f"import sys\nsys.path.insert(0, {str(ROOT)!r})\n\n{text}")
        targets[name] = str(path)
    return targets


# ---- server side: AppTest -----------------------------------------------------------------------------


def _stepper_at(at) -> tuple[int, int]:
    """(index, count) of the step the page's stepper shows."""
    data = json.loads(at.get("bidi_component")[0].proto.json)
    return data["at"], data["count"]


def _step_key(at, direction: str) -> str:
    """Next while there is a next step, then Prev back down (a 4-step run cannot take 20 Nexts)."""
    index, count = _stepper_at(at)
    if (direction == "next" and index >= count - 1) or (direction == "prev" and index <= 0):
        direction = "prev" if direction == "next" else "next"
    return direction


_moves = iter(range(1, 10**9))


def _report_step(at, direction: str) -> None:
    """What the stepper's script does after a press: it reports the step, and the page reruns for it."""
    view = at.session_state["stepscope_run"].view.view(Scope())
    index, _ = _stepper_at(at)
    step = view.steps[index + (1 if direction == "next" else -1)]
    at.session_state["stepscope_stepper"] = {"move": {"step": step, "seq": next(_moves)}}
    at.run()


@contextlib.contextmanager
def _profiling_script_runs(profiler: cProfile.Profile | None):
    """Profiles the app's script runs, which AppTest runs in a thread of their own."""
    if profiler is None:
        yield
        return
    from streamlit.runtime.scriptrunner.script_runner import ScriptRunner

    original = ScriptRunner._run_script

    def run_script(self, rerun_data):
        profiler.enable()
        try:
            return original(self, rerun_data)
        finally:
            profiler.disable()

    ScriptRunner._run_script = run_script
    try:
        yield
    finally:
        ScriptRunner._run_script = original


def server_times(target: str, clicks: int, profile: bool) -> tuple[float, list[float], str, tuple[int, int]]:
    """(first open, per-click seconds, profile text, (nodes, steps)) for step changes of one run in AppTest."""
    import streamlit as st
    from streamlit.testing.v1 import AppTest

    st.cache_data.clear()
    st.cache_resource.clear()
    at = AppTest.from_file(APP, default_timeout=300)
    at.run()
    at.radio(key="open_kind").set_value("Graph file").run()
    at.text_input(key="file_target").input(target)
    started = time.perf_counter()
    at.button(key="open_file").click().run()
    first = time.perf_counter() - started
    if at.exception or at.sidebar.error:
        raise SystemExit(f"the app failed to open {target}: {at.exception or at.sidebar.error[0].value}")
    view = at.session_state["stepscope_run"].view.view(Scope())
    shape = (len(view.drawing.nodes), len([s for s in view.steps if s >= 0]))
    direction = _step_key(at, "next")
    _report_step(at, direction)  # warm: the first step change fills the view caches
    profiler = cProfile.Profile() if profile else None
    times = []
    with _profiling_script_runs(profiler):
        for _ in range(clicks):
            key = direction = _step_key(at, direction)
            started = time.perf_counter()
            _report_step(at, key)
            times.append(time.perf_counter() - started)
            if at.exception:
                raise SystemExit(f"the app failed stepping {target}: {at.exception}")
    text = ""
    if profiler:
        buffer = io.StringIO()
        pstats.Stats(profiler, stream=buffer).sort_stats("cumulative").print_stats(30)
        text = buffer.getvalue()
    return first, times, text, shape


# ---- browser side: Playwright + chromium --------------------------------------------------------------

REDRAW_JS = """
(key) => new Promise((resolve) => {
  // the stepper's root, in the page's shadow root or in the HTML file's body
  const host = document.querySelector('[data-testid="stBidiComponentIsolated"]');
  const scope = host ? host.shadowRoot : document;
  const root = scope.querySelector('.stepscope-stepper').parentElement;
  const before = root.dataset.step;
  const started = performance.now();
  document.dispatchEvent(new KeyboardEvent('keydown', {key: key, bubbles: true}));
  // drawn: the step changed and the browser has painted the frame after it
  const check = () => root.dataset.step !== before && root.dataset.ready === '1'
    ? requestAnimationFrame(() => resolve(performance.now() - started)) : requestAnimationFrame(check);
  check();
})
"""
STEPPER_AT = """() => { const host = document.querySelector('[data-testid="stBidiComponentIsolated"]');
  const s = (host ? host.shadowRoot : document).querySelector('.stepscope-stepper .at');
  return s ? s.textContent : ''; }"""


def _press_times(page, steps: int) -> list[float]:
    """Seconds from each ArrowRight (ArrowLeft once at the end) to the new step drawn; the first not counted."""
    key, times = "ArrowRight", []
    for _ in range(steps + 1):
        text = page.evaluate(STEPPER_AT)
        match = re.search(r"\((\d+) \D+ (\d+)\)", text)
        if match and key == "ArrowRight" and match.group(1) == match.group(2):
            key = "ArrowLeft"
        elif match and key == "ArrowLeft" and match.group(1) == "1":
            key = "ArrowRight"
        times.append(page.evaluate(REDRAW_JS, key) / 1000)
    return times[1:]


def html_times(targets: dict[str, str], steps: int, folder: Path) -> dict[str, list[float]]:
    """name -> key-press-to-drawn seconds in the run's one-file HTML export, opened from file://."""
    from playwright.sync_api import sync_playwright

    from debugger.model.html_report import html_report
    from debugger.runtimes.targets import load_target
    from engine.trace import Recorder

    out = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
        for name, target in targets.items():
            loaded = load_target(target)
            recorder = Recorder()
            loaded.graph.invoke(loaded.example_input, loaded.example_config, hooks=recorder)
            path = folder / f"{name}.html"
            path.write_text(html_report(recorder.trace), encoding="utf-8")
            page = browser.new_page(viewport={"width": 1400, "height": 1800})
            page.goto(path.as_uri())
            page.locator(".stepscope-stepper .at").wait_for()
            out[name] = _press_times(page, steps)
            page.close()
        browser.close()
    return out


IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_server(db: str) -> tuple[subprocess.Popen, str]:
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            APP,
            "--server.headless",
            "true",
            "--server.address",
            "127.0.0.1",
            "--server.port",
            str(port),
            "--browser.gatherUsageStats",
            "false",
            "--server.fileWatcherType",
            "none",
            "--server.runOnSave",
            "false",
        ],
        cwd=ROOT,
        env={**os.environ, "STEPSCOPE_DB": db},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.status == 200:
                    return proc, url
        except OSError:
            time.sleep(0.1)
    stop_server(proc)
    raise SystemExit("streamlit did not start")


def stop_server(proc: subprocess.Popen) -> None:
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def browser_times(url: str, targets: dict[str, str], steps: int) -> dict[str, tuple[float, list[float]]]:
    """name -> (open from the sidebar until the graph is drawn, per-step click-to-redraw seconds)."""
    from playwright.sync_api import sync_playwright

    out = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path=CHROMIUM,
            args=[
                "--no-sandbox",
                "--disable-gpu",
                "--disable-dev-shm-usage",
                "--disable-background-networking",
                "--disable-component-update",
                "--disable-sync",
                "--no-first-run",
                "--disable-quic",
            ],
        )
        for name, target in targets.items():
            page = browser.new_page(viewport={"width": 1400, "height": 1800})
            page.goto(url)
            # a new session's page draws its stepper first and the rest (the sidebar's forms) once it has drawn
            page.locator(".stepscope-host:not([data-first-paint])").wait_for(timeout=120_000)
            page.locator(IDLE).wait_for(timeout=120_000)
            page.locator('[data-testid="stSidebar"]').get_by_text("Graph file", exact=True).click()
            page.locator(".st-key-file_target input").wait_for(timeout=120_000)
            page.locator(IDLE).wait_for(timeout=120_000)
            page.locator(".st-key-file_target input").fill(target)
            page.locator(".st-key-file_target input").press("Enter")
            page.locator(IDLE).wait_for(timeout=120_000)
            started = time.perf_counter()
            page.locator(".st-key-open_file button").click()
            page.locator(IDLE).wait_for(timeout=120_000)
            page.locator(".stepscope-graph svg g.stepscope-node.ran").first.wait_for(timeout=120_000)
            opened = time.perf_counter() - started
            page.mouse.click(5, 5)
            times = _press_times(page, steps)
            page.locator(IDLE).wait_for(timeout=120_000)  # the page's rerun after the last report
            out[name] = (opened, times)
            page.close()
        browser.close()
    return out


# ---- report -------------------------------------------------------------------------------------------


def ms(seconds: float) -> str:
    return f"{seconds * 1000:8.1f} ms"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clicks", type=int, default=20, help="AppTest step changes per run (median)")
    parser.add_argument("--browser-steps", type=int, default=10, help="browser step changes per run (median)")
    parser.add_argument("--no-browser", action="store_true", help="server side only")
    parser.add_argument("--profile", action="store_true", help="print a cProfile of the server-side step changes")
    parser.add_argument("--first-paints", type=int, default=5, help="new-session visits of each page (median)")
    parser.add_argument("--no-live", action="store_true", help="skip the Live run page's clicks")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix="stepscope-bench-") as folder:
        db = str(Path(folder) / "runs.sqlite3")
        os.environ["STEPSCOPE_DB"] = db
        targets = write_workloads(Path(folder))

        server: dict[str, tuple[float, float]] = {}
        shapes: dict[str, tuple[int, int]] = {}
        for name, target in targets.items():
            first, times, profile, shapes[name] = server_times(target, args.clicks, args.profile)
            server[name] = (first, statistics.median(times))
            if profile:
                print(f"\n---- cProfile of {args.clicks} step changes, {name} ----\n{profile}")

        browser: dict[str, tuple[float, float]] = {}
        html_file: dict[str, float] = {}
        live = None
        if not args.no_browser:
            if not os.path.exists(CHROMIUM):
                print(f"\n{CHROMIUM} is missing: browser timings skipped (apt-get install chromium)")
            else:
                # the floor first: a bare Streamlit page with one graphviz chart, measured in turns with ours
                paints = first_paint(FIRST_PAINT_PATH, args.first_paints, db)
                proc, url = start_server(db)
                try:
                    measured = browser_times(url, targets, args.browser_steps)
                    live = (
                        None
                        if args.no_live
                        else live_click_times(url, write_live_workload(Path(folder)), args.browser_steps)
                    )
                finally:
                    stop_server(proc)
                browser = {n: (load, statistics.median(times)) for n, (load, times) in measured.items()}
                html_file = {
                    n: statistics.median(t) for n, t in html_times(targets, args.browser_steps, Path(folder)).items()
                }

    print(f"\nstep change, median of {args.clicks} (server) and {args.browser_steps} (browser) clicks; ratio to small")
    print(
        f"{'run':30} {'server (AppTest)':>17} {'ratio':>6} {'page: key->drawn':>17} {'ratio':>6}"
        f" {'HTML file':>10}   {'open: server':>12} {'browser':>8}"
    )
    base_server = server["small"][1]
    base_browser = browser.get("small", (0, 0))[1]
    for name, (nodes, steps) in shapes.items():
        first, step = server[name]
        line = f"{f'{name} ({nodes} nodes, {steps} steps)':30} {ms(step):>17} {step / base_server:6.1f}"
        if name in browser:
            line += f" {ms(browser[name][1]):>17} {browser[name][1] / base_browser:6.1f}"
            line += f" {ms(html_file[name]):>10}" if name in html_file else f" {'-':>10}"
        else:
            line += f" {'-':>17} {'-':>6} {'-':>10}"
        line += f"   {first:11.2f}s" + (f" {browser[name][0]:7.2f}s" if name in browser else "")
        print(line)
    if browser:
        print("\n" + paints.report(FIRST_PAINT_PATH))
    if live is not None:
        print("\n" + live_report(*live))


if __name__ == "__main__":
    main()
