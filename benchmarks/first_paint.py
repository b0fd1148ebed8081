"""A new browser session's first drawn graph: StepScope next to a bare Streamlit page (the floor).

Both pages are served the same way (`streamlit run` with the flags `stepscope app` uses, one server
each, both warmed by one visit first) and opened the same way: a freshly started chromium, a new
context (no cache, a new Streamlit session), `page.goto`, and the clock stops when the graph's first
node is in the page. The floor is `benchmarks/bare_graph_page.py`, one `st.graphviz_chart`: what any
Streamlit app pays before it can draw. For StepScope it also stops a second clock when the stepper's
Next button can be clicked (the buttons must not wait for anything after the graph).

The machine may be shared: the two pages are measured in turns (bare, StepScope, bare, ...), so a
burst of load falls on both, and the medians are compared. On its own:
`.venv/bin/python benchmarks/first_paint.py [--repeats 7] [--path "/?sample=fan_out_search"]`.
"""

from __future__ import annotations

import argparse
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from debugger.commands.app_server import APP, streamlit_command  # noqa: E402

BARE = ROOT / "benchmarks" / "bare_graph_page.py"
CHROMIUM = "/usr/bin/chromium"
BARE_GRAPH = '[data-testid="stGraphVizChart"] svg g.node'
STEPSCOPE_GRAPH = ".stepscope-graph svg g.stepscope-node"
STEPSCOPE_NEXT = "button[data-move=next]:not([disabled])"
BROWSER_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--disable-background-networking"]


@dataclass
class Paints:
    """Seconds per visit, in the order measured."""

    bare: list[float]
    graph: list[float]
    """StepScope: until the first node of its drawing is in the page."""
    stepper: list[float]
    """StepScope: until its Next button is enabled."""

    def report(self, path: str) -> str:
        """The medians, each visit's time and StepScope's ratio to the floor, as printed lines."""
        floor, ours, buttons = (statistics.median(x) for x in (self.bare, self.graph, self.stepper))

        def row(values: list[float]) -> str:
            return ", ".join(f"{v:.2f}" for v in values)

        return (
            f"first drawn graph in a new browser session, {len(self.bare)} visits each, measured in turns:\n"
            f"  bare Streamlit page, one graphviz chart (the floor): median {floor:.2f}s  ({row(self.bare)})\n"
            f"  StepScope {path}: median {ours:.2f}s  ({row(self.graph)})  ratio {ours / floor:.2f}x the floor\n"
            f"  StepScope's Next button clickable: median {buttons:.2f}s  ({row(self.stepper)})"
        )


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start(script: Path, db: str) -> tuple[subprocess.Popen, str]:
    """`script` served as `stepscope app` serves the debugger; returns (process, URL) once healthy."""
    port = _free_port()
    command = streamlit_command(host="127.0.0.1", port=port)
    command[command.index(str(APP))] = str(script)
    proc = subprocess.Popen(
        command,
        cwd=ROOT,
        env={**os.environ, "STEPSCOPE_DB": db},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.status == 200:
                    return proc, url
        except OSError:
            time.sleep(0.1)
    stop(proc)
    raise SystemExit(f"streamlit did not start {script}")


def stop(proc: subprocess.Popen) -> None:
    """Ends the server this module started, by its process group."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def visit(playwright, url: str, drawn: str, then: str | None = None) -> tuple[float, float | None]:
    """(seconds until `drawn` is in the page, seconds until `then` is) in a fresh chromium and session."""
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
    try:
        page = browser.new_context(viewport={"width": 1280, "height": 800}).new_page()
        started = time.perf_counter()
        page.goto(url)
        page.locator(drawn).first.wait_for(timeout=120_000)
        graph = time.perf_counter() - started
        later = None
        if then:
            page.locator(then).first.wait_for(timeout=120_000)
            later = time.perf_counter() - started
        return graph, later
    finally:
        browser.close()


def measure(path: str, repeats: int, db: str) -> Paints:
    """Both servers up, one warming visit each, then `repeats` visits of each page in turns."""
    from playwright.sync_api import sync_playwright

    bare_proc, bare_url = start(BARE, db)
    ours_proc, ours_url = start(APP, db)
    paints = Paints([], [], [])
    try:
        with sync_playwright() as p:
            visit(p, bare_url, BARE_GRAPH)  # a server's first script run imports everything
            visit(p, ours_url + path, STEPSCOPE_GRAPH, STEPSCOPE_NEXT)
            for _ in range(repeats):
                paints.bare.append(visit(p, bare_url, BARE_GRAPH)[0])
                graph, stepper = visit(p, ours_url + path, STEPSCOPE_GRAPH, STEPSCOPE_NEXT)
                paints.graph.append(graph)
                paints.stepper.append(stepper or graph)
    finally:
        stop(bare_proc)
        stop(ours_proc)
    return paints


def main() -> None:
    """`benchmarks/first_paint.py [--repeats N] [--path LINK]`: measures and prints the report."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=7, help="visits of each page (median)")
    parser.add_argument("--path", default="/?sample=fan_out_search", help="the StepScope link opened")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="stepscope-paint-") as folder:
        print(measure(args.path, args.repeats, str(Path(folder) / "runs.sqlite3")).report(args.path))


if __name__ == "__main__":
    main()
