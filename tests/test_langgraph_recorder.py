"""Realistic langgraph apps, each run by langgraph alone and recorded by watching langgraph's run.

For every app: the final state (or the error class and text) and the interrupts are the same with
and without recording, no step has a mismatch, and every step's replayed merges (`debugger.diagnostics.replay`,
re-folding the recorded reducer calls) equal the state langgraph committed at that step (read from
an InMemorySaver's history of an identical, unrecorded run).
"""

# No `from __future__ import annotations`: langgraph reads the schemas below through their annotations.
import asyncio
import copy
import operator
from dataclasses import dataclass
from typing import Annotated, Any, TypedDict

import pytest

pytest.importorskip("langgraph")

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel  # noqa: E402
from langchain_core.messages import AIMessage, HumanMessage, RemoveMessage  # noqa: E402
from langchain_core.tools import tool  # noqa: E402
from langgraph.checkpoint.memory import InMemorySaver  # noqa: E402
from langgraph.errors import InvalidUpdateError  # noqa: E402
from langgraph.graph import END, START, StateGraph, add_messages  # noqa: E402
from langgraph.managed import RemainingSteps  # noqa: E402
from langgraph.prebuilt import create_react_agent  # noqa: E402
from langgraph.runtime import Runtime  # noqa: E402
from langgraph.types import Command, RetryPolicy, Send, interrupt  # noqa: E402

from debugger.diagnostics import diagnose  # noqa: E402
from debugger.diagnostics.replay import Replay  # noqa: E402
from debugger.runtimes.langgraph.recorder import record, recording  # noqa: E402
from debugger.runtimes.langgraph.recorder.runs import run_coroutine  # noqa: E402
from debugger.runtimes.langgraph.recorder.static_view import static_view  # noqa: E402
from engine.codec import encode  # noqa: E402
from engine.tracefile import from_json, to_json  # noqa: E402

# ---- helpers ------------------------------------------------------------------------------------


def strip_ids(value: Any) -> Any:
    """Encoded values without message ids and run ids, which langgraph draws at random per run."""
    if isinstance(value, list):
        return [strip_ids(v) for v in value]
    if isinstance(value, dict):
        return {k: strip_ids(v) for k, v in value.items() if k not in ("id", "run_id")}
    return value


def outcome(call) -> Any:
    try:
        return ("ok", strip_ids(encode(call())))
    except Exception as exc:  # noqa: BLE001 - the error is the outcome compared
        return ("error", type(exc).__name__, str(exc))


def committed_by_step(build, graph_input, config=None, **kwargs) -> dict[int, Any]:
    """langgraph's own committed state after each step, from a checkpointer's history."""
    app = build().copy(update={"checkpointer": InMemorySaver()})
    config = {**(config or {}), "configurable": {**(config or {}).get("configurable", {}), "thread_id": "reference"}}
    try:
        app.invoke(copy.deepcopy(graph_input), config, **kwargs)
    except Exception:  # noqa: BLE001 - a failing run still has the checkpoints of its finished steps
        pass
    return {s.metadata["step"]: strip_ids(encode(s.values)) for s in app.get_state_history(config)}


def assert_merges_fold_to_committed(trace, reference: dict[int, Any]) -> None:
    replay = Replay(trace)
    checked = 0
    for step in trace.steps:
        assert step.mismatches == [], f"step {step.step}: {step.mismatches}"
        if step.committed and step.step in reference:
            assert strip_ids(replay.state_after(step.step)) == reference[step.step], f"step {step.step}"
            checked += 1
    assert checked, "no step was compared"


def recorded_outcome(build, graph_input, config=None, **kwargs):
    with recording(db=False) as session:
        result = outcome(lambda: build().invoke(copy.deepcopy(graph_input), config, **kwargs))
    assert len(session.traces) == 1
    trace = from_json(to_json(session.traces[0]))  # what is stored is what is checked
    return result, trace


