"""`stepscope run` / `diagnose` on langgraph apps, each command in its own process, as a user runs them:
threads that outlive the command (InMemorySaver and SqliteSaver), `--resume`, `--thread`,
`--context`, `--config`, `--input @file` and `-`, runs named after their target, and a run that
fails before its first superstep."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("langgraph")
pytestmark = pytest.mark.slow  # every test runs `stepscope` in processes of its own: `make test`, not `make check`

from debugger.stores.sqlite import RunStore  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]

APPROVAL = """
from typing import TypedDict
from langgraph.graph import START, StateGraph
from langgraph.types import interrupt
{saver_import}

class State(TypedDict):
    request: str
    decision: str

def ask(state: State):
    answer = interrupt({{"question": f"approve {{state['request']}}?"}})
    return {{"decision": answer}}

builder = StateGraph(State)
builder.add_node("ask", ask)
builder.add_edge(START, "ask")
graph = builder.compile(checkpointer={saver})
example_input = {{"request": "refund #42"}}
"""

SAVERS = {
    "memory": ("from langgraph.checkpoint.memory import InMemorySaver", "InMemorySaver()"),
    "sqlite": (
        "import sqlite3, pathlib\nfrom langgraph.checkpoint.sqlite import SqliteSaver",
        "SqliteSaver(sqlite3.connect(str(pathlib.Path(__file__).with_name('threads.sqlite')), "
        "check_same_thread=False))",
    ),
}


def stepscope(*args: str, cwd: Path, stdin: str | None = None) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [sys.executable, "-m", "debugger.cli", *args],
        cwd=cwd,
        env=env,
        input=stdin,
        capture_output=True,
        text=True,
        timeout=120,
    )


@pytest.mark.parametrize("saver", list(SAVERS))
def test_interrupt_is_answered_by_a_later_process(tmp_path: Path, saver: str) -> None:
    saver_import, saver_expr = SAVERS[saver]
    (tmp_path / "approve.py").write_text(APPROVAL.format(saver_import=saver_import, saver=saver_expr))
    db = str(tmp_path / "runs.sqlite3")
    first = stepscope("run", "approve.py:graph", "--db", db, cwd=tmp_path)
    assert first.returncode == 0, first.stderr
    assert "status: interrupted" in first.stdout
    assert 'interrupted (node ask): {"question": "approve refund #42?"}' in first.stdout
    thread = first.stdout.split("thread: ", 1)[1].split()[0]
    command = next(line.strip() for line in first.stdout.splitlines() if "--resume ANSWER" in line)
    assert command == f"stepscope run approve.py:graph --thread {thread} --resume ANSWER --db {db}"

    second = stepscope("run", "approve.py:graph", "--thread", thread, "--resume", "yes", "--db", db, cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    assert "status: done" in second.stdout
    assert "'decision': 'yes'" in second.stdout

    store = RunStore(db)
    runs = store.list()
    assert [r.status for r in runs] == ["done", "interrupted"]
    # the file's path kept whole, so an app started in another folder finds the run's code
    assert {r.graph for r in runs} == {"approve.py:graph"}
    assert {r.target for r in runs} == {f"{(tmp_path / 'approve.py').resolve()}:graph"}
    resumed = store.load(runs[0].run_id)
    assert resumed.thread_id == thread and store.load(runs[1].run_id).thread_id == thread


CHAT = """
import operator
from typing import Annotated, TypedDict
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph

class State(TypedDict):
    turns: Annotated[list, operator.add]

def reply(state: State):
    return {"turns": [f"reply to {state['turns'][-1]}"]}

builder = StateGraph(State)
builder.add_node("reply", reply)
builder.add_edge(START, "reply")
graph = builder.compile(checkpointer=InMemorySaver())
example_input = {"turns": ["hello"]}
"""


def test_runs_on_one_thread_are_turns_of_one_conversation(tmp_path: Path) -> None:
    (tmp_path / "chat.py").write_text(CHAT)
    (tmp_path / "second.json").write_text(json.dumps({"turns": ["how are you"]}))
    db = str(tmp_path / "runs.sqlite3")
    assert stepscope("run", "chat.py", "--thread", "c1", "--db", db, cwd=tmp_path).returncode == 0
    second = stepscope("run", "chat.py", "--thread", "c1", "--input", "@second.json", "--db", db, cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    third = stepscope(
        "run", "chat.py", "--thread", "c1", "--input", "-", "--db", db, cwd=tmp_path, stdin='{"turns": ["bye"]}'
    )
    assert third.returncode == 0, third.stderr
    assert (
        "'turns': ['hello', 'reply to hello', 'how are you', 'reply to how are you', 'bye', 'reply to bye']"
        in third.stdout
    )


MEMORY = """
from typing import TypedDict
from langgraph.graph import START, StateGraph
from langgraph.store.base import BaseStore
from langgraph.store.memory import InMemoryStore

class State(TypedDict):
    note: str
    seen: list

def remember(state: State, *, store: BaseStore):
    seen = sorted(item.value["note"] for item in store.search(("notes",)))
    store.put(("notes",), state["note"], {"note": state["note"]})
    return {"seen": seen}

builder = StateGraph(State)
builder.add_node("remember", remember)
builder.add_edge(START, "remember")
graph = builder.compile(store=InMemoryStore())
example_input = {"note": "first", "seen": []}
"""


def test_an_in_memory_store_is_carried_from_one_run_to_the_next_as_the_app_keeps_it(tmp_path: Path) -> None:
    """Issue 24, item 9: the store of an app's process outlives each `stepscope run` (every thread sees it)."""
    (tmp_path / "memory.py").write_text(MEMORY)
    db = str(tmp_path / "runs.sqlite3")
    assert stepscope("run", "memory.py", "--db", db, cwd=tmp_path).returncode == 0
    second = stepscope("run", "memory.py", "--input", '{"note": "second", "seen": []}', "--db", db, cwd=tmp_path)
    assert second.returncode == 0, second.stderr
    assert "'seen': ['first']" in second.stdout  # the first run's item, read back in a later process


