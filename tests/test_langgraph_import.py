"""Real LangGraph apps, run by langgraph itself and recorded by watching that run
(`debugger/runtimes/langgraph/recorder/`).

The promise: recording changes nothing (the final state, or the error class and text, is what
`langgraph` alone gives for the same input), no recorded step disagrees with the state langgraph
committed, and the Trace shows what the engine's Trace shows for the same graph written with
`engine` imports. Checked here on:

- every case of the differential suite (tests/differential/cases.py), built and compiled by
  langgraph: result, error and probe, recorded against langgraph alone;
- every checkpoint scenario (tests/differential/test_checkpoint_differential.py: interrupts,
  resumes, breakpoints, history, update_state, subgraphs), recorded against langgraph alone;
- every sample of the gallery (the seed examples), executed with langgraph imports: outcome against
  langgraph, and each step's tasks, reducer calls and replayed state against the engine-native Trace;
- graphs written below with `from langgraph... import ...`, with what their traces must show;
- what the former rebuild refused (RetryPolicy, async, context, store, managed values, ...), now
  recorded; `stepscope run file.py:graph` in a subprocess; the debugger's "Graph file" path.
"""

# No `from __future__ import annotations`: schemas defined inside tests are read by langgraph (and
# the engine) through their annotations, which only eager evaluation lets them see.
import copy
import importlib
import importlib.util
import json
import operator
import os
import subprocess
import sys
import textwrap
import types
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, TypedDict

import pytest

pytest.importorskip("langgraph")

from differential import test_checkpoint_differential as checkpoint_suite  # noqa: E402
from differential.backends import get_backend  # noqa: E402
from differential.cases import CASES  # noqa: E402
from differential.harness import Normaliser, _with_timeout, describe_error, sort_key  # noqa: E402
from langchain_core.messages import AIMessage, AIMessageChunk, HumanMessage, ToolMessage  # noqa: E402
from langchain_core.runnables import RunnableConfig  # noqa: E402
from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402
from langgraph.config import get_config, get_stream_writer  # noqa: E402
from langgraph.graph import END, START, MessagesState, StateGraph  # noqa: E402
from langgraph.runtime import Runtime  # noqa: E402
from langgraph.types import CachePolicy, Command, Overwrite, RetryPolicy, Send, StreamWriter, interrupt  # noqa: E402

import engine  # noqa: E402
from debugger.diagnostics.replay import Replay  # noqa: E402
from debugger.runtimes.langgraph.recorder import is_langgraph_builder, is_langgraph_graph, recording  # noqa: E402
from debugger.runtimes.langgraph.recorder.runs import run_coroutine  # noqa: E402
from debugger.runtimes.langgraph.recorder.static_view import static_view  # noqa: E402
from debugger.runtimes.targets import TargetError, load_target  # noqa: E402
from debugger.sources import runs as sources
from debugger.sources.trace_check import parse_trace  # noqa: E402
from engine.codec import decode, encode  # noqa: E402
from engine.trace import Recorder, Trace  # noqa: E402
from engine.tracefile import to_json  # noqa: E402
from sample_graphs.gallery import SAMPLES, load_sample  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
CONFLICT = (
    "At key '{key}': Can receive only one value per step. Use an Annotated key to handle multiple values.\n"
    "For troubleshooting, visit: https://docs.langchain.com/oss/python/langgraph/errors/INVALID_CONCURRENT_GRAPH_UPDATE"
)


# ---------------------------------------------------------------------------------------------
# Helpers
# ---------------------------------------------------------------------------------------------


def outcome(graph: Any, graph_input: Any, config: dict | None = None) -> Any:
    """`invoke`'s result on a deep copy of the input, or the exception it raised."""
    try:
        return graph.invoke(copy.deepcopy(graph_input), config)
    except Exception as exc:  # the error is part of the outcome
        return exc


def comparable(value: Any) -> Any:
    """Plain data; messages by class and fields, uuids numbered, errors as (class, text, notes)."""
    if isinstance(value, BaseException):
        error = describe_error(value, get_backend("langgraph"))
        return ("raised", error["type"], error["str"], error["notes"])
    return Normaliser()(value)


def record(graph: Any, graph_input: Any, config: dict | None = None) -> tuple[Any, Trace]:
    """Runs a langgraph graph recorded: (output or exception, trace). No step may disagree with
    the state langgraph committed."""
    with recording(db=False) as session:
        result = outcome(graph, graph_input, config)
    trace = session.traces[-1]
    assert_no_mismatch(trace)
    parse_trace(to_json(trace), source="recorded")  # what the recorder writes passes every gate a file passes
    return result, trace


def assert_no_mismatch(run: Any) -> None:
    for step in run.steps:
        assert step.mismatches == [], f"step {step.step}: {step.mismatches}"
        for task in step.tasks:
            for nested in task.subgraphs:
                assert_no_mismatch(nested)


