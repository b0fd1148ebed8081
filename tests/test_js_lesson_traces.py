"""Each JavaScript lesson records what its Python twin records (`gallery.JS_LESSONS`): the same supersteps
(step numbers, task names), the same merges (per step: channel, reducer kind, writer, write and the values
before and after, decoded and normalised) and the same findings (kind, step, key).

The JS lesson is recorded by StepScope's LangGraph.js runtime (`record_js_app`, node and the repository's
own `@langchain/langgraph`), its twin by the engine (`debugger.sources.runs.record`). Normalised means: a
message is its type and content (the ids a scripted model or a tool node gives differ between the
languages), a reducer is what it does (it overwrites, or it folds: LangGraph.js's `(prev, next) =>
[...prev, ...next]` and `messagesStateReducer` fold as `operator.add` and `add_messages` do, which the
values before and after show).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from debugger.diagnostics import diagnose
from debugger.diagnostics.replay import Replay
from debugger.runtimes.langgraphjs import record_js_app
from debugger.runtimes.langgraphjs.runtime import describe
from debugger.sources.runs import OpenError, open_lesson, record
from engine.codec import MISSING_ENCODED, decode
from engine.messages import BaseMessage
from engine.trace import RunRecord
from sample_graphs.gallery import JS_LESSONS, js_lesson_path, load_sample

ROOT = Path(__file__).resolve().parents[1]
pytestmark = [
    pytest.mark.slow,
    pytest.mark.skipif(
        shutil.which("node") is None or not (ROOT / "node_modules" / "@langchain" / "langgraph").exists(),
        reason="needs node and @langchain/langgraph in node_modules (`npm ci` at the repository root)",
    ),
]

ROLES = {"user": "human", "assistant": "ai", "system": "system", "tool": "tool"}
"""A message-like dict's role as the message type it becomes (the Python twins' inputs are such dicts)."""

NO_DEFAULT = {("reducer_forms", 0, "messages"): [], ("reducer_forms", 1, "step"): ""}
"""(lesson, step, channel) where the JS lesson's channel has no `default` (as the article writes forms 1 and
2, and as the lesson's text says) while the twin's Python channel starts at its type's empty value
(`Annotated[list, ...]` is [], `Annotated[str, ...]` is ''): the first write finds it empty, not [] or ''.
Read there as the twin's value; nowhere else."""

OVERWRITING = frozenset({"LastValue", "LastValueAfterFinish", "AnyValue", "EphemeralValue", "UntrackedValue"})
"""The channel kinds that keep the last write (no reducer function)."""


def normalised(value: Any) -> Any:
    """A decoded value with each message as (type, content) and containers as lists and dicts."""
    if isinstance(value, BaseMessage):
        return (value.type, value.content)
    if isinstance(value, dict) and value.get("role") in ROLES and "content" in value:
        return (ROLES[value["role"]], value["content"])
    if isinstance(value, dict):
        return {key: normalised(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [normalised(item) for item in value]
    return value


def plain(encoded: Any) -> Any:
    """An encoded value from a trace, decoded and normalised (an empty channel is None)."""
    return None if encoded == MISSING_ENCODED else normalised(decode(encoded))


def reducer_kind(name: str) -> str:
    """`overwrite` for a channel that keeps the last write, else `fold` (a reducer function, in either language)."""
    return "overwrite" if name in OVERWRITING else "fold"


def supersteps(trace: RunRecord) -> list[tuple[int, list[str]]]:
    """Each step's number and its tasks' names."""
    return [(step.step, sorted(task.name for task in step.tasks)) for step in trace.steps]


def merges(trace: RunRecord, lesson: str = "") -> list[tuple[Any, ...]]:
    """Each reducer call of the run, in application order, as what it did (for the JS `lesson`, a channel
    without a default that the lesson's text explains is read as the twin's empty value: `NO_DEFAULT`)."""
    replay = Replay(trace)
    found = []
    for step in trace.steps:
        for call, before, after in replay.call_values(step.step):
            plain_before = plain(before)
            if plain_before is None and (lesson, step.step, call.channel) in NO_DEFAULT:
                plain_before = NO_DEFAULT[lesson, step.step, call.channel]
            kind = reducer_kind(call.reducer)
            found.append(
                (step.step, call.channel, kind, call.writer_name, plain(call.write), plain_before, plain(after))
            )
    return found


def findings(graph: Any, trace: RunRecord) -> list[tuple[Any, ...]]:
    """What `diagnose` finds, as (kind, step, key)."""
    return sorted((f.kind, f.step if f.step is not None else -99, f.key or "") for f in diagnose(graph, trace))


def recorded_pair(js_lesson: str) -> tuple[tuple[Any, RunRecord], tuple[Any, RunRecord]]:
    """The JS lesson's graph and trace (its own exampleInput and exampleConfig) and its Python twin's."""
    path = js_lesson_path(js_lesson)
    graph = describe(path)
    config = graph.lesson.get("exampleConfig") or {}
    js_trace = record_js_app(str(path), "graph", None, config, timeout=60, example_input=True)
    twin = load_sample(JS_LESSONS[js_lesson])
    py_trace = record(twin.graph, twin.example_input, dict(getattr(twin, "example_config", None) or {}), twin.__name__)
    return (graph, js_trace), (twin.graph, py_trace)


@pytest.fixture(scope="module", params=sorted(JS_LESSONS))
def pair(request):
    """One lesson recorded in both languages (recorded once for the three comparisons)."""
    return request.param, recorded_pair(request.param)


def test_the_js_lesson_records_its_twins_supersteps(pair):
    name, ((_, js_trace), (_, py_trace)) = pair
    assert js_trace.status == py_trace.status, name
    assert supersteps(js_trace) == supersteps(py_trace), name


def test_the_js_lesson_merges_as_its_twin_does(pair):
    name, ((_, js_trace), (_, py_trace)) = pair
    js_merges, py_merges = merges(js_trace, name), merges(py_trace)
    assert js_merges, f"{name}: no reducer call recorded"
    assert js_merges == py_merges, name


def test_the_js_lesson_gets_its_twins_findings(pair):
    name, ((js_graph, js_trace), (py_graph, py_trace)) = pair
    assert findings(js_graph, js_trace) == findings(py_graph, py_trace), name


def test_a_lesson_opened_in_javascript_is_the_js_lesson_with_its_own_code():
    opened = open_lesson("fan_out_search", "js")
    assert (opened.source, opened.label, opened.language) == ("sample", "fan_out_search", "javascript")
    assert opened.trace.graph["source"] == "langgraphjs" and opened.trace.status == "done"
    assert "new StateGraph(" in opened.code and opened.code == js_lesson_path("fan_out_search").read_text()


def test_a_lesson_without_a_javascript_twin_says_which_have_one():
    with pytest.raises(OpenError, match="'subgraph_trap' has no JavaScript lesson; these do: parallel_append_race"):
        open_lesson("subgraph_trap", "js")