def check_app(build, graph_input, config=None, **kwargs):
    alone = outcome(lambda: build().invoke(copy.deepcopy(graph_input), config, **kwargs))
    recorded, trace = recorded_outcome(build, graph_input, config, **kwargs)
    assert recorded == alone
    assert_merges_fold_to_committed(trace, committed_by_step(build, graph_input, config, **kwargs))
    return alone, trace


def tasks_by_step(trace) -> list[list[str]]:
    return [sorted(t.name for t in s.tasks) for s in trace.steps if s.tasks]


# ---- the apps ------------------------------------------------------------------------------------


class ToolCallingFake(GenericFakeChatModel):
    """A scripted chat model that accepts tools, as create_react_agent needs."""

    def bind_tools(self, tools, **kwargs):
        return self


@tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


@tool
def get_time(city: str) -> str:
    """The local time in a city."""
    return f"noon in {city}"


def react_agent():
    model = ToolCallingFake(
        messages=iter(
            [
                AIMessage(
                    content="",
                    tool_calls=[
                        {"name": "get_weather", "args": {"city": "Paris"}, "id": "call_1"},
                        {"name": "get_time", "args": {"city": "Paris"}, "id": "call_2"},
                    ],
                ),
                AIMessage(content="It is sunny and noon in Paris."),
            ]
        )
    )
    return create_react_agent(model, [get_weather, get_time])


def test_create_react_agent_with_two_parallel_tool_calls():
    (status, final), trace = check_app(react_agent, {"messages": [HumanMessage("weather and time in Paris?")]})
    assert status == "ok"
    assert final["messages"][-1]["message"]["data"]["content"] == "It is sunny and noon in Paris."
    assert trace.status == "done"
    # the two tool calls run as two Send tasks of the `tools` node in one step
    assert ["tools", "tools"] in tasks_by_step(trace)
    tool_step = next(s for s in trace.steps if [t.name for t in s.tasks] == ["tools", "tools"])
    assert all(t.path[0] == "__pregel_push" for t in tool_step.tasks)
    assert [c.writer_name for c in tool_step.reducer_calls] == ["tools", "tools"]
    assert {c.reducer for c in tool_step.reducer_calls} == {"add_messages"}
    # the agent's managed value is recorded as what the node saw
    agent_task = next(t for s in trace.steps for t in s.tasks if t.name == "agent")
    assert "remaining_steps" in agent_task.managed


class Fan(TypedDict):
    items: list[int]
    results: Annotated[list, operator.add]


def async_gather_graph():
    async def fetch(state: Fan):
        async def one(i):
            await asyncio.sleep(0.001 * (3 - i))
            return i * 10

        return {"results": list(await asyncio.gather(*(one(i) for i in state["items"])))}

    async def more(state: Fan):
        values = await asyncio.gather(*(asyncio.sleep(0, result=i + 1) for i in state["items"]))
        return {"results": list(values)}

    graph = StateGraph(Fan)
    graph.add_node("fetch", fetch)
    graph.add_node("more", more)
    graph.add_edge(START, "fetch")
    graph.add_edge(START, "more")
    graph.add_edge("fetch", END)
    return graph.compile()


def test_async_graph_with_gather_inside_nodes_via_ainvoke_and_astream():
    graph_input = {"items": [0, 1, 2], "results": []}
    alone = run_coroutine(lambda: async_gather_graph().ainvoke(copy.deepcopy(graph_input)))
    recorded = record(async_gather_graph(), db=False)
    assert run_coroutine(lambda: recorded.ainvoke(copy.deepcopy(graph_input))) == alone

    async def streamed():
        return [chunk async for chunk in recorded.astream(copy.deepcopy(graph_input), stream_mode="values")]

    chunks = run_coroutine(streamed)
    assert chunks[-1] == alone
    assert len(recorded.traces) == 2
    for trace in recorded.traces:
        step = next(s for s in trace.steps if len(s.tasks) == 2)
        assert [c.writer_name for c in step.reducer_calls] == ["fetch", "more"]  # langgraph's order: by node name
        assert Replay(trace).state_after(trace.steps[-1].step)["results"] == alone["results"]
        assert all(s.mismatches == [] for s in trace.steps)


class Counter(TypedDict):
    attempts: Annotated[list, operator.add]
    done: bool


