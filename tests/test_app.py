"""The Streamlit app, page by page, with `streamlit.testing.v1.AppTest` (no browser).

AppTest runs `debugger/app.py` in this process and lets a test click buttons, set widgets and read
the elements, the session state and the URL (`at.query_params`). The graph is laid out on the server,
so its SVG is in the page (`drawing(at)`): `debugger.model.drawing` gives every node `id="node_<name>"`, a
class `stepscope-node <state>` and a marker (▶ ran, ▷ next, ✓ visited, ✖ caused a failure). What only
a browser shows (layout, colours, key presses) is in tests/e2e.

Every test gets its own run store (`STEPSCOPE_DB` in a temporary folder) and cleared st caches.
"""

from __future__ import annotations

import html
import json
import re
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

from debugger.model.trace_view import Scope
from debugger.sources import runs as sources
from debugger.stores.sqlite import RunStore
from debugger.views import page_url, session
from engine.tracefile import to_json
from tests import stepper_shown
from tests.approval_app import APPROVAL, APPROVAL_NO_SAVER

ROOT = Path(__file__).resolve().parents[1]
APP = str(ROOT / "debugger" / "app.py")


pytestmark = pytest.mark.usefixtures("fresh_store")  # tests/conftest.py


def start(**params: str) -> AppTest:
    """The app after its first run, opened with these URL parameters."""
    at = AppTest.from_file(APP, default_timeout=30)
    at.query_params.update(params)
    at.run()
    assert not at.exception, at.exception
    return at


def click(at: AppTest, key: str) -> AppTest:
    """Clicks the page's button `key`; the stepper's own (first, prev, next, last) as its script reports them."""
    if key in stepper_shown.MOVES:
        stepper_shown.press(at, key)
    else:
        at.button(key=key).click().run()
    assert not at.exception, at.exception
    return at


def url(at: AppTest) -> dict[str, str]:
    return {key: at.query_params[key] for key in at.query_params}


def drawing(at: AppTest) -> str:
    """The step drawing's SVG (laid out by Graphviz on the server, once for the run), entities decoded."""
    return html.unescape(stepper_shown.model(at)["svg"])


def node_state(at: AppTest, node: str) -> str:
    """The highlight state the stepper gives the node at the step shown: ran, next, visited, failed or idle."""
    return stepper_shown.node_states(at).get(node, "idle")


def ran_nodes(at: AppTest) -> list[str]:
    return [node for node, state in stepper_shown.node_states(at).items() if state == "ran"]


def tab(at: AppTest, name: str):
    """Opens the step page's tab `name` (only the open tab is rendered) and returns it. AppTest cannot click a
    tab: the URL is given the tab's id, as the tab's click writes it, and the page follows the URL."""
    labels = [t.label for t in at.tabs]
    label = next(label for label in labels if label.split()[0] == name)
    shown = at.session_state[session.STEP_TABS] if session.STEP_TABS in at.session_state else None
    if shown != label:
        at.query_params["tab"] = page_url.TAB_IDS[labels.index(label)]  # as its click writes the URL
        at.run()
    return next(t for t in at.tabs if t.label.split()[0] == name)


def plain(text: str) -> str:
    """Markdown text without the backslash escapes the views put before `_`, `[`, `*`..."""
    return re.sub(r"\\(.)", r"\1", text)


def texts(block) -> list[str]:
    return [plain(m.value) for m in block.markdown]


def goto_page(at: AppTest, url_path: str) -> AppTest:
    """Switches to an `st.navigation` page by its url_path. `AppTest.switch_page` only finds pages
    backed by a file, and ours are functions, so this picks the page hash AppTest recorded."""
    at._page_hash = next(h for h, info in at._registered_pages.items() if info.get("url_pathname") == url_path)
    at.run()
    assert not at.exception, at.exception
    return at


def enter_key(at: AppTest) -> str:
    """The key of the Subgraphs tab's first "Step into" button (the tab is opened first)."""
    return next(b.key for b in tab(at, "Subgraphs").button if b.key and b.key.startswith("enter-"))


# ---- step through: the default sample and the stepper ----------------------------------------------


def test_opens_the_default_sample_at_its_first_step(fresh_store):
    at = start()
    assert url(at) == {"sample": "subgraph_trap", "step": "0"}
    assert plain(at.title[0].value) == "A subgraph re-appends its parent's list"
    assert stepper_shown.summary(at)[:2] == [("heading", "Superstep 0"), ("text", "In step 0, __start__ ran.")]
    assert ran_nodes(at) == ["__start__"]
    assert node_state(at, "p1") == "next"
    assert not stepper_shown.can(at, "prev") and not stepper_shown.can(at, "first")
    assert stepper_shown.can(at, "next")
    sidebar = texts(at.sidebar)
    assert any("`done` · 3 steps" in text for text in sidebar)
    assert RunStore(str(fresh_store)).list() == [], "a sample opened by its link is not stored: the link reproduces it"


