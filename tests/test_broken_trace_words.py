"""A cut or broken trace file is told in one whole sentence (newcomer QA): json's "Unterminated string
starting at" gets the place it means (it read "... starting at."), by both readers (the whole-file one
and the streaming one), and the notebook names the file once."""

from __future__ import annotations

import pytest

from debugger.notebook import ShowError, show
from debugger.stores.opening import load_trace
from debugger.stores.protocol import StoreError
from engine.tracefile import TraceFileError, from_json

CUT_IN_A_STRING = '{"schema_version": 3, "steps": [{"x": "abc'


def test_a_file_cut_inside_a_string_says_where_the_string_starts():
    with pytest.raises(TraceFileError) as caught:
        from_json(CUT_IN_A_STRING, source="cut.json")
    assert str(caught.value).startswith("cut.json is truncated: Unterminated string starting at line 1, column 39.")


def test_the_streaming_reader_says_the_byte_where_the_string_starts(tmp_path):
    path = tmp_path / "cut.json"
    path.write_text(CUT_IN_A_STRING)
    with pytest.raises((TraceFileError, StoreError)) as caught:
        load_trace(str(path), str(tmp_path / "runs.sqlite3"))
    assert "cut.json is truncated: Unterminated string starting at byte 38." in str(caught.value)


def test_the_notebook_names_a_broken_file_once(tmp_path):
    path = tmp_path / "cut.json"
    path.write_text(CUT_IN_A_STRING)
    with pytest.raises(ShowError) as caught:
        show(str(path))
    assert str(caught.value).count("cut.json") == 1, str(caught.value)