def flaky_graph():
    calls = {"n": 0}

    def flaky(state: Counter):
        calls["n"] += 1
        if calls["n"] < 3:
            raise ConnectionError(f"timeout #{calls['n']}")
        return {"attempts": [calls["n"]], "done": True}

    graph = StateGraph(Counter)
    graph.add_node(
        "flaky",
        flaky,
        retry_policy=RetryPolicy(max_attempts=5, initial_interval=0.001, jitter=False, retry_on=ConnectionError),
    )
    graph.add_edge(START, "flaky")
    return graph.compile()


def test_flaky_node_under_retry_policy_records_each_failed_attempt():
    (status, final), trace = check_app(flaky_graph, {"attempts": []})
    assert status == "ok" and final == {"attempts": [3], "done": True}
    task = next(t for s in trace.steps for t in s.tasks if t.name == "flaky")
    assert task.error is None
    assert [a["error"]["message"] for a in task.attempts] == ["timeout #1", "timeout #2"]
    assert task.attempts[0]["error"]["class"] == "ConnectionError"


@dataclass
class Ctx:
    user: str


class Greeting(TypedDict):
    text: str


def context_graph():
    def greet(state: Greeting, runtime: Runtime[Ctx]):
        return {"text": f"{state['text']}, {runtime.context.user}"}

    graph = StateGraph(Greeting, context_schema=Ctx)
    graph.add_node("greet", greet)
    graph.add_edge(START, "greet")
    return graph.compile()


def test_context_schema():
    (status, final), trace = check_app(context_graph, {"text": "hello"}, context=Ctx(user="ada"))
    assert final == {"text": "hello, ada"}
    assert trace.status == "done"


class Loop(TypedDict):
    count: int
    remaining_steps: RemainingSteps


def remaining_steps_graph():
    def step(state: Loop):
        return {"count": state["count"] + 1}

    def again(state: Loop):
        return END if state["remaining_steps"] <= 2 else "step"

    graph = StateGraph(Loop)
    graph.add_node("step", step)
    graph.add_edge(START, "step")
    graph.add_conditional_edges("step", again)
    return graph.compile()


def test_remaining_steps_managed_value():
    (status, final), trace = check_app(remaining_steps_graph, {"count": 0}, {"recursion_limit": 6})
    assert status == "ok"
    seen = [t.managed["remaining_steps"] for s in trace.steps for t in s.tasks if t.name == "step"]
    assert len(seen) == final["count"] and seen == sorted(seen, reverse=True) and seen[-1] <= 2
    assert [t.routes for s in trace.steps for t in s.tasks if t.name == "step"][-1] == [["again", "__end__"]]


class Parent(TypedDict):
    log: Annotated[list, operator.add]
    answer: str


def command_parent_graph():
    def decide(state: Parent):
        return Command(graph=Command.PARENT, goto="finish", update={"log": ["sub decided"]})

    sub = StateGraph(Parent)
    sub.add_node("decide", decide)
    sub.add_edge(START, "decide")
    sub_app = sub.compile()

    def finish(state: Parent):
        return {"answer": f"{len(state['log'])} entries"}

    graph = StateGraph(Parent)
    graph.add_node("sub", sub_app, destinations=("finish",))
    graph.add_node("finish", finish)
    graph.add_edge(START, "sub")
    return graph.compile()


def test_subgraph_leaving_with_command_parent():
    (status, final), trace = check_app(command_parent_graph, {"log": ["start"]})
    assert final == {"log": ["start", "sub decided"], "answer": "2 entries"}
    sub_task = next(t for s in trace.steps for t in s.tasks if t.name == "sub")
    assert sub_task.error is None and sub_task.result["$type"] == "Command"
    assert len(sub_task.subgraphs) == 1
    nested = sub_task.subgraphs[0]
    assert nested.ns[0].startswith("sub:") and [t.name for s in nested.steps for t in s.tasks][-1] == "decide"
    assert not [f for f in diagnose(static_view(command_parent_graph()), trace) if f.kind == "subgraph_duplication"]