def test_next_prev_first_last_move_the_step_and_the_url():
    at = start()
    click(at, "next")
    assert url(at)["step"] == "1" and ran_nodes(at) == ["p1"]
    click(at, "next")
    assert url(at)["step"] == "2" and ran_nodes(at) == ["child-3a-s1"]
    assert not stepper_shown.can(at, "next") and not stepper_shown.can(at, "last")
    click(at, "prev")
    assert url(at)["step"] == "1"
    click(at, "last")
    assert url(at)["step"] == "2"
    click(at, "first")
    assert url(at) == {"sample": "subgraph_trap", "step": "0"}
    assert stepper_shown.model(at)["at_step"] == 0


def test_the_slider_moves_the_step():
    at = start()
    stepper_shown.move(at, 2)
    assert url(at)["step"] == "2"
    assert ran_nodes(at) == ["child-3a-s1"]


def test_the_graph_marks_ran_next_and_visited_nodes_and_taken_edges():
    at = start(sample="subgraph_trap", step="2")
    svg = drawing(at)
    # the subgraph node is drawn as a cluster of its own nodes: its inner node `s1` is marked (the browser
    # colours and marks a state: tests/e2e/test_html_report_browser.py, test_browser.py)
    assert node_state(at, "child-3a-s1") == "ran"
    assert node_state(at, "p1") == "visited"
    assert node_state(at, "__start__") == "visited"
    assert node_state(at, "__end__") == "idle"  # nothing "runs next" after the run's last step
    assert stepper_shown.shown_step(at)["edges"] == ["edge_p1-to-child-3a-s1"]
    assert '<g id="cluster_child" class="cluster">' in svg
    assert '<g id="edge___start__-to-p1" class="edge stepscope-edge idle">' in svg, "one drawing, idle as laid out"


def test_step_summary_names_the_task_its_trigger_and_the_duplicate():
    at = start(sample="subgraph_trap", step="2")
    summary = stepper_shown.summary(at)
    # the drawing marks the subgraph's own node s1 inside the child box: the summary names both
    assert ("text", "In step 2, child ran (a subgraph: inside child, s1 ran).") in summary
    assert ("bullet", "child runs because p1 finished (edge p1 → child)") in summary
    assert ("text", "Next: nothing. The run finished (done).") in summary
    assert any(
        kind == "warning" and text.startswith("log now holds items twice: operator.add appended ['parent', 'sub-1']")
        for kind, text in summary
    )


# ---- the merge panel --------------------------------------------------------------------------------


def test_merge_panel_shows_the_call_and_warns_about_the_duplicated_item():
    at = start(sample="subgraph_trap", step="2")
    merge = tab(at, "Merge")
    lines = texts(merge)
    assert lines[0].startswith("Showing **1 of 1** reducer call,")
    assert [h.value for h in merge.subheader][:1] == ["`log`  ·  reducer `operator.add`"]  # a heading with no anchor
    assert "Before: `['parent']`" in lines
    call = next(line for line in lines if "**#0**" in line)
    assert call.startswith("✅ **#0** from **child** wrote `['parent', 'sub-1']` → `['parent', 'parent', 'sub-1']`")
    assert "(1 of them already there: duplicated)" in call
    repeat, mark = merge.warning
    assert plain(repeat.value) == (
        "Item 2 'parent' (written by p1 in step 1) of the result repeats what was already "
        "there: this write carried the old value again."
    )
    assert plain(mark.value) == "**Subgraph node child re-appended 'log'** (see Findings)", (
        "diagnose's finding marks the call"
    )


def test_merge_calls_step_one_reducer_call_at_a_time():
    at = start(sample="fan_out_search", step="2")
    assert texts(tab(at, "Merge"))[0].startswith("Showing **2 of 2**")
    assert at.button(key="call_next").disabled
    click(at, "call_prev")
    assert url(at)["call"] == "1"
    lines = texts(tab(at, "Merge"))
    assert lines[0].startswith("Showing **1 of 2**")
    assert any(line.startswith("⏳ **#1** from **search_web**") and "*(not applied yet)*" in line for line in lines)
    state = tab(at, "State")
    assert state.caption[0].value.endswith(
        "inside the merge, after 1 reducer call, compared with the state before the step."
    )
    tab(at, "Merge")  # only the open tab is drawn: its buttons are back once it is open again
    click(at, "call_prev")
    assert url(at)["call"] == "0" and at.button(key="call_prev").disabled
    click(at, "call_next")
    assert url(at)["call"] == "1"
    click(at, "call_all")
    assert "call" not in url(at)
    click(at, "next")
    assert url(at)["step"] == "3" and "call" not in url(at), "a step change shows the whole merge again"


def check(at: AppTest, guess: str) -> AppTest:
    at.text_input[0].input(guess)
    next(b for b in at.button if b.label == "Check").click().run()
    assert not at.exception, at.exception
    return at


