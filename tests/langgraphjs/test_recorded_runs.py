"""LangGraph.js apps recorded from LangGraph.js's own run: the final state or error is node's own (what a
plain `graph.invoke` gives), reducer calls come in application order, subgraphs nest under their task."""

from __future__ import annotations

import pytest

from debugger.diagnostics.replay import Replay
from debugger.model.present import explain_call
from debugger.runtimes.langgraphjs import record_js_app
from debugger.sources.trace_check import parse_trace
from engine.codec import decode
from engine.tracefile import to_json

from .conftest import app

pytestmark = pytest.mark.slow

CASES = [
    ("parallel_append.mjs", {}, None),
    ("subgraph_trap.mjs", {}, None),
    ("send_fanout.mjs", {"topics": ["aaa", "b", "cc"]}, None),
    ("command_goto.mjs", {"route": "right"}, None),
    ("command_parent.mjs", {}, None),
    ("messages_by_id.mjs", {"messages": [{"role": "user", "content": "q", "id": "h-1"}]}, None),
    ("waiting_edge.mjs", {}, None),
    ("values.mjs", {}, None),
]
FAILING = [
    ("concurrent_update.mjs", {}, None, "error"),
    ("endless_loop.mjs", {}, {"recursionLimit": 5}, "recursion_limit"),
    ("throwing_branch.mjs", {}, None, "error"),
    ("throws_string.mjs", {}, None, "error"),
]


def stored(trace):
    """The trace as the debugger reads it back from a file or the run store (validated by its schema)."""
    return parse_trace(to_json(trace), source=trace.target)


def final_state(trace):
    """The state the recorded reducer calls and barrier changes fold to (encoded: NaN compares as text)."""
    replay = Replay(trace)
    last = [s.step for s in trace.steps if s.committed][-1]
    return {k: h.value for k, h in replay.histories_after(last).items() if h.value != {"$type": "missing"}}


@pytest.mark.parametrize("name,graph_input,config", CASES)
def test_the_recorded_output_and_state_are_what_graph_invoke_returns(plain_invoke, name, graph_input, config):
    expected = plain_invoke(name, graph_input, config)["output"]
    trace = stored(record_js_app(app(name), "graph", graph_input, config, timeout=60))
    assert trace.status == "done", trace.error
    assert trace.output == expected
    assert final_state(trace) == expected
    assert all(step.mismatches == [] for step in trace.steps)


@pytest.mark.parametrize("name,graph_input,config,status", FAILING)
def test_a_failed_run_keeps_langgraph_js_own_error_uncut(plain_invoke, name, graph_input, config, status):
    expected = plain_invoke(name, graph_input, config)["error"]
    trace = stored(record_js_app(app(name), "graph", graph_input, config, timeout=60))
    assert trace.status == status
    assert (trace.error["class"], trace.error["message"]) == (expected["class"], expected["message"])
    assert trace.error["notes"] == expected["notes"]  # LangGraph.js's lc_error_code, kept as a note


def test_the_concurrent_update_error_is_langgraph_js_message_with_its_url_and_newline(langgraph_js):
    trace = record_js_app(app("concurrent_update.mjs"), "graph", {}, None, timeout=60)
    assert trace.error["message"].startswith('Invalid update for channel "v" with values [1,2]: LastValue can only')
    assert trace.error["message"].endswith("/INVALID_CONCURRENT_GRAPH_UPDATE/\n")
    assert trace.error["notes"] == ["lc_error_code: INVALID_CONCURRENT_GRAPH_UPDATE"]
    step = trace.steps[-1]
    assert not step.committed
    refused = [
        (c.writer_name, c.write, c.error["class"], c.error["message"].split("\n")[0]) for c in step.reducer_calls
    ]
    assert refused == [
        ("lookup_order", 1, "InvalidUpdateError", "LastValue can only receive one value per step."),
        ("lookup_user_history", 2, "InvalidUpdateError", "LastValue can only receive one value per step."),
    ]


