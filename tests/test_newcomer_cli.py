"""What a newcomer's first commands met (newcomer QA, second round): a graph file imports the modules beside
it, `reopen:` names the database it was stored in, an engine graph compiled with a checkpointer runs (on a
thread of its own) and says how its interrupt can be answered, and `stepscope app` refuses a taken port, a
port out of range and an unknown sample before it announces a URL.

The commands run in this process (`debugger.cli.main`, output captured): no process is started."""

from __future__ import annotations

import socket
import textwrap

import pytest

from debugger.cli import main


def printed(capsys, args: list[str]) -> tuple[int, str]:
    code = main(args)
    out = capsys.readouterr()
    return code, out.out + out.err


def test_a_graph_file_imports_the_module_beside_it(tmp_path, capsys, monkeypatch):
    (tmp_path / "helpers_beside.py").write_text("def bump(s):\n    return {'n': s['n'] + 1}\n")
    (tmp_path / "uses_helper.py").write_text(
        textwrap.dedent(
            """
            from typing import TypedDict
            from engine import StateGraph, START, END
            from helpers_beside import bump

            class S(TypedDict):
                n: int

            g = StateGraph(S)
            g.add_node("bump", bump)
            g.add_edge(START, "bump")
            g.add_edge("bump", END)
            graph = g.compile()
            example_input = {"n": 1}
            """
        )
    )
    monkeypatch.setattr("sys.path", list(__import__("sys").path))  # the folder added is this test's only
    db = str(tmp_path / "runs.sqlite3")
    code, text = printed(capsys, ["run", str(tmp_path / "uses_helper.py"), "--db", db])
    assert code == 0, text
    assert "final state: {'n': 2}" in text
    assert f"--db {db}" in text.split("reopen: ", 1)[1].splitlines()[0]  # the command finds the run


APPROVAL = """
from typing import TypedDict
from engine import StateGraph, START, END, InMemorySaver, interrupt

class S(TypedDict):
    ok: str

def ask(s):
    return {"ok": interrupt({"question": "approve refund #42?"})}

g = StateGraph(S)
g.add_node("ask", ask)
g.add_edge(START, "ask")
g.add_edge("ask", END)
graph = g.compile(checkpointer=InMemorySaver())
example_input = {"ok": ""}
"""


def test_an_engine_graph_with_a_checkpointer_runs_and_says_how_its_question_is_answered(tmp_path, capsys):
    (tmp_path / "approve_engine.py").write_text(APPROVAL)
    code, text = printed(capsys, ["run", str(tmp_path / "approve_engine.py"), "--db", str(tmp_path / "r.sqlite3")])
    assert code == 0, text
    assert "status: interrupted" in text and "requires one or more" not in text
    assert "paused: the run asks {'question': 'approve refund #42?'}" in text
    assert "Answer it on the app's Live run page" in text


def test_the_app_refuses_a_taken_port_before_it_says_where_it_is(capsys):
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))  # bound, not listening: taken all the same, and no server in make check
        port = taken.getsockname()[1]
        code, text = printed(capsys, ["app", "--port", str(port)])
    assert code == 2
    assert f"port {port} is in use on 127.0.0.1" in text and "StepScope is at" not in text


@pytest.mark.parametrize(
    "args, said",
    [
        (["--port", "99999"], "'99999' is no port: give a number from 1 to 65535"),
        (["subgraph_tra"], "subgraph_tra: no such sample; did you mean subgraph_trap?"),
    ],
)
def test_the_app_refuses_a_port_out_of_range_and_an_unknown_sample(capsys, args, said):
    try:
        code, text = printed(capsys, ["app", *args])
    except SystemExit as exc:  # argparse's own refusal of an option
        code, text = exc.code, capsys.readouterr().err
    assert code == 2 and said in text and "StepScope is at" not in text


def test_each_send_is_named_by_its_index_and_errors_are_text_in_the_table(tmp_path, capsys):
    db, out = str(tmp_path / "r.sqlite3"), str(tmp_path / "m.json")
    code, text = printed(capsys, ["run", "map_reduce_send", "--db", db, "--out", out])
    assert code == 0 and "write_joke[0], write_joke[1], write_joke[2]" in text, text
    code, text = printed(capsys, ["show", out, "--step", "2"])
    assert "from write_joke[1]:" in text and "from write_joke:" not in text, text
    code, text = printed(capsys, ["run", "refund_concurrent_update", "--db", db])
    row = next(line for line in text.splitlines() if line.startswith("1 "))
    assert row.rstrip().endswith("InvalidUpdateError: At key 'v': Can receive only one value per step. …"), row


def test_a_recursion_limit_below_one_is_refused_before_anything_runs(tmp_path, capsys):
    db = tmp_path / "r.sqlite3"
    with pytest.raises(SystemExit) as exited:
        main(["run", "endless_loop", "--recursion-limit", "0", "--db", str(db)])
    assert exited.value.code == 2
    assert "--recursion-limit: must be at least 1" in capsys.readouterr().err
    assert not db.exists()  # no empty run stored


def test_export_refuses_a_page_name_for_json_and_names_the_fix_for_a_folder(tmp_path, capsys):
    db, trace_file = str(tmp_path / "r.sqlite3"), str(tmp_path / "m.json")
    printed(capsys, ["run", "subgraph_trap", "--db", db, "--out", trace_file])
    run_id = __import__("json").loads((tmp_path / "m.json").read_text())["run_id"]
    code, text = printed(capsys, ["export", run_id, str(tmp_path / "x.html"), "--db", db])
    assert code == 2 and "for the HTML page, give --html" in text and not (tmp_path / "x.html").exists()
    code, text = printed(capsys, ["export", run_id, str(tmp_path), "--db", db])
    assert code == 2 and "it is a folder: give a file in it" in text and "Free space" not in text, text
    code, text = printed(capsys, ["export", run_id, str(tmp_path / "no" / "x.json"), "--db", db])
    assert code == 2 and "does not exist: make it or choose another path" in text, text


def test_a_file_of_two_graphs_and_no_graph_names_them(tmp_path, capsys):
    (tmp_path / "two_graphs.py").write_text(
        textwrap.dedent(
            """
            from typing import TypedDict
            from engine import StateGraph, START, END

            class S(TypedDict):
                n: int

            def build():
                g = StateGraph(S)
                g.add_node("a", lambda s: {"n": 1})
                g.add_edge(START, "a")
                g.add_edge("a", END)
                return g.compile()

            first, second = build(), build()
            """
        )
    )
    target = str(tmp_path / "two_graphs.py")
    code, text = printed(capsys, ["run", target, "--db", str(tmp_path / "r.sqlite3")])
    assert (
        code == 2 and f"found 2 compiled graphs (first, second) and no `graph`; name one, e.g. {target}:first" in text
    )


def test_show_of_a_graph_says_how_to_record_it(tmp_path, capsys):
    code, text = printed(capsys, ["show", "map_reduce_send", "--db", str(tmp_path / "r.sqlite3")])
    assert code == 2 and "map_reduce_send is a graph, not a recorded run: `stepscope run map_reduce_send`" in text
