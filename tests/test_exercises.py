"""Every lesson's exercise (issue 28 item 2): the starting code is not solved and says why, the reference
answer is solved, by the same analysis `stepscope diagnose` runs."""

from __future__ import annotations

import pytest

from debugger.model.exercise_check import check
from sample_graphs.exercises import EXERCISES, MISSING_EXERCISES
from sample_graphs.gallery import SAMPLES


def test_every_lesson_has_an_exercise():
    assert MISSING_EXERCISES == ()
    assert set(EXERCISES) == set(SAMPLES)


@pytest.mark.parametrize("lesson", sorted(EXERCISES))
def test_the_starting_code_is_not_solved_and_the_answer_is(lesson, monkeypatch):
    monkeypatch.setenv("STEPSCOPE_SAMPLE_DELAY", "0")
    exercise = EXERCISES[lesson]
    start = check(exercise, exercise.starter())
    assert not start.solved and start.reasons, lesson
    answer = check(exercise, exercise.answer())
    assert answer.solved, (lesson, answer.reasons)


def test_an_unsolved_try_says_why():
    exercise = EXERCISES["subgraph_trap"]
    verdict = check(exercise, exercise.starter())
    assert verdict.reasons == [
        "Still there (step 2): Subgraph node child re-appended 'log'",
        "The result is not right yet: a right run ends with `log` is ['parent', 'sub-1'].",
    ]


def test_code_that_does_not_load_is_one_line():
    verdict = check(EXERCISES["subgraph_trap"], "graph = (")
    assert not verdict.solved and len(verdict.reasons) == 1
    assert verdict.reasons[0].startswith("Your code does not load")
    nothing = check(EXERCISES["subgraph_trap"], "x = 1\n")
    assert not nothing.solved and "graph" in nothing.reasons[0]


def test_the_exercise_tab_checks_a_wrong_try_then_the_answer(fresh_store, drawing_without_graphviz):
    from streamlit.testing.v1 import AppTest

    from tests.test_app import APP, plain, tab

    at = AppTest.from_file(APP, default_timeout=60)
    at.query_params.update({"sample": "subgraph_trap", "step": "0"})
    at.run()
    assert not at.exception, at.exception
    panel = tab(at, "Exercise")
    assert any("Stop the subgraph re-appending" in plain(m.value) for m in panel.markdown)
    at.button(key="exercise-check").click().run()
    assert not at.exception, at.exception
    warnings = [plain(w.value) for w in at.warning]
    assert any("Not solved yet (try 1)" in w and "['parent', 'sub-1']" in w for w in warnings), warnings
    assert any("Hint:" in plain(i.value) for i in at.info)
    at.text_area(key="exercise-code-subgraph_trap").set_value(EXERCISES["subgraph_trap"].answer()).run()
    at.button(key="exercise-check").click().run()
    assert not at.exception, at.exception
    assert any("Solved" in plain(s.value) for s in at.success), [s.value for s in at.success]