CONTEXT = """
from dataclasses import dataclass
from typing import TypedDict
from langgraph.graph import START, StateGraph
from langgraph.runtime import Runtime

@dataclass
class Ctx:
    user: str

class State(TypedDict):
    text: str

def greet(state: State, runtime: Runtime[Ctx]):
    return {"text": f"{state['text']}, {runtime.context.user}"}

builder = StateGraph(State, context_schema=Ctx)
builder.add_node("greet", greet)
builder.add_edge(START, "greet")
graph = builder.compile()
example_input = {"text": "hello"}
"""


def test_context_and_config_options(tmp_path: Path) -> None:
    (tmp_path / "ctx.py").write_text(CONTEXT)
    db = str(tmp_path / "runs.sqlite3")
    done = stepscope(
        "run",
        "ctx.py:graph",
        "--context",
        '{"user": "ada"}',
        "--config",
        '{"recursion_limit": 5}',
        "--db",
        db,
        cwd=tmp_path,
    )
    assert done.returncode == 0, done.stderr
    assert "'text': 'hello, ada'" in done.stdout
    trace = RunStore(db).load(RunStore(db).list()[0].run_id)
    assert trace.recursion_limit == 5
    bad = stepscope("run", "ctx.py:graph", "--context", '{"nobody": 1}', "--db", db, cwd=tmp_path)
    assert bad.returncode == 2 and "context_schema Ctx" in bad.stderr and "Traceback" not in bad.stderr


def test_diagnose_says_when_the_run_failed_before_its_first_superstep(tmp_path: Path) -> None:
    (tmp_path / "approve.py").write_text(APPROVAL.format(saver_import=SAVERS["memory"][0], saver=SAVERS["memory"][1]))
    db = str(tmp_path / "runs.sqlite3")
    result = stepscope("diagnose", "approve.py:graph", "--input", '"not a dict"', "--db", db, cwd=tmp_path)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "failed before its first superstep" in result.stderr and "no findings" not in result.stdout
    static = stepscope("diagnose", "approve.py:graph", "--no-run", "--db", db, cwd=tmp_path)
    assert static.returncode == 0, static.stderr


def test_engine_options_are_refused_on_an_engine_graph(tmp_path: Path) -> None:
    result = stepscope("run", "subgraph_trap", "--thread", "x", "--db", str(tmp_path / "r.db"), cwd=tmp_path)
    assert result.returncode == 2 and "only for langgraph apps" in result.stderr


def test_resume_needs_a_thread(tmp_path: Path) -> None:
    (tmp_path / "approve.py").write_text(APPROVAL.format(saver_import=SAVERS["memory"][0], saver=SAVERS["memory"][1]))
    result = stepscope("run", "approve.py:graph", "--resume", "yes", "--db", str(tmp_path / "r.db"), cwd=tmp_path)
    assert result.returncode == 2 and "--thread" in result.stderr


def test_an_interrupt_without_a_checkpointer_says_why_it_cannot_be_answered(tmp_path: Path) -> None:
    """langgraph ends such a run at interrupt() and keeps nothing: no answering command with an empty
    thread, but the fix; and `--follow` says where its question can be answered."""
    (tmp_path / "app.py").write_text(APPROVAL.format(saver_import="", saver="None"), encoding="utf-8")
    db = str(tmp_path / "runs.db")
    plain = stepscope("run", "app.py:graph", "--db", db, cwd=tmp_path)
    assert plain.returncode == 0, plain.stderr
    assert 'interrupted (node ask): {"question": "approve refund #42?"}' in plain.stdout
    assert "--thread ''" not in plain.stdout and "--resume" not in plain.stdout
    assert "has no checkpointer, so nothing of the paused run was kept" in plain.stdout
    assert "checkpointer=InMemorySaver()" in plain.stdout
    followed = stepscope("run", "app.py:graph", "--db", db, "--follow", cwd=tmp_path)
    assert followed.returncode == 0, followed.stderr
    assert "status: interrupted" in followed.stdout and "approve refund #42?" in followed.stdout
    assert "answer it on the Live run page" in followed.stdout


REACT = """
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage
from langchain_core.tools import tool
from langgraph.prebuilt import create_react_agent

@tool
def get_weather(city: str) -> str:
    \"\"\"The weather in a city.\"\"\"
    return f"It is sunny in {city}."

class ToolFake(GenericFakeChatModel):
    def bind_tools(self, tools, **kwargs):
        return self

model = ToolFake(messages=iter([
    AIMessage(content="", tool_calls=[{"name": "get_weather", "args": {"city": "Paris"}, "id": "call_1"}]),
    AIMessage(content="It is sunny in Paris."),
]))
graph = create_react_agent(model, [get_weather])
example_input = {"messages": [{"role": "user", "content": "weather in Paris?"}]}
"""


def test_the_final_state_of_an_agent_reads_as_messages_not_as_stored_json(tmp_path):
    (tmp_path / "agent.py").write_text(REACT)
    done = stepscope("run", "agent.py:graph", "--db", str(tmp_path / "runs.sqlite3"), cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    final = next(line for line in done.stdout.splitlines() if line.startswith("final state: "))
    assert "$type" not in final, final  # the trace's own encoding is not for people
    assert "human: 'weather in Paris?'" in final
    assert "get_weather({'city': 'Paris'})" in final and "tool: 'It is sunny in Paris.'" in final
