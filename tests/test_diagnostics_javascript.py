"""A finding about a LangGraph.js run shows its fix in JavaScript (`debugger/diagnostics/javascript.py`);
one about a Python run keeps Python."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest

from debugger.diagnostics import diagnose_trace
from debugger.diagnostics.javascript import javascript
from debugger.runtimes.langgraphjs import record_js_app
from debugger.sources.runs import record
from sample_graphs.gallery import SAMPLES, js_lesson_path, load_sample

ROOT = Path(__file__).resolve().parents[1]
PYTHON_ONLY = re.compile(
    r"Annotated\[|\bdef |\blambda |(^|\s)#\s|\"\w+\": |state\[|state\.get\(|\.add_edge\(|\b(True|False|None)\b"
    r"|\*\*\w| for \w+ in |\bnot in\b|\bif not\b"
)
"""What only Python code has (a comment, a quoted dict key, a comprehension, `def`, ...)."""


def test_the_appending_fix_reads_as_the_articles_javascript():
    python = (
        "messages: Annotated[list, operator.add]   # declare the merge on the key\n\n"
        'def node_a(state):\n    return {"messages": [...]}   # only its own new items'
    )
    assert javascript(python) == (
        "messages: Annotation({ reducer: (a, b) => a.concat(b), default: () => [] }),"
        "   // declare the merge on the key\n"
        "\n"
        "function node_a(state) {\n"
        "  return { messages: [...] };   // only its own new items\n"
        "}"
    )


def test_a_run_config_key_is_langgraphjs_own():
    python = 'graph.invoke(inputs, {"recursion_limit": 100})'
    assert javascript(python) == "await graph.invoke(inputs, { recursionLimit: 100 });"


def test_a_reducer_merging_by_id_becomes_a_javascript_function():
    python = (
        "def merge_by_id(old, new):\n    ids = {item['id'] for item in old}\n"
        "    return old + [item for item in new if item['id'] not in ids]"
    )
    assert javascript(python) == (
        "function merge_by_id(prev, next) {\n"
        "  const ids = new Set(prev.map((item) => item.id));\n"
        "  return [...prev, ...next.filter((item) => !ids.has(item.id))];\n"
        "}"
    )


def test_every_fix_the_recorded_checks_write_has_a_javascript_form():
    """Each sample's recorded findings (every template the checks over a run use), translated: no Python left."""
    seen = 0
    for name in SAMPLES:
        if name == "slow_research":
            continue  # its point is time, not a finding
        module = load_sample(name)
        trace = record(module.graph, module.example_input, dict(getattr(module, "example_config", None) or {}), name)
        for finding in diagnose_trace(trace, module.graph):
            for code in [finding.fix, *(snippet for _, snippet in finding.other_fixes)]:
                translated = javascript(code)
                assert not PYTHON_ONLY.search(translated), f"{name} {finding.kind}:\n{code}\n->\n{translated}"
                seen += 1
    assert seen > 10


@pytest.mark.slow
@pytest.mark.skipif(
    shutil.which("node") is None or not (ROOT / "node_modules" / "@langchain" / "langgraph").exists(),
    reason="needs node and @langchain/langgraph in node_modules (`npm ci` at the repository root)",
)
def test_a_langgraphjs_runs_findings_fix_in_javascript_and_its_twins_in_python():
    js_trace = record_js_app(
        str(js_lesson_path("parallel_append_race")), "graph", None, {}, timeout=60, example_input=True
    )
    twin = load_sample("parallel_append_race")
    py_trace = record(twin.graph, twin.example_input, {}, "parallel_append_race")
    (js_finding,) = diagnose_trace(js_trace)
    (py_finding,) = diagnose_trace(py_trace)
    assert js_finding.kind == py_finding.kind == "read_modify_write"
    assert "Annotation({ reducer: (a, b) => a.concat(b), default: () => [] })" in js_finding.fix
    assert "return { messages: [...] };" in js_finding.fix
    assert "Annotated[list, operator.add]" in py_finding.fix
    assert (js_finding.language, py_finding.language) == ("javascript", "python")  # how the app highlights them