def test_reducer_calls_follow_task_order_not_completion_order(langgraph_js):
    trace = record_js_app(app("parallel_append.mjs"), "graph", {}, None, timeout=60)
    step = next(s for s in trace.steps if s.step == 1)
    durations = {t.name: t.duration for t in step.tasks}
    assert durations["a_slow"] > durations["b_fast"]  # b_fast finished first ...
    assert [(c.writer_name, c.after) for c in step.reducer_calls] == [  # ... and a_slow's write applied first
        ("a_slow", {"extend": ["a"]}),
        ("b_fast", {"extend": ["b"]}),
    ]
    writers = {t.id: t.name for t in step.tasks}
    assert [writers[c.writer] for c in step.reducer_calls] == ["a_slow", "b_fast"]


def test_the_steps_follow_the_python_recorders_conventions(langgraph_js):
    trace = record_js_app(app("send_fanout.mjs"), "graph", {"topics": ["x", "yy"]}, None, timeout=60)
    assert [s.step for s in trace.steps] == [-1, 0, 1, 2]
    assert trace.steps[0].tasks == [] and trace.steps[0].state == {"results": {"set": []}}
    start = trace.steps[1].tasks[0]
    assert (start.name, start.path, start.result) == ("__start__", ["__pregel_pull", "__start__"], SAME_AS_WRITES)
    plan = trace.steps[2].tasks[0]  # LangGraph.js names every branch of a node "condition" unless told
    assert plan.input == {"$view": ["topics", "results"]}
    assert plan.routes == [
        ["condition", [{"$type": "Send", "node": "worker", "arg": {"topic": t}} for t in ("x", "yy")]]
    ]
    workers = trace.steps[3].tasks
    assert [t.path for t in workers] == [["__pregel_push", 0, False], ["__pregel_push", 1, False]]
    assert [t.input for t in workers] == [{"topic": "x"}, {"topic": "yy"}]
    assert trace.graph["branches"] == [  # with the route's own function and the keys it read as it ran
        {
            "source": "plan",
            "name": "condition",
            "targets": {"worker": "worker"},
            "function": "fanOut",
            "reads": ["topics"],
        }
    ]
    assert trace.graph["channels"]["results"]["kind"] == "BinaryOperatorAggregate"
    assert {n["id"] for n in trace.graph["drawing"]["nodes"]} == {"__start__", "plan", "worker", "__end__"}
    assert trace.steps[-1].versions and trace.steps[-1].updated_channels == ["results"]


def test_a_subgraph_run_nests_under_the_task_that_ran_it(langgraph_js):
    trace = record_js_app(app("subgraph_trap.mjs"), "graph", {}, None, timeout=60)
    assert decode(trace.output) == {"log": ["parent", "parent", "sub-1"]}
    child = next(t for s in trace.steps for t in s.tasks if t.name == "child")
    [sub] = child.subgraphs
    assert sub.status == "done" and sub.ns and sub.ns[0].startswith("child:")
    assert sub.graph["name"] == "child"
    assert decode(sub.output) == {"log": ["parent", "sub-1"]}
    assert [c.writer_name for s in sub.steps for c in s.reducer_calls] == ["__start__", "s1"]
    assert trace.graph["nodes"][1] == {"name": "child", "subgraph": True, "defer": False, "metadata": {}}


def test_messages_by_id_read_like_add_messages(langgraph_js):
    trace = record_js_app(
        app("messages_by_id.mjs"),
        "graph",
        {"messages": [{"role": "user", "content": "q", "id": "h-1"}]},
        None,
        timeout=60,
    )
    messages = decode(trace.output)["messages"]
    assert [(m.type, m.id, m.content) for m in messages] == [("human", "h-1", "edited question"), ("ai", "ai-1", "")]
    assert messages[1].tool_calls == [{"name": "lookup", "args": {"q": "x"}, "id": "call-1", "type": "tool_call"}]
    rewrite = next(s for s in trace.steps if any(t.name == "rewrite" for t in s.tasks))
    [call] = rewrite.reducer_calls
    assert call.reducer == "messagesStateReducer"
    assert [m["message"]["type"] for m in call.write] == ["human", "remove"]
    assert call.write[1]["message"]["data"] == {"content": "", "id": "tool-1"}