def test_learn_mode_asks_for_a_prediction_and_checks_it():
    at = start(sample="subgraph_trap", step="2")
    at.toggle(key="learn_mode").set_value(True).run()
    assert url(at)["call"] == "0", "turning learn mode on hides the step's results"
    [question] = at.text_input
    assert question.label == "What will `log` be after call #0?"
    assert not any("'parent', 'parent', 'sub-1'" in line for line in texts(tab(at, "Merge")))
    assert not at.warning, "no duplicate warning gives the answer away"

    check(at, "[oops")
    assert "Write the value as JSON or a Python literal" in tab(at, "Merge").error[-1].value
    assert url(at)["call"] == "0", "a guess that cannot be read reveals nothing"

    check(at, "['parent', 'sub-1']")
    assert "call" not in url(at), "the guessed call is revealed"
    verdict = tab(at, "Merge").warning[0].value
    assert plain(verdict).startswith("Not quite: 'log' is ['parent', 'parent', 'sub-1'] after call #0.")


def test_learn_mode_hides_the_results_again_after_next():
    at = start(sample="fan_out_search", step="1")
    at.toggle(key="learn_mode").set_value(True).run()
    click(at, "next")
    assert url(at)["call"] == "0", "the next step opens with its results hidden"
    assert at.text_input[0].label.startswith("What will `")
    check(at, "['db: refund policy']")
    assert url(at)["call"] == "1"


def test_learn_mode_says_when_the_guess_is_the_value_after_the_whole_merge():
    at = start(sample="order_dependent_reducer", step="1")
    at.toggle(key="learn_mode").set_value(True).run()
    check(at, "'x'")
    check(at, "'x'")
    [question] = at.text_input
    assert question.label == "What will `trail` be after call #2?"
    check(at, "'archive;live;'")
    verdict = next(w for w in tab(at, "Merge").warning if plain(w.value).startswith("Not quite: 'trail'"))
    assert plain(verdict.value).startswith("Not quite: 'trail' is 'archive;' after call #2.")
    assert plain(verdict.value).endswith("You gave the value after the whole merge, not after this call.")


# ---- the other tabs ---------------------------------------------------------------------------------


def test_errors_tab_on_a_concurrent_update_shows_both_writers_and_the_fixes():
    at = start(sample="refund_concurrent_update", step="1")
    assert "Errors 🛑" in [t.label for t in at.tabs]
    assert sorted(ran_nodes(at)) == [], "a refused step shows its nodes as failed, not ran"
    assert node_state(at, "lookup_order") == "failed" and node_state(at, "lookup_user_history") == "failed"
    errors = tab(at, "Errors")
    assert (
        plain(errors.error[0].value)
        == "**lookup_order and lookup_user_history wrote the plain key 'v' in one superstep**"
    )
    lines = texts(errors)
    assert "**Who wrote `v` in step 1:**" in lines
    assert "**lookup_order**" in lines and "**lookup_user_history**" in lines
    assert [c.value for c in errors.code][:2] == ["1", "2"]
    assert len([line for line in lines if line.startswith("**Fix:**")]) == 1  # the first fix, then the others
    assert len([line for line in lines if line.startswith("**Or:**")]) == 2
    assert any(plain(line).startswith("**Caused by:** **lookup_order**, **lookup_user_history**") for line in lines)
    assert "INVALID_CONCURRENT_GRAPH_UPDATE" in errors.code[-1].value
    assert any(
        kind == "error" and text.startswith("lookup_order and lookup_user_history wrote") and "Errors tab" in text
        for kind, text in stepper_shown.summary(at)
    )
    click(at, "first")
    assert tab(at, "Errors").info[0].value == "This step is fine; the run failed at step 1."


def test_what_if_refolds_the_writes_in_another_order():
    at = start(sample="order_dependent_reducer", step="1")
    what_if = tab(at, "What-if")
    assert at.selectbox(key="whatif_channel").options == ["answer", "trail"]
    assert what_if.success[0].value == "Same result: `'$100 (archive, 2019-03-01)'`."
    assert "**Order sensitivity:** 1 of 1 other orders change the result." in texts(what_if)
    at.selectbox(key="whatif_order").select_index(1).run()
    assert tab(at, "What-if").warning[0].value == (
        "Different result: `'$120 (live, 2025-06-01)'` instead of `'$100 (archive, 2019-03-01)'`."
    )
    at.selectbox(key="whatif_channel").select("trail").run()
    at.selectbox(key="whatif_order").select_index(0).run()
    at.selectbox(key="whatif_skip").select_index(1).run()
    assert tab(at, "What-if").warning[0].value == "Different result: `'live;'` instead of `'archive;live;'`."


def test_state_versions_and_tasks_tabs():
    at = start(sample="subgraph_trap", step="2")
    frame = tab(at, "State").dataframe[0].value
    assert frame.to_dict("records") == [
        {
            "key": "log",
            "change": "✎ changed",
            "before": "['parent']",
            "after": "['parent', 'parent', 'sub-1']",
            "new items": "2, 3",  # numbered from 1
        }
    ]
    versions = tab(at, "Versions").dataframe[0].value
    assert versions.iloc[0].to_dict() == {
        "channel": "log",
        "what": "state key",
        "version": 4,
        "changed": "● written here",
    }
    assert tab(at, "Tasks").expander[0].label.startswith("child  ·  ")
    assert tab(at, "Subgraphs").button[0].label == "⤵ Step into child"


