"""The step summary and learn mode (issue 24, items 6 and 7): a lost update is a line of the summary,
worded as what happened; a keep-last reducer's call says it took the write, not that it appended; in
learn mode no summary line and no lesson text tells a merge's result before the learner has guessed."""

from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

from debugger.model import learn
from debugger.model.step_summary import summary
from debugger.model.trace_view import Cursor, Scope, TraceView
from debugger.sources import runs as sources
from debugger.views import session
from tests import stepper_shown
from tests.test_app import APP, plain, tab


def root_view(name: str):
    opened = sources.open_sample(name, store=False)
    return TraceView(opened.trace, opened.graph).view(Scope())


@pytest.fixture(scope="module")
def race():
    return root_view("parallel_append_race")


@pytest.fixture(scope="module")
def trap():
    return root_view("subgraph_trap")


def kinds(lines) -> dict[str, list[str]]:
    grouped: dict[str, list[str]] = {}
    for line in lines:
        grouped.setdefault(line.kind, []).append(plain(line.text))
    return grouped


# ---- 6. the lost update --------------------------------------------------------------------------


def test_a_lost_update_is_a_line_of_the_step_summary_that_names_what_was_lost(race):
    lines = kinds(summary(race, Cursor(Scope(), 1)))
    assert lines["lost"] == [
        "Lost update: 'from A' (written by node_a) is not in 'messages'. node_a and node_b each wrote back the "
        "whole list in this step; keep_last keeps one write, so node_b's ['hi', 'from B'] replaced the others. "
        "No error was raised."
    ]
    assert "finding" not in lines, "the lost update is said once, not again as a finding"


def test_a_step_without_a_lost_update_has_no_such_line(race, trap):
    assert "lost" not in kinds(summary(race, Cursor(Scope(), 0)))
    assert "lost" not in kinds(summary(trap, Cursor(Scope(), 2)))


def test_a_keep_last_reducer_call_says_it_took_the_write_not_that_it_appended(race):
    first, second = race.merge(1)
    assert "appended" not in first.sentence and "appended" not in second.sentence
    assert first.sentence == (
        "keep_last returned the write itself, ['hi', 'from A'], as the new value of 'messages' in place of ['hi']"
    )
    assert second.sentence.endswith("in place of ['hi', 'from A']: ['from A'] is gone")


def test_an_appending_reducer_still_says_it_appended(trap):
    (call,) = trap.merge(2)
    assert call.sentence.startswith("operator.add appended ['parent', 'sub-1'] to ['parent']")


# ---- 7. learn mode -------------------------------------------------------------------------------


def test_in_learn_mode_the_summary_keeps_the_merge_result_back_until_guessed(race, trap):
    hidden = kinds(summary(race, Cursor(Scope(), 1, 0), learning=True))
    assert not {"lost", "warning", "error", "finding"} & set(hidden)
    assert hidden["info"][0].startswith("🎓 Learn mode: what this step's merge gave")
    assert "The barrier merges **2** writes into `messages`." in hidden["text"]
    trap_hidden = kinds(summary(trap, Cursor(Scope(), 2, 0), learning=True))
    assert not any("twice" in text for texts in trap_hidden.values() for text in texts)
    revealed = kinds(summary(race, Cursor(Scope(), 1, 2), learning=True))  # both calls guessed
    assert "lost" in revealed and "info" not in revealed


def test_the_lesson_waits_for_every_call_to_be_guessed(trap):
    calls = [(step, m.call.index) for step in trap.steps for m in trap.merge(step)]
    assert learn.lesson_progress(trap, []) == (0, len(calls))
    assert learn.lesson_progress(trap, calls[:-1]) == (len(calls) - 1, len(calls))
    assert learn.lesson_progress(trap, calls) == (len(calls), len(calls))
    prompt = learn.prompt("subgraph_trap")
    assert "twice" not in prompt and "['parent', 'parent'" not in prompt
    assert learn.prompt("not-a-sample") == learn.GENERIC_PROMPT


def page_text(at: AppTest) -> str:
    """The page's words: its elements' and the stepper's summary."""
    elements = [plain(e.value) for kind in (at.markdown, at.warning, at.info, at.caption) for e in kind]
    return "\n".join([*elements, stepper_shown.summary_text(at), stepper_shown.aside_text(at)])


def learning_page(trap, params: dict[str, str], guessed: bool) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=30)
    at.query_params.update({"sample": "subgraph_trap", **params})
    at.session_state[session.LEARN] = True
    if guessed:  # every call of the run guessed (wrongly: a guess is a guess)
        calls = [(step, m.call.index) for step in trap.steps for m in trap.merge(step)]
        at.session_state[session.GUESSES] = {(Scope(), s, c): learn.Verdict(False, "guessed") for s, c in calls}
    at.run()
    assert not at.exception, at.exception
    return at


@pytest.mark.usefixtures("drawing_without_graphviz")
def test_learn_mode_page_shows_no_answer_until_the_learner_has_guessed(trap):
    at = learning_page(trap, {"step": "2"}, guessed=False)
    text = page_text(at)
    assert "appears twice" not in text and "now holds items twice" not in text
    assert "The lesson (kept back in learn mode)" in [a["title"] for a in stepper_shown.aside(at)]
    assert "predict what log holds" in text and "0 of 3 reducer calls guessed" in text
    assert tab(at, "Merge").toggle(key=session.LEARN).value

    at = learning_page(trap, {"step": "2", "call": "1"}, guessed=True)  # the last call revealed
    text = page_text(at)
    assert "appears twice" in text, "every call guessed: the lesson is back"
    assert "now holds items twice" in text


@pytest.mark.usefixtures("drawing_without_graphviz")
def test_learn_mode_keeps_the_errors_what_if_and_findings_tabs_back_too(trap):
    at = learning_page(trap, {"step": "2"}, guessed=False)
    assert [t.label for t in at.tabs][4:6] == ["Errors", "Findings"], "no 🛑 or count that would hint"
    findings = tab(at, "Findings")
    assert [c.value for c in findings.caption][0].startswith("Learn mode: the findings tell what the merges give")
    assert not findings.markdown
    errors = tab(at, "Errors")
    assert errors.caption[0].value.startswith("Learn mode: what went wrong in this step is shown once")
