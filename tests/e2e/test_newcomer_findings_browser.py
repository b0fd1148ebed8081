"""Bugs a newcomer met in chromium that AppTest cannot see: they live in the front end's copy of a widget's value."""

from __future__ import annotations

from playwright.sync_api import expect

from sample_graphs.exercises import EXERCISES


def test_start_over_puts_the_lessons_starting_code_back_in_the_editor(app, shot):
    """Start over pops the editor's session-state key, but the browser still holds the edited text and
    sends it back, so the editor keeps the learner's code (the verdict goes, the code does not)."""
    starter = EXERCISES["parallel_append_race"].starter()
    app.open("/?sample=parallel_append_race&step=1")
    panel = app.tab("Exercise")
    editor = panel.get_by_label("The lesson's code")
    expect(editor).to_have_value(starter)
    editor.fill("# my edit\n" + starter)
    editor.press("Control+Enter")
    app.idle()
    panel.get_by_role("button", name="Start over").click()
    app.idle()
    shot("newcomer-exercise-start-over")
    expect(panel.get_by_label("The lesson's code")).to_have_value(starter)