def test_timeline_marks_the_current_step():
    at = start(sample="map_reduce_send", step="2")
    frame = timeline(at)
    assert list(frame.columns) == ["0", "1", "▶ 2", "3"]
    assert frame.loc["write_joke", "▶ 2"] == "●×3"
    assert (
        timeline_label(at)
        == "Timeline: nodes × supersteps (● ran, ●×n ran n times, ✖ caused a failure, ○ ran in a failed step, "
        "⏹ never finished, ⏸ interrupted)"
    )


def timeline(at: AppTest):
    """The timeline's table, unfolding it first (a folded timeline builds no table)."""
    if session.TIMELINE_OPEN not in at.session_state or not at.session_state[session.TIMELINE_OPEN]:
        at.session_state[session.TIMELINE_OPEN] = True
        at.run()
    return next(e for e in at.expander if e.label.startswith("Timeline")).dataframe[0].value


def timeline_label(at: AppTest) -> str:
    return next(e.label for e in at.expander if e.label.startswith("Timeline"))


LOOP_FILE = """
import operator
from typing import Annotated, TypedDict
from engine import END, START, StateGraph

class S(TypedDict):
    n: Annotated[int, operator.add]

g = StateGraph(S)
g.add_node("tick", lambda s: {"n": 1})
g.add_edge(START, "tick")
g.add_conditional_edges("tick", lambda s: "tick" if s["n"] < 60 else END, ["tick", END])
graph = g.compile()
example_input = {"n": 0}
example_config = {"recursion_limit": 100}
"""


def test_timeline_of_a_long_run_shows_a_window_around_the_current_step(tmp_path):
    path = tmp_path / "loop.py"
    path.write_text(LOOP_FILE)
    at = open_file(start(), str(path))
    assert timeline_label(at).endswith("; supersteps 0–40 of 61")
    assert list(timeline(at).columns) == ["▶ 0", *map(str, range(1, 41))]
    stepper_shown.move(at, 30)
    assert timeline_label(at).endswith("; supersteps 10–50 of 61")
    assert timeline(at).columns[20] == "▶ 30"
    click(at, "last")
    assert timeline_label(at).endswith("; supersteps 20–60 of 61")
    assert timeline(at).columns[-1] == "▶ 60"


# ---- subgraphs --------------------------------------------------------------------------------------


def test_step_into_the_subgraph_and_back_out():
    at = start(sample="subgraph_trap", step="2")
    key = enter_key(at)
    task_id = key[len("enter-") : -len("-0")]
    click(at, key)
    assert url(at) == {"sample": "subgraph_trap", "step": "0", "scope": f"2.{task_id}.0", "tab": "subgraphs"}
    assert plain(at.main.markdown[0].value).endswith("› **child (step 2)**")
    assert stepper_shown.model(at)["at_step"] == 0
    assert "node_s1" in drawing(at) and "node_p1" not in drawing(at)
    click(at, "next")
    assert url(at)["step"] == "1" and ran_nodes(at) == ["s1"]
    assert "Before: `['parent']`" in texts(tab(at, "Merge")), "the subgraph starts from the parent's state"
    click(at, "leave_scope")
    assert url(at) == {"sample": "subgraph_trap", "step": "2"}
    assert ran_nodes(at) == ["child-3a-s1"]
    assert stepper_shown.model(at)["at_step"] == 2
    assert not [b for b in at.button if b.key == "leave_scope"]


# ---- the URL ----------------------------------------------------------------------------------------


def test_a_link_opens_the_sample_step_and_call():
    at = start(sample="fan_out_search", step="2", call="1")
    assert url(at) == {"sample": "fan_out_search", "step": "2", "call": "1"}
    assert sorted(ran_nodes(at)) == ["search_db", "search_web"]
    assert texts(tab(at, "Merge"))[0].startswith("Showing **1 of 2**")


def test_a_link_opens_a_subgraph_scope():
    first = start(sample="subgraph_trap", step="2")
    task_id = enter_key(first)[len("enter-") : -len("-0")]
    at = start(sample="subgraph_trap", step="1", scope=f"2.{task_id}.0")
    assert url(at) == {"sample": "subgraph_trap", "step": "1", "scope": f"2.{task_id}.0"}
    assert ran_nodes(at) == ["s1"]


def test_a_link_to_a_stored_run_opens_it(fresh_store):
    opened = sources.open_sample("fan_out_search", db=str(fresh_store))
    at = start(run=opened.trace.run_id, step="3")
    assert url(at) == {"run": opened.trace.run_id, "step": "3"}
    assert ran_nodes(at) == ["merge"]
    assert at.session_state["stepscope_run"].source == "stored"
    at = start(run=opened.trace.run_id, step="2")
    assert at.session_state["stepscope_run"].graph is not None, "a stored run of a sample gets its code back"
    assert "Re-folded with the graph's reducer" in plain(tab(at, "What-if").caption[-1].value)


