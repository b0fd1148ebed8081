"""Real-browser tests: a `streamlit run` server for the session, driven by Debian's chromium.

- `streamlit_url` (session) starts `python -m streamlit run debugger/app.py` headless on a free
  127.0.0.1 port, with `STEPSCOPE_DB` in a temporary folder, and waits for `/_stcore/health`.
  It stops the server by its process group id at the end.
- pytest-playwright's `base_url`, `browser_type_launch_args` and `browser_context_args` are
  overridden: the browser is `/usr/bin/chromium` (never `playwright install`), the viewport is tall
  because Streamlit scrolls inside its own container. Without chromium the tests skip, except under
  CI (`CI` set), where that is a failure.
- `app` opens a URL and waits until the graph is drawn and the script is idle, and does what many
  tests do on a page (open a tab, a graph file, a checkpointer thread from the sidebar); `new_session`
  opens a URL in a browser context of its own, as a link pasted into another window; `shot` saves a
  screenshot under `$STEPSCOPE_SCREENSHOTS` (default `test-artifacts/screenshots/`), and the
  terminal summary prints that folder.
- `production_threads`: a langgraph SqliteSaver file with two threads and the app module that reads it.
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import socket
import sqlite3
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
CHROMIUM = "/usr/bin/chromium"
IDLE = '[data-testid="stApp"][data-test-script-state="notRunning"]'
GRAPH = ".stepscope-graph svg"
"""The step drawing: SVG laid out by Graphviz on the server (debugger/views/widgets.py)."""
SIDEBAR = '[data-testid="stSidebar"]'
STEPPER_ROOT = ".stepscope-host"
"""The page's stepper's own element (debugger/frontend/assets/stepper.js): `data-first-paint` while the page waits."""
THREADS = ROOT / "tests" / "threads"
"""The langgraph apps and the driver the checkpointer-thread tests share (tests/threads/apps.py)."""
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
    from debugger.commands.app_server import streamlit_command

    command = streamlit_command(host="127.0.0.1", port=port)  # the flags `stepscope app` uses
    with served(
        command, cwd=ROOT, env=env, log_path=folder / "server.log", ready=lambda: _healthy(url), what="streamlit"
    ):
        yield url


@contextlib.contextmanager
def served(
    command: list[str],
    *,
    cwd: Path,
    env: dict[str, str],
    log_path: Path,
    ready,
    what: str,
    seconds: float = 60,
    grace: float = 10,
) -> Iterator[subprocess.Popen]:
    """A server started in a session of its own (its output in `log_path`), once `ready()` says it answers;
    the test fails with the log's end if it exits or is not ready in `seconds`; stopped by `stop_server`."""
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(
            command, cwd=cwd, env=env, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True,
        )  # fmt: skip
        try:
            deadline = time.monotonic() + seconds
            while not ready():
                if proc.poll() is not None or time.monotonic() > deadline:
                    log.flush()
                    pytest.fail(f"{what} did not start (exit {proc.poll()}):\n{log_path.read_text()[-3000:]}")
                time.sleep(0.1)
            yield proc
        finally:
            stop_server(proc, grace)


