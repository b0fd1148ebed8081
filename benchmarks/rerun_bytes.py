"""What the Step-through page sends the browser for each step pressed: websocket bytes per rerun.

The stepper steps in the browser, and reports each move back; the page then reruns (the tabs below follow
the step, the URL's `step=` too), and Streamlit sends every element of the page again, the stepper's
component with it. This counts, in a fresh chromium, the websocket bytes the browser receives between a
press of → and the end of the rerun it caused (`data-test-script-state` back to `notRunning`), and the
stepper's own files fetched over HTTP (once per page load at most). Deterministic for a given page: the
same presses receive the same bytes on any machine (no clock in it), so it is the figure to compare.

Run: `.venv/bin/python benchmarks/rerun_bytes.py [--presses 10] [--path "/?sample=fan_out_search"]`.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from benchmarks.first_paint import APP, BROWSER_ARGS, CHROMIUM, STEPSCOPE_GRAPH, WATCH, start, stop  # noqa: E402

IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
WHOLE_PAGE = ".stepscope-host:not([data-first-paint])"
NEXT = "button[data-move=next]:not([disabled])"


def _received(page) -> int:
    return page.evaluate("window.__stepscopeMarks.received.reduce((n, [, size]) => n + size, 0)")


def _idle_after_press(page, before: int) -> None:
    """Waits for the rerun the press asked for: a websocket message came, and the script is idle again."""
    page.wait_for_function(f"window.__stepscopeMarks.received.length > {before}", timeout=60_000)
    page.locator(IDLE).wait_for(timeout=60_000)
    page.wait_for_timeout(300)  # the rerun's last messages (its end) after the state attribute flips


def per_press(url: str, presses: int) -> tuple[list[int], list[str]]:
    """Websocket bytes received for each of `presses` presses of →, and the stepper files fetched."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=BROWSER_ARGS)
        try:
            context = browser.new_context(viewport={"width": 1280, "height": 900})
            context.add_init_script(WATCH % json.dumps({"drawn": STEPSCOPE_GRAPH}))
            page = context.new_page()
            page.goto(url)
            page.locator(WHOLE_PAGE).wait_for(timeout=120_000)
            page.locator(IDLE).wait_for(timeout=60_000)
            page.wait_for_timeout(1000)
            sizes = []
            for _ in range(presses):
                if page.locator(NEXT).count() == 0:
                    break  # the run's last step: a press moves nothing
                before, count = _received(page), page.evaluate("window.__stepscopeMarks.received.length")
                page.mouse.click(5, 5)
                page.keyboard.press("ArrowRight")
                _idle_after_press(page, count)
                sizes.append(_received(page) - before)
            files = page.evaluate(
                "performance.getEntriesByType('resource').map(r => r.name).filter(n => n.includes('bidi-components'))"
            )
            return sizes, files
        finally:
            browser.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--presses", type=int, default=10, help="presses of → (the run's steps bound it)")
    parser.add_argument("--path", default="/?sample=fan_out_search&step=-1", help="the StepScope link opened")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="stepscope-rerun-") as folder:
        proc, url = start(APP, str(Path(folder) / "runs.sqlite3"))
        try:
            sizes, files = per_press(url + args.path, args.presses)
        finally:
            stop(proc)
    print(f"websocket bytes received per press of → ({args.path}), {len(sizes)} presses:")
    print(f"  median {statistics.median(sizes):,.0f} B  (each: {', '.join(f'{s:,}' for s in sizes)})")
    print(f"  stepper files fetched over HTTP: {len(files)}" + (f" ({', '.join(files)})" if files else ""))


if __name__ == "__main__":
    main()
