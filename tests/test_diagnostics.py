"""Diagnostics: every finding kind on a small graph that triggers it, no findings on graphs without
mistakes (the gallery's fixed graphs and the clean samples), the broken samples' expected kinds, and
`stepscope diagnose` (exit codes, text and JSON)."""

import copy
import json
import operator
import subprocess
import sys
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Literal, Optional, TypedDict

import pytest

from debugger.commands.diagnose_text import render, to_data
from debugger.diagnostics import KINDS, Finding, diagnose, diagnose_graph, diagnose_trace, has_errors
from debugger.diagnostics.topology import Topology
from engine import END, START, AIMessage, Command, MessagesState, Overwrite, Send, StateGraph
from engine.trace import Recorder
from engine.tracefile import from_json, to_json
from sample_graphs.gallery import SAMPLES, load_sample

ROOT = Path(__file__).resolve().parents[1]


def record(graph, graph_input, config=None):
    recorder = Recorder()
    try:
        graph.invoke(graph_input, config, hooks=recorder)
    except Exception:  # the failing run is what we diagnose
        pass
    return recorder.trace


def found(findings, kind, severity=None):
    return [f for f in findings if f.kind == kind and (severity is None or f.severity == severity)]


def only(findings, kind, severity=None) -> Finding:
    """The one finding of `kind`; its explanation must name its node, key and step."""
    matching = found(findings, kind, severity)
    assert len(matching) == 1, [(f.kind, f.severity, f.where()) for f in findings]
    finding = matching[0]
    for name in (finding.node, finding.key, *finding.nodes):
        assert name is None or name in finding.explanation, (name, finding.explanation)
    assert finding.step is None or f"step {finding.step}" in finding.explanation.lower(), finding.explanation
    assert finding.fix and finding.title
    return finding


def serious(findings):
    return [(f.kind, f.severity, f.where(), f.title) for f in findings if f.severity in ("error", "warning")]


class Plain(TypedDict):
    v: int
    log: Annotated[list, operator.add]


def parallel_plain():
    g = StateGraph(Plain)
    g.add_node("x", lambda s: {"v": 1})
    g.add_node("y", lambda s: {"v": 2})
    g.add_edge(START, "x")
    g.add_edge(START, "y")
    return g.compile()


# ---- 1. concurrent updates --------------------------------------------------------------------------


def test_concurrent_update_names_every_writer_their_values_and_why_they_ran_together():
    graph = parallel_plain()
    finding = only(diagnose_trace(record(graph, {"log": []})), "concurrent_update")
    assert (finding.severity, finding.step, finding.key, finding.nodes) == ("error", 1, "v", ("x", "y"))
    assert "x and y both wrote 'v' in step 1 (x wrote 1; y wrote 2)" in finding.explanation
    assert "x ran because the input was written (edge START → x)" in finding.explanation
    assert [e["value"] for e in finding.evidence] == [1, 2]
    assert finding.fix_label.startswith("Give each node its own key"), "an int has no natural merge: keep one writer"
    assert any(
        "Annotated[list[int], operator.add]" in code and "type changes from int" in label
        for label, code in finding.other_fixes
    )
    assert any("add_edge" in code for _, code in finding.other_fixes)


def test_concurrent_update_is_found_before_running_and_merged_with_the_run():
    graph = parallel_plain()
    static = only(diagnose_graph(graph), "concurrent_update")
    assert (static.severity, static.step, static.key, static.source) == ("error", None, "v", "graph")
    assert "edge START → x; edge START → y" in static.explanation
    merged = found(diagnose(graph, record(graph, {"log": []})), "concurrent_update")
    assert [(f.source, f.step) for f in merged] == [("trace", 1)]


class Routed(TypedDict):
    question: str
    answer: str


def specialists(router, path_map):
    g = StateGraph(Routed)
    g.add_node("triage", lambda s: {"question": s["question"]})
    g.add_node("billing", lambda s: {"answer": "billing"})
    g.add_node("tech", lambda s: {"answer": "tech"})
    g.add_edge(START, "triage")
    g.add_conditional_edges("triage", router, path_map)
    return g.compile()


def route_one(state: Routed) -> str:
    return "billing" if "refund" in state["question"] else "tech"


def route_both(state: Routed) -> list[str]:
    return ["billing", "tech"]


def test_a_router_that_picks_one_target_is_not_parallel():
    graph = specialists(route_one, ["billing", "tech"])
    assert serious(diagnose(graph, record(graph, {"question": "refund"}))) == []


