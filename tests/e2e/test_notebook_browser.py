"""The notebook tutorial in a real JupyterLab, in Chromium (issue 40, item 4).

A JupyterLab server is started for the module on a free 127.0.0.1 port, without a token, in a temporary
home (config, data, runtime, settings and workspaces folders of its own, news and update checks off), on
a copy of docs/notebooks so its autosave never touches the repository. The test runs every cell, waits for
each `show()` to be drawn as the stepper, steps the subgraph trap's widget with its buttons and the arrow
keys, reads the widget's `step` trait back from the kernel, and checks that the browser asked nothing of
any host but the server."""

from __future__ import annotations

import json
import os
import re
import shutil
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from tests.e2e.conftest import _free_port, served

ROOT = Path(__file__).resolve().parents[2]
NOTEBOOK = ROOT / "docs" / "notebooks" / "reducers.ipynb"
STEPPER = ".jp-OutputArea .stepscope-stepper"


def _get(url: str) -> object | None:
    try:
        with urllib.request.urlopen(url, timeout=2) as response:
            return json.loads(response.read())
    except (OSError, ValueError):
        return None


def _shows_in(notebook: Path) -> int:
    """How many code cells end in a widget: every `show(...)` call whose value is the cell's result."""
    cells = json.loads(notebook.read_text(encoding="utf-8"))["cells"]
    code = ["".join(c["source"]).strip() for c in cells if c["cell_type"] == "code"]
    return sum(1 for text in code if re.search(r"(^|\n)(show\(.*\)|[a-z_]+)$", text) and "show(" in text)


@pytest.fixture(scope="module")
def jupyterlab(tmp_path_factory):
    """(url, runtime folder): a JupyterLab serving a copy of docs/notebooks."""
    pytest.importorskip("jupyterlab", reason="the test extra installs JupyterLab: pip install -e '.[test]'")
    home = tmp_path_factory.mktemp("jupyter-home")
    notebooks = home / "notebooks"
    shutil.copytree(NOTEBOOK.parent, notebooks)
    settings = home / "settings"
    # one long output area per notebook: virtual scrolling would leave far cells undrawn until scrolled to
    (settings / "@jupyterlab" / "notebook-extension").mkdir(parents=True)
    (settings / "@jupyterlab" / "notebook-extension" / "tracker.jupyterlab-settings").write_text(
        json.dumps({"windowingMode": "none"})
    )
    (settings / "@jupyterlab" / "apputils-extension").mkdir(parents=True)
    (settings / "@jupyterlab" / "apputils-extension" / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False})
    )
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    env = {
        **os.environ,
        "HOME": str(home),
        "JUPYTER_CONFIG_DIR": str(home / "config"),
        "JUPYTER_RUNTIME_DIR": str(home / "runtime"),
        "JUPYTERLAB_SETTINGS_DIR": str(settings),
        "JUPYTERLAB_WORKSPACES_DIR": str(home / "workspaces"),
        "PYTHONPATH": os.pathsep.join(p for p in (str(ROOT), os.environ.get("PYTHONPATH", "")) if p),
        "STEPSCOPE_DB": str(home / "runs.sqlite3"),
    }
    command = [
        sys.executable,
        "-m",
        "jupyterlab",
        "--no-browser",
        "--allow-root",
        "--ip=127.0.0.1",
        f"--port={port}",
        "--port-retries=0",
        f"--ServerApp.root_dir={notebooks}",
        "--IdentityProvider.token=",
        "--ServerApp.password=",
        "--LabApp.news_url=",
        "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
        "--LabApp.extension_manager=readonly",
    ]  # fmt: skip
    status = f"{url}/api/status"
    with served(
        command, cwd=notebooks, env=env, log_path=home / "lab.log", ready=lambda: _get(status) is not None,
        what="JupyterLab", seconds=90, grace=15,
    ):  # fmt: skip
        yield url, home / "runtime"


def _wait_for_an_idle_kernel(url: str) -> None:
    deadline = time.monotonic() + 90
    while time.monotonic() < deadline:
        kernels = _get(f"{url}/api/kernels") or []
        if kernels and all(k.get("execution_state") == "idle" for k in kernels):
            return
        time.sleep(0.5)
    pytest.fail(f"the notebook's kernel did not start in 90 s: {_get(f'{url}/api/kernels')}")


