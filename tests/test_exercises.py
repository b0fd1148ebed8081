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


@pytest.mark.slow  # the learner's code runs in a child process
@pytest.mark.parametrize("lesson", sorted(EXERCISES))
def test_the_starting_code_is_not_solved_and_the_answer_is(lesson, monkeypatch):
    monkeypatch.setenv("STEPSCOPE_SAMPLE_DELAY", "0")
    exercise = EXERCISES[lesson]
    start = check(exercise, exercise.starter())
    assert not start.solved and start.reasons, lesson
    answer = check(exercise, exercise.answer())
    assert answer.solved, (lesson, answer.reasons)


@pytest.mark.slow  # the learner's code runs in a child process
def test_an_unsolved_try_says_why():
    exercise = EXERCISES["subgraph_trap"]
    verdict = check(exercise, exercise.starter())
    assert verdict.reasons == [
        "The run ended with `log` = `['parent', 'parent', 'sub-1']`; a right run ends like this: "
        "`log` is ['parent', 'sub-1'].",
        "In step 2: Subgraph node child re\\-appended \\'log\\'",  # Markdown: the title's characters escaped
    ]


@pytest.mark.slow  # the learner's code runs in a child process
def test_a_wrong_fix_is_judged_by_what_its_run_did_not_by_the_lessons_cause():
    exercise = EXERCISES["subgraph_trap"]
    plain_child = exercise.starter().replace(
        '    parent.add_node("child", sub.compile())',
        '    parent.add_node("child", lambda state: {"log": state["log"] + ["sub-1"]})',
    )
    verdict = check(exercise, plain_child)
    assert not verdict.solved
    assert verdict.reasons[0].startswith("The run ended with `log` = `['parent', 'parent', 'sub-1']`")
    assert not any("Subgraph" in reason for reason in verdict.reasons), verdict.reasons
    assert any("child wrote back the whole" in reason for reason in verdict.reasons), verdict.reasons


@pytest.mark.slow  # the learner's code runs in a child process
def test_a_run_that_fails_says_how_it_ended_in_the_pages_language():
    from debugger import i18n

    exercise = EXERCISES["subgraph_trap"]
    failing = exercise.starter().replace(
        '    sub.add_node("s1", lambda state: {"log": ["sub-1"]})', '    sub.add_node("s1", lambda state: 1 / 0)'
    )
    verdict = check(exercise, failing)
    assert verdict.reasons[0].startswith("The run ended `error`, not `done`: "), verdict.reasons
    assert "division by zero" in verdict.reasons[0]
    with i18n.using("zh-CN"):
        verdict = check(exercise, exercise.starter())
    assert verdict.reasons[0].startswith("运行结束时是 `log` = "), verdict.reasons
    assert "正确的运行结束时：`log` 是" in verdict.reasons[0] and "应当是 `log` 是" not in verdict.reasons[0]
    assert verdict.reasons[1].startswith("第 2 步："), verdict.reasons


@pytest.mark.slow  # the learner's code runs in a child process
def test_code_that_does_not_load_is_one_line():
    verdict = check(EXERCISES["subgraph_trap"], "graph = (")
    assert not verdict.solved and len(verdict.reasons) == 1
    assert verdict.reasons[0].startswith("Your code does not load")
    nothing = check(EXERCISES["subgraph_trap"], "x = 1\n")
    assert not nothing.solved and "graph" in nothing.reasons[0]


@pytest.mark.slow  # the learner's code runs in a child process
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