def test_a_router_that_returns_a_list_can_run_its_targets_together():
    graph = specialists(route_both, ["billing", "tech"])
    static = only(diagnose_graph(graph), "concurrent_update")
    assert static.severity == "warning" and static.nodes == ("billing", "tech")
    assert "triage's router route_both can choose billing" in static.explanation
    run = only(diagnose_trace(record(graph, {"question": "x"})), "concurrent_update")
    assert "triage finished and its router route_both chose billing" in run.explanation


class Jokes(TypedDict):
    subjects: list[str]
    best: str


def test_several_sends_to_a_node_that_writes_a_plain_key():
    g = StateGraph(Jokes)
    g.add_node("plan", lambda s: {"subjects": s["subjects"]})
    g.add_node("write", lambda s: {"best": s["subject"]})
    g.add_edge(START, "plan")
    g.add_conditional_edges("plan", lambda s: [Send("write", {"subject": x}) for x in s["subjects"]], ["write"])
    graph = g.compile()
    static = only(diagnose_graph(graph), "concurrent_update")
    assert static.severity == "warning" and static.nodes == ("write",)
    assert "write can run as several tasks in one superstep" in static.explanation
    run = only(diagnose_trace(record(graph, {"subjects": ["a", "b", "c"]})), "concurrent_update")
    assert run.step == 2 and run.nodes == ("write",) and "wrote 'best' 3 times" in run.explanation
    assert "sent a Send to write" in run.explanation


def test_command_goto_to_several_nodes_is_parallel():
    def fan(state: Routed) -> Command[Literal["billing", "tech"]]:
        return Command(goto=["billing", "tech"], update={"question": "q"})

    g = StateGraph(Routed)
    g.add_node("fan", fan)
    g.add_node("billing", lambda s: {"answer": "billing"})
    g.add_node("tech", lambda s: {"answer": "tech"})
    g.add_edge(START, "fan")
    finding = only(diagnose_graph(g.compile()), "concurrent_update")
    assert finding.nodes == ("billing", "tech") and "fan can return Command(goto='billing')" in finding.explanation


def parallel_subgraphs():
    class Shared(TypedDict):
        topic: str
        notes: Annotated[list, operator.add]

    def sub(name):
        s = StateGraph(Shared)
        s.add_node("work", lambda state: {"notes": [name]})
        s.add_edge(START, "work")
        return s.compile()

    g = StateGraph(Shared)
    g.add_node("a", sub("a"))
    g.add_node("b", sub("b"))
    g.add_edge(START, "a")
    g.add_edge(START, "b")
    return g.compile()


def test_parallel_subgraphs_echoing_an_unchanged_plain_key():
    graph = parallel_subgraphs()  # langgraph#6446: both return 'topic' unchanged
    static = only(diagnose_graph(graph), "concurrent_update")
    assert static.key == "topic" and static.nodes == ("a", "b") and "output schema" in static.fix_label
    run = only(diagnose_trace(record(graph, {"topic": "t", "notes": []})), "concurrent_update")
    assert run.key == "topic" and "wrote back the value 'topic' already had ('t')" in run.explanation
    assert "a subgraph returns its whole final state" in run.explanation
    assert "output_schema" in run.fix


def test_a_concurrent_update_inside_a_subgraph_is_located_in_its_scope():
    child = parallel_plain()
    g = StateGraph(Plain)
    g.add_node("child", child)
    g.add_edge(START, "child")
    graph = g.compile()
    finding = only(diagnose_trace(record(graph, {"log": []})), "concurrent_update")
    assert finding.scope == ("child@1",) and finding.step == 1 and finding.where().startswith("in child@1 · step 1")
    assert only(diagnose_graph(graph), "concurrent_update").scope == ("child",)


def test_two_overwrites_of_one_key_in_one_step():
    g = StateGraph(Plain)
    g.add_node("x", lambda s: {"log": Overwrite(["x"])})
    g.add_node("y", lambda s: {"log": Overwrite(["y"])})
    g.add_edge(START, "x")
    g.add_edge(START, "y")
    finding = only(diagnose_trace(record(g.compile(), {"log": []})), "concurrent_update")
    assert finding.key == "log" and finding.nodes == ("x", "y") and "Overwrite" in finding.title


# ---- 2. nodes that return the whole state ----------------------------------------------------------------


class Three(TypedDict):
    question: str
    answer: str
    count: int


def echo_node(state: Three) -> dict:
    state["answer"] = "42"
    return state