class MapReduce(TypedDict):
    topics: list[str]
    jokes: Annotated[list, operator.add]


def map_reduce_graph():
    def fan_out(state: MapReduce):
        return [Send("joke", {"topic": t}) for t in state["topics"]]

    def joke(arg: dict):
        return {"jokes": [f"a joke about {arg['topic']}"]}

    graph = StateGraph(MapReduce)
    graph.add_node("joke", joke)
    graph.add_conditional_edges(START, fan_out, ["joke"])
    graph.add_edge("joke", END)
    return graph.compile()


def test_send_map_reduce():
    (status, final), trace = check_app(map_reduce_graph, {"topics": ["cats", "dogs", "owls"]})
    step = next(s for s in trace.steps if [t.name for t in s.tasks] == ["joke"] * 3)
    assert [t.input for t in step.tasks] == [{"topic": "cats"}, {"topic": "dogs"}, {"topic": "owls"}]
    assert [c.write for c in step.reducer_calls] == [[f"a joke about {t}"] for t in ("cats", "dogs", "owls")]


class Plain(TypedDict):
    value: str


def conflict_graph():
    graph = StateGraph(Plain)
    graph.add_node("left", lambda s: {"value": "L"})
    graph.add_node("right", lambda s: {"value": "R"})
    graph.add_edge(START, "left")
    graph.add_edge(START, "right")
    return graph.compile()


def test_parallel_plain_key_conflict_names_both_writers():
    (status, error_class, message), trace = check_app(conflict_graph, {"value": "start"})
    assert error_class == "InvalidUpdateError" and "At key 'value'" in message
    assert trace.status == "error" and trace.error["class"] == "InvalidUpdateError"
    step = next(s for s in trace.steps if len(s.tasks) == 2)
    assert not step.committed
    refused = [(c.writer_name, c.write) for c in step.reducer_calls if c.error]
    assert refused == [("left", "L"), ("right", "R")]
    findings = [f for f in diagnose(None, trace) if f.severity == "error"]
    assert findings and "left" in findings[0].explanation and "right" in findings[0].explanation


# ---- interrupts, checkpoints, threads --------------------------------------------------------------


class Approval(TypedDict):
    request: str
    decision: str


def approval_graph(checkpointer=None):
    def ask(state: Approval):
        answer = interrupt({"question": f"approve {state['request']}?"})
        return {"decision": answer}

    graph = StateGraph(Approval)
    graph.add_node("ask", ask)
    graph.add_edge(START, "ask")
    return graph.compile(checkpointer=checkpointer or InMemorySaver())


def test_interrupt_and_resume_record_two_runs_of_one_thread_with_checkpoints():
    app = record(approval_graph(), db=False)
    config = {"configurable": {"thread_id": "t1"}}
    first = app.invoke({"request": "refund"}, config)
    assert "__interrupt__" in first
    second = app.invoke(Command(resume="yes"), config)
    assert second == {"request": "refund", "decision": "yes"}
    stopped, resumed = app.traces
    assert stopped.status == "interrupted" and stopped.thread_id == "t1"
    assert stopped.interrupts[0]["value"] == {"question": "approve refund?"} and stopped.interrupts[0]["node"] == "ask"
    assert resumed.status == "done" and resumed.thread_id == "t1"
    ids = [s.checkpoint["configurable"]["checkpoint_id"] for s in stopped.steps + resumed.steps if s.checkpoint]
    assert len(ids) == len(set(ids)) >= 3
    parents = [s.parent_checkpoint for s in resumed.steps if s.checkpoint]
    assert parents[-1]["configurable"]["checkpoint_id"] in ids
    assert Replay(resumed).state_after(resumed.steps[-1].step) == {"request": "refund", "decision": "yes"}


def test_a_checkpointer_without_thread_id_is_kept_as_a_failed_run_with_the_cause():
    app = record(approval_graph(), db=False)
    with pytest.raises(ValueError, match="thread_id"):
        app.invoke({"request": "x"})
    (trace,) = app.traces
    assert trace.status == "error" and trace.steps == [] and "thread_id" in trace.error["message"]


