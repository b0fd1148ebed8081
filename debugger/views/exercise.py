"""The Exercise tab of a lesson: the task, the lesson's code to edit, "Check my code" (the same analysis
`stepscope diagnose` runs, `model/exercise_check.py`), a hint after a wrong try and the reference answer
on request. Python lessons only: the JavaScript twins share their Python lesson's exercise."""

from __future__ import annotations

import streamlit as st

from debugger.code_access import code_allowed
from debugger.i18n import _
from debugger.model.exercise_check import Verdict, check
from debugger.views import session, widgets
from debugger.views.session import LoadedRun
from sample_graphs.exercises import EXERCISES, Exercise


def exercise_of(run: LoadedRun) -> Exercise | None:
    """The exercise of the Python lesson `run` shows, if it is one."""
    if run.source != "sample" or run.language != "python":
        return None
    return EXERCISES.get(run.label)


def _code_key(exercise: Exercise) -> str:
    return f"exercise-code-{exercise.lesson}"


def _tries(exercise: Exercise) -> list[Verdict]:
    return list((session.recall(session.EXERCISE_VERDICTS) or {}).get(exercise.lesson, []))


def _on_check(lesson: str) -> None:
    if not code_allowed():  # the button is not shown then; a click sent from an old page must not run it either
        return
    exercise = EXERCISES[lesson]
    code = session.widget_value(_code_key(exercise)) or exercise.starter()
    verdicts = dict(session.recall(session.EXERCISE_VERDICTS) or {})
    verdicts[lesson] = [*verdicts.get(lesson, []), check(exercise, code)]
    session.remember(session.EXERCISE_VERDICTS, verdicts)


def _on_start_over(lesson: str) -> None:
    session.reset_widget(_code_key(EXERCISES[lesson]), EXERCISES[lesson].starter())
    verdicts = dict(session.recall(session.EXERCISE_VERDICTS) or {})
    verdicts.pop(lesson, None)
    session.remember(session.EXERCISE_VERDICTS, verdicts)


def render(run: LoadedRun) -> None:
    """The tab."""
    exercise = exercise_of(run)
    if exercise is None:
        st.info(_("Exercises come with the gallery's Python lessons: open one from the Gallery."))
        return
    if session.learning():  # the task and its hint tell what the merges give
        st.info(_("The exercise opens once learn mode is off (the task tells what the merges give)."))
        return
    st.markdown(_("**Your task:** {task}").format(task=_(exercise.task)))  # the lesson's own Markdown, as its text is
    st.caption(
        _(
            "Edit the lesson's code below, then check it: it runs, and the same analysis as `stepscope diagnose` "
            "reads the run."
        )
    )
    st.text_area(_("The lesson's code"), exercise.starter(), height=420, key=_code_key(exercise))
    left, right, _rest = st.columns([1.3, 1, 3])
    if not widgets.typed_code_off():
        left.button(
            _("Check my code"),
            key="exercise-check",
            type="primary",
            on_click=widgets.guarded("exercise")(_on_check),
            args=(exercise.lesson,),
        )
    right.button(_("Start over"), key="exercise-reset", on_click=_on_start_over, args=(exercise.lesson,))
    widgets.action_error("exercise")
    tries = _tries(exercise)
    if tries:
        _verdict(exercise, tries[-1], len(tries))
    with st.expander(_("Show the reference answer")):
        st.code(exercise.answer(), language="python", line_numbers=True)


def _verdict(exercise: Exercise, verdict: Verdict, tries: int) -> None:
    if verdict.solved:
        st.success(
            _("Solved: {expected}, and no finding of the lesson is left.").format(expected=_(exercise.expected)),
            icon="🎉",
        )
        return
    lines = "\n".join(f"- {reason}" for reason in verdict.reasons)  # Markdown, the learner's data escaped
    st.warning(_("Not solved yet (try {tries}):").format(tries=tries) + f"\n\n{lines}", icon="✏️")
    st.info(_("**Hint:** {hint}").format(hint=_(exercise.hint)), icon="💡")