def spread_node(state: Three) -> dict:
    return {**state, "answer": "42"}


@pytest.mark.parametrize("node", [echo_node, spread_node])
def test_returning_the_whole_state(node):
    g = StateGraph(Three)
    g.add_node("n", node)
    g.add_edge(START, "n")
    graph = g.compile()
    static = only(diagnose_graph(graph), "returns_whole_state")
    assert static.node == "n" and static.severity == "warning" and "line" in static.explanation
    run = only(diagnose_trace(record(graph, {"question": "q", "answer": "", "count": 3})), "returns_whole_state")
    assert run.step == 1 and run.node == "n" and "changing only 'answer'" in run.explanation
    assert '"answer": ...' in run.fix


def test_returning_the_whole_state_next_to_a_parallel_writer():
    g = StateGraph(Three)
    g.add_node("n", echo_node)
    g.add_node("m", lambda s: {"count": 1})
    g.add_edge(START, "n")
    g.add_edge(START, "m")
    graph = g.compile()
    conflict = only(diagnose_graph(graph), "concurrent_update")
    assert conflict.key == "count" and "returns the whole state" in conflict.explanation
    assert "instead of `return state`" in conflict.fix
    run = only(diagnose_trace(record(graph, {"question": "q", "answer": "", "count": 3})), "concurrent_update")
    assert "n wrote back the value 'count' already had (3)" in run.explanation


# ---- 3. subgraph duplication ------------------------------------------------------------------------------


def test_subgraph_trap_names_the_duplicated_item_and_where_it_came_from():
    trap = load_sample("subgraph_trap")
    finding = only(diagnose_trace(record(trap.graph, trap.example_input)), "subgraph_duplication")
    assert (finding.severity, finding.step, finding.node, finding.key) == ("error", 2, "child", "log")
    assert "'parent' (written by p1 in step 1)" in finding.explanation
    assert "['parent', 'parent', 'sub-1']" in finding.explanation
    assert finding.evidence[0]["origin"] == "written by p1 in step 1" and finding.evidence[0]["count_after"] == 2
    assert "subgraph.invoke" in finding.fix and "merge_by_id" in finding.other_fixes[0][1]
    static = only(diagnose_graph(trap.graph), "subgraph_duplication")
    assert static.severity == "warning" and static.node == "child"


class Log(TypedDict):
    log: Annotated[list[str], operator.add]


def test_a_function_node_returning_a_subgraphs_whole_output():
    sub = StateGraph(Log)
    sub.add_node("s1", lambda s: {"log": ["sub"]})
    sub.add_edge(START, "s1")
    subapp = sub.compile()
    g = StateGraph(Log)
    g.add_node("p1", lambda s: {"log": ["p"]})
    g.add_node("call", lambda s: subapp.invoke(s))
    g.add_edge(START, "p1")
    g.add_edge("p1", "call")
    finding = only(diagnose_trace(record(g.compile(), {"log": []})), "subgraph_duplication")
    assert finding.node == "call" and "call runs a subgraph" in finding.explanation


def test_a_subgraph_on_add_messages_does_not_duplicate():
    sub = StateGraph(MessagesState)
    sub.add_node("s1", lambda s: {"messages": [AIMessage("sub", id="s")]})
    sub.add_edge(START, "s1")
    g = StateGraph(MessagesState)
    g.add_node("p1", lambda s: {"messages": [AIMessage("p", id="p")]})
    g.add_node("child", sub.compile())
    g.add_edge(START, "p1")
    g.add_edge("p1", "child")
    graph = g.compile()
    assert serious(diagnose(graph, record(graph, {"messages": []}))) == []


# ---- 4. read-modify-write ---------------------------------------------------------------------------------


def test_returning_the_old_list_plus_new_items_into_operator_add():
    g = StateGraph(Log)
    g.add_node("a", lambda s: {"log": ["a"]})
    g.add_node("b", lambda s: {"log": s["log"] + ["b"]})
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    graph = g.compile()
    static = only(diagnose_graph(graph), "read_modify_write")
    assert static.node == "b" and static.severity == "warning" and "repeats itself" in static.explanation
    finding = only(diagnose_trace(record(graph, {"log": ["in"]})), "read_modify_write")
    assert (finding.severity, finding.step, finding.node, finding.key) == ("error", 2, "b", "log")
    assert "'in' (from the input), 'a' (written by a in step 1)" in finding.explanation
    assert finding.fix.startswith("return {\"log\": ['b']}")