def test_the_stored_run_picker_names_the_run_a_link_opened(fresh_store):
    older = sources.open_sample("fan_out_search", db=str(fresh_store)).trace.run_id
    newer = sources.open_sample("subgraph_trap", db=str(fresh_store)).trace.run_id
    at = start(run=older, step="1")
    at.radio(key="open_kind").set_value("Stored run").run()
    choice = at.selectbox(key="stored_choice")
    assert choice.options[0] != choice.value and choice.value == older  # the newest is listed first
    choice.select(newer).run()  # the user's own choice stays until another run is opened
    assert at.selectbox(key="stored_choice").value == newer and url(at)["run"] == older
    click(at, "open_stored")
    assert url(at)["run"] == newer and at.selectbox(key="stored_choice").value == newer


def test_what_if_works_on_a_trace_without_its_code():
    from debugger.model import what_if as whatif
    from debugger.model.trace_view import Scope, TraceView

    view = TraceView(sources.open_sample("fan_out_search", store=False).trace).view(Scope())  # no live graph
    offer = whatif.offer(view, 2, "results")
    assert offer.how == "operator.add, by name"
    assert whatif.sensitivity(view, 2, offer) == (1, 1), "the other order lists the two results the other way round"


@pytest.mark.parametrize(
    "params, message",
    [
        ({"sample": "no_such_sample", "step": "2"}, "unknown sample 'no_such_sample'."),
        ({"run": "deadbeef"}, "no stored run 'deadbeef'"),
    ],
    ids=["unknown-sample", "unknown-run"],
)
def test_a_bad_link_shows_the_error_and_falls_back_to_the_default_sample(params, message):
    at = start(**params)
    assert [plain(e.value) for e in at.sidebar.error][0].startswith(message)
    assert url(at) == {"sample": "subgraph_trap", "step": "0"}
    click(at, "next")
    assert url(at)["step"] == "1", "the app keeps working"


@pytest.mark.parametrize(
    "params, expected",
    [
        ({"sample": "subgraph_trap", "step": "99"}, {"sample": "subgraph_trap", "step": "2"}),
        ({"sample": "subgraph_trap", "step": "abc"}, {"sample": "subgraph_trap", "step": "0"}),
        ({"sample": "subgraph_trap", "step": "1", "scope": "garbage"}, {"sample": "subgraph_trap", "step": "1"}),
        ({"sample": "subgraph_trap", "step": "1", "scope": "2.nosuchtask.0"}, {"sample": "subgraph_trap", "step": "0"}),
        ({"sample": "subgraph_trap", "step": "2", "call": "7"}, {"sample": "subgraph_trap", "step": "2", "call": "1"}),
    ],
    ids=["step-too-high", "step-not-a-number", "scope-garbage", "scope-unknown-task", "call-too-high"],
)
def test_a_link_with_a_bad_step_scope_or_call_is_clamped(params, expected):
    at = start(**params)
    assert url(at) == expected
    assert not at.sidebar.error


# ---- the sidebar ------------------------------------------------------------------------------------


GRAPH_FILE = """
import operator
from typing import Annotated, TypedDict
from engine import END, START, StateGraph

title = "Two steps"

class S(TypedDict):
    log: Annotated[list[str], operator.add]

g = StateGraph(S)
g.add_node("alpha", lambda s: {"log": ["a"]})
g.add_node("beta", lambda s: {"log": ["b"]})
g.add_edge(START, "alpha")
g.add_edge("alpha", "beta")
g.add_edge("beta", END)
graph = g.compile()
example_input = {"log": []}
"""


def open_file(at: AppTest, target: str, graph_input: str = "") -> AppTest:
    if at.radio(key="open_kind").value != "Graph file":
        at.radio(key="open_kind").set_value("Graph file").run()
    at.text_input(key="file_target").input(target)
    at.text_area(key="file_input").input(graph_input)
    return click(at, "open_file")


def test_sidebar_opens_a_graph_file_with_its_example_input_or_json(tmp_path):
    path = tmp_path / "two_steps.py"
    path.write_text(GRAPH_FILE)
    at = open_file(start(), str(path))
    run = at.session_state["stepscope_run"]
    assert (run.source, run.label, run.title) == ("file", str(path), "Two steps")
    assert url(at) == {"run": run.trace.run_id, "step": "0"}
    assert "node_alpha" in drawing(at) and "node_beta" in drawing(at)
    click(at, "last")
    assert ran_nodes(at) == ["beta"]

    open_file(at, str(path), '{"log": ["seed"]}')
    assert at.session_state["stepscope_run"].graph_input == {"log": ["seed"]}
    click(at, "last")
    assert tab(at, "State").dataframe[0].value.loc[0, "after"] == "['seed', 'a', 'b']"

    open_file(at, str(path), '{"log": [')
    assert at.sidebar.error[0].value.startswith("The input is not valid JSON")