def _kernel_says(runtime: Path, url: str, code: str) -> str:
    """What `code` prints in the notebook's own kernel (the one JupyterLab started for it)."""
    from jupyter_client import BlockingKernelClient

    sessions = _get(f"{url}/api/sessions") or []
    (kernel_id,) = [s["kernel"]["id"] for s in sessions if s["path"].endswith("reducers.ipynb")]
    client = BlockingKernelClient(connection_file=str(runtime / f"kernel-{kernel_id}.json"))
    client.load_connection_file()
    client.start_channels()
    try:
        printed: list[str] = []
        client.execute_interactive(code, timeout=30, output_hook=lambda m: printed.append(m["content"].get("text", "")))
        return "".join(printed).strip()
    finally:
        client.stop_channels()


def test_the_tutorial_runs_in_jupyterlab_and_its_trap_steps_with_buttons_and_keys(jupyterlab, browser):
    from playwright.sync_api import expect

    url, runtime = jupyterlab
    host = url + "/"
    context = browser.new_context(viewport={"width": 1400, "height": 1600})
    elsewhere: list[str] = []

    def note_other_hosts(request) -> None:
        # recorded, not intercepted: routing every request through the test stalls JupyterLab's start
        if not request.url.startswith((host, "ws://127.0.0.1:" + host.rsplit(":", 1)[1], "data:", "blob:")):
            elsewhere.append(request.url)

    context.on("request", note_other_hosts)
    page = context.new_page()
    page_errors: list[str] = []
    page.on("pageerror", lambda error: page_errors.append(str(error)))
    page.on("websocket", lambda socket: note_other_hosts(socket))
    try:
        page.goto(f"{url}/lab/tree/reducers.ipynb", timeout=90_000)
        page.locator(".jp-Notebook .jp-Cell").first.wait_for(timeout=90_000)
        _wait_for_an_idle_kernel(url)
        page.locator(".lm-MenuBar-itemLabel", has_text=re.compile(r"^Run$")).click()
        page.locator(".lm-Menu-itemLabel", has_text=re.compile(r"^Run All Cells$")).click()

        widgets = page.locator(STEPPER)
        expect(widgets).to_have_count(_shows_in(NOTEBOOK), timeout=180_000)
        errors = page.locator('.jp-OutputArea-output[data-mime-type="application/vnd.jupyter.error"]')
        expect(errors).to_have_count(0)

        # the subgraph trap's widget: its cell set trap.step = 2, the step where the parent's list is doubled
        trap = widgets.nth(2)
        trap.scroll_into_view_if_needed()
        at = trap.locator(".at")
        expect(at).to_have_text("Step 2 (3 of 3) 🔎")
        repeated = trap.locator("table.merge tr.repeated")
        expect(repeated).to_contain_text("['parent', 'parent', 'sub-1']")
        expect(repeated).to_contain_text("(1 of them already there: duplicated)")
        expect(trap.locator(".step-findings")).to_contain_text("Subgraph node child re-appended 'log'")
        page.screenshot(path=str(_screenshot("notebook-trap-step-2")))

        trap.locator('button[data-move="prev"]').click()
        expect(at).to_have_text("Step 1 (2 of 3)")
        expect(trap.locator("svg g#node_p1")).to_have_attribute("data-state", "ran")
        page.keyboard.press("ArrowLeft")  # the clicked widget has the keys, not the notebook
        expect(at).to_have_text("Step 0 (1 of 3)")
        page.keyboard.press("ArrowRight")
        expect(at).to_have_text("Step 1 (2 of 3)")
        # the other widgets did not move: the keys went to the one clicked
        expect(widgets.nth(3).locator(".at")).not_to_have_text("Step 0 (1 of 3)")

        deadline = time.monotonic() + 20
        while (said := _kernel_says(runtime, url, "print(trap.step)")) != "1" and time.monotonic() < deadline:
            time.sleep(0.5)  # the step trait reaches the kernel over the widget's comm, a moment after the press
        assert said == "1", f"the kernel's trap.step is {said!r} after stepping to 1 in the browser"

        # and the kernel moves the widget: w.step = 2 from code shows the duplicated list again
        _kernel_says(runtime, url, "trap.step = 2")
        expect(at).to_have_text("Step 2 (3 of 3) 🔎")
        expect(trap.locator("table.merge tr.repeated")).to_have_count(1)
    finally:
        page.screenshot(path=str(_screenshot("notebook-end")))
        context.close()
    assert page_errors == [], page_errors
    assert elsewhere == [], f"the notebook's page asked hosts other than the server: {elsewhere}"


def _screenshot(name: str) -> Path:
    folder = Path(os.environ.get("STEPSCOPE_SCREENSHOTS") or ROOT / "test-artifacts" / "screenshots")
    folder.mkdir(parents=True, exist_ok=True)
    return folder / f"{name}.png"