def test_the_parallel_append_race_loses_a_message():
    race = load_sample("parallel_append_race")
    findings = diagnose(race.graph, record(race.graph, race.example_input))
    finding = only(findings, "read_modify_write", "error")
    assert finding.step == 1 and finding.key == "messages" and set(finding.nodes) == {"node_a", "node_b"}
    assert "'from A' from node_a was lost" in finding.explanation and "keep_last" in finding.explanation
    assert not found(findings, "order_sensitive")  # the lost update already says it
    static = found(diagnose_graph(race.graph), "read_modify_write")
    assert {f.node for f in static} == {"node_a", "node_b"} and all("race" in f.explanation for f in static)


def test_a_counter_that_sends_its_total():
    sample = load_sample("retries_counter")
    finding = only(diagnose_trace(record(sample.graph, sample.example_input)), "read_modify_write")
    assert (finding.severity, finding.node, finding.key, finding.step) == ("warning", "attempt", "retries", 2)
    assert "went from 1 to 3 instead of 2" in finding.explanation and finding.fix.startswith('return {"retries": 1}')


def test_a_long_run_counter_that_sends_its_total_lists_its_first_writes(monkeypatch):
    """Its writes are tallied as the steps go by (a long run writes its counter at every step): the finding
    names the first one that read a total and lists the first COUNTER_EVIDENCE."""
    from debugger.diagnostics import counters

    monkeypatch.setattr(counters, "COUNTER_EVIDENCE", 5)

    class Counted(TypedDict):
        n: Annotated[int, operator.add]

    g = StateGraph(Counted)
    g.add_node("tick", lambda s: {"n": s["n"] + 1})
    g.add_edge(START, "tick")
    g.add_conditional_edges("tick", lambda s: "tick" if s["n"] < 2**30 else END)
    finding = only(diagnose_trace(record(g.compile(), {"n": 0})), "read_modify_write")
    assert (finding.node, finding.key, finding.step) == ("tick", "n", 2)
    assert "wrote n = 1 when it was 0, 2 when it was 1, 4 when it was 3, 8 when it was 7:" in finding.explanation
    assert "went from 1 to 3 instead of 2" in finding.explanation
    assert [(e["step"], e["value_read"], e["wrote"]) for e in finding.evidence] == [
        (1, 0, 1),
        (2, 1, 2),
        (3, 3, 4),
        (4, 7, 8),
        (5, 15, 16),
    ]


def test_add_messages_absorbs_a_whole_history_returned_again():
    def llm(state: MessagesState) -> dict:
        return {"messages": state["messages"] + [AIMessage("hi", id="ai")]}

    g = StateGraph(MessagesState)
    g.add_node("llm", llm)
    g.add_edge(START, "llm")
    graph = g.compile()
    assert serious(diagnose(graph, record(graph, {"messages": [{"role": "user", "content": "x", "id": "u"}]}))) == []


def test_a_loop_node_that_writes_the_same_item_each_time_is_not_read_modify_write():
    class S(TypedDict):
        n: int
        log: Annotated[list, operator.add]

    g = StateGraph(S)
    g.add_node("inc", lambda s: {"n": s["n"] + 1, "log": ["inc"]})
    g.add_edge(START, "inc")
    g.add_conditional_edges("inc", lambda s: END if s["n"] >= 3 else "inc", ["inc", END])
    graph = g.compile()
    assert serious(diagnose(graph, record(graph, {"n": 0}))) == []


def test_a_partial_node_is_read_past_its_bound_arguments():
    import functools

    def write(name, state):
        return {"v": name}

    g = StateGraph(Plain)
    g.add_node("x", functools.partial(write, "x"))
    g.add_node("y", functools.partial(write, "y"))
    g.add_edge(START, "x")
    g.add_edge(START, "y")
    assert only(diagnose_graph(g.compile()), "concurrent_update").severity == "error"


# ---- 5. order sensitivity -------------------------------------------------------------------------------


def test_keep_first_and_string_concatenation_under_parallel_writers():
    sample = load_sample("order_dependent_reducer")
    trace = record(sample.graph, sample.example_input)
    live = {f.key: f for f in found(diagnose_trace(trace, sample.graph), "order_sensitive")}
    assert set(live) == {"answer", "trail"}
    answer = live["answer"]
    assert (answer.severity, answer.step, answer.nodes) == ("warning", 1, ("archive", "live"))
    assert "'$100 (archive, 2019-03-01)'" in answer.explanation and "'$120 (live, 2025-06-01)'" in answer.explanation
    assert "keep_first" in answer.explanation and "add_edge(['archive', 'live'], \"choose\")" in answer.fix
    # from a trace file alone: operator.add by name, keep_first inferred from the recorded calls
    offline = {f.key for f in found(diagnose_trace(from_json(to_json(trace))), "order_sensitive")}
    assert offline == {"answer", "trail"}


