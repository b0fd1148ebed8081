"""Nothing from a run steers the terminal or starts a line of its own (issue 38, item 4): every command
prints through `debugger.commands.terminal`, so a node name, run id, target, value or error holding a
newline, ESC sequence, carriage return, bidi override, C1 control or lone surrogate is shown as its
escape, and a trace holding a lone surrogate imports, shows and exports back the same value.

The commands run in this process (`debugger.cli.main`, output captured): no process is started."""

from __future__ import annotations

import json
import operator
import re
from pathlib import Path
from typing import Annotated, TypedDict

import pytest

from debugger.cli import main
from engine import END, START, StateGraph

HOSTILE = "\n734572255af4  FORGED  row\x1b[31m\x1b]0;title\x07\r\u202e\u2066\x85\x9b"
"""A newline and a forged row, colour, a window title, carriage return, bidi overrides, C1 controls."""
UNSAFE = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
HERE = Path(__file__)


class State(TypedDict):
    log: Annotated[list, operator.add]
    plain: str


def _writes(state):
    return {"log": ["v" + HOSTILE], "plain": HOSTILE}


def _fails(state):
    raise ValueError("bad" + HOSTILE)


def build():
    builder = StateGraph(State)
    builder.add_node("writer" + HOSTILE, _writes)
    builder.add_node("fails" + HOSTILE, _fails)
    builder.add_edge(START, "writer" + HOSTILE)
    builder.add_edge("writer" + HOSTILE, "fails" + HOSTILE)
    builder.add_edge("fails" + HOSTILE, END)
    return builder.compile()


def build_parallel():
    """Two hostile nodes write the plain key in one superstep: `diagnose` has a finding naming both."""
    builder = StateGraph(State)
    for name in ("a" + HOSTILE, "b" + HOSTILE):
        builder.add_node(name, _writes)
        builder.add_edge(START, name)
        builder.add_edge(name, END)
    return builder.compile()


graph = build()
parallel = build_parallel()
example_input = {"log": [], "plain": ""}


def printed(capsys, args: list[str]) -> tuple[int, str]:
    code = main(args)
    out = capsys.readouterr()
    return code, out.out + out.err


def assert_inert(text: str) -> None:
    """No raw control character, and no line that the data began."""
    assert not UNSAFE.search(text), [line for line in text.splitlines() if UNSAFE.search(line)]
    assert not [line for line in text.splitlines() if line.startswith(("734572255af4", "FORGED"))], text


@pytest.fixture
def store(tmp_path) -> str:
    return str(tmp_path / "runs.sqlite3")


def test_every_command_shows_hostile_run_text_as_escapes(store, tmp_path, capsys):
    trace_file = str(tmp_path / "run.json")
    outputs = [printed(capsys, ["run", f"{HERE}:graph", "--db", store, "--out", trace_file])]
    assert outputs[0][0] == 1, "the graph failed"
    outputs.append(printed(capsys, ["run", f"{HERE}:graph", "--db", store, "--follow"]))
    data = json.loads(Path(trace_file).read_text())
    data["run_id"], data["target"], data["graph"]["name"] = "forged" + HOSTILE, "t" + HOSTILE, "g" + HOSTILE
    forged = tmp_path / "forged.json"
    forged.write_text(json.dumps(data))
    outputs.append(printed(capsys, ["import", str(forged), "--db", store]))
    assert outputs[-1][0] == 0
    run_id = data["run_id"]
    for args in (
        ["runs"],
        ["show", run_id],
        ["show", trace_file],
        ["diagnose", run_id],
        ["compare", run_id, trace_file],
        ["export", run_id, str(tmp_path / "again.json")],
        ["delete", run_id],
    ):
        outputs.append(printed(capsys, [*args, "--db", store]))
    parallel_file = str(tmp_path / "parallel.json")
    outputs.append(printed(capsys, ["run", f"{HERE}:parallel", "--db", store, "--out", parallel_file]))
    outputs.append(printed(capsys, ["diagnose", parallel_file, "--db", store]))
    assert "[concurrent_update] a\\x0a734572255af4" in outputs[-1][1]
    outputs.append(printed(capsys, ["diagnose", f"{HERE}:parallel", "--db", store]))
    outputs.append(printed(capsys, ["compare", parallel_file, parallel_file, "--all", "--db", store]))
    outputs.append(printed(capsys, ["compare", parallel_file, trace_file, "--db", store]))
    for code, text in outputs:
        assert_inert(text)
    everything = "\n".join(text for _, text in outputs)
    assert "forged\\x0a734572255af4  FORGED  row\\x1b[31m\\x1b]0;title\\x07\\x0d\\u202e\\u2066\\x85\\x9b" in everything
    assert "writer\\x0a734572255af4" in everything and "bad 734572255af4  FORGED" in everything  # error lines joined


def test_a_lone_surrogate_imports_shows_and_exports_back_the_same(store, tmp_path, capsys):
    trace_file = str(tmp_path / "run.json")
    printed(capsys, ["run", f"{HERE}:graph", "--db", store, "--out", trace_file])
    data = json.loads(Path(trace_file).read_text())
    data["run_id"] = "surrogates-1"
    data["target"], data["graph"]["name"], data["input"] = "t\ud800", "g\udfff", {"log": ["half \ud83d"], "plain": ""}
    data["error"]["message"] = "bad \udc80"
    source = tmp_path / "surrogates.json"
    source.write_text(json.dumps(data))  # ASCII: the surrogates are JSON escapes
    code, text = printed(capsys, ["import", str(source), "--db", store])
    assert code == 0, text
    for args in (["runs"], ["show", "surrogates-1"], ["diagnose", "surrogates-1"]):
        code, text = printed(capsys, [*args, "--db", store])
        assert "Traceback" not in text and code in (0, 1), text
        assert_inert(text)
    assert "g\\udfff" in printed(capsys, ["runs", "--db", store])[1]
    again = tmp_path / "again.json"
    assert printed(capsys, ["export", "surrogates-1", str(again), "--db", store])[0] == 0
    back = json.loads(again.read_text())
    assert (back["target"], back["graph"]["name"], back["input"], back["error"]["message"]) == (
        "t\ud800",
        "g\udfff",
        {"log": ["half \ud83d"], "plain": ""},
        "bad \udc80",
    )
