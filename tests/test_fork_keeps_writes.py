"""Issue 24, item 2: a fork replaces only the edited key of the node's write (on the engine and on real
langgraph), and message ids that langchain or langgraph made up never count as a difference."""

from __future__ import annotations

from pathlib import Path

import pytest

from debugger.diagnostics.generated_ids import distinguishing, is_generated, same_up_to_generated_ids
from debugger.diagnostics.replay import Replay
from debugger.model.trace_view import Scope, TraceView
from debugger.runtimes.registry import runtime_of
from debugger.runtimes.runtime import RunRequest
from debugger.runtimes.targets import load_target
from debugger.sources.forks import ForkRequest, fork, fork_form

CHAT_PLAN = Path(__file__).parent / "e2e" / "graphs" / "chat_plan.py"


def message(kind: str, content: str, message_id: str) -> dict:
    return {"$type": "message", "message": {"type": kind, "data": {"content": content, "id": message_id}}}


def test_generated_ids_are_set_aside_and_chosen_ids_are_not() -> None:
    made_up = "lc_run--01a234c9-86a7-7789-9cbc-cfecddf5dc4d-0"
    again = "lc_run--01a234c9-86aa-71b1-bac8-dde5f73c2625-0"
    assert is_generated(made_up) and is_generated("82bb163f-1bcb-48d2-8e55-d4f7e5a3e842")
    assert not is_generated("msg-1")
    assert same_up_to_generated_ids({"m": [message("ai", "hi", made_up)]}, {"m": [message("ai", "hi", again)]})
    assert not same_up_to_generated_ids([message("ai", "hi", made_up)], [message("ai", "bye", again)])
    assert not same_up_to_generated_ids([message("ai", "hi", "msg-1")], [message("ai", "hi", "msg-2")])
    # one run's ids share their opening (uuid7 starts with the time): the tail is what tells them apart
    assert distinguishing(made_up) == "…ddf5dc4d" and distinguishing(again) == "…f73c2625"
    assert distinguishing("msg-1") == "msg-1"


def test_a_langgraph_fork_of_one_key_keeps_the_nodes_other_writes_and_matches_its_replay() -> None:
    pytest.importorskip("langgraph.graph")
    loaded = load_target(str(CHAT_PLAN))
    original = runtime_of(loaded.graph).record(RunRequest(loaded.graph, loaded.example_input, {}, "chat")).trace
    form = fork_form(TraceView(original, loaded.graph).view(Scope()), 1)
    assert form.node == "plan" and '"type": "ai"' in form.value_json  # a message is editable JSON, not a repr
    branch = fork(ForkRequest(loaded.graph, loaded.example_input, {}, original, 1, "plan", "log", ["EDITED"]))
    after_plan = Replay(branch.trace).state_after(1)
    assert [m["message"]["data"]["content"] for m in after_plan["messages"]] == ["find it", "a plan: look it up"]
    assert after_plan["log"] == ["EDITED"]
    assert branch.replay_matches  # the re-run's new message ids are not a difference
    assert branch.differing_steps == [1, 2]  # the log differs; the replies' ids alone would not
    assert Replay(branch.trace).state_after(2)["log"] == ["EDITED", "acted"]
    (edit,) = next(s for s in branch.trace.steps if s.step == 1).tasks
    assert edit.name == "plan" and [key for key, _ in edit.writes] == ["messages", "log"]  # both, as plan wrote
    assert branch.trace.config == {}  # the user's config, not the debugger's throwaway thread