CONTEXT_APP = """
from dataclasses import dataclass
from typing import TypedDict
from langgraph.graph import START, StateGraph
from langgraph.runtime import Runtime

@dataclass
class Ctx:
    user: str = "nobody"

class S(TypedDict):
    seen: list

def look(state: S, runtime: Runtime[Ctx]):
    return {"seen": state["seen"] + [runtime.context.user]}

g = StateGraph(S, context_schema=Ctx)
g.add_node("look", look)
g.add_edge(START, "look")
g.add_conditional_edges("look", lambda s: "look" if len(s["seen"]) < 5 else "__end__")
graph = g.compile()
example_input = {"seen": []}
"""


def open_file_with(at: AppTest, target: str, **options: str) -> AppTest:
    """The Graph file form filled with run options by name (`RUN_OPTIONS`: recursion_limit=, context=), run."""
    at.radio(key="open_kind").set_value("Graph file").run()
    for name, text in options.items():
        at.text_input(key=session.file_option(name)).input(text)
    return open_file(at, target)


def test_the_graph_file_form_runs_with_the_options_stepscope_run_takes(tmp_path):
    """Issue 41, item 1: the form's recursion limit and context reach the run as `--recursion-limit` and
    `--context` do, and a value the command line would refuse is one line naming the fix."""
    pytest.importorskip("langgraph")
    path = tmp_path / "context_app.py"
    path.write_text(CONTEXT_APP)
    at = open_file_with(start(), str(path), recursion_limit="3", context='{"user": "ada"}')
    assert not at.sidebar.error, [e.value for e in at.sidebar.error]
    trace = at.session_state["stepscope_run"].trace
    assert (trace.status, trace.recursion_limit) == ("recursion_limit", 3)
    written = json.dumps([call.write for step in trace.steps for call in step.reducer_calls if call.channel == "seen"])
    assert "ada" in written and "nobody" not in written, written
    for name, text, fix in [
        ("recursion_limit", "abc", "The recursion limit must be a whole number, e.g. 50, not 'abc'."),
        ("context", "{oops", "The context is not valid JSON (line 1, column 2)"),
        ("timeout", "0", "The timeout must be a positive number of seconds, not 0."),
    ]:
        at = open_file_with(start(), str(path), **{name: text})
        [error] = at.sidebar.error
        assert plain(error.value).startswith(fix), error.value
        assert at.session_state["stepscope_run"].label != str(path), "the refused run did not open"
    # an engine graph refuses a context by the form's name for it, not the command line's flag
    engine_file = tmp_path / "engine_graph.py"
    engine_file.write_text(
        "from typing import TypedDict\nfrom engine import StateGraph, START\nclass S(TypedDict):\n    n: int\n"
        "g = StateGraph(S)\ng.add_node('x', lambda s: {'n': 1})\ng.add_edge(START, 'x')\ngraph = g.compile()\n"
    )
    at = open_file_with(start(), f"{engine_file}:graph", context='{"user": "ada"}')
    [error] = at.sidebar.error
    assert plain(error.value).startswith("The context: only for langgraph apps"), error.value


def test_the_graph_file_forms_config_example_is_in_the_runtimes_keys(tmp_path):
    at = start()
    at.radio(key="open_kind").set_value("Graph file").run()
    assert at.text_input(key=session.file_option("config")).placeholder == '{"recursion_limit": 50}'
    at.text_input(key="file_target").input("app.mjs:graph").run()
    assert at.text_input(key=session.file_option("config")).placeholder == '{"recursionLimit": 50}'
    pytest.importorskip("langgraph")
    path = tmp_path / "approve.py"
    path.write_text(APPROVAL)
    open_file(at, str(path))
    example = json.loads(at.text_input(key=session.file_option("config")).placeholder)
    assert example == {"recursion_limit": 50, "configurable": {"thread_id": "t-1"}}, "the open app has a saver"


def test_the_graph_file_forms_checkpointer_keeps_the_thread_and_the_answer_goes_on_it(tmp_path):
    """A run the form put on a checkpointer file is answered from the thread panel on the same file, and
    the file holds the thread as `stepscope threads` reads it."""
    pytest.importorskip("langgraph.checkpoint.sqlite")
    from debugger.runtimes.checkpointers.open import list_threads

    path, saver = tmp_path / "approve.py", str(tmp_path / "threads.sqlite")
    path.write_text(APPROVAL_NO_SAVER)
    at = open_file_with(start(), str(path), checkpointer=saver)
    trace = at.session_state["stepscope_run"].trace
    assert trace.status == "interrupted" and trace.thread_id, [e.value for e in at.sidebar.error]
    at.text_input(key=session.THREAD_ANSWER).input("yes")
    click(at, "thread_answer_go")
    assert not at.sidebar.error, [e.value for e in at.sidebar.error]
    answered = at.session_state["stepscope_run"].trace
    assert (answered.status, answered.thread_id) == ("done", trace.thread_id)
    assert [(t.thread_id, t.status) for t in list_threads(saver)] == [(trace.thread_id, "done")]


