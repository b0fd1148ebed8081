"""The Live run page in a real browser: a graph file whose nodes sleep, run from the page while it
follows; step mode, an edit at a pause, Stop. Each graph file logs what every node received to a
`inputs.jsonl` beside it, so a test can compare what the page showed at a pause with what the node got."""

from __future__ import annotations

import json
import operator
import re
import textwrap
from pathlib import Path
from typing import Annotated, TypedDict

import pytest
from conftest import GRAPH, choose, wait_idle
from playwright.sync_api import expect

from debugger.stores.sqlite import RunStore

STEPPER = ".stepscope-stepper"
"""The Live run page's stepper (debugger/frontend/assets/stepper.js), in its component's frame."""

GRAPH_FILE = """
import json, operator, os, time
from typing import Annotated, TypedDict
from engine import END, START, StateGraph

LOG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "inputs.jsonl")


class State(TypedDict):
    log: Annotated[list[str], operator.add]
    draft: str


def make(name, seconds):
    def node(state):
        with open(LOG, "a") as f:
            f.write(json.dumps({{"node": name, "input": state}}) + "\\n")
        time.sleep(seconds)
        return {{"log": [name], "draft": "by " + name}} if name == "write" else {{"log": [name]}}
    return node


builder = StateGraph(State)
for name, seconds in (("fetch", {fetch}), ("slow", {slow}), ("write", 0.1), ("review", 0.1)):
    builder.add_node(name, make(name, seconds))
builder.add_edge(START, "fetch")
builder.add_edge("fetch", "slow")
builder.add_edge("slow", "write")
builder.add_edge("write", "review")
builder.add_edge("review", END)
graph = builder.compile()
example_input = {{"log": [], "draft": ""}}
"""


def graph_file(folder: Path, *, fetch: float = 0.1, slow: float = 0.1, langgraph: bool = False) -> Path:
    """The graph file in `folder`; with `langgraph`, the same graph built with the real langgraph."""
    text = GRAPH_FILE.format(fetch=fetch, slow=slow)
    if langgraph:
        text = text.replace("from engine import", "from langgraph.graph import")
    path = folder / ("lg_live_graph.py" if langgraph else "live_graph.py")
    path.write_text(textwrap.dedent(text), encoding="utf-8")
    return path


def inputs(path: Path) -> list[dict]:
    log = path.parent / "inputs.jsonl"
    return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []


def start(
    page, path: Path, *, before: list[str] = (), step_mode: bool = False, nodes: str = "fetch, slow, write, review"
) -> None:
    page.goto("/live")
    page.get_by_role("button", name=re.compile("Start")).wait_for()
    wait_idle(page)
    main = page.get_by_test_id("stMainBlockContainer")
    main.get_by_text("Graph file", exact=True).click()
    wait_idle(page)
    box = main.get_by_label("Path to the graph")
    box.fill(str(path))
    box.press("Enter")
    expect(main.get_by_text(re.compile(rf"nodes {nodes}"))).to_be_visible()
    wait_idle(page)
    for name in before:
        main.locator('[data-testid="stMultiSelect"]').first.click()
        page.get_by_role("option", name=name, exact=True).click()
        page.keyboard.press("Escape")
        wait_idle(page)
    if step_mode:
        main.get_by_text("Step mode (pause before every superstep)").click()
        wait_idle(page)
    page.get_by_role("button", name=re.compile("Start")).click()


def main(page):
    """The page's own content (the sidebar shows the step-through page's run, with its own status)."""
    return page.get_by_test_id("stMainBlockContainer")


def node(page, name: str):
    return page.locator(f"{GRAPH} g#node_{name}")


def shown_state(page) -> dict:
    """The JSON of 'The state the next tasks will read' at a pause."""
    code = (
        page.locator('[data-testid="stExpander"]', has_text="The state the next tasks will read").locator("code").first
    )
    return json.loads(code.inner_text())


def test_running_node_is_marked_before_it_finishes(page, tmp_path, shot) -> None:
    path = graph_file(tmp_path, slow=8)
    start(page, path)
    slow = node(page, "slow")
    expect(slow).to_have_class(re.compile(r"\brunning\b"), timeout=15_000)
    assert [entry["node"] for entry in inputs(path)] == ["fetch", "slow"]  # slow started, nothing after it
    expect(main(page).get_by_text(re.compile(r"running: step 2: slow ⏳"))).to_be_visible()
    shot("live-running")
    expect(node(page, "fetch")).to_have_class(re.compile(r"\bvisited\b"))
    expect(main(page).get_by_role("heading", name="The run is over")).to_be_visible(timeout=20_000)
    expect(slow).not_to_have_class(re.compile(r"\brunning\b"))