class Commutative(TypedDict):
    total: Annotated[int, operator.add]
    items: Annotated[list, operator.add]
    seen: Annotated[dict, lambda old, new: {**old, **new}]


def test_commutative_reducers_and_collected_lists_are_not_order_sensitive():
    g = StateGraph(Commutative)
    for name in ("a", "b", "c"):
        g.add_node(name, lambda s, n=name: {"total": 1, "items": [n], "seen": {n: True}})
        g.add_edge(START, name)
    graph = g.compile()
    trace = record(graph, {})
    assert serious(diagnose_trace(trace, graph)) == [] and serious(diagnose_trace(from_json(to_json(trace)))) == []


# ---- 6. start values --------------------------------------------------------------------------------------


class DictAdd(TypedDict):
    d: Annotated[dict, operator.add]


def test_a_reducer_that_fails_on_its_start_value():
    g = StateGraph(DictAdd)
    g.add_node("c", lambda s: {"d": {"k": 1}})
    g.add_edge(START, "c")
    graph = g.compile()
    static = only(diagnose_graph(graph), "reducer_start_value")
    assert static.severity == "error" and static.key == "d" and "unsupported operand" in static.explanation
    assert "operator.or_" in static.fix
    run = only(diagnose_trace(record(graph, {})), "reducer_start_value")
    assert (run.severity, run.step, run.node, run.key) == ("error", 1, "c", "d")
    assert "start value {}" in run.explanation


def by_id(old: list, new: list) -> list:
    return {**old, **{item["id"]: item for item in new}}  # wrong for a list start value


class ById(TypedDict):
    items: Annotated[list, by_id]


def test_a_user_reducer_that_fails_on_its_start_value_is_seen_in_the_run():
    g = StateGraph(ById)
    g.add_node("n", lambda s: {"items": [{"id": 1}]})
    g.add_edge(START, "n")
    graph = g.compile()
    assert found(diagnose_graph(graph), "reducer_start_value") == []  # user code is not called before running
    finding = only(diagnose_trace(record(graph, {})), "reducer_start_value")
    assert finding.node == "n" and "by_id" in finding.title


def test_a_reducer_that_fails_later_is_reducer_failed():
    g = StateGraph(Log)
    g.add_node("a", lambda s: {"log": ["a"]})
    g.add_node("b", lambda s: {"log": "b"})  # a str into operator.add on a list
    g.add_edge(START, "a")
    g.add_edge("a", "b")
    finding = only(diagnose_trace(record(g.compile(), {"log": []})), "reducer_failed")
    assert (finding.step, finding.node, finding.key) == (2, "b", "log") and "TypeError" in finding.explanation


class MaybeList(TypedDict):
    items: Annotated[Optional[list], operator.add]  # noqa: UP045 - the spelling users write, quoted back to them
    other: int


def test_a_reducer_key_that_starts_empty():
    g = StateGraph(MaybeList)
    g.add_node("read", lambda s: {"items": s["items"] + [1]})
    g.add_edge(START, "read")
    graph = g.compile()
    static = only(diagnose_graph(graph), "reducer_start_value")
    assert static.severity == "warning" and "starts empty" in static.title and "Optional[list]" in static.explanation
    run = only(diagnose_trace(record(graph, {"other": 1})), "reducer_start_value")
    assert (run.severity, run.node, run.key) == ("error", "read", "items") and "KeyError" in run.explanation


@dataclass
class WithDefault:
    items: Annotated[list, operator.add] = field(default_factory=lambda: ["seed"])
    x: int = 0


def test_a_default_on_a_reducer_field_is_never_the_start_value():
    g = StateGraph(WithDefault)
    g.add_node("n", lambda s: {"x": 1})
    g.add_edge(START, "n")
    finding = only(diagnose_graph(g.compile()), "reducer_start_value")
    assert finding.key == "items" and "['seed']" in finding.explanation and "[]" in finding.explanation


# ---- 7. in-place mutation ---------------------------------------------------------------------------------


