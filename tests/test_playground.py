"""The reducer playground (issue 28 item 1): every fold on the page is a real recorded run, read as the
Merge tab reads it; the file "Make it a graph" saves is the graph that ran."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from debugger.model import playground
from debugger.model.playground import PlaygroundError, Setup, play
from tests.test_app import APP, plain

PLAIN_KEY_ERROR = "At key 'value': Can receive only one value per step. Use an Annotated key to handle multiple values."


def test_operator_add_folds_two_writers_one_call_at_a_time():
    played = play(Setup(reducer="operator.add", start="[]", writes=("[]", "['x']")))
    assert [c.sentence for c in played.calls] == [
        "operator.add appended nothing: the write [] adds no items, so 'value' stays []",
        "operator.add appended ['x'] to []",
    ]
    assert [c.writer for c in played.calls] == ["A", "B"]
    assert played.error is None and played.value == ["x"]
    assert played.orders == [], "[] then ['x'] and ['x'] then [] both give ['x']"


def test_a_plain_key_with_two_writers_gives_langgraphs_error():
    played = play(Setup(reducer="none", start="''", writes=("'from A'", "'from B'")))
    assert played.error is not None
    assert played.error.message.splitlines()[0] == PLAIN_KEY_ERROR
    assert "another task wrote it in the same step" in played.calls[0].sentence
    assert played.value == "", "the failed step applied nothing"
    one = play(Setup(reducer="none", start="''", writes=("'only'",)))
    assert one.error is None and one.value == "only"


def test_another_order_of_the_writers_is_shown_when_it_changes_the_result():
    played = play(Setup(reducer="operator.add", start="[]", writes=("['a']", "['b']", "['c']")))
    assert played.value == ["a", "b", "c"]
    assert {tuple(o.value) for o in played.orders} == {
        ("a", "c", "b"),
        ("b", "a", "c"),
        ("b", "c", "a"),
        ("c", "a", "b"),
        ("c", "b", "a"),
    }
    numbers = play(Setup(reducer="operator.add", start="0", writes=("1", "2")))
    assert numbers.value == 3 and numbers.orders == [], "addition of numbers does not depend on order"


def test_keep_first_drops_the_later_write_and_says_so():
    played = play(Setup.example("keep_first"))
    assert played.value == ["from A"]
    assert played.calls[1].sentence == "keep_first kept 'value' as it was, ['from A']: the write ['from B'] was dropped"
    assert [o.value for o in played.orders] == [["from B"]]


def test_overwrite_replaces_and_two_overwrites_are_an_error():
    played = play(Setup.example("Overwrite"))
    assert played.value == ["new"] and played.error is None
    assert played.calls[0].sentence == "Overwrite replaced 'value' with ['new'], bypassing operator.add"


def test_add_messages_replaces_by_id():
    played = play(Setup.example("add_messages"))
    assert [c.sentence for c in played.calls][1] == "add_messages replaced by id 1 in place"


@pytest.mark.slow  # a reducer of the learner's own runs in a child process
def test_a_reducer_of_your_own_runs_and_a_broken_one_is_one_line():
    played = play(
        Setup(reducer="custom", custom="lambda current, new: sorted(current + new)", writes=("['b']", "['a']"))
    )
    assert played.value == ["a", "b"] and played.orders == []
    with pytest.raises(PlaygroundError, match="lambda of two arguments"):
        play(Setup(reducer="custom", custom="print"))
    with pytest.raises(PlaygroundError, match="your reducer"):
        play(Setup(reducer="custom", custom="lambda a, b: (a"))
    failing = play(Setup(reducer="custom", custom="lambda a, b: a / b", start="[]", writes=("['x']",)))
    # the start value is the graph's input, which goes through the reducer too: it fails there, as LangGraph's would
    assert failing.error is not None and failing.error.title == "<lambda> refused a write to 'value'"
    assert failing.error.message.startswith("unsupported operand type(s) for /: 'list' and 'list'")


@pytest.mark.parametrize("bad", ["__import__('os')", "[", "open('x')"])
def test_values_are_literals_only(bad):
    with pytest.raises(PlaygroundError, match="is not a Python literal"):
        play(Setup(start=bad))


def test_the_saved_file_is_the_graph_that_ran(tmp_path):
    setup = Setup(reducer="operator.add", start="['s']", writes=("['x']", "['y']"))
    path = tmp_path / "made.py"
    path.write_text(playground.graph_source(setup))
    from debugger.runtimes.targets import load_target

    loaded = load_target(str(path))
    assert loaded.graph.invoke(loaded.example_input) == {"value": ["s", "x", "y"]}


def test_the_page_folds_and_shows_the_plain_key_error(fresh_store, drawing_without_graphviz):
    at = AppTest.from_file(APP, default_timeout=30)
    at.run()
    page = next(h for h, info in at._registered_pages.items() if info.get("url_pathname") == "playground")
    at._page_hash = page
    at.run()
    assert not at.exception, at.exception
    shown = [plain(m.value) for m in at.markdown]
    assert any("operator.add appended ['x'] to []" in m for m in shown), shown
    assert any("['x', 'y']" in plain(s.value) for s in at.success)
    at.selectbox(key="playground-reducer").set_value("none").run()
    assert not at.exception, at.exception
    assert any(PLAIN_KEY_ERROR in plain(e.value) for e in at.error), [e.value for e in at.error]


def test_writes_an_overwrite_made_the_barrier_ignore_are_named():
    five = play(Setup(reducer="Overwrite", start="['old']", writes=("['new']", "['b']", "['c']", "['d']", "['e']")))
    assert five.value == ["new"] and [c.writer for c in five.calls] == ["A"]
    assert five.ignored == ("B", "C", "D", "E")
    assert play(Setup.example("operator.add")).ignored == ()


def _playground_page(at: AppTest, link: dict[str, str] | None = None) -> AppTest:
    """`at` on the playground page, opened by `link`'s query string when given (a first run is needed to learn
    the pages; it shows the step page, which writes its own URL, so the link's is set after it)."""
    at.run()
    at._page_hash = next(h for h, info in at._registered_pages.items() if info.get("url_pathname") == "playground")
    if link is not None:
        at.query_params.clear()
        at.query_params.update(link)
    return at


