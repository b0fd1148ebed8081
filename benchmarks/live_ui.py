"""The Live run page's step changes while a run goes, next to the same once it has finished.

`benchmarks/ui.py` calls `live_click_times` with its server; on its own:
`.venv/bin/python benchmarks/live_ui.py [--clicks 10]` starts a server of its own.

The workload is a loop of up to `STEPS` supersteps whose node sleeps `SLEEP` seconds, so the run
goes on in the background while chromium (Debian's, via Playwright) presses ← / → in the page's
stepper. A press's time runs from the key until the stepper has drawn another step (its root's
`data-step`, then the next frame; timed in the page itself). Then Stop ends the run, and the same
presses are made on the finished (stopped) run. No targets are asserted: the numbers are for reading.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

CHROMIUM = "/usr/bin/chromium"
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
STEPS, SLEEP = 1000, 0.4

WORKLOAD = f"""
import operator, time
from typing import Annotated, TypedDict
from engine import END, START, StateGraph


class State(TypedDict):
    n: int
    log: Annotated[list[int], operator.add]


def work(state):
    time.sleep({SLEEP})
    return {{"n": state["n"] + 1, "log": [state["n"]]}}


builder = StateGraph(State)
builder.add_node("work", work)
builder.add_edge(START, "work")
builder.add_conditional_edges("work", lambda s: "work" if s["n"] < {STEPS} else END, ["work", END])
graph = builder.compile()
example_input = {{"n": 0, "log": []}}
example_config = {{"recursion_limit": {STEPS + 10}}}
"""

PRESS_JS = """
async (stepper, key) => {
  const root = stepper.parentElement;  // the stepper's root names the step it shows (data-step)
  const before = root.dataset.step;
  const started = performance.now();
  document.dispatchEvent(new KeyboardEvent("keydown", {key, bubbles: true, composed: true}));
  return await new Promise(resolve => {
    const check = () => {
      if (root.dataset.step !== before) requestAnimationFrame(() => resolve(performance.now() - started));
      else if (performance.now() - started > 20000) resolve(-1);
      else requestAnimationFrame(check);
    };
    check();
  });
}
"""
"""From an arrow key to another step drawn by the page's stepper (its root's data-step, then a frame)."""
STEPPER = ".stepscope-stepper"


def write_workload(folder: Path) -> str:
    path = folder / "live_loop.py"
    path.write_text(WORKLOAD, encoding="utf-8")
    return str(path)


def _shown_step(page) -> int:
    step = page.locator(STEPPER).evaluate("s => s.parentElement.dataset.step")
    return int(step) if step else -1


def _clicks(page, clicks: int) -> list[float]:
    """←, →, ←, ...: seconds from each key press until the stepper has drawn another step. The first
    press (it also stops following the newest step, so later steps change only by keys) is not counted."""
    times = []
    for index in range(clicks + 1):
        key = "ArrowLeft" if index % 2 == 0 else "ArrowRight"
        took = page.locator(STEPPER).evaluate(PRESS_JS, key)
        if took < 0:
            page.screenshot(path="/tmp/bench_fail.png")
            raise SystemExit(f"no other step showed within 20 s of {key} (step {_shown_step(page)}, press {index})")
        times.append(took / 1000)
        page.locator(IDLE).wait_for(timeout=60_000)
    return times[1:]


def live_click_times(url: str, target: str, clicks: int) -> tuple[list[float], list[float]]:
    """(seconds per step change while the run goes, the same on the finished run)."""
    from playwright.sync_api import sync_playwright

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
        page = browser.new_page(viewport={"width": 1400, "height": 1800})
        page.goto(f"{url}/live")
        page.locator(IDLE).wait_for(timeout=120_000)
        main = page.get_by_test_id("stMainBlockContainer")
        main.get_by_text("Graph file", exact=True).click()
        page.locator(".st-key-live_file input").wait_for(timeout=60_000)
        page.locator(".st-key-live_file input").fill(target)
        page.locator(".st-key-live_file input").press("Enter")
        main.get_by_text("nodes work").first.wait_for(timeout=60_000)
        page.locator(".st-key-live_start button").click()
        page.locator(STEPPER).wait_for(timeout=60_000)
        while _shown_step(page) < 3:  # a few committed steps to move between
            time.sleep(0.1)
        during = _clicks(page, clicks)
        if main.get_by_text("running: step").count() == 0:
            print("warning: the run ended before the live clicks did; raise STEPS or SLEEP", file=sys.stderr)
        main.get_by_role("button", name="⏹ Stop").click()  # a stopped run is a finished run like any other
        page.get_by_role("heading", name="The run is over").wait_for(timeout=60_000)
        page.locator(IDLE).wait_for(timeout=60_000)
        finished = _clicks(page, clicks)
        browser.close()
    return during, finished


def report(during: list[float], finished: list[float]) -> str:
    live, done = statistics.median(during), statistics.median(finished)
    return (
        f"live run page, a key press (← / →) until the stepper has drawn the step, median of {len(during)}:\n"
        f"  during a live run {live * 1000:8.1f} ms   on the finished run {done * 1000:8.1f} ms   "
        f"ratio {live / done:4.2f}"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--clicks", type=int, default=10)
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT / "benchmarks"))
    from ui import start_server, stop_server  # noqa: E402 - the same server helpers as ui.py

    with tempfile.TemporaryDirectory(prefix="stepscope-live-bench-") as folder:
        proc, url = start_server(str(Path(folder) / "runs.sqlite3"))
        try:
            started = time.perf_counter()
            during, finished = live_click_times(url, write_workload(Path(folder)), args.clicks)
        finally:
            stop_server(proc)
    print(report(during, finished) + f"\n  (whole measurement {time.perf_counter() - started:.1f} s)")


if __name__ == "__main__":
    main()
