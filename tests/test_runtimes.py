"""The run interface (`debugger/runtimes/`): the loader picks a graph's runtime once, every runtime has
every member the protocol names, and an engine graph refuses the thread options by name."""

from __future__ import annotations

import inspect

import pytest

from debugger.runtimes.capabilities import Threads
from debugger.runtimes.registry import RUNTIMES, find_runtime, runtime_of, runtime_of_trace
from debugger.runtimes.runtime import Runtime, TargetError
from debugger.runtimes.targets import load_target
from debugger.sources.runs import record

PROTOCOL_MEMBERS = sorted({name for name in vars(Runtime) if not name.startswith("_")} | set(Runtime.__annotations__))


@pytest.mark.parametrize("runtime", RUNTIMES, ids=lambda r: r.name)
def test_every_runtime_provides_every_member_of_the_protocol(runtime) -> None:
    missing = [name for name in PROTOCOL_MEMBERS if not hasattr(runtime, name)]
    assert not missing, f"{runtime.name} lacks {missing}"
    for name in PROTOCOL_MEMBERS:
        declared = getattr(Runtime, name, None)
        if callable(declared):  # the same keyword parameters, so callers written once work on each
            wanted = set(inspect.signature(declared).parameters)
            assert set(inspect.signature(getattr(type(runtime), name)).parameters) == wanted, (runtime.name, name)


def test_the_loader_picks_the_engine_runtime_for_an_engine_graph_and_its_traces() -> None:
    loaded = load_target("subgraph_trap")
    assert loaded.runtime is runtime_of(loaded.graph) and loaded.runtime.name == "engine"
    trace = record(loaded.graph, loaded.example_input, loaded.example_config, "subgraph_trap")
    assert runtime_of_trace(trace) is loaded.runtime and Threads not in loaded.runtime.capabilities


def test_something_no_runtime_compiled_is_refused_with_the_kinds_it_could_be() -> None:
    assert find_runtime(object()) is None
    with pytest.raises(TargetError, match="not a compiled graph \\(StepScope's or langgraph's\\)"):
        runtime_of(42)


def test_an_engine_graph_refuses_the_thread_options_by_name() -> None:
    engine = load_target("subgraph_trap").runtime
    engine.check_run_options({}, "subgraph_trap")
    with pytest.raises(TargetError, match="^--thread, --resume: only for langgraph apps"):
        engine.check_run_options({"thread": "--thread", "resume": "--resume"}, "subgraph_trap")
    with pytest.raises(TargetError, match="^The thread: only for langgraph apps"):  # as the app's form names it
        engine.check_run_options({"thread": "The thread"}, "subgraph_trap")


def test_a_langgraph_graph_is_claimed_by_the_langgraph_runtime() -> None:
    pytest.importorskip("langgraph")
    from typing import TypedDict

    from langgraph.graph import START, StateGraph

    class State(TypedDict):
        n: int

    builder = StateGraph(State)
    builder.add_node("inc", lambda s: {"n": s["n"] + 1})
    builder.add_edge(START, "inc")
    graph = builder.compile()
    runtime = runtime_of(graph)
    assert runtime.name == "langgraph" and Threads in runtime.capabilities
    trace = record(graph, {"n": 1}, {}, "inc")
    assert trace.status == "done" and runtime_of_trace(trace) is runtime
    view, skipped = runtime.static_view(graph)
    assert skipped is None and "inc" in view.builder.nodes
