"""The debugger's view-model (`debugger.model.run_view`) on recorded sample runs, without Streamlit.

Each test records a gallery sample (once per module, through `sources.open_sample` into a temporary
run store) and checks one answer the pages show: the graph highlight, the timeline marks, the merge
sentences, the diff, the versions, the triggers, the error reports, cursor clamping, subgraph scopes
and learn mode's guess checking.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from debugger.diagnostics import diagnose
from debugger.model.learn import check_guess, parse_guess
from debugger.model.run_view import RunView
from debugger.model.step_changes import DiffEntry
from debugger.model.trace_view import Cursor, Scope, TraceView
from debugger.sources import runs as sources
from engine import START

ROOT = Path(__file__).resolve().parents[1]


@pytest.fixture(scope="module")
def traces(tmp_path_factory):
    """name -> TraceView of the sample's example run (recorded once per module)."""
    db = str(tmp_path_factory.mktemp("model") / "runs.sqlite3")
    cache: dict[str, TraceView] = {}

    def get(name: str) -> TraceView:
        if name not in cache:
            opened = sources.open_sample(name, db=db)
            cache[name] = TraceView(opened.trace, opened.graph)
        return cache[name]

    return get


@pytest.fixture
def trap(traces) -> RunView:
    return traces("subgraph_trap").view(Scope())


def test_the_view_model_imports_no_streamlit():
    code = "import sys, debugger.model.run_view, debugger.model.present; sys.exit('streamlit' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], cwd=ROOT).returncode == 0


# ---- highlight -------------------------------------------------------------------------------------


def test_highlight_of_subgraph_trap_follows_the_run(trap):
    assert trap.steps == [0, 1, 2]
    first = trap.highlight(0)
    assert (first.ran, first.next, first.visited, first.failed, first.edges_taken) == (
        {START},
        {"p1"},
        set(),
        set(),
        set(),
    )
    middle = trap.highlight(1)
    assert (middle.ran, middle.next, middle.visited) == ({"p1"}, {"child"}, {START})
    assert middle.edges_taken == {(START, "p1")}
    last = trap.highlight(2)
    assert last.ran == {"child"}
    assert last.next == set(), "nothing runs after a finished run's last step (END is no node that runs)"
    assert last.visited == {START, "p1"}
    assert last.failed == set()
    assert last.edges_taken == {("p1", "child")}, (
        "only edges into this step are bold (the legend says so); END is marked next"
    )


def test_highlight_of_a_fan_out_marks_both_branches_and_the_join(traces):
    view = traces("fan_out_search").view(Scope())
    fan = view.highlight(2)
    assert fan.ran == {"search_db", "search_web"}
    assert fan.next == {"merge"}
    assert fan.edges_taken == {("start", "search_db"), ("start", "search_web")}
    join = view.highlight(3)
    assert join.ran == {"merge"}
    assert join.visited == {START, "start", "search_db", "search_web"}
    assert {("search_db", "merge"), ("search_web", "merge")} <= join.edges_taken


def test_highlight_marks_both_writers_of_a_refused_step_failed(traces):
    view = traces("refund_concurrent_update").view(Scope())
    failed = view.highlight(1)
    assert failed.failed == {"lookup_order", "lookup_user_history"}
    assert failed.next == set(), "a failed run has no next step"


def test_dot_marks_the_ran_node_with_its_marker_and_id(trap):
    dot = trap.dot(2).replace('"node_', "node_").replace('" [', " [").replace('" -> ', " -> ")
    child = next(
        line for line in dot.splitlines() if line.strip().startswith("node_child-3a-s1 [")
    )  # inside cluster_child
    assert 'class="stepscope-node ran"' in child and "▶" in child and "#ffd45e" in child
    p1 = next(line for line in dot.splitlines() if line.strip().startswith("node_p1 ["))
    assert 'class="stepscope-node visited"' in p1 and "✓" in p1
    assert 'class="stepscope-edge taken"' in next(
        line for line in dot.splitlines() if "node_p1 -> node_child-3a-s1" in line
    )
    assert "subgraph cluster_child {" in dot


