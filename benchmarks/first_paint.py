"""A new browser session's first drawn graph: StepScope next to a bare Streamlit page (the floor).

Both pages are served the same way (`streamlit run` with the flags `stepscope app` uses, one server
each, both warmed by one visit first) and opened the same way: a freshly started chromium, a new
context (no cache, a new Streamlit session), `page.goto`. The floor is `benchmarks/bare_graph_page.py`,
one `st.graphviz_chart`: what any Streamlit app pays before it can draw. For StepScope it also times
when the stepper's Next button can be clicked (the buttons must not wait for anything after the graph).

The clock is the page's own (`performance.now()`, from the start of the navigation): an observer in the
page (in every shadow root too) notes when the graph's first node is in the page, and the graph counts
as drawn after the next frame has been painted. Beside it, Playwright's own wait (goto to its locator
found) is printed, as before: it polls at 0, 20, 50, 100, 100, then every 500 ms, and a poll waits behind
whatever the page does next, so it reads up to half a second late. Deterministic figures, counted up to
the drawing: bytes received (HTTP transfer sizes and websocket messages), JavaScript files fetched, and
websocket messages sent (the browser's requests to the server: script runs asked for).

The machine may be shared: the two pages are measured in turns (bare, StepScope, bare, ...), so a
burst of load falls on both, and the medians are compared. On its own:
`.venv/bin/python benchmarks/first_paint.py [--repeats 7] [--path "/?sample=fan_out_search"]`.
"""

from __future__ import annotations

import argparse
import json
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
class Visit:
    """One visit of a page in a new browser: its page's clock (seconds since the navigation started)."""

    drawn: float
    """Until the frame after the graph's first node came into the page was painted."""
    waited: float
    """Playwright's wall clock from `page.goto` to its locator finding that node."""
    clickable: float | None
    """StepScope: until its Next button is enabled (page clock)."""
    received: int
    """Bytes received before the graph was drawn: HTTP transfer sizes plus websocket messages."""
    scripts: int
    """JavaScript files fetched before it was drawn."""
    sent: int
    """Websocket messages the browser sent before it was drawn (its requests for script runs)."""


@dataclass
class Paints:
    """The visits of each page, in the order measured."""

    bare: list[Visit]
    ours: list[Visit]

    @property
    def graph(self) -> list[float]:
        """StepScope's first drawn graph (page clock), seconds per visit."""
        return [v.drawn for v in self.ours]

    def report(self, path: str) -> str:
        """The medians, each visit's time and StepScope's ratio to the floor, as printed lines."""

        def row(values: list[float]) -> str:
            return ", ".join(f"{v:.2f}" for v in values)

        def line(name: str, visits: list[Visit]) -> str:
            drawn, waited = [v.drawn for v in visits], [v.waited for v in visits]
            counts = (statistics.median(getattr(v, k) for v in visits) for k in ("received", "scripts", "sent"))
            received, scripts, sent = counts
            return (
                f"  {name}: median {statistics.median(drawn):.2f}s  ({row(drawn)});"
                f" Playwright's wait {statistics.median(waited):.2f}s  ({row(waited)})\n"
                f"    before it: {received / 1e3:,.0f} KB received, {scripts:.0f} JavaScript files,"
                f" {sent:.0f} websocket message(s) sent"
            )

        floor, ours = statistics.median(v.drawn for v in self.bare), statistics.median(self.graph)
        buttons = [v.clickable or v.drawn for v in self.ours]
        return (
            f"first drawn graph in a new browser session, {len(self.bare)} visits each, measured in turns:\n"
            + line("bare Streamlit page, one graphviz chart (the floor)", self.bare)
            + "\n"
            + line(f"StepScope {path}", self.ours)
            + f"\n  StepScope / floor: {ours / floor:.2f}x, {ours - floor:+.2f}s"
            + f"\n  StepScope's Next button clickable: median {statistics.median(buttons):.2f}s  ({row(buttons)})"
        )