def test_nested_subgraph_run_is_filed_under_its_task_and_stream_modes_still_work():
    class S(TypedDict):
        log: Annotated[list, operator.add]

    inner = StateGraph(S)
    inner.add_node("inner_step", lambda s: {"log": ["inner"]})
    inner.add_edge(START, "inner_step")
    outer = StateGraph(S)
    outer.add_node("child", inner.compile())
    outer.add_edge(START, "child")
    app = record(outer.compile(), db=False)
    chunks = list(app.stream({"log": ["in"]}, stream_mode="updates", subgraphs=True))
    assert chunks  # the user's stream is langgraph's own
    (trace,) = app.traces
    child = next(t for s in trace.steps for t in s.tasks if t.name == "child")
    assert [t.name for s in child.subgraphs[0].steps for t in s.tasks] == ["__start__", "inner_step"]
    # the subgraph received the parent's list and returned it: the duplication is recorded as it happened
    assert Replay(trace).state_after(trace.steps[-1].step)["log"] == ["in", "in", "inner"]


def test_the_one_liner_stores_every_run_of_invoke_and_stream_and_a_failing_one(tmp_path):
    from debugger.stores.sqlite import RunStore

    db = tmp_path / "runs.sqlite3"
    graph = record(map_reduce_graph(), db=str(db))
    graph.invoke({"topics": ["cats"]})
    list(graph.stream({"topics": ["dogs", "owls"]}))
    failing = record(conflict_graph(), db=str(db), target="tests:conflict")
    with pytest.raises(InvalidUpdateError):
        failing.invoke({"value": "x"})
    runs = RunStore(db).list()
    assert [r.status for r in runs] == ["error", "done", "done"]
    assert runs[0].target == "tests:conflict" and runs[0].graph == "tests:conflict"
    stored = RunStore(db).load(runs[1].run_id)
    assert Replay(stored).state_after(stored.steps[-1].step)["jokes"] == ["a joke about dogs", "a joke about owls"]


def test_time_travel_forks_and_resumes_a_langgraph_run():
    from debugger.sources import forks as timetravel

    graph_input = {"topics": ["cats", "dogs"]}
    app = map_reduce_graph()
    with recording(db=False) as session:
        app.invoke(copy.deepcopy(graph_input))
    original = session.traces[-1]
    step = next(s.step for s in original.steps if [t.name for t in s.tasks] == ["joke", "joke"])
    branch = timetravel.fork(
        timetravel.ForkRequest(app, graph_input, {}, original, step, "joke", "jokes", ["an edited joke"])
    )
    assert branch.replay_matches and branch.trace.status == "done"
    final = Replay(branch.trace).state_after(branch.trace.steps[-1].step)
    assert final["jokes"] == ["an edited joke"]  # the fork's write replaced the step's writes
    approval = approval_graph()
    with recording(db=False) as session:
        approval.invoke({"request": "refund"}, {"configurable": {"thread_id": "tt"}})
    resumed = timetravel.resume(approval, {"request": "refund"}, {}, session.traces[-1], "no")
    assert resumed.trace.status == "done"
    assert Replay(resumed.trace).state_after(resumed.trace.steps[-1].step)["decision"] == "no"


def test_a_mismatch_between_recorded_merges_and_committed_state_is_an_error_finding():
    import dataclasses

    (status, final), trace = check_app(map_reduce_graph, {"topics": ["cats"]})
    step = trace.steps[-1]
    broken = dataclasses.replace(step, mismatches=[{"channel": "jokes", "recorded": ["x"], "committed": ["y"]}])
    trace.steps[-1] = broken
    findings = [f for f in diagnose(None, trace) if f.kind == "committed_mismatch"]
    assert len(findings) == 1 and findings[0].severity == "error" and findings[0].key == "jokes"
    assert "'x'" in findings[0].explanation and "'y'" in findings[0].explanation


