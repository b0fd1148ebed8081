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


def test_an_appending_reducers_first_call_on_an_empty_list_is_an_append():
    first, second = sentences("lambda current, new: current + new", "['x']", "['y']")
    assert first == "<lambda> appended ['x'] to the empty []: 'value' is now ['x']"
    assert second == "<lambda> appended ['y'] to ['x']"


@pytest.mark.parametrize("custom", ["lambda current, new: new", "lambda current, new: current + new"])
def test_one_call_on_an_empty_list_says_append_and_replace_look_the_same(custom):
    (only,) = sentences(custom, "['x']")
    assert "in place of" not in only and "appended" not in only
    assert only == (
        "<lambda> turned the empty [] into its write, ['x']: on an empty start, appending and replacing give the same"
    )


def test_a_keep_last_reducer_is_not_called_an_append_on_an_empty_list():
    first, second = sentences("lambda current, new: new", "['x']", "['y']")
    assert "appended" not in first
    assert second.startswith("<lambda> returned the write itself, ['y']")
