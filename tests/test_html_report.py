"""A run as one self-contained HTML file (issue 27, item 3): `stepscope export RUN --html FILE`. The page's
markup and data are checked here; `tests/test_html_report_browser.py` opens it in Chromium."""

import json
import operator
import re
from html.parser import HTMLParser
from pathlib import Path
from typing import Annotated, TypedDict

import pytest

from debugger.cli import main
from debugger.model.html_report import html_report, json_for_script
from debugger.model.report_data import plain, report_data
from debugger.runtimes.targets import load_target
from debugger.stores.opening import open_store
from engine import END, START, StateGraph
from engine.trace import Recorder

INERT = load_target(str(Path(__file__).with_name("inert_trace.py")) + ":graph")
"""A graph whose keys, node names, values and error hold links, images and HTML (tests/inert_trace.py)."""


def recorded(graph, graph_input, config=None):
    recorder = Recorder()
    try:
        graph.invoke(graph_input, config, hooks=recorder)
    except Exception:  # the failure is in the trace
        pass
    return recorder.trace


class Elements(HTMLParser):
    """Every start tag with its attributes, and the text of each script element."""

    def __init__(self) -> None:
        super().__init__()
        self.tags: list[tuple[str, dict[str, str]]] = []
        self.scripts: list[str] = []
        self._in_script = False

    def handle_starttag(self, tag, attrs):
        self.tags.append((tag, dict(attrs)))
        self._in_script = tag == "script"
        if self._in_script:
            self.scripts.append("")

    def handle_endtag(self, tag):
        self._in_script = False

    def handle_data(self, data):
        if self._in_script:
            self.scripts[-1] += data


def parsed(page: str) -> Elements:
    elements = Elements()
    elements.feed(page)
    return elements


def page_data(page: str) -> dict:
    return json.loads(parsed(page).scripts[0])


def test_the_subgraph_traps_merge_is_in_the_report_with_its_duplicate_and_finding():
    from sample_graphs.subgraph_trap import example_input, graph

    data = report_data(recorded(graph, example_input))
    [merge] = data["steps"][-1]["merge"]
    assert (merge["writer"], merge["write"], merge["after"]) == (
        "child",
        "['parent', 'sub-1']",
        "['parent', 'parent', 'sub-1']",
    )
    assert merge["repeated"] == [1]
    assert data["findings"][0]["title"] == "Subgraph node child re-appended 'log'"
    assert data["steps"][-1]["nodes"]["node_child-3a-s1"] == "ran", "the subgraph's node is lit in its cluster"
    inside = [(n["where"], m["writer"], m["after"]) for n in data["steps"][-1]["inside"] for m in n["merge"]]
    assert inside == [
        ("child (step 2) › step 0", "__start__", "['parent']"),
        ("child (step 2) › step 1", "s1", "['parent', 'sub-1']"),
    ], "the subgraph's own merges: it starts from the parent's list"


@pytest.mark.slow  # graphviz's dot draws the page's SVG
def test_the_page_loads_nothing_and_hostile_data_is_only_text():
    page = html_report(recorded(INERT.graph, INERT.example_input))
    elements = parsed(page)
    csp = next(a["content"] for t, a in elements.tags if t == "meta" and a.get("http-equiv"))
    assert csp.startswith("default-src 'none'")
    for tag, attributes in elements.tags:
        assert tag not in ("img", "image", "link", "iframe", "object", "embed", "use", "foreignobject"), tag
        assert not any(k in ("src", "href", "xlink:href") for k in attributes), (tag, attributes)
    assert [t for t, a in elements.tags if t == "script"] == ["script", "script"], (
        "the data, then the page's own script"
    )
    data = json.loads(elements.scripts[0])
    assert "evil.invalid" in json.dumps(data), "the hostile values are there, as data"
    assert "<img" not in elements.scripts[0], "no `<` in the data's script element"
    assert "innerHTML" not in page and "insertAdjacentHTML" not in page and "document.write" not in page


@pytest.mark.slow  # graphviz's dot draws the page's SVG
def test_a_node_named_like_markup_is_text_in_the_drawing():
    builder = StateGraph(Counter)
    builder.add_node('</svg><script>alert(1)</script>"x', lambda state: {"n": 1})
    builder.add_edge(START, '</svg><script>alert(1)</script>"x')
    elements = parsed(html_report(recorded(builder.compile(), {"n": 0, "log": []})))
    assert [t for t, _ in elements.tags].count("script") == 2
    assert [t for t, _ in elements.tags].count("svg") == 0, "the drawing is data the stepper parses as SVG"
    csp = next(a["content"] for t, a in elements.tags if t == "meta" and a.get("http-equiv"))
    assert "script-src 'sha256-" in csp and "unsafe-inline'; img" not in csp.split("script-src")[1]


def test_the_data_cannot_close_its_script_element():
    text = json_for_script({"v": "</script><script>alert(1)</script> & \u2028"})
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert json.loads(text) == {"v": "</script><script>alert(1)</script> & \u2028"}


def test_summary_markdown_becomes_its_text():
    assert plain(r"In step 1, **p1** ran: `a_b*c` \*x\* \[y\]") == "In step 1, p1 ran: a_b*c *x* [y]"
    assert plain("x\\*\\*y") == "x**y", "escaped stars are data"


class Counter(TypedDict):
    n: int
    log: Annotated[list, operator.add]


@pytest.mark.slow  # graphviz's dot draws the page's SVG
def test_a_1000_step_run_is_one_drawing_and_under_5_mb():
    builder = StateGraph(Counter)
    builder.add_node("tick", lambda state: {"n": state["n"] + 1, "log": [f"tick {state['n']}"]})
    builder.add_edge(START, "tick")
    builder.add_conditional_edges("tick", lambda state: END if state["n"] >= 1000 else "tick")
    trace = recorded(builder.compile(), {"n": 0, "log": []}, {"recursion_limit": 2000})
    page = html_report(trace)
    data = page_data(page)
    assert len(data["window"]["steps"]) == data["count"] == 1001, "the file holds every step"
    assert page.count("\\u003csvg") == 1, "one drawing for the run"
    assert len(page.encode("utf-8")) < 5_000_000


@pytest.mark.slow  # graphviz's dot draws the page's SVG
def test_export_html_writes_the_file_from_a_stored_run(tmp_path, capsys):
    from sample_graphs.subgraph_trap import example_input, graph

    db = str(tmp_path / "runs.sqlite3")
    run_id = open_store(db).save(recorded(graph, example_input))
    assert main(["export", run_id[:12], "--html", str(tmp_path / "report.html"), "--db", db]) == 0
    assert re.match(r".*report\.html \(\d+ KB\): open it in any browser", capsys.readouterr().out)
    assert "Subgraph node child re-appended" in (tmp_path / "report.html").read_text(encoding="utf-8")
    assert main(["export", run_id[:12], "--db", db]) == 2
    assert "say where to write the run" in capsys.readouterr().err
