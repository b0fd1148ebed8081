"""The URL is the truth of what the step page shows (issue 24, 1), under AppTest: a URL that names
another run or another step is what the next run of the page shows, and a step that does not exist is
shown clamped with the URL saying so. The walks in a real browser are in tests/e2e/test_links_browser.py."""

from __future__ import annotations

import re

import pytest

from tests import stepper_shown
from tests.test_app import start, url

pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("fresh_store")]  # AppTest runs the whole app


def _heading(at) -> str:
    """The page title without the Markdown escapes `md` puts in trace text."""
    return re.sub(r"\\(.)", r"\1", at.title[0].value)


def test_a_url_naming_another_sample_and_step_is_what_the_next_run_shows():
    at = start(sample="subgraph_trap", step="1")
    at.query_params.clear()
    at.query_params.update({"sample": "fan_out_search", "step": "2"})  # as Back or Forward lands on a URL
    at.run()
    assert not at.exception
    assert _heading(at).startswith("Fan-out, fan-in")
    assert at.session_state["stepscope_cursor"].step == 2
    assert at.session_state["sample_choice"] == "fan_out_search"  # the sidebar's Sample box follows
    assert url(at) == {"sample": "fan_out_search", "step": "2"}


def test_a_url_naming_another_step_of_the_open_run_moves_there():
    at = start(sample="fan_out_search", step="0")
    at.query_params["step"] = "3"
    at.run()
    assert at.session_state["stepscope_cursor"].step == 3
    assert stepper_shown.model(at)["at_step"] == 3, "the stepper follows the URL"


def test_a_step_that_does_not_exist_is_shown_clamped_and_the_url_says_which():
    at = start(sample="fan_out_search", step="99")
    last = at.session_state["stepscope_cursor"].step
    assert last < 99 and url(at)["step"] == str(last)


def test_a_url_naming_nothing_gets_the_open_runs_back():
    at = start(sample="fan_out_search", step="2")
    at.query_params.clear()  # a page switch clears the query string
    at.run()
    assert url(at) == {"sample": "fan_out_search", "step": "2"}