@pytest.mark.parametrize("attribute", ["graph", "silent_graph"])
def test_in_place_mutation_is_seen_in_the_trace(attribute):
    sample = load_sample("in_place_mutation")
    graph = getattr(sample, attribute)
    finding = only(diagnose_trace(record(graph, copy.deepcopy(sample.example_input))), "in_place_mutation")
    assert (finding.severity, finding.step, finding.node, finding.key) == ("error", 1, "add_note", "notes")
    assert "['intro'] after step 0" in finding.explanation and "['intro', 'checked']" in finding.explanation
    assert finding.fix.startswith("return {\"notes\": ['checked']}")
    if attribute == "silent_graph":
        assert "no task of step 1 wrote 'notes'" in finding.explanation
    else:
        assert "merge the grown value into itself" in finding.explanation


def alias_append(state: Log) -> dict:
    notes = state["log"]
    notes.append("x")
    return {}


def copy_append(state: Log) -> dict:
    notes = list(state["log"])
    notes.append("x")
    return {"log": notes[-1:]}


class Counter(TypedDict):
    n: int
    d: dict


def rebinds(state: Counter) -> dict:
    state["n"] += 1  # rebinds a key of the node's own input dict: harmless
    state["d"]["k"] = 1  # changes the state's dict
    return {"n": state["n"]}


def test_in_place_mutation_before_running():
    def build(node, schema=Log):
        g = StateGraph(schema)
        g.add_node("n", node)
        g.add_edge(START, "n")
        return g.compile()

    alias = only(diagnose_graph(build(alias_append)), "in_place_mutation")
    assert (alias.severity, alias.node, alias.key) == ("warning", "n", "log") and ".append()" in alias.explanation
    assert found(diagnose_graph(build(copy_append)), "in_place_mutation") == []
    nested = only(diagnose_graph(build(rebinds, Counter)), "in_place_mutation")
    assert nested.key == "d"
    graph = build(rebinds, Counter)
    run = only(diagnose_trace(record(graph, {"n": 1, "d": {}})), "in_place_mutation")
    assert run.key == "d" and run.step == 1


# ---- 8. returning [] to clear ---------------------------------------------------------------------------


def test_returning_an_empty_list_to_clear():
    sample = load_sample("clear_with_empty_list")
    finding = only(diagnose_trace(record(sample.graph, sample.example_input)), "empty_list_clear")
    assert (finding.severity, finding.step, finding.node, finding.key) == ("warning", 1, "reset", "items")
    assert "operator.add(['stale 1', 'stale 2'], [])" in finding.explanation
    assert finding.fix.startswith('return {"items": Overwrite([])}')


def test_an_empty_list_into_an_empty_key_or_messages():
    g = StateGraph(Log)
    g.add_node("n", lambda s: {"log": []})
    g.add_edge(START, "n")
    graph = g.compile()
    assert found(diagnose_trace(record(graph, {"log": []})), "empty_list_clear") == []
    m = StateGraph(MessagesState)
    m.add_node("n", lambda s: {"messages": []})
    m.add_edge(START, "n")
    finding = only(
        diagnose_trace(record(m.compile(), {"messages": [{"role": "user", "content": "x"}]})), "empty_list_clear"
    )
    assert "REMOVE_ALL_MESSAGES" in finding.fix


# ---- the gallery: no false positives, expected kinds --------------------------------------------------------


CLEAN = [
    "fan_out_search",
    "map_reduce_send",
    "react_agent",
    "single_node_agent",
    "add_messages_basics",
    "reducer_forms",
    "stream_updates",
]
FIXED = [name for name in SAMPLES if hasattr(load_sample(name), "fixed_graph")]
EXPECTED = {
    "parallel_append_race": "read_modify_write",
    "retries_counter": "read_modify_write",
    "refund_concurrent_update": "concurrent_update",
    "reducer_table": "concurrent_update",
    "annotation_state": "concurrent_update",
    "subgraph_trap": "subgraph_duplication",
    "order_dependent_reducer": "order_sensitive",
    "in_place_mutation": "in_place_mutation",
    "clear_with_empty_list": "empty_list_clear",
    "endless_loop": "stuck_loop",
}


def sample_run(name, attribute):
    sample = load_sample(name)
    graph = getattr(sample, attribute)
    graph_input = (
        getattr(sample, "fixed_input", sample.example_input) if attribute == "fixed_graph" else sample.example_input
    )
    return graph, record(graph, copy.deepcopy(graph_input), dict(getattr(sample, "example_config", None) or {}))