def test_refold_rebuilds_a_steps_reducer_calls_from_stored_checkpoints_and_pending_writes():
    """The builder fed from data alone (as a reader of stored threads does): a checkpoint's channels
    and the next step's task writes give the same reducer calls the live recorder saw."""
    from types import SimpleNamespace

    from langgraph.pregel._checkpoint import channels_from_checkpoint

    from debugger.runtimes.langgraph.recorder.superstep import call_sink, refold
    from engine.run_start import new_run
    from engine.trace_writer import TraceWriter

    app = react_agent().copy(update={"checkpointer": InMemorySaver()})
    config = {"configurable": {"thread_id": "refold"}}
    with recording(db=False) as session:
        app.invoke({"messages": [HumanMessage("weather and time in Paris?")]}, config)
    live = session.traces[-1]
    history = {s.metadata["step"]: s for s in app.get_state_history(config)}
    tool_step = next(s for s in live.steps if [t.name for t in s.tasks] == ["tools", "tools"])
    stored = app.checkpointer.get_tuple(history[tool_step.step - 1].config)  # the checkpoint the step started from
    channels, _ = channels_from_checkpoint(app.channels, stored.checkpoint)
    planned = history[tool_step.step - 1].tasks  # langgraph's PregelTask: id, name, path
    tasks = [
        SimpleNamespace(
            id=t.id,
            name=t.name,
            path=t.path,
            writes=[(c, v) for task_id, c, v in stored.pending_writes if task_id == t.id],
        )
        for t in planned
    ]
    keys = list(app.builder.channels)
    run = TraceWriter(new_run(ns=[], graph={}, input=None, config=None, started_at=""), check_commits=True)
    after = refold(channels, tasks, keys, call_sink(run, tool_step.step))
    rebuilt = run.record.steps[-1].reducer_calls
    assert [(c.channel, c.writer_name, c.reducer) for c in rebuilt] == [
        (c.channel, c.writer_name, c.reducer) for c in tool_step.reducer_calls
    ]
    assert strip_ids(encode(after["messages"])) == strip_ids(encode(history[tool_step.step].values["messages"]))


def test_a_delta_channel_key_is_refused_by_name_before_anything_runs():
    from langgraph.channels.delta import DeltaChannel

    from debugger.runtimes.langgraph.recorder.superstep import UnrecordableChannel

    class Batched(TypedDict):
        items: Annotated[list, DeltaChannel(lambda state, writes: state + [w for batch in writes for w in batch])]

    graph = StateGraph(Batched)
    graph.add_node("add", lambda s: {"items": [1]})
    graph.add_edge(START, "add")
    app = graph.compile()
    with pytest.raises(UnrecordableChannel, match="state key 'items' uses the langgraph channel DeltaChannel"):
        record(app, db=False)
    with recording(db=False):
        with pytest.raises(UnrecordableChannel, match="operator.add"):
            app.invoke({"items": []})
    assert app.invoke({"items": []}) == {"items": [1]}  # outside a recording, langgraph's own run is untouched


def test_a_reducer_that_raises_on_a_single_write_is_recorded_on_its_key():
    def picky(old, new):
        if new == ["bad"]:
            raise ValueError("no bad items")
        return old + new

    class Two(TypedDict):
        good: Annotated[list, operator.add]
        checked: Annotated[list, picky]

    def build():
        graph = StateGraph(Two)
        graph.add_node("write", lambda s: {"good": ["g"], "checked": ["bad"]})
        graph.add_edge(START, "write")
        return graph.compile()

    (status, error_class, message), trace = check_app(build, {"good": [], "checked": []})
    assert error_class == "ValueError" and message == "no bad items"
    step = next(s for s in trace.steps if [t.name for t in s.tasks] == ["write"])
    assert [(c.channel, c.writer_name, bool(c.error)) for c in step.reducer_calls] == [
        ("good", "write", False),
        ("checked", "write", True),
    ]
    assert step.reducer_calls[1].error["message"] == "no bad items" and not step.committed


