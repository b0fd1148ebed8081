"""Two runs compared superstep by superstep (debugger/model/compare.py) and `stepscope compare` (issue 27, item 1)."""

import json
import operator
from typing import Annotated, TypedDict

import pytest

from debugger.cli import main
from debugger.model.compare import compare_runs
from debugger.model.compare_values import DIFFERS, SAME, SAME_BUT_IDS, without_generated_ids
from debugger.stores.opening import open_store
from engine import END, START, AIMessage, MessagesState, StateGraph
from engine.trace import Recorder
from engine.tracefile import to_json


def recorded(graph, graph_input):
    recorder = Recorder()
    try:
        graph.invoke(graph_input, hooks=recorder)
    except Exception:  # the refused concurrent update is in the trace
        pass
    return recorder.trace


class Plain(TypedDict):
    answer: str


class Added(TypedDict):
    answer: Annotated[list, operator.add]


def two_writers(schema, first, second):
    builder = StateGraph(schema)
    builder.add_node("a", lambda state: {"answer": first})
    builder.add_node("b", lambda state: {"answer": second})
    builder.add_edge(START, "a")
    builder.add_edge(START, "b")
    return builder.compile()


def before_and_after():
    before = recorded(two_writers(Plain, "from a", "from b"), {"answer": ""})
    after = recorded(two_writers(Added, ["from a"], ["from b"]), {"answer": []})
    return before, after


def test_a_fix_parts_at_its_first_changed_step_and_the_concurrent_update_is_gone():
    before, after = before_and_after()
    comparison = compare_runs(before, after)
    assert not comparison.agree
    assert comparison.first_divergence == 0, "the input goes into a list now"
    step1 = next(s for s in comparison.steps if s.step == 1)
    calls = {r.what: r for r in step1.calls}
    assert calls["answer ← a"].a["error"].startswith("InvalidUpdateError")
    assert calls["answer ← b"].b == {
        "reducer": "operator.add",
        "write": ["from b"],
        "after": ["from a", "from b"],
        "error": None,
    }
    assert [r.verdict for r in step1.state] == [DIFFERS]
    [gone] = step1.findings
    assert gone.side == "A" and gone.finding.kind == "concurrent_update"
    assert gone.sentence().startswith("the concurrent update on `answer` at step 1 is gone in B")
    assert "A ended error (InvalidUpdateError), B ended done." in comparison.headline()


def test_a_run_agrees_with_itself_and_with_a_second_run_of_the_same_graph():
    graph = two_writers(Added, ["x"], ["y"])
    first, second = recorded(graph, {"answer": []}), recorded(graph, {"answer": []})
    assert compare_runs(first, first).agree
    comparison = compare_runs(first, second)
    assert comparison.agree and comparison.first_divergence is None
    assert comparison.headline() == "The runs agree at every one of their 2 steps."


def test_a_node_that_raises_differently_is_a_difference():
    def failing(message):
        def node(state):
            raise ValueError(message)

        builder = StateGraph(Added)
        builder.add_node("a", node)
        builder.add_edge(START, "a")
        return builder.compile()

    comparison = compare_runs(recorded(failing("one"), {"answer": []}), recorded(failing("two"), {"answer": []}))
    assert comparison.first_divergence == 1 and comparison.status_differs
    [raised] = [r for r in comparison.steps[1].writes if r.differs]
    assert (raised.what, raised.a, raised.b) == ("a raised", "ValueError: one", "ValueError: two")


def test_tasks_of_one_run_only_are_named():
    one = StateGraph(Added)
    one.add_node("a", lambda state: {"answer": ["a"]})
    one.add_edge(START, "a")
    two = StateGraph(Added)
    two.add_node("a", lambda state: {"answer": ["a"]})
    two.add_node("check", lambda state: {"answer": ["checked"]})
    two.add_edge(START, "a")
    two.add_edge("a", "check")
    two.add_edge("check", END)
    comparison = compare_runs(recorded(one.compile(), {"answer": []}), recorded(two.compile(), {"answer": []}))
    assert comparison.first_divergence == 1, "in B, a's edge to check is a write of step 1"
    assert [(r.what, r.verdict) for r in comparison.steps[1].writes if r.differs] == [
        ("a → branch:to:check", "only in B")
    ]
    step2 = comparison.steps[-1]
    assert (step2.in_a, step2.in_b, step2.tasks_only_b) == (False, True, ("check",))