def step_through(page, path: Path, shoot, *, timeout: float = 15_000) -> None:
    """Steps a graph file started in step mode one superstep per click (`shoot(step)` at each pause),
    checking that nothing of a paused step has run and that each node received what the page showed."""
    for step, name in ((1, "fetch"), (2, "slow"), (3, "write"), (4, "review")):
        expect(page.get_by_role("heading", name=f"Paused before step {step}")).to_be_visible(timeout=timeout)
        expect(page.get_by_text(re.compile(rf"^{name}: "))).to_be_visible()
        wait_idle(page)
        state = shown_state(page)
        ran = [entry["node"] for entry in inputs(path)]
        assert len(ran) == step - 1  # nothing of the paused step has run
        shoot(step)
        page.get_by_role("button", name=re.compile("Step$")).click()
        expect(
            page.get_by_role("heading", name=f"Paused before step {step + 1}").or_(
                main(page).get_by_role("heading", name="The run is over")
            )
        ).to_be_visible(timeout=timeout)
        received = inputs(path)
        assert [entry["node"] for entry in received] == [*ran, name]  # exactly one more superstep
        assert received[-1]["input"] == state  # what the page showed is what the node received


def test_step_mode_advances_one_superstep_per_click_and_shows_what_the_node_receives(page, tmp_path, shot) -> None:
    path = graph_file(tmp_path)
    start(page, path, step_mode=True)
    step_through(page, path, lambda step: step == 2 and shot("live-step-mode-paused"))


class EditState(TypedDict):
    log: Annotated[list[str], operator.add]
    draft: str


def langgraph_final_state(values: dict, as_node: str) -> dict:
    """The same graph in real langgraph, paused before review, `update_state`, resumed."""
    graph_module = pytest.importorskip("langgraph.graph")
    from langgraph.checkpoint.memory import InMemorySaver

    def make(name):
        return lambda state: {"log": [name], "draft": "by " + name} if name == "write" else {"log": [name]}

    builder = graph_module.StateGraph(EditState)
    for name in ("fetch", "slow", "write", "review"):
        builder.add_node(name, make(name))
    builder.add_edge(graph_module.START, "fetch")
    builder.add_edge("fetch", "slow")
    builder.add_edge("slow", "write")
    builder.add_edge("write", "review")
    builder.add_edge("review", graph_module.END)
    graph = builder.compile(checkpointer=InMemorySaver(), interrupt_before=["review"])
    config = {"configurable": {"thread_id": "e2e"}}
    graph.invoke({"log": [], "draft": ""}, config)
    graph.update_state(config, values, as_node=as_node)
    return graph.invoke(None, config)


def test_edit_at_a_pause_changes_the_final_state_as_update_state_would(page, tmp_path, e2e_db, shot) -> None:
    path = graph_file(tmp_path)
    start(page, path, before=["review"])
    expect(page.get_by_role("heading", name="Paused before step 4")).to_be_visible(timeout=15_000)
    wait_idle(page)
    page.get_by_text("✎ Edit the state, then continue").click()
    wait_idle(page)
    page.get_by_role("textbox", name=re.compile("Value")).wait_for()
    # the key: `log` (operator.add) as `write`: the list is appended through the reducer
    choose(page.get_by_role("combobox", name="Key"), page.get_by_role("option", name="log", exact=True))
    wait_idle(page)
    value = page.get_by_role("textbox", name=re.compile("Value"))
    value.fill('["a person was here"]')
    value.press("Control+Enter")
    wait_idle(page)
    page.get_by_role("button", name="Apply edit").click()
    expect(page.get_by_text(re.compile("Applied log"))).to_be_visible()
    expect(page.get_by_role("heading", name="Paused before step 5")).to_be_visible()
    shot("live-edited")
    page.get_by_role("button", name=re.compile("Continue")).click()
    expect(main(page).get_by_role("heading", name="The run is over")).to_be_visible(timeout=15_000)
    expected = langgraph_final_state({"log": ["a person was here"]}, "write")
    final = page.locator('[data-testid="stExpander"]', has_text="Final state").locator("code").first
    assert json.loads(final.inner_text()) == expected
    stored = RunStore(e2e_db).list()[0]
    trace = RunStore(e2e_db).load(stored.run_id)
    assert trace.output == expected and [s.kind for s in trace.steps].count("update") == 1


