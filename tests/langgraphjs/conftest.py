"""Fixtures for the LangGraph.js tests: the apps in `apps/` resolve @langchain/langgraph from the repo
root's node_modules (`npm ci` there installs it from the committed lockfile); without node or without it,
the tests that need them are skipped with the line that says what to install."""

from __future__ import annotations

import json
import shutil
import subprocess
from pathlib import Path
from typing import Any

import pytest

HERE = Path(__file__).parent
APPS = HERE / "apps"
REPO = HERE.parents[1]
ROOT_MODULES = REPO / "node_modules"
LANGGRAPH_JS = ROOT_MODULES / "@langchain" / "langgraph" / "package.json"


def app(name: str) -> str:
    """The absolute path of a test app."""
    return str(APPS / name)


@pytest.fixture
def langgraph_js() -> Path:
    """The repo root's node_modules with @langchain/langgraph (skips the test when absent)."""
    if shutil.which("node") is None:
        pytest.skip("node is not installed: apt-get install nodejs npm")
    if not LANGGRAPH_JS.exists():
        pytest.skip("@langchain/langgraph is not installed at the repo root: run `npm ci` there")
    return ROOT_MODULES


@pytest.fixture
def plain_invoke(langgraph_js: Path):
    """What the app's own `graph.invoke` returns or throws in a plain node process (no StepScope), encoded."""

    def run(name: str, graph_input: Any, config: dict[str, Any] | None = None, export: str = "graph") -> dict:
        done = subprocess.run(
            [
                "node",
                str(HERE / "invoke_plain.mjs"),
                app(name),
                export,
                json.dumps(graph_input),
                json.dumps(config or {}),
            ],
            capture_output=True,
            text=True,
            timeout=60,
            check=True,
        )
        return json.loads(done.stdout.strip().splitlines()[-1])

    return run
