"""StepScope in notebooks (issue 40): `from debugger import show` gives the stepper widget of the page and the
HTML file. Checked here in process (the widget's traits, its model, `w.run`, bad input); the notebooks under
docs/ are executed by nbclient in tests/test_notebook_docs.py and stepped in JupyterLab in
tests/e2e/test_notebook_browser.py."""

from __future__ import annotations

import operator
import sys
from typing import Annotated, TypedDict

import pytest

pytest.importorskip("anywidget")
pytestmark = pytest.mark.slow  # every widget lays its drawing out with graphviz's dot

from debugger import show  # noqa: E402 - after the extra is known to be there
from debugger.frontend import stepper_css, stepper_js  # noqa: E402
from debugger.notebook import ShowError  # noqa: E402
from debugger.stores.sqlite import RunStore  # noqa: E402
from engine import END, START, StateGraph  # noqa: E402
from engine.trace import Recorder  # noqa: E402
from engine.tracefile import to_json  # noqa: E402


class Count(TypedDict):
    n: int
    seen: Annotated[list[int], operator.add]


def counting(last: int, *, fail_at: int | None = None):
    """A loop that counts to `last` (and raises at `fail_at`)."""

    def step(state: Count) -> dict:
        if state["n"] == fail_at:
            raise ValueError(f"no {fail_at}")
        return {"n": state["n"] + 1, "seen": [state["n"]]}

    g = StateGraph(Count)
    g.add_node("step", step)
    g.add_edge(START, "step")
    g.add_conditional_edges("step", lambda s: "step" if s["n"] < last else END)
    return g.compile()


def test_a_lesson_is_the_same_stepper_module_with_the_trap_at_its_step() -> None:
    w = show("subgraph_trap")
    assert w._esm == stepper_js() and w._css == stepper_css()  # the one front-end, not a copy
    assert w.data["count"] == 3 and [s["step"] for s in w.data["window"]["steps"]] == [0, 1, 2]
    assert w.data["aside"][0]["text"].startswith("The parent writes")
    trap = w.run.merges(2)[0]
    assert (trap.key, trap.writer, trap.after, trap.repeated) == ("log", "child", ["parent", "parent", "sub-1"], (1,))
    assert "duplicated" in trap.sentence
    assert w.run.output == {"log": ["parent", "parent", "sub-1"]}
    assert [f.title for f in w.run.findings] == ["Subgraph node child re-appended 'log'"]


def test_the_step_is_a_trait_kept_within_the_run() -> None:
    w = show("subgraph_trap", step=1)
    assert w.step == 1
    w.step = 2
    assert w.step == 2 and w.data["window"]["offset"] == 0  # inside the window: nothing sent again
    w.step = 99
    assert w.step == 2  # past the end is the last step, as the slider's end
    w.step = -50
    assert w.step == w.run.steps[0]


def test_a_graph_is_run_and_recorded_and_its_failed_step_is_shown_first() -> None:
    w = show(counting(5, fail_at=3), input={"n": 0, "seen": []})
    assert w.run.status == "error" and w.run.error["class"] == "ValueError"
    assert w.step == w.run.failed_step == 4  # step 0 writes the input; n == 3 is read in step 4
    assert "ValueError: no 3" in w.data["status_line"] and w.data["status_kind"] == "error"
    assert w.run.state(3)["seen"] == [0, 1, 2]  # the last step that committed


def test_a_long_run_arrives_in_windows_and_moving_far_sends_the_window_there() -> None:
    w = show(counting(1_000), input={"n": 0, "seen": []}, config={"recursion_limit": 1_100})
    assert w.data["count"] == len(w.run.steps) > 1_000
    first = w.data["window"]
    assert len(first["steps"]) == 200
    w.step = 900
    window = w.data["window"]
    assert window["offset"] != first["offset"]
    numbers = [s["step"] for s in window["steps"]]
    assert 900 in numbers and w.data["at_step"] == 900
    assert w.run.state(900)["n"] == 900


def test_a_recorded_graph_a_trace_a_file_and_a_stored_run_show_the_same_run(tmp_path) -> None:
    recorder = Recorder()
    counting(3).invoke({"n": 0, "seen": []}, hooks=recorder)
    trace = recorder.trace
    path = tmp_path / "t.json"
    path.write_text(to_json(trace), encoding="utf-8")
    db = tmp_path / "runs.sqlite3"
    run_id = RunStore(db).save(trace)
    shown = [show(trace), show(str(path)), show(path), show(run_id[:8], db=db)]
    assert {w.run.trace.run_id for w in shown} == {trace.run_id}
    assert all(w.run.output == {"n": 3, "seen": [0, 1, 2]} for w in shown)


@pytest.mark.reference
def test_a_langgraph_graph_and_what_record_gives_are_shown() -> None:
    from langgraph.graph import END as LG_END
    from langgraph.graph import START as LG_START
    from langgraph.graph import StateGraph as LGStateGraph

    from debugger import record

    g = LGStateGraph(Count)
    g.add_node("step", lambda s: {"n": s["n"] + 1, "seen": [s["n"]]})
    g.add_edge(LG_START, "step")
    g.add_conditional_edges("step", lambda s: "step" if s["n"] < 2 else LG_END)
    graph = g.compile()
    w = show(graph, input={"n": 0, "seen": []})
    assert w.run.output == {"n": 2, "seen": [0, 1]}
    recorded = record(graph, db=False)
    with pytest.raises(ShowError, match="has not run yet"):
        show(recorded)
    recorded.invoke({"n": 0, "seen": []})
    assert show(recorded).run.output == {"n": 2, "seen": [0, 1]}


def test_chinese_labels_and_lesson() -> None:
    w = show("subgraph_trap", lang="zh")
    assert w.data["labels"]["next"] == "下一步 ▶"
    assert w.data["aside"][0]["title"] == "课文"
    with pytest.raises(ShowError, match="lang='fr'"):
        show("subgraph_trap", lang="fr")


@pytest.mark.parametrize(
    ("what", "said"),
    [
        (42, "a value of type int is not something StepScope can show: show() takes a compiled graph"),
        (None, "None is not something StepScope can show"),
        ("  ", "an empty name is not something"),
        ("subgraph_trp", "Did you mean the lesson 'subgraph_trap'?"),
        ("missing/t.json", "cannot read missing/t.json"),
        (StateGraph(Count), "a value of type StateGraph is not something"),
    ],
)
def test_what_is_no_run_gets_one_line_naming_what_show_takes(what, said) -> None:
    with pytest.raises(ShowError) as caught:
        show(what)
    lines = caught.value._render_traceback_()  # what IPython prints in place of a traceback
    assert len(lines) == 1 and said in lines[0] and "\n" not in lines[0]


def test_a_bad_step_is_refused_in_one_line() -> None:
    with pytest.raises(ShowError, match="give a superstep number"):
        show("subgraph_trap", step="2")


@pytest.mark.parametrize("what, step", [(42, None), (None, None), ("subgraph_trap", "2")])
def test_a_value_of_the_wrong_type_is_a_type_error_too(what, step) -> None:
    with pytest.raises(TypeError, match="not something StepScope can show|give a superstep number"):
        show(what, step=step)


def test_without_the_notebook_extra_show_names_the_install_command(monkeypatch) -> None:
    monkeypatch.setitem(sys.modules, "anywidget", None)  # import anywidget now fails, as where it is missing
    monkeypatch.delitem(sys.modules, "debugger.notebook.widget", raising=False)
    with pytest.raises(ShowError, match=r"pip install 'stepscope\[notebook\]'"):
        show("subgraph_trap")