def record_native(graph: Any, graph_input: Any, config: dict | None = None) -> tuple[Any, Trace]:
    """The engine-native graph under the engine's Recorder: (output or exception, trace)."""
    recorder = Recorder(target="test", run_id="run", clock=lambda: "T")
    try:
        result = graph.invoke(copy.deepcopy(graph_input), config, hooks=recorder)
    except Exception as exc:
        result = exc
    return result, recorder.trace


def assert_same_as_langgraph(compiled: Any, graph_input: Any, config: dict | None = None) -> tuple[Any, Trace]:
    """The recorded run's outcome equals langgraph's own; returns (outcome, trace)."""
    theirs = outcome(compiled, graph_input, config)
    ours, trace = record(compiled, graph_input, config)
    assert comparable(ours) == comparable(theirs)
    return ours, trace


def tasks_by_step(trace: Any) -> list[list[str]]:
    return [[t.name for t in step.tasks] for step in trace.steps if step.step >= 0]


def at_step(trace: Any, number: int) -> Any:
    (step,) = [s for s in trace.steps if s.step == number]
    return step


def reducer_calls(trace: Any, channel: str) -> list[tuple[str, str, Any, Any]]:
    """(writer, reducer, write, error class) of every reducer call on `channel`, in order."""
    return [
        (c.writer_name, c.reducer, decode(c.write), c.error["class"] if c.error else None)
        for step in trace.steps
        for c in step.reducer_calls
        if c.channel == channel
    ]


# ---------------------------------------------------------------------------------------------
# The differential suite's graphs, built and compiled by langgraph, run alone and recorded
# ---------------------------------------------------------------------------------------------


def run_case(name: str, recorded: bool) -> dict:
    """Build the case with langgraph, compile it with langgraph; invoke it, recorded or not."""
    lg = get_backend("langgraph")
    case = CASES[name]
    out: dict = {"stage": None, "value": None, "error": None, "probe": None}

    def go() -> dict:
        try:
            built = case.build(lg)
            graph = built.graph if built.graph is not None else built.builder.compile(**built.compile_kwargs)
        except Exception as exc:  # a build or compile error: nothing to rebuild
            out["stage"], out["error"] = "build", exc
            return out
        args = (built.input,) if built.config is None else (built.input, built.config)
        try:
            if recorded:
                with recording(db=False) as session:
                    try:
                        out["value"] = graph.invoke(*args)
                    finally:
                        for trace in session.traces:
                            assert_no_mismatch(trace)
            else:
                out["value"] = graph.invoke(*args)
        except AssertionError:
            raise
        except Exception as exc:
            out["stage"], out["error"] = "run", exc
        if built.probe is not None:
            out["probe"] = built.probe()
        return out

    raw = _with_timeout(go)
    norm = Normaliser()
    return {
        "stage": raw["stage"],
        "result": norm(raw["value"]),
        "keys": list(raw["value"]) if isinstance(raw["value"], dict) else None,
        "error": comparable(raw["error"]) if raw["error"] is not None else None,
        "probe": norm(raw["probe"]),
    }


