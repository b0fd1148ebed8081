"""A JavaScript lesson where node or its locked packages are missing: `make run` installs them where it can
(`npm ci`), and the lesson's page names the Debian packages and the command, under the lesson's own URL."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from debugger.sources import js_setup
from debugger.sources import runs as sources
from debugger.views import session

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "debugger" / "app.py")

pytestmark = pytest.mark.usefixtures("fresh_store")  # tests/conftest.py


@pytest.fixture
def no_node(monkeypatch, tmp_path):
    """A PATH on which neither node nor npm is found (only graphviz's dot, which the drawings need)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    dot = shutil.which("dot")
    if dot:
        (bin_dir / "dot").symlink_to(dot)
    monkeypatch.setenv("PATH", str(bin_dir))
    monkeypatch.delenv("STEPSCOPE_NODE", raising=False)
    return bin_dir


def test_no_node_names_the_debian_packages_and_the_command(no_node):
    problem = js_setup.setup_problem()
    assert "apt-get install nodejs npm" in problem and "reload this page" in problem
    with pytest.raises(sources.OpenError, match="apt-get install nodejs npm"):
        sources.open_js_lesson("react_agent")


def test_node_without_the_locked_packages_says_npm_ci_at_the_root(no_node, tmp_path):
    (no_node / "node").symlink_to("/bin/true")
    (no_node / "npm").symlink_to("/bin/true")
    problem = js_setup.setup_problem(tmp_path)
    assert problem == (
        "The JavaScript lessons need the LangGraph.js packages package-lock.json pins (@langchain/langgraph, "
        f"@langchain/core), which are not installed: run npm ci in {tmp_path} (make run does it), then reload "
        "this page."
    )
    (no_node / "npm").unlink()
    assert "apt-get install npm, then run npm ci in" in js_setup.setup_problem(tmp_path)
    for name in js_setup.LESSON_PACKAGES:
        package = tmp_path / "node_modules" / name
        package.mkdir(parents=True)
        (package / "package.json").write_text("{}")
    assert js_setup.setup_problem(tmp_path) is None


def test_chinese_lists_the_packages_with_the_enumeration_comma(no_node, tmp_path):
    from debugger import i18n

    (no_node / "node").symlink_to("/bin/true")
    with i18n.using("zh-CN"):
        problem = js_setup.setup_problem(tmp_path)
    assert "@langchain/langgraph、@langchain/core" in problem and "npm ci" in problem
    assert "The JavaScript" not in problem


def test_a_js_lesson_link_without_node_keeps_its_url_and_says_what_to_install(no_node):
    at = AppTest.from_file(APP, default_timeout=30)
    at.query_params.update({"sample": "react_agent", "runtime": "js", "step": "2"})
    at.run()
    assert not at.exception, at.exception
    assert {k: at.query_params[k] for k in at.query_params} == {"sample": "react_agent", "runtime": "js", "step": "2"}
    assert session.RUN not in at.session_state or at.session_state[session.RUN] is None
    errors = [e.value.replace("\\", "") for e in at.error]  # markdown-escaped
    assert any("apt-get install nodejs npm" in e for e in errors), errors
    assert "JavaScript" in at.title[0].value
    assert not [m.value for m in at.markdown if "subgraph trap" in m.value.lower()]
    assert at.selectbox(key=session.SAMPLE_CHOICE).value == "react_agent"  # the sidebar names the lesson shown
    at.run()  # another rerun (a widget) does not open the default sample in its place
    assert at.query_params["sample"] == "react_agent" and at.query_params["runtime"] == "js"
    assert at.button(key="open_python_twin").label == "Open the Python lesson instead"


@pytest.mark.slow  # the Python lesson is drawn by graphviz's dot
def test_the_unopened_js_lesson_opens_its_python_twin_in_one_click(no_node, monkeypatch):
    at = AppTest.from_file(APP, default_timeout=30)
    at.query_params.update({"sample": "react_agent", "runtime": "js"})
    at.run()
    monkeypatch.setenv("PATH", os.defpath + os.pathsep + str(no_node))
    at.button(key="open_python_twin").click().run()
    assert not at.exception, at.exception
    assert at.query_params["sample"] == "react_agent" and "runtime" not in at.query_params
    assert at.session_state[session.RUN].language == "python"


def make_js_lessons(tmp_path: Path, path: str) -> subprocess.CompletedProcess:
    """`make js-lessons` (what `make run` does first) in a copy of the project's Makefile and npm files."""
    if shutil.which("make") is None:
        pytest.skip("make is not installed")
    for name in ("Makefile", "package.json", "package-lock.json"):
        if not (tmp_path / name).exists():
            shutil.copy(ROOT / name, tmp_path / name)
    make = shutil.which("make")
    return subprocess.run(
        [make, "--no-print-directory", "js-lessons"], cwd=tmp_path, env={"PATH": path}, capture_output=True, text=True
    )


@pytest.mark.slow  # runs make
def test_make_run_runs_npm_ci_where_node_and_npm_exist(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    (bin_dir / "node").symlink_to("/bin/true")
    calls = tmp_path / "npm-calls"
    (bin_dir / "npm").write_text(
        f'#!/bin/sh\necho "$@" >> {calls}\nmkdir -p node_modules && touch node_modules/.package-lock.json\n'
    )
    (bin_dir / "npm").chmod(0o755)
    path = f"{bin_dir}:/usr/bin:/bin"
    done = make_js_lessons(tmp_path, path)
    assert done.returncode == 0, done.stderr
    assert calls.read_text().split()[0] == "ci"
    assert make_js_lessons(tmp_path, path).returncode == 0
    assert len(calls.read_text().splitlines()) == 1  # installed and the lock unchanged: not again
    os.utime(tmp_path / "package-lock.json")  # the lock changed since: npm ci again
    os.utime(tmp_path / "node_modules" / ".package-lock.json", (0, 0))
    assert make_js_lessons(tmp_path, path).returncode == 0
    assert len(calls.read_text().splitlines()) == 2


@pytest.mark.slow  # runs make
def test_make_run_without_node_says_what_to_install_and_goes_on(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    done = make_js_lessons(tmp_path, str(bin_dir))
    assert done.returncode == 0, done.stderr
    assert "apt-get install nodejs npm" in done.stdout
    assert not (tmp_path / "node_modules").exists()