def test_stop_keeps_a_stored_run_that_reopens(page, tmp_path, e2e_db, shot) -> None:
    path = graph_file(tmp_path, slow=30)
    start(page, path)
    expect(node(page, "slow")).to_have_class(re.compile(r"\brunning\b"), timeout=15_000)
    page.get_by_role("button", name="⏹ Stop", exact=True).click()
    expect(main(page).get_by_role("heading", name="The run is over")).to_be_visible(timeout=5_000)
    expect(main(page).locator('[data-testid="stAlert"]').first).to_contain_text("stopped")
    expect(main(page).locator('[data-testid="stAlert"]').first).to_contain_text("still running: slow")
    shot("live-stopped")
    run_id = next(r.run_id for r in RunStore(e2e_db).list() if r.status == "cancelled")
    trace = RunStore(e2e_db).load(run_id)
    assert [s.step for s in trace.steps if s.committed] == [-1, 0, 1]
    page.goto(f"/?run={run_id}")
    page.locator(GRAPH).first.wait_for()
    wait_idle(page)
    expect(page.locator(f"{GRAPH} g#node_fetch")).to_be_visible()


ASKING_FILE = """
import operator
from typing import Annotated, TypedDict
from engine import END, START, StateGraph, interrupt


class State(TypedDict):
    log: Annotated[list[str], operator.add]


def ask(state):
    return {"log": ["answer: " + str(interrupt({"question": "Approve the plan?"}))]}


builder = StateGraph(State)
builder.add_node("plan", lambda state: {"log": ["plan"]})
builder.add_node("ask", ask)
builder.add_edge(START, "plan")
builder.add_edge("plan", "ask")
builder.add_edge("ask", END)
graph = builder.compile()
example_input = {"log": []}
"""


def test_an_interrupt_pauses_with_its_question_and_a_box_to_answer_it(page, tmp_path, shot) -> None:
    path = tmp_path / "asking.py"
    path.write_text(ASKING_FILE, encoding="utf-8")
    start(page, path, nodes="plan, ask")
    expect(main(page).get_by_role("heading", name="ask asks, in step 2")).to_be_visible(timeout=15_000)
    expect(main(page).get_by_text("Approve the plan?")).to_be_visible()
    expect(page.locator(f"{STEPPER} .summary h3")).to_have_text("Step 2 waits for an answer")
    expect(page.locator(f"{STEPPER} .panels")).to_be_empty()  # nothing merged yet: no empty tables
    expect(main(page).get_by_role("button", name=re.compile("Continue"))).to_be_disabled()
    answer = main(page).get_by_role("textbox", name=re.compile("Your answer"))
    answer.fill("yes")
    answer.press("Control+Enter")
    wait_idle(page)
    shot("live-question")
    main(page).get_by_role("button", name="Answer and continue").click()
    expect(main(page).get_by_role("heading", name="The run is over")).to_be_visible(timeout=15_000)
    final = main(page).locator('[data-testid="stExpander"]', has_text="Final state").locator("code").first
    assert json.loads(final.inner_text()) == {"log": ["plan", "answer: yes"]}


def test_open_in_step_through_after_the_run_ends_opens_that_run_there(page, tmp_path) -> None:
    path = graph_file(tmp_path)
    start(page, path)
    expect(main(page).get_by_role("heading", name="The run is over")).to_be_visible(timeout=15_000)
    wait_idle(page)
    run_id = re.search(r"[?&]run=([\w-]+)", page.url).group(1)
    main(page).get_by_role("button", name="Open in Step through").click()
    expect(page).to_have_url(re.compile(rf"127\.0\.0\.1:\d+/(step)?\?(.+&)?run={run_id}(&|$)"))
    expect(page).to_have_url(re.compile(r"[?&]step=\d+"))
    expect(page.locator(".stepscope-stepper .at")).to_be_visible()
    expect(page.locator(".stepscope-stepper g#node_review")).to_be_visible()
    expect(main(page).get_by_role("heading", name="The run is over")).to_have_count(0)


# ---- the stepper: the steps recorded so far, stepped in the browser ----------------------------------------

PRESS_JS = """
async (stepper, key) => {
  const root = stepper.parentElement;  // the stepper's root names the step it shows (data-step)
  const before = root.dataset.step;
  const started = performance.now();
  document.dispatchEvent(new KeyboardEvent("keydown", {key, bubbles: true, composed: true}));
  const after = root.dataset.step;  // read before anything else may run: no server could have answered yet
  const ms = performance.now() - started;
  await new Promise((painted) => requestAnimationFrame(painted));
  return {before, after, ms, drawn: root.dataset.step === after};
}
"""


def press(page, key: str) -> str:
    """Presses `key` in the page and returns the step the stepper then shows: moved within 100 ms, in the
    key's own event (so with no server rerun in between: the stepper steps from the model it holds), and
    still there at the next frame."""
    moved = page.locator(STEPPER).evaluate(PRESS_JS, key)
    assert moved["after"] != moved["before"] and moved["ms"] < 100 and moved["drawn"], moved
    return moved["after"]