@pytest.mark.parametrize("name", list(CASES))
def test_differential_case_recorded_as_langgraph_runs_it(name: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = run_case(name, recorded=False)
        if reference["stage"] == "build":
            pytest.skip("langgraph refuses this graph before it can be compiled")
        assert run_case(name, recorded=True) == reference


# ---------------------------------------------------------------------------------------------
# The checkpoint scenarios, on graphs compiled by langgraph, run alone and recorded
# ---------------------------------------------------------------------------------------------


def record_scenario(name: str, recorded: bool) -> list:
    """`test_checkpoint_differential.record` on langgraph, with every run recorded or not."""
    lg = get_backend("langgraph")
    recorder = checkpoint_suite.Recorder(lg)
    if recorded:
        with recording(db=False) as session:
            _with_timeout(lambda: checkpoint_suite.SCENARIOS[name](lg, recorder))
        for trace in session.traces:
            assert_no_mismatch(trace)
    else:
        _with_timeout(lambda: checkpoint_suite.SCENARIOS[name](lg, recorder))
    mask = checkpoint_suite.CheckpointNormaliser(mask=True)
    items = []
    for label, value in recorder.items:
        if isinstance(value, checkpoint_suite.Unordered):
            value = ("unordered", sorted(value, key=lambda c: sort_key(mask(c))))
        items.append((label, value))
    norm = checkpoint_suite.CheckpointNormaliser()
    return [(label, norm(value)) for label, value in items]


@pytest.mark.parametrize("name", list(checkpoint_suite.SCENARIOS))
def test_checkpoint_scenario_recorded_as_langgraph_runs_it(name: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        reference = record_scenario(name, recorded=False)
        problems = checkpoint_suite.differences(record_scenario(name, recorded=True), reference)
    assert not problems, "recording changed what LangGraph did:\n" + "\n".join(problems)


# ---------------------------------------------------------------------------------------------
# The gallery's samples (the seed examples), executed with langgraph imports
# ---------------------------------------------------------------------------------------------

#: What a sample imports from `engine`, and where langgraph defines it.
LANGGRAPH_NAMES = {
    "StateGraph": "langgraph.graph",
    "START": "langgraph.graph",
    "END": "langgraph.graph",
    "MessagesState": "langgraph.graph",
    "add_messages": "langgraph.graph",
    "Send": "langgraph.types",
    "Command": "langgraph.types",
    "Overwrite": "langgraph.types",
    "InvalidUpdateError": "langgraph.errors",
    "GraphRecursionError": "langgraph.errors",
    "EmptyInputError": "langgraph.errors",
    "HumanMessage": "langchain_core.messages",
    "AIMessage": "langchain_core.messages",
    "SystemMessage": "langchain_core.messages",
    "ToolMessage": "langchain_core.messages",
    "RemoveMessage": "langchain_core.messages",
    "REMOVE_ALL_MESSAGES": "langgraph.graph.message",
}


def load_with_langgraph(sample: str) -> types.ModuleType:
    """The sample module executed again with its `from engine import ...` bound to langgraph's objects."""
    fake = types.ModuleType("engine")
    for attribute, module in LANGGRAPH_NAMES.items():
        setattr(fake, attribute, getattr(importlib.import_module(module), attribute))
    saved = sys.modules["engine"]
    sys.modules["engine"] = fake
    try:
        spec = importlib.util.spec_from_file_location(
            f"sample_graphs._lg_{sample}", ROOT / "sample_graphs" / f"{sample}.py"
        )
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
    finally:
        sys.modules["engine"] = saved
    return module


SAMPLE_GRAPHS = [
    (sample, attribute)
    for sample in SAMPLES
    for attribute, value in vars(load_sample(sample)).items()
    if isinstance(value, engine.CompiledStateGraph)
]


def sample_input(module: types.ModuleType, attribute: str) -> Any:
    return getattr(module, "fixed_input", module.example_input) if attribute == "fixed_graph" else module.example_input


def comparable_trace(trace: Trace) -> Any:
    """What a trace says step by step, as the debugger shows it: each step's tasks (name, path, state
    writes, error class), its reducer calls (channel, reducer, writer, write, refused) and the state
    replayed after it; then status, error class and output. Ids, timings and versions differ by nature."""
    replay = Replay(trace)
    keys = set(trace.graph.get("channels", {}))

    def scrub(value: Any) -> Any:
        if isinstance(value, dict):
            return {k: scrub(v) for k, v in value.items() if k not in ("id", "traceback")}
        if isinstance(value, list):
            return [scrub(v) for v in value]
        return value

    steps = []
    for step in trace.steps:
        if step.step < 0:
            continue
        steps.append(
            (
                step.step,
                [
                    (t.name, t.path, scrub([w for w in t.writes if w[0] in keys]), (t.error or {}).get("class"))
                    for t in step.tasks
                ],
                [(c.channel, c.reducer, c.writer_name, scrub(c.write), bool(c.error)) for c in step.reducer_calls],
                scrub(replay.state_after(step.step)) if step.committed else None,
            )
        )
    return steps, trace.status, (trace.error or {}).get("class"), scrub(trace.output)


@pytest.mark.parametrize(("sample", "attribute"), SAMPLE_GRAPHS, ids=[f"{s}.{a}" for s, a in SAMPLE_GRAPHS])
def test_sample_written_with_langgraph_records_what_the_engine_records(sample: str, attribute: str) -> None:
    ours = load_sample(sample)
    theirs = load_with_langgraph(sample)
    compiled = getattr(theirs, attribute)
    assert is_langgraph_graph(compiled)
    graph_input = sample_input(ours, attribute)
    config = getattr(ours, "example_config", None)
    recorded_outcome, recorded_trace = assert_same_as_langgraph(compiled, graph_input, config)
    native_outcome, native_trace = record_native(getattr(ours, attribute), graph_input, config)
    assert comparable(recorded_outcome) == comparable(native_outcome)
    assert comparable_trace(recorded_trace) == comparable_trace(native_trace)


# ---------------------------------------------------------------------------------------------
# Graphs written with langgraph imports, and what their traces show
# ---------------------------------------------------------------------------------------------


class Log(TypedDict):
    log: Annotated[list[str], operator.add]


def test_parallel_plain_key_race_gives_langgraphs_error_and_records_the_refused_write() -> None:
    class State(TypedDict):
        messages: list[str]  # no reducer

    b = StateGraph(State)
    b.add_node("node_a", lambda s: {"messages": s["messages"] + ["from A"]})
    b.add_node("node_b", lambda s: {"messages": s["messages"] + ["from B"]})
    b.add_edge(START, "node_a")
    b.add_edge(START, "node_b")
    error, trace = assert_same_as_langgraph(b.compile(), {"messages": ["hi"]})
    assert type(error).__name__ == "InvalidUpdateError" and str(error) == CONFLICT.format(key="messages")
    assert trace.status == "error" and trace.error["class"] == "InvalidUpdateError"
    assert tasks_by_step(trace) == [["__start__"], ["node_a", "node_b"]]
    assert [(call[0], call[3]) for call in reducer_calls(trace, "messages")] == [
        ("__start__", None),
        ("node_a", "InvalidUpdateError"),
        ("node_b", "InvalidUpdateError"),  # both refused
    ]


def test_reducer_calls_fold_parallel_writes_in_node_order() -> None:
    b = StateGraph(Log)
    b.add_node("b_slow", lambda s: {"log": ["b"]})
    b.add_node("a_fast", lambda s: {"log": ["a"]})
    b.add_node("join", lambda s: {"log": [f"saw {len(s['log'])}"]})
    b.add_edge(START, "b_slow")
    b.add_edge(START, "a_fast")
    b.add_edge(["a_fast", "b_slow"], "join")
    result, trace = assert_same_as_langgraph(b.compile(), {"log": ["in"]})
    assert result == {"log": ["in", "a", "b", "saw 3"]}
    assert tasks_by_step(trace) == [["__start__"], ["a_fast", "b_slow"], ["join"]]
    assert reducer_calls(trace, "log") == [
        ("__start__", "operator.add", ["in"], None),
        ("a_fast", "operator.add", ["a"], None),
        ("b_slow", "operator.add", ["b"], None),
        ("join", "operator.add", ["saw 3"], None),
    ]


def test_add_messages_keeps_the_users_langchain_messages_and_records_them_as_messages() -> None:
    def reply(state: MessagesState) -> dict:
        return {"messages": [AIMessage("hello", id="a1")]}

    b = StateGraph(MessagesState)
    b.add_node("reply", reply)
    b.add_edge(START, "reply")
    result, trace = assert_same_as_langgraph(b.compile(), {"messages": [HumanMessage("hi", id="h1")]})
    assert [type(m) for m in result["messages"]] == [HumanMessage, AIMessage]  # langchain_core's, not ours
    assert {c.reducer for step in trace.steps for c in step.reducer_calls} == {"add_messages"}
    written = at_step(trace, 1).reducer_calls[0].write
    assert written == [{"$type": "message", "message": {"type": "ai", "data": {"content": "hello", "id": "a1"}}}]


def test_subgraph_node_is_converted_and_recorded_as_a_nested_run() -> None:
    child = StateGraph(Log)
    child.add_node("sub", lambda s: {"log": ["sub-1"]})
    child.add_edge(START, "sub")
    parent = StateGraph(Log)
    parent.add_node("p1", lambda s: {"log": ["parent"]})
    parent.add_node("child", child.compile())
    parent.add_edge(START, "p1")
    parent.add_edge("p1", "child")
    result, trace = assert_same_as_langgraph(parent.compile(), {"log": []})
    assert result == {"log": ["parent", "parent", "sub-1"]}  # the subgraph trap
    (nested,) = trace.steps[-1].tasks[0].subgraphs
    assert tasks_by_step(nested) == [["__start__"], ["sub"]]


def test_graph_invoked_inside_a_node_runs_on_the_engine_only_inside_a_rebuilt_run() -> None:
    class Inner(TypedDict):
        task: str
        result: str

    sub = StateGraph(Inner)
    sub.add_node("work", lambda s: {"result": s["task"].upper()})
    sub.add_edge(START, "work")
    subapp = sub.compile()

    def call_child(state: dict) -> dict:
        return {"log": [f"child->{subapp.invoke({'task': 'abc'})['result']}"]}

    b = StateGraph(Log)
    b.add_node("call_child", call_child)
    b.add_edge(START, "call_child")
    result, trace = assert_same_as_langgraph(b.compile(), {"log": []})
    assert result == {"log": ["child->ABC"]}
    (nested,) = trace.steps[-1].tasks[0].subgraphs
    assert tasks_by_step(nested) == [["__start__"], ["work"]]
    # Outside a StepScope run the inner graph is still langgraph's own.
    assert subapp.invoke({"task": "x"}) == {"task": "x", "result": "X"}
    assert list(subapp.stream({"task": "x"})) == [{"work": {"result": "X"}}]


def test_react_loop_with_a_scripted_model_and_langgraphs_tool_node() -> None:
    from langchain_core.tools import tool
    from langgraph.prebuilt import ToolNode, tools_condition

    @tool
    def multiply(a: int, b: int) -> int:
        """Multiply two numbers."""
        return a * b

    class ScriptedModel:
        def invoke(self, messages: list) -> AIMessage:
            if not any(isinstance(m, ToolMessage) for m in messages):
                return AIMessage("", id="ai-1", tool_calls=[{"name": "multiply", "args": {"a": 6, "b": 7}, "id": "c1"}])
            return AIMessage(f"6 x 7 = {messages[-1].content}", id="ai-2")

    model = ScriptedModel()

    def agent(state: MessagesState) -> dict:
        return {"messages": [model.invoke(state["messages"])]}

    b = StateGraph(MessagesState)
    b.add_node("agent", agent)
    b.add_node("tools", ToolNode([multiply]))
    b.add_edge(START, "agent")
    b.add_conditional_edges("agent", tools_condition)
    b.add_edge("tools", "agent")
    result, trace = assert_same_as_langgraph(b.compile(), {"messages": [HumanMessage("6 x 7?", id="h1")]})
    assert result["messages"][-1].content == "6 x 7 = 42"
    assert tasks_by_step(trace) == [["__start__"], ["agent"], ["tools"], ["agent"]]
    assert [t.routes for t in at_step(trace, 1).tasks] == [[["tools_condition", "tools"]]]
    assert [t.routes for t in at_step(trace, 3).tasks] == [[["tools_condition", "__end__"]]]


def test_send_map_reduce_records_one_push_task_per_send() -> None:
    class State(TypedDict):
        subjects: list[str]
        jokes: Annotated[list[str], operator.add]

    def fan_out(state: State) -> list[Send]:
        return [Send("joke", {"subject": s}) for s in state["subjects"]]

    b = StateGraph(State)
    b.add_node("plan", lambda s: {"subjects": ["owl", "cat"]})
    b.add_node("joke", lambda s: {"jokes": [f"a joke about {s['subject']}"]})
    b.add_edge(START, "plan")
    b.add_conditional_edges("plan", fan_out, ["joke"])
    result, trace = assert_same_as_langgraph(b.compile(), {"subjects": []})
    assert result["jokes"] == ["a joke about owl", "a joke about cat"]
    assert [t.path for t in trace.steps[-1].tasks] == [["__pregel_push", 0, False], ["__pregel_push", 1, False]]


def test_static_view_shows_the_users_functions_to_code_readers() -> None:
    def classify(state: Log) -> dict:
        return {"log": ["classified"]}

    def route(state: Log) -> str:
        return END

    b = StateGraph(Log)
    b.add_node("classify", classify)
    b.add_edge(START, "classify")
    b.add_conditional_edges("classify", route)
    view = static_view(b.compile())
    assert view.builder.nodes["classify"].action is classify  # what the diagnostics read
    assert view.builder.branches["classify"]["route"].router is route


def test_command_goto_update_and_overwrite() -> None:
    def triage(state: Log) -> Command[Literal["billing", "general"]]:
        return Command(goto="billing", update={"log": Overwrite(["reset"])})

    b = StateGraph(Log)
    b.add_node("triage", triage)
    b.add_node("billing", lambda s: {"log": ["billing"]})
    b.add_node("general", lambda s: {"log": ["general"]})
    b.add_edge(START, "triage")
    compiled = b.compile()
    result, trace = assert_same_as_langgraph(compiled, {"log": ["old"]})
    assert result == {"log": ["reset", "billing"]}
    assert tuple(static_view(compiled).builder.nodes["triage"].ends) == ("billing", "general")
    assert reducer_calls(trace, "log")[1] == ("triage", "operator.add", engine.Overwrite(["reset"]), None)


def test_command_parent_from_a_subgraph() -> None:
    def escalate(state: Log) -> Command:
        return Command(graph=Command.PARENT, goto="after", update={"log": ["from-sub"]})

    child = StateGraph(Log)
    child.add_node("escalate", escalate)
    child.add_edge(START, "escalate")
    parent = StateGraph(Log)
    parent.add_node("child", child.compile())
    parent.add_node("after", lambda s: {"log": ["after"]})
    parent.add_edge(START, "child")
    result, trace = assert_same_as_langgraph(parent.compile(), {"log": []})
    assert result == {"log": ["from-sub", "after"]}
    assert tasks_by_step(trace) == [["__start__"], ["child"], ["after"]]


def test_waiting_edges_defer_path_maps_schemas_and_a_raising_node() -> None:
    class In(TypedDict):
        question: str

    class Out(TypedDict):
        answer: str

    class State(In, Out):
        log: Annotated[list[str], operator.add]

    def route(state: State) -> str:
        return "long" if len(state["question"]) > 5 else "short"

    b = StateGraph(State, input_schema=In, output_schema=Out)
    b.add_node("ask", lambda s: {"log": ["ask"]})
    b.add_node("left", lambda s: {"log": ["left"]})
    b.add_node("right", lambda s: {"log": ["right"]})
    b.add_node("both", lambda s: {"log": ["both"]})
    b.add_node("summary", lambda s: {"answer": "/".join(s["log"])}, defer=True)
    b.add_edge(START, "ask")
    b.add_conditional_edges("ask", route, {"long": "left", "short": "right"})
    b.add_edge("ask", "right")
    b.add_edge(["ask", "right"], "both")
    b.add_edge("left", "summary")
    b.add_edge("both", "summary")
    result, trace = assert_same_as_langgraph(b.compile(), {"question": "a long question", "log": ["dropped"]})
    assert result == {"answer": "ask/left/right/both"}
    assert tasks_by_step(trace)[-1] == ["summary"]

    def boom(state: State) -> dict:
        raise KeyError("no such customer")

    failing = StateGraph(State)
    failing.add_node("boom", boom)
    failing.add_edge(START, "boom")
    error, trace = assert_same_as_langgraph(failing.compile(), {"question": "q"})
    assert isinstance(error, KeyError) and trace.status == "error"
    assert trace.steps[-1].tasks[0].error["class"] == "KeyError"
    assert trace.steps[-1].tasks[0].error["notes"][0].startswith("During task with name 'boom'")


def test_langgraph_interrupt_pauses_and_resumes_with_a_checkpointer() -> None:
    def ask(state: Log) -> dict:
        answer = interrupt("approve?")
        return {"log": [f"answer: {answer}"]}

    b = StateGraph(Log)
    b.add_node("ask", ask)
    b.add_node("done", lambda s: {"log": ["done"]})
    b.add_edge(START, "ask")
    b.add_edge("ask", "done")
    compiled = b.compile(checkpointer=InMemorySaver())
    alone = b.compile(checkpointer=InMemorySaver())
    cfg = {"configurable": {"thread_id": "t"}}
    with recording(db=False) as session:
        paused = compiled.invoke({"log": []}, cfg)
        resumed = compiled.invoke(Command(resume="yes"), cfg)
    stopped, finished = session.traces
    assert stopped.status == "interrupted" and stopped.interrupts[0]["value"] == "approve?"
    assert [i.value for i in paused["__interrupt__"]] == [
        i.value for i in alone.invoke({"log": []}, cfg)["__interrupt__"]
    ]
    assert resumed == alone.invoke(Command(resume="yes"), cfg)
    assert finished.status == "done" and compiled.get_state(cfg).values == {"log": ["answer: yes", "done"]}
    assert decode(Replay(finished).state_after(finished.steps[-1].step)) == {"log": ["answer: yes", "done"]}


def test_injected_parameters_and_langgraphs_context_functions() -> None:
    seen: dict[str, Any] = {}

    def with_config(state: Log, config: RunnableConfig) -> dict:
        seen["node"] = config["metadata"]["langgraph_node"]
        seen["thread"] = get_config()["configurable"].get("thread_id")
        return {"log": ["config"]}

    def with_runtime(state: Log, runtime: Runtime) -> dict:
        seen["context"] = runtime.context
        seen["task_id"] = runtime.execution_info.task_id
        return {"log": ["runtime"]}

    def with_writer(state: Log, writer: StreamWriter) -> dict:
        writer("progress")
        get_stream_writer()("more progress")
        return {"log": ["writer"]}

    b = StateGraph(Log)
    b.add_sequence([with_config, with_runtime, with_writer])
    b.add_edge(START, "with_config")
    result, trace = assert_same_as_langgraph(b.compile(), {"log": []}, {"configurable": {"thread_id": "t-1"}})
    assert result == {"log": ["config", "runtime", "writer"]}
    (runtime_task,) = [t for step in trace.steps for t in step.tasks if t.name == "with_runtime"]
    assert seen == {"node": "with_config", "thread": "t-1", "context": None, "task_id": runtime_task.id}


def test_with_config_applies_to_every_run() -> None:
    b = StateGraph(Log)
    b.add_node("again", lambda s: {"log": ["x"]})
    b.add_edge(START, "again")
    b.add_edge("again", "again")
    error, trace = assert_same_as_langgraph(b.compile().with_config(recursion_limit=4), {"log": []})
    assert type(error).__name__ == "GraphRecursionError" and "Recursion limit of 4 reached" in str(error)
    assert trace.status == "recursion_limit"


# ---------------------------------------------------------------------------------------------
# What the former rebuild refused, now recorded as langgraph runs it
# ---------------------------------------------------------------------------------------------


def one_node_graph(**node_kwargs: Any) -> StateGraph:
    b = StateGraph(Log)
    b.add_node("fetch", lambda s: {"log": ["x"]}, **node_kwargs)
    b.add_edge(START, "fetch")
    return b


async def async_node(state: Log) -> dict:
    return {"log": ["x"]}


def formerly_refused() -> dict[str, tuple[Any, Any, dict]]:
    """name -> (compiled graph, input, invoke kwargs)."""
    from langgraph.channels import Topic
    from langgraph.func import entrypoint, task
    from langgraph.managed import RemainingSteps
    from langgraph.store.memory import InMemoryStore

    @dataclass
    class Context:
        user: str = "u"

    class WithTopic(TypedDict):
        events: Annotated[list, Topic(str)]

    class WithSteps(TypedDict):
        log: Annotated[list[str], operator.add]
        remaining_steps: RemainingSteps

    @task
    def shout(text: str) -> str:
        return text.upper()

    def uses_task(state: Log) -> dict:
        return {"log": [shout("x").result()]}

    @entrypoint()
    def workflow(value: int) -> int:
        return value

    def graph_of(schema: Any, action: Any, **builder_kwargs: Any) -> Any:
        b = StateGraph(schema, **builder_kwargs)
        b.add_node("fetch", action)
        b.add_edge(START, "fetch")
        return b.compile()

    class OwnSaver(InMemorySaver):
        pass

    return {
        "retry": (one_node_graph(retry_policy=RetryPolicy()).compile(), {"log": []}, {}),
        "cache": (one_node_graph(cache_policy=CachePolicy()).compile(), {"log": []}, {}),
        "error handler": (one_node_graph(error_handler=lambda s: {"log": ["handled"]}).compile(), {"log": []}, {}),
        "context": (
            graph_of(Log, lambda s: {"log": ["c"]}, context_schema=Context),
            {"log": []},
            {"context": Context("ada")},
        ),
        "store": (one_node_graph().compile(store=InMemoryStore()), {"log": []}, {}),
        "topic channel": (graph_of(WithTopic, lambda s: {"events": ["e1", "e2"]}), {"events": ["in"]}, {}),
        "managed value": (graph_of(WithSteps, lambda s: {"log": [f"left {s['remaining_steps']}"]}), {"log": []}, {}),
        "task": (graph_of(Log, uses_task), {"log": []}, {}),
        "entrypoint": (workflow, 3, {}),
        "own checkpointer": (
            one_node_graph().compile(checkpointer=OwnSaver()),
            {"log": []},
            {"config": {"configurable": {"thread_id": "own"}}},
        ),
    }


@pytest.mark.parametrize("feature", list(formerly_refused()))
def test_what_the_rebuild_refused_is_recorded(feature: str) -> None:
    compiled, graph_input, kwargs = formerly_refused()[feature]
    alone = compiled.invoke(copy.deepcopy(graph_input), **kwargs)
    if "config" in kwargs:  # a thread of its own, not a second turn of the first run's
        kwargs = {**kwargs, "config": {"configurable": {"thread_id": "recorded"}}}
    with recording(db=False) as session:
        assert compiled.invoke(copy.deepcopy(graph_input), **kwargs) == alone
    trace = session.traces[-1]
    assert trace.status == "done"
    assert_no_mismatch(trace)
    assert any(t.name != "__start__" for s in trace.steps for t in s.tasks)


def test_an_async_graph_is_recorded_through_ainvoke() -> None:

    b = StateGraph(Log)
    b.add_node("fetch", async_node)
    b.add_edge(START, "fetch")
    compiled = b.compile()
    with recording(db=False) as session:
        assert run_coroutine(lambda: compiled.ainvoke({"log": []})) == {"log": ["x"]}
    assert session.traces[-1].status == "done"


def test_an_async_graph_opened_from_a_running_event_loop_is_recorded() -> None:
    """The debugger runs `async def` graphs with ainvoke; from a thread whose loop already runs (a
    notebook, a Playwright script) that must still work, on a worker thread."""
    import asyncio

    from debugger.runtimes.langgraph.recorder.runs import run_graph

    b = StateGraph(Log)
    b.add_node("fetch", async_node)
    b.add_edge(START, "fetch")
    compiled = b.compile()

    async def inside_a_loop():
        return run_graph(compiled, {"log": []}, target="async.py:graph", db=False)

    result = asyncio.run(inside_a_loop())
    assert result.error is None and result.trace.status == "done"
    assert [t.name for s in result.trace.steps for t in s.tasks] == ["__start__", "fetch"]


# ---------------------------------------------------------------------------------------------
# Loading a langgraph file: targets, the CLI, the debugger's "Graph file"
# ---------------------------------------------------------------------------------------------

APP = textwrap.dedent(
    """
    import operator
    from typing import Annotated, TypedDict

    from langchain_core.messages import AIMessage
    from langgraph.graph import END, START, MessagesState, StateGraph


    class State(MessagesState):
        log: Annotated[list[str], operator.add]


    def answer(state: State) -> dict:
        return {"messages": [AIMessage("hello", id="ai-1")], "log": ["answer"]}


    def audit(state: State) -> dict:
        return {"log": ["audit"]}


    builder = StateGraph(State)
    builder.add_node("answer", answer)
    builder.add_node("audit", audit)
    builder.add_edge(START, "answer")
    builder.add_edge(START, "audit")
    builder.add_edge(["answer", "audit"], END)
    graph = builder.compile()
    example_input = {"messages": [{"role": "user", "content": "hi", "id": "u-1"}], "log": []}
    """
)


@pytest.fixture
def app_file(tmp_path: Path) -> Path:
    path = tmp_path / "my_app.py"
    path.write_text(APP, encoding="utf-8")
    return path


def test_load_target_keeps_the_langgraph_graph_itself(app_file: Path) -> None:
    loaded = load_target(f"{app_file}:graph")
    assert loaded.runtime.name == "langgraph" and is_langgraph_graph(loaded.graph)


def test_load_target_without_attribute_picks_graph_and_refuses_a_builder(app_file: Path) -> None:
    assert is_langgraph_graph(load_target(str(app_file)).graph)
    assert is_langgraph_builder(load_target(str(app_file)).module.builder)
    with pytest.raises(TargetError, match="is a builder; call .compile"):
        load_target(f"{app_file}:builder")


def test_a_retrying_app_loads_and_records(tmp_path: Path) -> None:
    path = tmp_path / "retrying.py"
    path.write_text(
        APP.replace(
            'builder.add_node("audit", audit)', 'builder.add_node("audit", audit, retry_policy=RetryPolicy())'
        ).replace("from langgraph.graph import", "from langgraph.types import RetryPolicy\nfrom langgraph.graph import")
    )
    opened = sources.open_target(f"{path}:graph", None, db=str(tmp_path / "runs.sqlite3"))
    assert opened.trace.status == "done" and tasks_by_step(opened.trace)[-1] == ["answer", "audit"]


def test_the_debugger_opens_a_langgraph_graph_file(app_file: Path, tmp_path: Path) -> None:
    opened = sources.open_target(f"{app_file}:graph", None, db=str(tmp_path / "runs.sqlite3"))
    assert opened.source == "file" and is_langgraph_graph(opened.graph)
    assert opened.trace.status == "done"
    assert tasks_by_step(opened.trace) == [["__start__"], ["answer", "audit"]]
    messages = decode(opened.trace.output)["messages"]
    assert [(m.type, m.content) for m in messages] == [("human", "hi"), ("ai", "hello")]
    edited = sources.open_target(
        f"{app_file}:graph", json.dumps({"messages": [], "log": ["edited"]}), db=str(tmp_path / "runs.sqlite3")
    )
    assert decode(edited.trace.output)["log"] == ["edited", "answer", "audit"]


def stepscope(*args: str, db: Path) -> subprocess.CompletedProcess:
    script = Path(sys.executable).with_name("stepscope")
    command = [str(script)] if script.exists() else [sys.executable, "-m", "debugger.cli"]
    env = {**os.environ, "STEPSCOPE_DB": str(db)}
    return subprocess.run([*command, *args], capture_output=True, text=True, timeout=120, env=env, cwd=ROOT)


def test_stepscope_run_records_a_langgraph_file(app_file: Path, tmp_path: Path) -> None:
    out = tmp_path / "trace.json"
    done = stepscope("run", f"{app_file}:graph", "--out", str(out), db=tmp_path / "runs.sqlite3")
    assert done.returncode == 0, done.stderr
    assert "answer, audit" in done.stdout and "status: done" in done.stdout
    trace = json.loads(out.read_text())
    assert [t["name"] for t in trace["steps"][-1]["tasks"]] == ["answer", "audit"]
    assert trace["graph"]["channels"]["messages"]["reducer"] == "add_messages"


def test_stepscope_run_records_an_async_langgraph_file(tmp_path: Path) -> None:
    path = tmp_path / "async_app.py"
    path.write_text(APP.replace("def audit(", "async def audit("))
    done = stepscope("run", f"{path}:graph", db=tmp_path / "runs.sqlite3")
    assert done.returncode == 0, done.stderr
    assert "answer, audit" in done.stdout and "status: done" in done.stdout


# ---------------------------------------------------------------------------------------------
# Boundaries
# ---------------------------------------------------------------------------------------------


def test_loading_engine_graphs_and_the_recorder_package_never_imports_langgraph() -> None:
    code = (
        "import sys\n"
        "import debugger.runtimes.langgraph.recorder as a, debugger.runtimes.targets as t\n"
        "import debugger.cli, debugger.sources.runs\n"
        "loaded = t.load_target('subgraph_trap')\n"
        "assert not a.is_langgraph_graph(loaded.graph) and loaded.runtime.name == 'engine'\n"
        "print(sorted(m for m in sys.modules if m.split('.')[0] in ('langgraph', 'langchain_core')))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]"


def test_langchain_messages_are_recorded_as_messages_without_the_engine_importing_langchain() -> None:
    message = AIMessage("", id="ai-1", tool_calls=[{"name": "f", "args": {"a": 1}, "id": "c1"}])
    encoded = encode(message)
    assert encoded["$type"] == "message" and encoded["message"]["type"] == "ai"
    back = decode(encoded)
    assert isinstance(back, engine.AIMessage) and back.tool_calls == message.tool_calls and back.id == "ai-1"
    assert encode(AIMessageChunk("partial"))["$type"] == "object"  # chunks are not one of the engine's types
