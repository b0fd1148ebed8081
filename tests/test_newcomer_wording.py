"""What a newcomer read wrong on the pages (issue 39, item 4), each checked where the words are made."""

from __future__ import annotations

import pytest

from debugger import i18n
from debugger.model import playground as pg


def test_a_plain_key_written_twice_is_never_said_to_have_a_reducer_that_raised():
    played = pg.play(pg.Setup.example("none"))
    report = played.error
    assert report.title == "A and B wrote the plain key 'value' in one superstep"
    assert "'value' has no reducer" in report.explanation
    assert "INVALID_CONCURRENT_GRAPH_UPDATE" in report.explanation
    assert "reducer of" not in report.explanation and "LastValue" not in report.title
    assert report.fixes and all(label and code for label, code in report.fixes)


def test_a_plain_key_written_by_three_lists_them_in_chinese_with_the_enumeration_comma():
    with i18n.using("zh-CN"):
        played = pg.play(pg.Setup(reducer="none", start="''", writes=("'a'", "'b'", "'c'")))
    assert "A、B和C" in played.error.title.replace(" ", ""), played.error.title
    assert "," not in played.error.title


def sentences(custom: str, *writes: str) -> list[str]:
    played = pg.play(pg.Setup(reducer="custom", start="[]", writes=writes, custom=custom))
    return [call.sentence for call in played.calls]


@pytest.mark.slow  # a reducer of the learner's own runs in a child process
def test_an_appending_reducers_first_call_on_an_empty_list_is_an_append():
    first, second = sentences("lambda current, new: current + new", "['x']", "['y']")
    assert first == "<lambda> appended ['x'] to the empty []: 'value' is now ['x']"
    assert second == "<lambda> appended ['y'] to ['x']"


@pytest.mark.slow  # a reducer of the learner's own runs in a child process
@pytest.mark.parametrize("custom", ["lambda current, new: new", "lambda current, new: current + new"])
def test_one_call_on_an_empty_list_says_append_and_replace_look_the_same(custom):
    (only,) = sentences(custom, "['x']")
    assert "in place of" not in only and "appended" not in only
    assert only == (
        "<lambda> turned the empty [] into its write, ['x']: on an empty start, appending and replacing give the same"
    )


@pytest.mark.slow  # a reducer of the learner's own runs in a child process
def test_a_keep_last_reducer_is_not_called_an_append_on_an_empty_list():
    first, second = sentences("lambda current, new: new", "['x']", "['y']")
    assert "appended" not in first
    assert second.startswith("<lambda> returned the write itself, ['y']")


def failing_step_summary(*, errors_tab: bool, language: str = "en") -> list[str]:
    from debugger.model.stepper_data import stepper_model
    from debugger.model.trace_view import Scope, TraceView
    from debugger.sources import runs as sources

    trace = sources.open_sample("refund_concurrent_update", store=False).trace
    traced = TraceView(trace)
    view = traced.view(Scope())
    with i18n.using(language):
        model = stepper_model(
            traced, Scope(), view.failed_step, errors_tab=errors_tab, window=len(view.steps), drawing=("<svg/>", "x")
        )
    shown = next(s for s in model["window"]["steps"] if s["step"] == view.failed_step)
    return [text for kind, text in shown["summary"] if kind == "error"]


def test_the_html_file_and_the_notebook_point_a_failure_to_what_they_show():
    (line,) = failing_step_summary(errors_tab=False)
    assert "Errors tab" not in line and line.endswith("— see Findings at this step, below.")
    (line,) = failing_step_summary(errors_tab=True)  # the page has the tab
    assert line.endswith("— see the Errors tab.")
    (line,) = failing_step_summary(errors_tab=False, language="zh-CN")
    assert "这一步的发现" in line and "Errors" not in line


@pytest.mark.slow  # lays the drawing out with graphviz's dot
def test_the_html_file_has_no_errors_tab_to_point_to():
    from debugger.model.html_report import html_report
    from debugger.sources import runs as sources

    trace = sources.open_sample("refund_concurrent_update", store=False).trace
    page = html_report(trace)
    assert "Errors tab" not in page and "see Findings at this step, below." in page


def test_subgraph_merges_are_listed_only_where_a_subgraph_merged_and_in_the_pages_language():
    from debugger.model.report_data import inside_merges
    from debugger.model.trace_view import Scope, TraceView
    from debugger.sources import runs as sources

    trace = sources.open_sample("subgraph_trap", store=False).trace
    traced = TraceView(trace)
    view = traced.view(Scope())
    found = {step: inside_merges(traced, view.run, Scope(), step) for step in view.steps}
    with_subgraph = [step for step in view.steps if view.subgraph_runs(step)]
    assert with_subgraph and all(found[step] for step in with_subgraph)
    assert all(not found[step] for step in view.steps if step not in with_subgraph)
    assert all(entry["merge"] for entries in found.values() for entry in entries)
    with i18n.using("zh-CN"):
        (entry, *_more) = inside_merges(traced, view.run, Scope(), with_subgraph[0])
    assert "第" in entry["where"] and "step" not in entry["where"], entry["where"]


def test_the_playgrounds_file_counts_its_writers_in_words_not_writer_s():
    one = pg.graph_source(pg.Setup(writes=("['x']",)))
    two = pg.graph_source(pg.Setup(writes=("['x']", "['y']")))
    assert "title = 'Playground: operator.add with 1 writer'" in one and "1 parallel writer of one key" in one
    assert "title = 'Playground: operator.add with 2 writers'" in two and "2 parallel writers of one key" in two
    assert "(s)" not in one + two
    with i18n.using("zh-CN"):
        chinese = pg.graph_source(pg.Setup(writes=("['x']", "['y']")))
    assert "title = '练习场：operator.add，2 个写入者'" in chinese
    pg.load(chinese)  # still a graph file that runs