def test_sidebar_names_file_and_line_of_a_broken_graph_file_and_keeps_working(tmp_path):
    broken = tmp_path / "broken.py"
    broken.write_text("x = 1\ndef broken(:\n    pass\n")
    at = open_file(start(), str(broken))
    [error] = at.sidebar.error
    assert plain(error.value) == f"{broken}, line 2: SyntaxError: invalid syntax"
    assert url(at) == {"sample": "subgraph_trap", "step": "0"}, "the open run stays"
    click(at, "next")
    assert url(at)["step"] == "1"

    failing = tmp_path / "failing.py"
    failing.write_text("import operator\n\nraise RuntimeError('boom')\n")
    open_file(at, str(failing))
    assert plain(at.sidebar.error[0].value).startswith(f"{failing}, line 3: RuntimeError: boom")

    open_file(at, str(tmp_path / "missing.py"))
    assert "no such file" in at.sidebar.error[0].value

    good = tmp_path / "good.py"
    good.write_text(GRAPH_FILE)
    open_file(at, str(good))
    assert not at.sidebar.error, "a successful open clears the error"


def test_sidebar_switches_samples_and_reopens_stored_runs():
    at = start()
    at.selectbox(key="sample_choice").select("fan_out_search").run()
    assert url(at) == {"sample": "fan_out_search", "step": "0"}
    assert plain(at.title[0].value).startswith("Fan-out, fan-in")
    at.selectbox(key="sample_choice").select("subgraph_trap").run()
    at.radio(key="open_kind").set_value("Stored run").run()
    choice = at.selectbox(key="stored_choice")
    assert len(choice.options) == 2, "samples chosen in the sidebar are stored; the one the link opened is not"
    trap_id = next(r.run_id for r in RunStore().list() if r.target == "subgraph_trap")
    choice.select(trap_id)  # by value: select_index would pick the formatted label
    click(at, "open_stored")
    run = at.session_state["stepscope_run"]
    assert run.source == "stored" and run.trace.target == "subgraph_trap"
    assert url(at) == {"run": run.trace.run_id, "step": "0"}


def test_sidebar_runs_the_sample_again_with_an_edited_input():
    at = start(sample="subgraph_trap")
    at.text_area(key="rerun_input").input('{"log": ["x"]}')
    click(at, "rerun")
    assert at.session_state["stepscope_run"].graph_input == {"log": ["x"]}
    click(at, "last")
    assert tab(at, "State").dataframe[0].value.loc[0, "after"] == "['x', 'parent', 'x', 'parent', 'sub-1']"
    at.text_area(key="rerun_input").input("{oops")
    click(at, "rerun")
    assert at.sidebar.error[0].value.startswith("The input is not valid JSON")


# ---- uploaded traces (AppTest cannot upload a file: the source function is tested directly) ---------


def test_open_upload_reads_a_trace_as_data_and_stores_it(tmp_path):
    db = str(tmp_path / "u.sqlite3")
    trace = sources.open_sample("subgraph_trap", db=str(tmp_path / "other.sqlite3")).trace
    opened = sources.open_upload(to_json(trace).encode(), "trap.json", db=db)
    assert (opened.source, opened.graph, opened.label) == ("upload", None, trace.run_id)
    assert opened.trace.run_id == trace.run_id
    assert [r.run_id for r in RunStore(db).list()] == [trace.run_id]


@pytest.mark.parametrize(
    "data",
    [b"{not json", b"[]", json.dumps({"schema": "something else"}).encode(), b"\xff\xfe"],
    ids=["not-json", "a-list", "wrong-schema", "binary"],
)
def test_open_upload_refuses_a_corrupt_file_with_its_name(tmp_path, data):
    with pytest.raises(sources.OpenError, match="broken.json"):
        sources.open_upload(data, "broken.json", db=str(tmp_path / "u.sqlite3"))
    assert RunStore(str(tmp_path / "u.sqlite3")).list() == []


def test_open_upload_refuses_a_huge_file(tmp_path, monkeypatch):
    monkeypatch.setattr(sources, "MAX_UPLOAD_BYTES", 10)
    with pytest.raises(sources.OpenError, match="big.json is 0 MB"):
        sources.open_upload(b"x" * 11, "big.json", db=str(tmp_path / "u.sqlite3"))


def test_the_trace_file_uploader_is_offered():
    at = start()
    at.radio(key="open_kind").set_value("Trace file").run()
    assert not at.exception
    assert at.sidebar.caption[0].value == "Opened as data only: nothing in the file is executed."


# ---- the gallery and stored-runs pages --------------------------------------------------------------


def test_gallery_lists_every_sample_and_opens_one():
    from sample_graphs.gallery import SAMPLES

    at = goto_page(start(), "gallery")
    assert at.title[0].value == "Gallery of lessons"
    assert [b.key for b in at.main.button] == [f"gallery-{name}" for name in SAMPLES]
    click(at, "gallery-map_reduce_send")
    run = at.session_state["stepscope_run"]
    assert (run.source, run.label) == ("sample", "map_reduce_send")
    assert plain(at.title[0].value) == run.title, "Open goes to the step-through page"
    assert url(at) == {"sample": "map_reduce_send", "step": "0"}
    goto_page(at, "")  # AppTest keeps its own page for the next rerun; a browser follows the URL
    click(at, "next")
    assert ran_nodes(at) == ["plan"]