WATCH = """
(() => {
  const marks = (window.__stepscopeMarks = { sent: [], received: [] });
  const wanted = %s;
  const roots = [document];
  const check = () => {
    for (const [name, selector] of Object.entries(wanted)) {
      if (marks[name] || !roots.some((r) => r.querySelector(selector))) continue;
      marks[name] = { found: performance.now() };
      requestAnimationFrame(() => setTimeout(() => (marks[name].painted = performance.now()), 0));
    }
  };
  const watch = (root) =>
    new MutationObserver(check).observe(root, { childList: true, subtree: true, attributes: true });
  const attach = Element.prototype.attachShadow;
  Element.prototype.attachShadow = function (init) {
    const shadow = attach.call(this, init);
    roots.push(shadow);
    watch(shadow);
    return shadow;
  };
  watch(document);
  const Socket = window.WebSocket;
  window.WebSocket = class extends Socket {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (e) => {
        marks.received.push([performance.now(), e.data.size ?? e.data.byteLength ?? e.data.length]);
      });
    }
    send(data) {
      marks.sent.push(performance.now());
      super.send(data);
    }
  };
})();
"""
"""Put in the page before its own scripts: when each wanted selector first matches (and the frame after it
is painted), and the websocket's traffic, all on the page's clock."""

COUNTED = """marks => {
  const until = marks.drawn.painted;
  const fetched = performance.getEntriesByType("resource").filter((r) => r.responseEnd <= until);
  const navigation = performance.getEntriesByType("navigation")[0];
  return {
    received: (navigation ? navigation.transferSize : 0) + fetched.reduce((n, r) => n + r.transferSize, 0)
      + marks.received.filter(([t]) => t <= until).reduce((n, [, size]) => n + size, 0),
    scripts: fetched.filter((r) => r.name.endsWith(".js")).length,
    sent: marks.sent.filter((t) => t <= until).length,
  };
}"""
"""What the page received, fetched and sent before the graph was drawn."""


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


def visit(playwright, url: str, drawn: str, then: str | None = None) -> Visit:
    """One visit of `url` in a fresh chromium and session: when `drawn` (and `then`) came, and what it cost."""
    browser = playwright.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
    try:
        context = browser.new_context(viewport={"width": 1280, "height": 800})
        context.add_init_script(WATCH % json.dumps({"drawn": drawn, **({"then": then} if then else {})}))
        page = context.new_page()
        started = time.perf_counter()
        page.goto(url)
        page.locator(drawn).first.wait_for(timeout=120_000)
        waited = time.perf_counter() - started
        wanted = "m => m.drawn && m.drawn.painted" + (" && m.then && m.then.painted" if then else "")
        page.wait_for_function(f"({wanted})(window.__stepscopeMarks)", timeout=120_000)
        marks = page.evaluate("window.__stepscopeMarks")
        counted = page.evaluate(f"({COUNTED})(window.__stepscopeMarks)")
        clickable = marks["then"]["painted"] / 1000 if then else None
        return Visit(marks["drawn"]["painted"] / 1000, waited, clickable, **counted)
    finally:
        browser.close()


def measure(path: str, repeats: int, db: str) -> Paints:
    """Both servers up, one warming visit each, then `repeats` visits of each page in turns."""
    from playwright.sync_api import sync_playwright

    bare_proc, bare_url = start(BARE, db)
    ours_proc, ours_url = start(APP, db)
    paints = Paints([], [])
    try:
        with sync_playwright() as p:
            visit(p, bare_url, BARE_GRAPH)  # a server's first script run imports everything
            visit(p, ours_url + path, STEPSCOPE_GRAPH, STEPSCOPE_NEXT)
            for _ in range(repeats):
                paints.bare.append(visit(p, bare_url, BARE_GRAPH))
                paints.ours.append(visit(p, ours_url + path, STEPSCOPE_GRAPH, STEPSCOPE_NEXT))
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