def expect_at(page, step: int, index: int, count: int) -> None:
    expect(page.locator(f"{STEPPER} .at")).to_have_text(f"Step {step} ({index} of {count})")


def test_the_stepper_steps_a_paused_live_run_in_the_browser_and_grows_as_steps_arrive(page, tmp_path, shot) -> None:
    path = graph_file(tmp_path)
    start(page, path, step_mode=True)
    expect(page.get_by_role("heading", name="Paused before step 1")).to_be_visible(timeout=15_000)
    expect_at(page, 0, 1, 1)  # the steps recorded so far: the input's
    wait_idle(page)
    page.get_by_role("button", name=re.compile("Step$")).click()
    expect(page.get_by_role("heading", name="Paused before step 2")).to_be_visible(timeout=15_000)
    expect_at(page, 1, 2, 2)  # a new step arrived: the stepper, at the newest, follows it
    expect(node(page, "slow")).to_have_class(re.compile(r"\bnext\b"))  # about to run
    expect(page).to_have_url(re.compile(r"[?&]step=1(&|$)"))
    assert press(page, "ArrowLeft") == "0"
    expect(node(page, "fetch")).to_have_class(re.compile(r"\bnext\b"))  # step 0 as it is now: fetch ran next
    expect(page).to_have_url(re.compile(r"[?&]step=0(&|$)"))  # the stepper reported the move: the URL follows
    wait_idle(page)
    page.get_by_role("button", name=re.compile("Step$")).click()
    expect(page.get_by_role("heading", name="Paused before step 3")).to_be_visible(timeout=15_000)
    expect_at(page, 0, 1, 3)  # a new step arrived; the user had stepped back: the place is kept
    expect(page).to_have_url(re.compile(r"[?&]step=0(&|$)"))  # and the page knows it: the URL says so
    assert press(page, "ArrowRight") == "1" and press(page, "ArrowRight") == "2"
    expect(page).to_have_url(re.compile(r"[?&]step=2(&|$)"))
    wait_idle(page)
    page.get_by_role("button", name=re.compile("Step$")).click()
    expect(page.get_by_role("heading", name="Paused before step 4")).to_be_visible(timeout=15_000)
    expect_at(page, 3, 4, 4)  # at the newest step, the stepper follows the run
    expect(page).to_have_url(re.compile(r"[?&]step=3(&|$)"))
    expect(page.locator(f"{STEPPER} .summary")).to_contain_text("Next: review in step 4, when you press Step")
    shot("live-stepper-paused")
    assert press(page, "Home") == "0" and press(page, "End") == "3"


PAUSE_DATA = {"fetch", "slow", "write", "review", "log", "draft", "by", "LastValue", "operator", "add"}
"""The graph file's own names and values at its pause before review: its nodes, keys, values and reducers."""
CODE_WORDS = {"interrupt", "update_state", "LangGraph", "JSON", "Command", "resume", "Ctrl", "Enter"}
"""Latin words a Chinese page still writes: functions by their names, JSON, keys as their caps say."""


def test_the_pause_panel_speaks_chinese_with_no_english_word_left(page, tmp_path, shot) -> None:
    path = graph_file(tmp_path)
    start(page, path, before=["review"])
    expect(page.get_by_role("heading", name="Paused before step 4")).to_be_visible(timeout=15_000)
    page.goto(page.url + "&lang=zh")  # a new session on the run's link, in Chinese
    panel = page.locator(".st-key-live_side")
    expect(panel.get_by_role("heading", name="在第 4 步之前暂停")).to_be_visible(timeout=15_000)
    wait_idle(page)
    panel.get_by_text("✎ 编辑状态，然后继续").click()
    panel.get_by_role("textbox").first.wait_for()
    wait_idle(page)
    expect(panel).to_contain_text("原因：review 之前的断点。")
    expect(panel).to_contain_text("review：来自 write 的边")
    written = panel.evaluate(
        "p => { let text = p.innerText;"
        " p.querySelectorAll('[data-testid=InputInstructions], [data-testid*=Icon], code, textarea').forEach(e =>"
        " text = text.replace(e.innerText || e.value, '')); return text; }"
    )  # the state's JSON and the boxes' values are the run's data; Streamlit's key hints and icons its own
    words = set(re.findall(r"[A-Za-z_][A-Za-z_0-9]*", written))
    assert words <= PAUSE_DATA | CODE_WORDS, words - PAUSE_DATA - CODE_WORDS
    status = main(page).locator('[data-testid="stAlert"]').first
    expect(status).to_contain_text("在第 4 步之前：review 之前的断点")
    expect(page.locator(f"{STEPPER} .summary")).to_contain_text("接下来：按“单步”或“继续”后，review 在第 4 步运行。")
    shot("live-paused-zh")