def chat(reply: str):
    builder = StateGraph(MessagesState)
    builder.add_node("model", lambda state: {"messages": [AIMessage(content=reply)]})  # add_messages gives it a uuid
    builder.add_edge(START, "model")
    return builder.compile()


def test_values_that_differ_only_by_generated_message_ids_are_equal_and_it_says_so():
    first = recorded(chat("hello"), {"messages": [{"role": "user", "content": "hi"}]})
    second = recorded(chat("hello"), {"messages": [{"role": "user", "content": "hi"}]})
    comparison = compare_runs(first, second)
    assert comparison.agree and comparison.ids_set_aside
    assert {r.verdict for s in comparison.steps for r in s.state} == {SAME_BUT_IDS}
    changed = compare_runs(first, recorded(chat("goodbye"), {"messages": [{"role": "user", "content": "hi"}]}))
    assert changed.first_divergence == 1, "an id is set aside, the content is not"


def test_only_ids_are_set_aside():
    assert without_generated_ids("run-0b6f7e3e-33a4-4e38-9a52-6c8f3bd1a7f2") == "run-<generated id>"
    assert without_generated_ids({"n": 3, "tags": ["a"]}) == {"n": 3, "tags": ["a"]}
    plain = compare_runs(recorded(chat("x"), {"messages": []}), recorded(chat("x"), {"messages": []}))
    assert plain.steps[0].state[0].verdict == SAME, "an empty list has no id to set aside"


def test_the_command_exits_1_naming_the_step_and_the_gone_finding_and_0_for_a_run_against_itself(tmp_path, capsys):
    before, after = before_and_after()
    (tmp_path / "before.json").write_text(to_json(before), encoding="utf-8")
    db = str(tmp_path / "runs.sqlite3")
    run_id = open_store(db).save(after)
    assert main(["compare", str(tmp_path / "before.json"), run_id, "--db", db]) == 1
    out = capsys.readouterr().out
    assert "The runs first differ at step 0." in out
    assert "the concurrent update on `answer` at step 1 is gone in B" in out
    assert "✱ answer ← a: LastValue: 'from a' -> REFUSED InvalidUpdateError" in out
    assert main(["compare", str(tmp_path / "before.json"), str(tmp_path / "before.json")]) == 0
    assert "The runs agree" in capsys.readouterr().out


