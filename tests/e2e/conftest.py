"""Real-browser tests: a `streamlit run` server for the session, driven by Debian's chromium.

- `streamlit_url` (session) starts `python -m streamlit run debugger/app.py` headless on a free
  127.0.0.1 port, with `STEPSCOPE_DB` in a temporary folder, and waits for `/_stcore/health`.
  It stops the server by its process group id at the end.
- pytest-playwright's `base_url`, `browser_type_launch_args` and `browser_context_args` are
  overridden: the browser is `/usr/bin/chromium` (never `playwright install`), the viewport is tall
  because Streamlit scrolls inside its own container. Without chromium the tests skip, except under
  CI (`CI` set), where that is a failure.
- `app` opens a URL and waits until the graph is drawn and the script is idle; `shot` saves a
  screenshot under `$STEPSCOPE_SCREENSHOTS` (default `test-artifacts/screenshots/`), and the
  terminal summary prints that folder.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
GRAPH = ".stepscope-graph svg"
"""The step drawing: SVG laid out by Graphviz on the server (debugger/views/widgets.py)."""
SCREENSHOTS = Path(os.environ.get("STEPSCOPE_SCREENSHOTS") or ROOT / "test-artifacts" / "screenshots")
_saved: list[Path] = []


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _healthy(url: str) -> bool:
    try:
        with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
            return response.status == 200 and response.read().strip() == b"ok"
    except OSError:
        return False


@pytest.fixture(scope="session")
def e2e_db(tmp_path_factory) -> Path:
    """The run database the app under test uses (tests may store runs in it directly)."""
    return tmp_path_factory.mktemp("e2e-db") / "runs.sqlite3"


@pytest.fixture(scope="session")
def streamlit_url(tmp_path_factory, e2e_db) -> str:
    folder = tmp_path_factory.mktemp("e2e-server")
    port = _free_port()
    url = f"http://127.0.0.1:{port}"
    env = {**os.environ, "STEPSCOPE_DB": str(e2e_db)}
    log = open(folder / "server.log", "wb")
    from debugger.commands.app_server import streamlit_command

    proc = subprocess.Popen(
        streamlit_command(host="127.0.0.1", port=port),  # the flags `stepscope app` uses
        cwd=ROOT,
        env=env,
        stdout=log,
        stderr=subprocess.STDOUT,
        stdin=subprocess.DEVNULL,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        while not _healthy(url):
            if proc.poll() is not None or time.monotonic() > deadline:
                log.flush()
                pytest.fail(
                    f"streamlit did not start (exit {proc.poll()}):\n{(folder / 'server.log').read_text()[-3000:]}"
                )
            time.sleep(0.1)
        yield url
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
        log.close()


@pytest.fixture(scope="session")
def base_url(streamlit_url) -> str:
    return streamlit_url


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    if not (os.path.exists(CHROMIUM) or shutil.which("chromium")):
        message = f"{CHROMIUM} is missing (apt-get install chromium; `make test` installs it)"
        if os.environ.get("CI"):
            pytest.fail(message + ": the browser tests must run on CI")
        pytest.skip(message)
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium"),
        "args": [
            "--no-sandbox",
            "--disable-gpu",
            "--disable-dev-shm-usage",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
            "--no-first-run",
            "--disable-quic",
        ],
    }


@pytest.fixture(scope="session")
def browser_context_args(browser_context_args):
    return {**browser_context_args, "viewport": {"width": 1400, "height": 1800}}


@pytest.fixture(autouse=True)
def _patient_expect():
    from playwright.sync_api import expect

    expect.set_options(timeout=20_000)  # a loaded 2-core CI machine lays out graphs slowly


def wait_idle(page) -> None:
    """Waits until the script run that the last interaction started has ended."""
    page.locator(IDLE).wait_for()


class App:
    """A page of the app, opened by `app.open(path)`; helpers to wait, step and read the graph."""

    def __init__(self, page) -> None:
        self.page = page

    def open(self, path: str, *, graph: bool = True) -> "App":
        self.page.goto(path)
        self.page.locator('[data-testid="stApp"]').wait_for()
        if graph:
            self.page.locator(GRAPH).first.wait_for()
        wait_idle(self.page)
        return self

    def idle(self) -> None:
        wait_idle(self.page)

    @property
    def graph(self):
        return self.page.locator(GRAPH)

    def node(self, name: str):
        """The SVG group of a node: `to_dot` gives it `id=node_<name>` and a class naming its state."""
        return self.page.locator(f"{GRAPH} g#node_{name}")

    def expect_step(self, step: int) -> None:
        from playwright.sync_api import expect

        expect(self.page).to_have_url(re.compile(rf"[?&]step={step}(&|$)"))
        wait_idle(self.page)

    def press(self, key: str) -> None:
        """A keyboard shortcut, after clicking an empty spot so that no widget has the focus."""
        self.page.mouse.click(5, 900)
        self.page.keyboard.press(key)


@pytest.fixture
def app(page) -> App:
    return App(page)


@pytest.fixture
def shot(page):
    """shot(name, locator=None): saves `<name>.png` (the viewport, or one element) under SCREENSHOTS."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)

    def save(name: str, locator=None) -> Path:
        path = SCREENSHOTS / f"{name}.png"
        wait_idle(page)
        # Widgets mount lazily: right after a run they can still be painted as grey placeholders.
        page.evaluate(
            "() => document.fonts.ready.then(() => new Promise(r => requestAnimationFrame(() => "
            "requestAnimationFrame(r))))"
        )
        page.wait_for_timeout(300)
        (locator or page).screenshot(path=str(path), animations="disabled")
        _saved.append(path)
        return path

    return save


def pytest_terminal_summary(terminalreporter) -> None:
    if _saved:
        terminalreporter.write_sep("-", "browser screenshots")
        terminalreporter.write_line(f"{len(_saved)} screenshots saved in {SCREENSHOTS}")