def test_a_set_up_and_its_link_are_each_others_inverse():
    setup = Setup(reducer="custom", start="0", writes=("1", "2", "3"), custom="lambda a, b: a * 10 + b")
    params = playground.setup_params(setup)
    assert params == {"reducer": "custom", "start": "0", "A": "1", "B": "2", "C": "3", "custom": setup.custom}
    assert playground.setup_from_params(params) == setup
    assert playground.setup_from_params({"reducer": "operator.add"}) == Setup.example("operator.add")
    with pytest.raises(PlaygroundError, match=r'reducer "sum", which the playground does not have'):
        playground.setup_from_params({"reducer": "sum"})


def test_the_url_holds_the_set_up_on_screen_and_a_link_reopens_it(fresh_store, drawing_without_graphviz):
    at = _playground_page(AppTest.from_file(APP, default_timeout=30))
    at.run()
    at.selectbox(key="playground-reducer").set_value("none").run()
    at.text_input(key="playground-w1-none").set_value("'late'").run()
    assert at.query_params["reducer"] == "none" and at.query_params["B"] == "'late'"
    link = dict(at.query_params)

    reopened = _playground_page(AppTest.from_file(APP, default_timeout=30), link)  # a new browser opens the link
    reopened.run()
    assert not reopened.exception, reopened.exception
    assert reopened.selectbox(key="playground-reducer").value == "none"
    assert reopened.text_input(key="playground-w1-none").value == "'late'"
    assert any(PLAIN_KEY_ERROR in plain(e.value) for e in reopened.error)
    assert not [w.value for w in reopened.warning if "default value" in w.value]  # no widget set twice


def test_a_link_to_an_unknown_reducer_says_so_and_shows_the_first_one(fresh_store, drawing_without_graphviz):
    at = _playground_page(AppTest.from_file(APP, default_timeout=30), {"reducer": "sum"})
    at.run()
    assert not at.exception, at.exception
    assert any("the playground does not have" in plain(e.value) for e in at.error), [e.value for e in at.error]
    assert at.selectbox(key="playground-reducer").value == "operator.add"


@pytest.mark.slow  # a reducer of the learner's own runs in a child process
def test_a_reducer_a_link_brings_runs_only_when_the_learner_says_so(fresh_store, drawing_without_graphviz, tmp_path):
    marker = tmp_path / "ran"
    code = f"lambda a, b: (open({str(marker)!r}, 'w').close(), a + b)[1]"
    link = {"reducer": "custom", "start": "[]", "A": "['x']", "custom": code}
    at = _playground_page(AppTest.from_file(APP, default_timeout=30), link)
    at.run()
    assert not at.exception, at.exception
    assert at.text_input(key="playground-custom").value == code
    assert any("brings a reducer of its own" in w.value for w in at.warning)
    assert not marker.exists()  # shown, not run
    at.button(key="playground-run-linked").click().run()
    assert marker.exists()
    assert any("['x']" in plain(s.value) for s in at.success)