def test_stored_runs_page_lists_opens_and_deletes_runs(fresh_store):
    at = start()
    at.selectbox(key="sample_choice").select("fan_out_search").run()
    at.selectbox(key="sample_choice").select("subgraph_trap").run()
    goto_page(at, "runs")
    assert at.title[0].value == "Stored runs"
    assert str(fresh_store) in at.caption[0].value
    frame = at.dataframe[0].value
    assert sorted(frame["target"]) == ["fan_out_search", "subgraph_trap"]
    assert set(frame["status"]) == {"done"}
    trap_id = next(r.run_id for r in RunStore(str(fresh_store)).list() if r.target == "subgraph_trap")
    choice = at.selectbox(key="runs_page_choice")
    assert f"{trap_id[:12]} · subgraph_trap · done" in choice.options
    choice.select(trap_id).run()  # a browser reruns on the change, so Open's args name the new choice
    click(at, "runs_open")
    assert at.session_state["stepscope_run"].trace.run_id == trap_id
    assert url(at) == {"run": trap_id, "step": "0"}
    goto_page(at, "runs")
    at.selectbox(key="runs_page_choice").select(trap_id).run()
    click(at, "runs_delete")
    assert [r.target for r in RunStore(str(fresh_store)).list()] == ["fan_out_search"]
    assert len(at.dataframe[0].value) == 1


def test_stored_runs_page_when_the_store_is_empty(fresh_store):
    at = start()
    assert RunStore(str(fresh_store)).list() == []  # the sample the link opened is not stored
    goto_page(at, "runs")
    assert at.info[0].value.startswith("No stored runs yet.")


# ---- widgets ----------------------------------------------------------------------------------------


def test_md_escapes_names_and_sentences_for_markdown():
    from debugger.views.widgets import md

    assert md("__start__") == r"\_\_start\_\_"
    assert md("keep_first(['a'], *x*) <b> `c` $1 | #2") == r"keep\_first\(\[\'a\'\]\, \*x\*\) \<b\> \`c\` \$1 \| \#2"
    assert md("lookup order: 1.5") == r"lookup order\: 1\.5", "every ASCII punctuation mark, so nothing autolinks"


# Streamlit's Markdown (StreamlitMarkdown.js, 1.5x) replaces these in every text node, escaped or not
STREAMLIT_TYPOGRAPHY = [r"(^|\s)<->(\s|$)", r"(^|\s)->(\s|$)", r"(^|\s)<-(\s|$)", r"(^|\s)--(\s|$)"]
STREAMLIT_TYPOGRAPHY += [r"(^|\s)>=(\s|$)", r"(^|\s)<=(\s|$)", r"(^|\s)~=(\s|$)"]


@pytest.mark.parametrize("value", ['"]; a -> b [label="x', "x <- y", "a <-> b", "-- x", "n >= 3", "a <= b\n~= c"])
def test_md_keeps_arrows_and_dashes_in_values_as_written(value):
    from debugger.views.widgets import md

    shown = re.sub(r"\\(.)", r"\1", md(value))  # what the Markdown parser leaves of the escapes
    assert not any(re.search(rule, shown, re.M) for rule in STREAMLIT_TYPOGRAPHY), shown
    assert shown.replace("\u2060", "") == value


# ---- the app and `stepscope diagnose` say the same --------------------------------------------------


def cli_findings(target: str, capsys) -> list[dict]:
    from debugger.cli import main

    main(["diagnose", target, "--json"])
    return json.loads(capsys.readouterr().out)["findings"]


@pytest.mark.parametrize("name", sorted(__import__("sample_graphs.gallery", fromlist=["SAMPLES"]).SAMPLES))
def test_the_findings_tab_shows_what_stepscope_diagnose_finds(name, capsys):
    expected = cli_findings(name, capsys)
    at = start(sample=name)
    panel = tab(at, "Findings")
    assert panel.label == (f"Findings ({len(expected)})" if expected else "Findings")
    shown, codes = texts(panel), [c.value for c in panel.code]
    for finding in expected:
        assert any(line.endswith(f"**{finding['title']}**  \n{finding['where']}") for line in shown), finding["title"]
        assert finding["explanation"] in shown
        assert finding["fix"] in codes and all(other["code"] in codes for other in finding["other_fixes"])
    if not expected:
        assert panel.success[0].value == "`stepscope diagnose` finds nothing wrong in this run."
    for step in {f["step"] for f in expected if f["step"] is not None and not f["scope"]}:
        errors = [f for f in expected if f["step"] == step and f["severity"] == "error" and not f["scope"]]
        failing = at.session_state["stepscope_run"].view.view(Scope())
        for report, finding in zip(failing.errors(step), errors if not failing.committed(step) else []):
            assert (report.title, report.explanation) == (finding["title"], finding["explanation"])