# ---- timeline --------------------------------------------------------------------------------------


def _row(view: RunView, node: str) -> dict:
    return next(row for row in view.timeline if row["node"] == node)


def test_timeline_has_one_row_per_node_and_one_column_per_step(trap):
    assert [row["node"] for row in trap.timeline] == [START, "p1", "child"]
    assert _row(trap, "child") == {"node": "child", "0": "", "1": "", "2": "●"}


def test_timeline_marks_the_refused_writers_failed(traces):
    view = traces("refund_concurrent_update").view(Scope())
    assert _row(view, "lookup_order")["1"] == "✖"
    assert _row(view, "lookup_user_history")["1"] == "✖"
    assert _row(view, START)["0"] == "●"


def test_timeline_counts_sends(traces):
    view = traces("map_reduce_send").view(Scope())
    assert _row(view, "write_joke")["2"] == "●×3"
    assert _row(view, "plan")["1"] == "●"


# ---- merge -----------------------------------------------------------------------------------------


def test_merge_of_the_subgraph_step_marks_the_duplicated_item(trap):
    [call] = trap.merge(2)
    assert call.call.channel == "log" and call.call.writer_name == "child"
    assert call.before == ["parent"]
    assert call.after == ["parent", "parent", "sub-1"]
    assert call.duplicated == (1,)
    assert (
        call.sentence == "operator.add appended ['parent', 'sub-1'] to ['parent'] (1 of them already there: duplicated)"
    )


def test_merge_sentences_say_what_each_call_did(traces, trap):
    assert trap.merge(1)[0].sentence == "operator.add appended ['parent'] to []"
    assert trap.merge(1)[0].duplicated == ()
    fan = traces("fan_out_search").view(Scope())
    assert [m.sentence for m in fan.merge(2)] == [
        "operator.add appended ['db: 3 design notes'] to []",
        "operator.add appended ['web: the LangGraph docs'] to ['db: 3 design notes']",
    ]
    assert fan.merge(0)[0].sentence == "set 'query' to '  LangGraph ' (it was empty)"
    assert fan.merge(1)[0].sentence.startswith("replaced 'query'")


def test_merge_by_channel_groups_in_application_order(traces):
    view = traces("order_dependent_reducer").view(Scope())
    grouped = view.merge_by_channel(1)
    assert list(grouped) == ["answer", "trail"]
    assert [m.call.writer_name for m in grouped["trail"]] == ["archive", "live"]
    assert grouped["answer"][1].sentence.endswith("the write '$120 (live, 2025-06-01)' was dropped")


def test_merge_of_a_refused_write_explains_the_missing_reducer(traces):
    view = traces("refund_concurrent_update").view(Scope())
    sentences = [m.sentence for m in view.merge(1)]
    assert len(sentences) == 2
    assert sentences[0].startswith("lookup_order wrote 1 to 'v', a key without a reducer")
    assert all("another task wrote it in the same step" in s and "second" not in s for s in sentences)
    assert not any(m.applied for m in view.merge(1)), "a failed step applies nothing"


def test_merge_of_a_step_that_does_not_exist_is_empty(trap):
    assert trap.merge(99) == []


# ---- state and diff --------------------------------------------------------------------------------


def test_diff_kinds_added_changed_same(traces, trap):
    assert [(e.key, e.kind, e.added_items) for e in trap.diff(2)] == [("log", "changed", (1, 2))]
    assert [(e.key, e.kind) for e in trap.diff(0)] == [("log", "same")]
    fan = traces("fan_out_search").view(Scope())
    assert {e.key: e.kind for e in fan.diff(3)} == {"results": "same", "query": "same", "answer": "added"}
    assert {e.key: e.kind for e in fan.diff(1)}["query"] == "changed"


def test_diff_inside_the_merge_shows_the_state_before_a_call(trap):
    assert trap.state(2, 0) == {"log": ["parent"]}
    assert trap.state(2) == {"log": ["parent", "parent", "sub-1"]}
    assert [(e.key, e.kind) for e in trap.diff(2, 0)] == [("log", "same")]