@pytest.mark.parametrize("name,attribute", [(n, "fixed_graph") for n in FIXED] + [(n, "graph") for n in CLEAN])
def test_graphs_without_mistakes_have_no_findings(name, attribute):
    graph, trace = sample_run(name, attribute)
    assert serious(diagnose(graph, trace)) == []
    assert serious(diagnose_trace(from_json(to_json(trace)))) == []


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_broken_samples_give_the_expected_kind(name):
    graph, trace = sample_run(name, "graph")
    assert found(diagnose(graph, trace), EXPECTED[name])
    assert found(diagnose_trace(from_json(to_json(trace))), EXPECTED[name])  # from a file, without the graph


def test_every_kind_is_triggered_by_some_test():
    source = Path(__file__).read_text()
    assert all(f'"{kind}"' in source for kind in KINDS)


def test_findings_are_sorted_deduplicated_and_json_ready():
    sample = load_sample("in_place_mutation")
    findings = diagnose(sample.graph, record(sample.graph, copy.deepcopy(sample.example_input)))
    assert [f.severity for f in findings] == sorted(
        (f.severity for f in findings), key=["error", "warning", "info"].index
    )
    assert len({f.identity() for f in findings}) == len(findings)
    assert not [f for f in findings if f.source == "graph" and f.kind == "in_place_mutation"]  # the run confirmed it
    data = json.loads(json.dumps(to_data(findings, "x")))
    assert data["counts"]["error"] == 2 and {"kind", "severity", "step", "node", "key", "fix", "evidence"} <= set(
        data["findings"][0]
    )
    assert "ERRORS (2)" in render(findings, "x") and has_errors(findings)


# ---- the topology ------------------------------------------------------------------------------------------


def test_waiting_edges_and_deferred_nodes_in_the_step_search():
    g = StateGraph(Log)
    for name in ("a", "b", "c", "join", "late"):
        g.add_node(name, lambda s, n=name: {"log": [n]}, defer=name == "late")
    g.add_edge(START, "a")
    g.add_edge(START, "b")
    g.add_edge("a", "c")
    g.add_edge(["c", "b"], "join")
    g.add_edge("a", "late")
    topology = Topology(g.compile().builder)
    assert topology.together("a", "b").definite
    assert topology.together("c", "join") is None and topology.together("b", "join") is None
    assert topology.together("late", "join") is None and topology.together("late", "c") is None


def test_a_graph_too_large_to_search_says_so(monkeypatch):
    import debugger.diagnostics.topology as topology

    monkeypatch.setattr(topology, "MAX_WORK", 3)
    graph = specialists(route_both, ["billing", "tech"])
    info = [f for f in diagnose_graph(graph) if f.severity == "info"]
    assert info and "too large" in info[0].title


# ---- the command line -------------------------------------------------------------------------------------


