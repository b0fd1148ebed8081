"""The seeds' JavaScript examples as LangGraph.js lessons (`sample_graphs/js/NAME.mjs`), each against its
Python twin (`gallery.JS_LESSONS`).

Each lesson runs under plain node with the repository's own `@langchain/langgraph` (root node_modules,
`npm ci`); tests/js/lesson_outcomes.mjs reads what each exported graph does. Its final state must equal
the twin's under the engine, messages compared as records (type, content, id, tool calls); an error must
have the same class, error code and channel (LangGraph.js words its messages differently). The lesson's
own printout must show that same outcome, and the `updates` stream must hold the same chunks.
"""

from __future__ import annotations

import copy
import functools
import json
import re
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

import pytest

from sample_graphs._show import is_message, outcome
from sample_graphs.gallery import JS_LESSON_DIR, JS_LESSONS, SAMPLES, js_lesson_path, load_sample

ROOT = Path(__file__).resolve().parents[1]
OUTCOMES_SCRIPT = ROOT / "tests" / "js" / "lesson_outcomes.mjs"

NODE = shutil.which("node")
LANGGRAPH_JS = ROOT / "node_modules" / "@langchain" / "langgraph" / "package.json"
NEEDS_NODE = (
    pytest.mark.slow,
    pytest.mark.skipif(NODE is None, reason="node is not installed: `make test` installs Debian's nodejs and npm"),
    pytest.mark.skipif(
        not LANGGRAPH_JS.exists(), reason="no @langchain/langgraph in node_modules: run `npm ci` at the repository root"
    ),
)


def needs_node(test):
    """Marks `test` slow (it starts node) and skips it, with the reason, where node or the packages are missing."""
    for mark in NEEDS_NODE:
        test = mark(test)
    return test


#: The lesson whose point is the order of the stream: its chunks must come in the twin's order.
ORDERED_STREAM = {"stream_updates"}

#: A JavaScript graph export and the Python sample attribute that is its twin.
TWIN_ATTRIBUTE = {"graph": "graph", "fixedGraph": "fixed_graph"}


def message_record(message: Any) -> dict[str, Any]:
    """A message as tests/js/lesson_outcomes.mjs writes one (sample_graphs/js/_show.mjs `messageRecord`)."""
    record = {"type": message.type, "content": message.content, "id": message.id}
    calls = getattr(message, "tool_calls", None)
    if calls:
        record["tool_calls"] = [{"name": c["name"], "args": c["args"], "id": c["id"]} for c in calls]
    if getattr(message, "tool_call_id", None):
        record["tool_call_id"] = message.tool_call_id
    return record


def plain(value: Any) -> Any:
    """`value` with every message as its record: the JSON the JavaScript side prints."""
    if is_message(value):
        return message_record(value)
    if isinstance(value, dict):
        return {key: plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(item) for item in value]
    return value


def error_facts(name: str, code: str | None, message: str) -> dict[str, Any]:
    """What an error must agree on across the two languages: class, error code and the channel it names."""
    channel = re.search(r"""(?:At key '|channel ")([^'"]+)""", message)
    return {"class": name, "code": code, "channel": channel.group(1) if channel else None}


def python_error_facts(error: BaseException) -> dict[str, Any]:
    code = getattr(error, "lc_error_code", None) or next(iter(re.findall(r"/errors/([A-Z_]+)", str(error))), None)
    return error_facts(type(error).__name__, code, str(error))


@functools.cache
def js_outcomes(name: str) -> dict[str, Any]:
    """What tests/js/lesson_outcomes.mjs reports for the JavaScript lesson `name`."""
    done = subprocess.run(
        [NODE, str(OUTCOMES_SCRIPT), str(js_lesson_path(name))],
        cwd=ROOT,
        capture_output=True,
        encoding="utf-8",
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def python_outcome(twin: str, attribute: str) -> Any:
    module = load_sample(twin)
    graph_input = getattr(module, "fixed_input", module.example_input) if attribute == "fixed_graph" else None
    graph_input = module.example_input if graph_input is None else graph_input
    return outcome(getattr(module, attribute), graph_input, getattr(module, "example_config", None))


# ---- the list of lessons (no node needed) -------------------------------------------------------------------


def test_every_js_lesson_is_listed_once_with_a_python_twin() -> None:
    files = {path.stem for path in JS_LESSON_DIR.glob("*.mjs") if not path.stem.startswith("_")}
    assert files == set(JS_LESSONS), "list every sample_graphs/js lesson in gallery.JS_LESSONS (and only those)"
    assert set(JS_LESSONS.values()) <= set(SAMPLES)
    assert len(set(JS_LESSONS.values())) == len(JS_LESSONS), "one JavaScript lesson per Python twin"


# ---- each lesson against its twin ----------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(JS_LESSONS))
@needs_node
def test_js_lesson_names_its_twin_and_explains_itself(name: str) -> None:
    found = js_outcomes(name)
    assert found["pythonTwin"] == JS_LESSONS[name]
    assert found["title"] == load_sample(JS_LESSONS[name]).title
    assert found["lesson"].startswith("The article says: ") and "That is what happens" in found["lesson"]
    assert found["source"] == load_sample(JS_LESSONS[name]).source


@pytest.mark.parametrize("name", sorted(JS_LESSONS))
@needs_node
def test_js_lesson_ends_as_its_python_twin(name: str) -> None:
    found = js_outcomes(name)
    twin = load_sample(JS_LESSONS[name])
    python_graphs = {attribute for attribute in TWIN_ATTRIBUTE.values() if hasattr(twin, attribute)}
    assert {TWIN_ATTRIBUTE[graph] for graph in found["graphs"]} == python_graphs, "the same graphs on both sides"
    for graph, result in found["graphs"].items():
        expected = python_outcome(JS_LESSONS[name], TWIN_ATTRIBUTE[graph])
        if isinstance(expected, BaseException):
            assert "error" in result, f"{graph}: node ended with {result}, Python raised {expected!r}"
            error = result["error"]
            assert error_facts(error["name"], error["code"], error["message"]) == python_error_facts(expected)
        else:
            assert "state" in result, f"{graph}: node raised {result}, Python ended with {expected!r}"
            assert result["state"] == plain(expected), graph


@pytest.mark.parametrize("name", sorted(JS_LESSONS))
@needs_node
def test_js_lesson_streams_the_updates_of_its_python_twin(name: str) -> None:
    found = js_outcomes(name)
    twin = load_sample(JS_LESSONS[name])
    if isinstance(python_outcome(JS_LESSONS[name], "graph"), BaseException):
        assert "error" in found["stream"]
        return
    expected = [plain(chunk) for chunk in twin.graph.stream(copy.deepcopy(twin.example_input), stream_mode="updates")]
    chunks = found["stream"]["chunks"]
    if name not in ORDERED_STREAM:  # parallel nodes report in finishing order in LangGraph.js, by name in the engine
        chunks, expected = (sorted(items, key=json.dumps) for items in (chunks, expected))
    assert chunks == expected


@pytest.mark.parametrize("name", sorted(JS_LESSONS))
@needs_node
def test_js_lesson_runs_as_a_script_and_prints_its_outcomes(name: str) -> None:
    """`node sample_graphs/js/NAME.mjs` from an unrelated folder resolves the root's node_modules and prints
    each graph's outcome as the outcomes reader described it."""
    done = subprocess.run(
        [NODE, str(js_lesson_path(name))], cwd=tempfile.gettempdir(), capture_output=True, encoding="utf-8", timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""
    for graph, line in js_outcomes(name)["printed"].items():
        assert line in done.stdout, f"{graph}'s outcome is not printed"