def test_an_interrupt_stops_the_run_with_its_id_value_and_node(langgraph_js):
    trace = record_js_app(app("interrupt_ask.mjs"), "graph", {}, {"configurable": {"thread_id": "t-1"}}, timeout=60)
    assert trace.status == "interrupted" and trace.error["class"] == "GraphInterrupt"  # as Python's recorder keeps it
    [asked] = trace.interrupts
    assert asked["value"] == {"ask": "Refund order 17?"} and asked["node"] == "ask" and asked["id"]
    assert trace.thread_id == "t-1"
    checkpoints = [s.checkpoint for s in trace.steps if s.checkpoint]
    assert checkpoints and all(c["configurable"]["thread_id"] == "t-1" for c in checkpoints)
    parents = [s.parent_checkpoint for s in trace.steps if s.checkpoint][1:]
    assert [p["configurable"]["checkpoint_id"] for p in parents] == [
        c["configurable"]["checkpoint_id"] for c in checkpoints[:-1]
    ]


def test_a_node_that_throws_a_string_keeps_the_string_and_langgraph_js_own_error(langgraph_js):
    trace = record_js_app(app("throws_string.mjs"), "graph", {}, None, timeout=60)
    bad = next(t for s in trace.steps for t in s.tasks if t.name == "bad")
    assert (bad.error["class"], bad.error["message"]) == ("string", "the payment service said no")
    assert trace.error["class"] == "TypeError"
    assert "the payment service said no" in trace.error["message"]
    assert decode(trace.output) == {"n": 1}  # the state its last barrier committed


def test_a_thrown_plain_object_is_stored_as_its_json_and_called_not_an_error(langgraph_js):
    trace = record_js_app(app("throws_object.mjs"), "graph", {}, None, timeout=60)
    bad = next(t for s in trace.steps for t in s.tasks if t.name == "bad")
    assert (bad.error["class"], bad.error["message"]) == ("object", '{"code":42,"reason":"card declined"}')
    assert bad.error["notes"] == ["a thrown object, not an Error"]


def test_a_throwing_conditional_edge_fails_the_task_it_leaves(langgraph_js):
    trace = record_js_app(app("throwing_branch.mjs"), "graph", {}, None, timeout=60)
    first = next(t for s in trace.steps for t in s.tasks if t.name == "first")
    assert (first.error["class"], first.error["message"]) == ("RangeError", "no route for n=1")
    assert not trace.steps[-1].committed


def test_a_commonjs_builder_export_is_compiled_and_console_output_cannot_forge_events(langgraph_js):
    trace = record_js_app(app("noisy.cjs"), "builder", {}, None, timeout=60)
    assert trace.status == "done" and decode(trace.output) == {"n": 2}


SAME_AS_WRITES = {"$type": "same_as_writes"}


def test_messages_state_reducer_is_explained_as_add_messages_is(langgraph_js):
    trace = record_js_app(
        app("messages_by_id.mjs"),
        "graph",
        {"messages": [{"role": "user", "content": "q", "id": "h-1"}]},
        None,
        timeout=60,
    )
    replay = Replay(trace)
    rewrite = next(s for s in trace.steps if any(t.name == "rewrite" for t in s.tasks))
    before = replay.histories_after(rewrite.step - 1)["messages"].value
    after = replay.histories_after(rewrite.step)["messages"].value
    text = explain_call(rewrite.reducer_calls[0], before, after)
    assert text.startswith("messagesStateReducer ") and "h-1" in text and "tool-1" in text


def test_a_command_to_the_parent_is_the_subgraph_tasks_return_value(langgraph_js):
    trace = record_js_app(app("command_parent.mjs"), "graph", {}, None, timeout=60)
    child = next(t for s in trace.steps for t in s.tasks if t.name == "child")
    assert child.error is None and child.result["$type"] == "Command"
    assert child.result["fields"]["goto"] == ["done"] and child.result["fields"]["update"] == {"log": ["hop"]}
    assert [(r.status, r.error["class"]) for r in child.subgraphs] == [("interrupted", "ParentCommand")]


def test_a_run_the_app_makes_while_it_is_imported_is_not_the_recording(langgraph_js):
    trace = record_js_app(app("runs_on_import.mjs"), "graph", {"n": 5}, None, timeout=60)
    assert trace.input == {"n": 5} and trace.output == {"n": 6}
    assert [s.step for s in trace.steps] == [-1, 0, 1]