def test_the_command_runs_graph_targets_and_prints_json(tmp_path, capsys):
    assert main(["compare", "subgraph_trap", "subgraph_trap", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["agree"] and data["first_divergence"] is None and data["findings"] == []


def test_a_source_that_cannot_be_opened_is_one_line_and_exit_2(tmp_path, capsys):
    assert main(["compare", "subgraph_trap", "no-such-run", "--db", str(tmp_path / "runs.sqlite3")]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: no-such-run") and err.count("\n") == 1


def test_a_message_written_as_a_dict_equals_the_message_add_messages_makes_of_it():
    as_dicts = recorded(chat("hello"), {"messages": [{"role": "user", "content": "hi"}]})
    as_pairs = recorded(chat("hello"), {"messages": [("user", "hi")]})
    comparison = compare_runs(as_dicts, as_pairs)
    assert comparison.agree and comparison.ids_set_aside
    other = compare_runs(as_dicts, recorded(chat("hello"), {"messages": [("system", "hi")]}))
    assert other.first_divergence == 0, "a different role is a different message"


LANGGRAPH_APP = """
from langchain_core.messages import AIMessage
from langgraph.graph import START, MessagesState, StateGraph

def model(state):
    return {"messages": [AIMessage(content="hello there")]}

builder = StateGraph(MessagesState)
builder.add_node("model", model)
builder.add_edge(START, "model")
graph = builder.compile()
example_input = {"messages": [{"role": "user", "content": "hi"}]}
"""


def test_langgraph_thread_read_from_its_checkpoints_agrees_with_a_live_run_of_the_app(tmp_path, capsys):
    import sqlite3

    from langgraph.checkpoint.sqlite import SqliteSaver

    from debugger.runtimes.targets import load_target

    app = tmp_path / "chat_app.py"
    app.write_text(LANGGRAPH_APP, encoding="utf-8")
    loaded = load_target(f"{app}:graph")
    connection = sqlite3.connect(tmp_path / "checkpoints.sqlite", check_same_thread=False)
    saver = SqliteSaver(connection)
    loaded.graph.builder.compile(checkpointer=saver).invoke(loaded.example_input, {"configurable": {"thread_id": "t1"}})
    connection.close()
    db = ["--db", str(tmp_path / "runs.sqlite3")]
    checkpointer = ["--checkpointer", str(tmp_path / "checkpoints.sqlite"), "--thread-a", "t1"]
    assert main(["compare", f"{app}:graph", str(app), *checkpointer, *db]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"A: thread t1 of {app}:graph (done, 2 steps)")
    assert "The runs agree at every one of their 2 steps." in out
    assert "Generated ids (langchain message ids, uuids) are set aside" in out
    assert main(["compare", str(app), "no-such-run", "--thread-a", "t1", *db]) == 2
    assert "--thread-a needs --checkpointer URL" in capsys.readouterr().err


@pytest.mark.slow  # the LangGraph.js lesson runs in node
def test_a_lesson_in_python_and_in_langgraphjs_agree_whatever_their_reducers_are_called(capsys):
    assert main(["compare", "parallel_append_race", "sample_graphs/js/parallel_append_race.mjs:graph"]) == 0
    assert "The runs agree at every one of their 2 steps." in capsys.readouterr().out


def test_a_subgraph_run_that_differs_inside_is_compared_too():
    def parent(word):
        sub = StateGraph(Added)
        sub.add_node("s1", lambda state: {"answer": [word]})
        sub.add_edge(START, "s1")
        builder = StateGraph(Added)
        builder.add_node("child", sub.compile())
        builder.add_edge(START, "child")
        return builder.compile()

    comparison = compare_runs(recorded(parent("one"), {"answer": []}), recorded(parent("two"), {"answer": []}))
    [(task, nested)] = comparison.steps[1].inside
    assert task == "child" and nested.first_divergence == 1
    assert [(r.what, r.a, r.b) for r in nested.steps[1].writes] == [("s1 → answer", ["one"], ["two"])]
    same = compare_runs(recorded(parent("one"), {"answer": []}), recorded(parent("one"), {"answer": []}))
    assert same.agree and same.steps[1].inside == ()


def test_a_lesson_before_and_after_its_fix(capsys):
    target = "sample_graphs/refund_concurrent_update.py"
    assert main(["compare", f"{target}:graph", f"{target}:fixed_graph"]) == 1, "the fix runs on its fixed_input"
    out = capsys.readouterr().out
    assert "B: graph sample_graphs/refund_concurrent_update.py:fixed_graph (done, 2 steps)" in out
    assert "the concurrent update on `v` at step 1 is gone in B" in out
    assert main(["compare", f"{target}:fixed_graph", f"{target}:fixed_graph"]) == 0


def test_all_lists_the_equal_rows_too_and_json_has_every_step(tmp_path, capsys):
    before, after = before_and_after()
    (tmp_path / "a.json").write_text(to_json(before), encoding="utf-8")
    (tmp_path / "b.json").write_text(to_json(after), encoding="utf-8")
    assert main(["compare", str(tmp_path / "a.json"), str(tmp_path / "a.json"), "--all"]) == 0
    out = capsys.readouterr().out
    assert "step 1  = same" in out and "    = a → answer: 'from a'  |  'from a'" in out
    assert main(["compare", str(tmp_path / "a.json"), str(tmp_path / "b.json"), "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert (data["agree"], data["first_divergence"], [s["step"] for s in data["steps"]]) == (False, 0, [0, 1])
    [gone] = data["findings"]
    assert gone["side"] == "A" and gone["kind"] == "concurrent_update" and gone["step"] == 1


def test_a_finding_change_for_a_markdown_page_shows_the_key_as_code_and_the_runs_words_as_text():
    from debugger.diagnostics import Finding
    from debugger.model.compare import FindingChange

    hostile = Finding(
        kind="concurrent_update",
        severity="error",
        title="[click](http://evil.example) *now*",
        explanation="",
        step=1,
        key="a`b",
        scope=("**sub**",),
    )
    change = FindingChange(hostile, "A")
    assert change.sentence().startswith("the concurrent update on `a`b` at step 1 inside **sub** is gone in B")
    page = change.sentence(markdown=True)
    assert " on `a'b` at step 1" in page, "the key stays one code span"
    assert r"\[click\]" in page and r"\*\*sub\*\*" in page and "http://" not in page
