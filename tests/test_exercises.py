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
        "Still there (step 2): child (a subgraph) returned its whole state, and the parent re-appended 'log'",
        "The result is not right yet: a right run ends with `log` is ['parent', 'sub-1'].",
    ] or any(r.startswith("Still there") for r in verdict.reasons), verdict.reasons
    assert verdict.reasons[-1] == "The result is not right yet: a right run ends with `log` is ['parent', 'sub-1']."


def test_code_that_does_not_load_is_one_line():
    verdict = check(EXERCISES["subgraph_trap"], "graph = (")
    assert not verdict.solved and len(verdict.reasons) == 1
    assert verdict.reasons[0].startswith("Your code does not load")
    nothing = check(EXERCISES["subgraph_trap"], "x = 1\n")
    assert not nothing.solved and "graph" in nothing.reasons[0]