def stop_server(proc: subprocess.Popen, grace: float = 10) -> None:
    """Stops a server started with `start_new_session=True` by its process group: SIGTERM, then SIGKILL."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=grace)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


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


def choose(combobox, option) -> None:
    """Opens a selectbox and clicks one of its options. A click that lands while the box is still moving into
    place (an expander just opened slides its content in) leaves it closed, so the click is repeated until
    the box says it is open, as a person clicks again."""
    from playwright.sync_api import expect

    for _ in range(20):
        combobox.click()
        try:
            expect(combobox).to_have_attribute("aria-expanded", "true", timeout=500)
            break
        except AssertionError:
            continue
    option.click()


class App:
    """A page of the app, opened by `app.open(path)`; helpers to wait, step and read the graph."""

    def __init__(self, page) -> None:
        self.page = page

    def open(self, path: str, *, graph: bool = True) -> "App":
        self.page.goto(path)
        self.page.locator('[data-testid="stApp"]').wait_for()
        if graph:
            self.page.locator(GRAPH).first.wait_for()
            # a new session's page draws the stepper first and the rest once it said it has drawn
            self.page.locator(f"{STEPPER_ROOT}:not([data-first-paint])").first.wait_for()
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

    @property
    def sidebar(self):
        return self.page.locator(SIDEBAR)

    def tab(self, name: str):
        """Opens the step page's tab `name`: only the open tab is drawn, so the click reruns the script;
        the tab is open once that run has ended with it selected. Returns its panel."""
        button = self.page.get_by_role("tab", name=re.compile(rf"^{name}"))
        for _ in range(3):  # a click landing while an earlier run still ends can be undone by that run
            self.idle()
            button.click()
            self.idle()
            if button.get_attribute("aria-selected") == "true":
                break
        return self.page.get_by_role("tabpanel", name=re.compile(rf"^{name}"))

    def open_graph_file(self, path: Path | str, input_json: str = ""):
        """Opens a graph file from the sidebar's "Graph file" form (with `input_json`, if given)."""
        page = self.open("/?sample=subgraph_trap").page
        self.sidebar.get_by_text("Graph file", exact=True).click()
        page.locator(".st-key-file_target input").fill(str(path))
        page.locator(".st-key-file_target input").press("Enter")
        self.idle()
        if input_json:
            page.locator(".st-key-file_input textarea").fill(input_json)
        page.locator(".st-key-open_file button").click()
        self.idle()
        return page

    def list_threads(self, checkpointer: Path | str, graph: str = ""):
        """Fills the sidebar's "Checkpointer thread" form (the app graph `graph`, if given) and lists the
        threads; returns the sidebar."""
        self.open("/?sample=subgraph_trap")
        sidebar = self.sidebar
        sidebar.get_by_text("Checkpointer thread").click()
        self.idle()
        sidebar.get_by_role("textbox", name="Checkpointer").fill(str(checkpointer))
        if graph:
            sidebar.get_by_role("textbox", name="App graph").fill(graph)
        sidebar.get_by_role("button", name="List threads").click()
        self.idle()
        return sidebar

    def open_thread(self, checkpointer: Path | str, graph: str):
        """`list_threads`, then Open thread (the newest, unless a test picks another in between)."""
        sidebar = self.list_threads(checkpointer, graph)
        sidebar.get_by_role("button", name="Open thread").click()
        self.idle()
        return sidebar

    def save(self, name: str) -> Path:
        """A screenshot of this page (one of `new_session`'s), saved beside `shot`'s."""
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        self.idle()
        self.page.wait_for_timeout(300)
        path = SCREENSHOTS / f"{name}.png"
        self.page.screenshot(path=str(path), animations="disabled")
        _saved.append(path)
        return path


@pytest.fixture
def app(page) -> App:
    return App(page)


@pytest.fixture
def new_session(browser, base_url):
    """new_session(url, graph=True): `url` opened in a new browser context, a new Streamlit session that
    knows only the URL (as a link pasted into another window)."""
    contexts = []

    def open_url(url: str, *, graph: bool = True) -> App:
        context = browser.new_context(base_url=base_url, viewport={"width": 1400, "height": 1800})
        contexts.append(context)
        return App(context.new_page()).open(url, graph=graph)

    yield open_url
    for context in contexts:
        context.close()


PRODUCTION_APP = """
import sqlite3, sys
sys.path.insert(0, {tests!r})
from langgraph.checkpoint.sqlite import SqliteSaver
from apps import conflict_graph, interrupt_graph

saver = SqliteSaver(sqlite3.connect({db!r}, check_same_thread=False))
graph = conflict_graph(saver)
tickets = interrupt_graph(saver)
"""


@pytest.fixture
def production_threads(tmp_path) -> tuple[Path, Path]:
    """(a SqliteSaver file, the app module that reads it): thread `refund-17` of the module's `graph`
    failed on a conflict in step 2; `ticket-9` of its `tickets`, the newest, waits at an interrupt."""
    pytest.importorskip("langgraph")
    sys.path.insert(0, str(THREADS))
    try:
        from apps import conflict_graph, drive, interrupt_graph
        from langgraph.checkpoint.sqlite import SqliteSaver
    finally:
        sys.path.remove(str(THREADS))
    db = tmp_path / "prod.sqlite"
    conn = sqlite3.connect(db, check_same_thread=False)
    saver = SqliteSaver(conn)
    drive(conflict_graph(saver), [{"order": "A-17", "log": []}], "refund-17")
    drive(interrupt_graph(saver), [{"request": "upgrade", "log": []}, None], "ticket-9")
    conn.close()
    module = tmp_path / "my_app.py"
    module.write_text(PRODUCTION_APP.format(tests=str(THREADS), db=str(db)))
    return db, module


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