def test_diff_reports_a_removed_key(trap, monkeypatch):
    monkeypatch.setattr(trap, "state_before", lambda step: {"gone": 1, "kept": [1]})
    monkeypatch.setattr(trap, "state", lambda step, call=None: {"kept": [1, 2]})
    assert trap.diff(2) == [DiffEntry("gone", "removed", 1, None), DiffEntry("kept", "changed", [1], [1, 2], (1,))]


# ---- versions and triggers -------------------------------------------------------------------------


def test_versions_list_state_channels_first_and_mark_changes(trap):
    rows = trap.versions(1)
    assert rows[0] == {"channel": "log", "version": 3, "changed": True, "change": "written", "what": "state key"}
    change = {row["channel"]: row["change"] for row in rows}
    assert (change["branch:to:child"], change["branch:to:p1"]) == ("written", "cleared"), "p1 ran: its edge is cleared"
    kinds = {row["channel"]: row["what"] for row in rows}
    assert kinds["branch:to:p1"] == "edge into p1" and kinds["__start__"] == "the input"
    assert next(row for row in rows if row["channel"] == "__start__")["changed"] is False
    assert trap.versions(99) == []


def test_trigger_sentences_name_the_channel_and_its_writer(traces, trap):
    assert [t.sentence() for t in trap.triggers(2)] == ["child runs because p1 finished (edge p1 → child)"]
    assert [t.sentence() for t in trap.next_triggers(1)] == [t.sentence() for t in trap.triggers(2)]
    assert trap.next_triggers(2) == []
    fan = traces("fan_out_search").view(Scope())
    assert [t.sentence() for t in fan.triggers(3)] == [
        "merge runs because search_db finished (edge search_db → merge); search_web finished (edge search_web → merge)"
    ]


def test_trigger_sentence_of_a_send(traces):
    view = traces("map_reduce_send").view(Scope())
    assert [t.sentence() for t in view.triggers(2)] == [
        f'write_joke[{i}] {{"subject": "{s}"}} runs because plan sent a Send to write_joke from its router fan_out'
        for i, s in enumerate(["owl", "cat", "dog"])
    ]


# ---- errors ----------------------------------------------------------------------------------------


def test_concurrent_update_report_names_both_writers_and_three_fixes(traces):
    view = traces("refund_concurrent_update").view(Scope())
    assert view.failed_step == 1
    assert view.error(0) is None
    report = view.error(1)
    finding = next(f for f in diagnose(None, view.run) if f.kind == "concurrent_update")
    assert (
        report.title == finding.title == "lookup_order and lookup_user_history wrote the plain key 'v' in one superstep"
    )
    assert report.explanation == finding.explanation, "the app explains with diagnose's words"
    assert report.fixes == ((finding.fix_label, finding.fix), *finding.other_fixes)
    assert report.key == "v"
    assert report.writers == (("lookup_order", 1), ("lookup_user_history", 2))
    assert report.culprits == ("lookup_order", "lookup_user_history")
    assert report.message.startswith("At key 'v': Can receive only one value per step.")
    assert "INVALID_CONCURRENT_GRAPH_UPDATE" in report.message


def test_recursion_limit_report(traces):
    view = traces("endless_loop").view(Scope())
    assert view.run.status == "recursion_limit"
    assert view.failed_step == view.last == 25
    report = view.error(25)
    assert report.title == "GraphRecursionError"
    assert report.message.startswith("Recursion limit of 25 reached without hitting a stop condition.")
    assert "after 25 supersteps" in report.explanation
    assert len(report.fixes) == 2 and "recursion_limit" in report.fixes[1][1]
    assert view.error(3) is None


def test_a_finished_run_has_no_failed_step_and_no_error(trap):
    assert trap.failed_step is None
    assert [trap.error(s) for s in trap.steps] == [None, None, None]


# ---- navigation and cursors ------------------------------------------------------------------------