def cli(*args, db):
    return subprocess.run(
        [sys.executable, "-m", "debugger.cli", "diagnose", *args, "--db", str(db)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )


def test_cli_exits_1_on_an_error_and_prints_it_with_its_fix(tmp_path):
    result = cli("refund_concurrent_update", db=tmp_path / "db")
    assert result.returncode == 1, result.stderr
    assert "ERROR" in result.stdout and "[concurrent_update]" in result.stdout
    assert "where: step 1 · nodes lookup_order, lookup_user_history · key 'v'" in result.stdout
    assert "v: Annotated[list[int], operator.add]" in result.stdout


def test_cli_exits_0_without_errors(tmp_path):
    clean = cli("fan_out_search", db=tmp_path / "db")
    assert clean.returncode == 0 and "no findings" in clean.stdout
    warning = cli("clear_with_empty_list", db=tmp_path / "db")
    assert warning.returncode == 0 and "[empty_list_clear]" in warning.stdout


def test_cli_json(tmp_path):
    result = cli("subgraph_trap", "--json", db=tmp_path / "db")
    assert result.returncode == 1
    data = json.loads(result.stdout)
    assert data["status"] == "done" and data["counts"]["error"] == 1
    assert [(f["kind"], f["step"], f["node"], f["key"]) for f in data["findings"]] == [
        ("subgraph_duplication", 2, "child", "log")
    ]


def test_cli_static_only(tmp_path):
    assert cli("refund_concurrent_update", "--no-run", db=tmp_path / "db").returncode == 1
    trap = cli("subgraph_trap", "--no-run", db=tmp_path / "db")
    assert trap.returncode == 0 and "before running" in trap.stdout


def test_cli_trace_file_and_run_id(tmp_path):
    db = tmp_path / "runs.sqlite3"
    out = tmp_path / "trap.json"
    run = subprocess.run(
        [sys.executable, "-m", "debugger.cli", "run", "subgraph_trap", "--out", str(out), "--db", str(db)],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=120,
    )
    run_id = run.stdout.split("run: ")[1].split()[0]
    from_file = cli(str(out), db=db)
    assert (
        from_file.returncode == 1
        and "[subgraph_duplication]" in from_file.stdout
        and from_file.stdout.startswith("trace ")
    )
    from_store = cli(run_id[:10], db=db)
    assert from_store.returncode == 1 and "[subgraph_duplication]" in from_store.stdout
    # the options that make a run change nothing in a recorded one: refused in one line, not ignored
    refused = cli(str(out), "--checkpointer", str(tmp_path / "saver.sqlite"), db=db)
    assert refused.returncode == 2 and refused.stdout == "", refused.stdout
    assert refused.stderr.strip().splitlines() == [
        f"error: {out}: --checkpointer is for a graph that runs or a thread (--checkpointer URL --thread ID); "
        "a trace file is checked as it was recorded: drop --checkpointer"
    ]
    refused = cli(run_id[:10], "--input", "{}", "--recursion-limit", "3", db=db)
    assert refused.returncode == 2 and "--input, --recursion-limit are for a graph that runs" in refused.stderr
    assert "a stored run is checked as it was recorded" in refused.stderr


def test_cli_file_target_and_errors(tmp_path):
    graph_file = tmp_path / "race.py"
    graph_file.write_text(
        "from typing import TypedDict\nfrom engine import StateGraph, START\n"
        "class S(TypedDict):\n    v: int\n"
        "g = StateGraph(S)\ng.add_node('x', lambda s: {'v': 1})\ng.add_node('y', lambda s: {'v': 2})\n"
        "g.add_edge(START, 'x')\ng.add_edge(START, 'y')\ngraph = g.compile()\n"
    )
    result = cli(f"{graph_file}:graph", "--input", "{}", db=tmp_path / "db")
    assert result.returncode == 1 and "x and y both wrote 'v' in step 1" in result.stdout
    missing = cli("no_such_thing", db=tmp_path / "db")
    assert missing.returncode == 2 and "not a sample, a .py file, a module or a stored run" in missing.stderr
    broken = tmp_path / "broken.json"
    broken.write_text("{")
    assert cli(str(broken), db=tmp_path / "db").returncode == 2


def test_diagnosing_does_not_warn_about_the_graph_itself():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        diagnose_graph(load_sample("command_goto").graph)


def test_a_committed_value_the_writes_do_not_fold_to_is_an_error():
    sample = load_sample("parallel_append_race")
    trace = record(sample.graph, copy.deepcopy(sample.example_input))
    step = next(s for s in trace.steps if s.reducer_calls and s.step > 0)
    key = step.reducer_calls[0].channel
    step.mismatches = [{"channel": key, "recorded": ["folded"], "committed": ["stored"]}]
    found = [f for f in diagnose(None, from_json(to_json(trace))) if f.kind == "committed_mismatch"]
    assert len(found) == 1 and found[0].severity == "error" and (found[0].step, found[0].key) == (step.step, key)
    assert "'folded'" in found[0].explanation and "'stored'" in found[0].explanation


def test_a_step_whose_stored_data_is_damaged_is_damaged_data_not_a_mismatch():
    from debugger.sources.trace_check import parse_trace

    sample = load_sample("parallel_append_race")
    trace = record(sample.graph, copy.deepcopy(sample.example_input))
    step = next(s for s in trace.steps if s.reducer_calls and s.step > 0)
    step.mismatches = [{"channel": "", "recorded": None, "committed": None, "damaged": "checkpoint c1 is corrupt"}]
    reread = parse_trace(to_json(trace).encode(), source="damaged.json")  # an upload keeps the damage too
    found = [f for f in diagnose(None, reread) if f.kind in ("damaged_data", "committed_mismatch")]
    assert [f.kind for f in found] == ["damaged_data"] and found[0].severity == "error"
    assert found[0].step == step.step and "checkpoint c1 is corrupt" in found[0].explanation


def test_a_rejected_write_is_a_finding_of_its_own_kind():
    from tests.test_diagnose_new_user import pydantic_graph

    graph = pydantic_graph()
    assert only(diagnose(graph, record(graph, {"count": 1})), "rejected_write").node == "bad"