def test_a_langgraph_run_that_overruns_the_apps_wait_ends_with_the_timeout_status():
    """As an engine run does (`recording.record_run`): status `timeout`, the steps so far, a message."""
    import threading

    from debugger.runtimes.langgraph.recorder.runs import run_in_background

    release = threading.Event()

    class S(TypedDict):
        log: Annotated[list, operator.add]

    b = StateGraph(S)
    b.add_node("quick", lambda s: {"log": ["quick"]})
    b.add_node("stuck", lambda s: (release.wait(30), {"log": ["late"]})[1])
    b.add_edge(START, "quick")
    b.add_edge("quick", "stuck")
    try:
        trace = run_in_background(b.compile(), {"log": []}, timeout=0.5, target="stuck.py:graph", db=False)
    finally:
        release.set()
    assert trace.status == "timeout" and trace.error["class"] == "RunTimeout"
    assert "did not finish within 0.5 s" in trace.error["message"]
    assert Replay(trace).state_after(1) == {"log": ["quick"]}


class Chat(TypedDict):
    messages: Annotated[list, add_messages]
    log: Annotated[list, operator.add]


def chat_edits():
    """Each node changes the two lists another way: appends (a list, one message), in place, replaces
    and removes by id, coerced tuples and strings: what a reducer call records is what it did."""

    def sneak(state: Chat):
        state["messages"].append(HumanMessage("sneaked", id="s1"))  # in place, then a plain append
        state["log"].append("sneaked")
        return {"messages": [AIMessage("three", id="m3")], "log": ["sneak"]}

    steps = [
        ("say", lambda s: {"messages": [AIMessage("one", id="m1")], "log": ["say"]}),
        ("again", lambda s: {"messages": AIMessage("two", id="m2"), "log": ["again"]}),
        ("sneak", sneak),
        ("fix", lambda s: {"messages": [AIMessage("two, fixed", id="m2")]}),
        ("drop", lambda s: {"messages": [RemoveMessage(id="m1")], "log": []}),
        ("coerce", lambda s: {"messages": [("user", "a tuple"), "a string"]}),
        ("last", lambda s: {"messages": [AIMessage("four", id="m4")], "log": ["last"]}),
    ]
    graph = StateGraph(Chat)
    previous = START
    for name, node in steps:
        graph.add_node(name, node)
        graph.add_edge(previous, name)
        previous = name
    return graph.compile()


def test_appending_reducers_record_each_kind_of_change_to_their_lists():
    # (recorded against langgraph alone, not a checkpointer's history: the in-place appends of `sneak`
    # also reach the checkpoint langgraph saved a step earlier, which held the same lists)
    graph_input = {"messages": [HumanMessage("hi", id="h1")], "log": []}
    alone = outcome(lambda: chat_edits().invoke(copy.deepcopy(graph_input)))
    (status, final), trace = recorded_outcome(chat_edits, graph_input)
    assert (status, final) == alone and status == "ok"
    assert all(not step.mismatches for step in trace.steps)
    assert strip_ids(Replay(trace).state_after(trace.steps[-1].step)) == final
    assert [m["message"]["data"]["content"] for m in final["messages"]] == [
        "hi", "two, fixed", "sneaked", "three", "a tuple", "a string", "four"
    ]  # fmt: skip
    assert final["log"] == ["say", "again", "sneaked", "sneak", "last"]

    def calls(node: str) -> dict[str, tuple[Any, Any]]:
        step = next(s for s in trace.steps if [t.name for t in s.tasks] == [node])
        return {c.channel: (c.before, c.after) for c in step.reducer_calls}

    appended = {"extend": [encode(AIMessage("two", id="m2"))]}
    assert calls("again") == {"messages": ({"same": True}, appended), "log": ({"same": True}, {"extend": ["again"]})}
    sneaked = calls("sneak")  # the in-place appends are shown as changes before the reducer ran
    assert sneaked["messages"][0] == {"extend": [encode(HumanMessage("sneaked", id="s1"))]}
    assert sneaked["log"] == ({"extend": ["sneaked"]}, {"extend": ["sneak"]})
    assert "splice" in calls("fix")["messages"][1] and "splice" in calls("drop")["messages"][1]
    assert calls("drop")["log"] == ({"same": True}, {"same": True})
    assert calls("last")["messages"] == ({"same": True}, {"extend": [encode(AIMessage("four", id="m4"))]})