def test_clamp_and_neighbour(trap):
    assert (trap.first, trap.last) == (0, 2)
    assert trap.clamp(99) == 2 and trap.clamp(-7) == 0 and trap.clamp(1) == 1
    assert trap.neighbour(0, -1) == 0 and trap.neighbour(0, +1) == 1 and trap.neighbour(2, +1) == 2


@pytest.mark.parametrize(
    "cursor, expected",
    [
        (Cursor(Scope(), 99), Cursor(Scope(), 2)),
        (Cursor(Scope(), -5), Cursor(Scope(), 0)),
        (Cursor(Scope(), 2, 99), Cursor(Scope(), 2, 1)),
        (Cursor(Scope(), 1, -3), Cursor(Scope(), 1, 0)),
        (Cursor(Scope(((2, "no-such-task", 0),)), 1), Cursor(Scope(), 0)),
        (Cursor(Scope(((7, "x", 0),)), 1, 4), Cursor(Scope(), 0)),
    ],
    ids=["step-too-high", "step-too-low", "call-too-high", "call-negative", "unknown-task", "unknown-step"],
)
def test_valid_clamps_bad_cursors(traces, cursor, expected):
    assert traces("subgraph_trap").valid(cursor) == expected


def test_enter_and_leave_the_subgraph_of_subgraph_trap(traces, trap):
    trace_view = traces("subgraph_trap")
    [(task, index, run)] = trap.subgraph_runs(2)
    assert (task.name, index, run.status) == ("child", 0, "done")
    assert trap.subgraph_runs(1) == []
    inside = Scope().enter(2, task.id, index)
    assert inside.path == ((2, task.id, 0),)
    sub = trace_view.view(inside)
    assert sub.node_names == ["s1"]
    assert sub.steps == [0, 1]
    assert sub.highlight(1).ran == {"s1"}
    assert sub.state(1) == {"log": ["parent", "sub-1"]}, "the subgraph starts from the parent's state"
    assert trace_view.breadcrumbs(inside)[1:] == ["child (step 2)"]
    assert trace_view.view(inside) is sub, "views are cached per scope"
    assert inside.leave() == Scope()
    assert trace_view.valid(Cursor(inside, 50)) == Cursor(inside, 1)
    assert trace_view.valid(Cursor(Scope().enter(2, task.id, 1), 1)) == Cursor(Scope(), 0), "no second subgraph run"


# ---- learn mode ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, value",
    [
        ("['parent', 'sub-1']", ["parent", "sub-1"]),
        ('["a", 1]', ["a", 1]),
        ('{"x": 1}', {"x": 1}),
        ("3", 3),
        ("'text'", "text"),
        ("None", None),
    ],
)
def test_parse_guess_reads_json_and_python_literals(text, value):
    assert parse_guess(text) == value


@pytest.mark.parametrize("text", ["[a, b", "hello", "", "__import__('os')"])
def test_parse_guess_refuses_anything_else_with_a_hint(text):
    with pytest.raises(ValueError, match="as JSON or a Python literal"):
        parse_guess(text)


def test_check_guess_right(trap):
    ok, message = check_guess(trap, 2, "log", ["parent", "parent", "sub-1"])
    assert ok
    assert message == "Right: 'log' is ['parent', 'parent', 'sub-1'] after the merge."


def test_check_guess_wrong_names_the_culprit_call(trap):
    ok, message = check_guess(trap, 2, "log", ["parent", "sub-1"])
    assert not ok
    assert message.startswith("Not quite: 'log' is ['parent', 'parent', 'sub-1'].")
    assert "reducer call #0 by child" in message and "duplicated" in message


def test_check_guess_picks_the_call_that_made_the_difference(traces):
    view = traces("fan_out_search").view(Scope())
    ok, message = check_guess(view, 2, "results", ["db: 3 design notes"])
    assert not ok and "reducer call #1 by search_web" in message
    ok, message = check_guess(view, 2, "results", ["web: the LangGraph docs", "db: 3 design notes"])
    assert not ok and "reducer call #0 by search_db" in message


def test_check_guess_on_a_channel_not_written(trap):
    assert check_guess(trap, 2, "nope", 1) == (False, "'nope' was not written in step 2.")
