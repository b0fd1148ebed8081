"""Time travel on LangGraph.js runs (`debugger/timetravel.py`, unchanged, over the runtime's checkpointed
copy: `copies.py`, `fork.mjs`): a fork from a step with an edit as a node, and an interrupt answered, each
recorded as one run by the real @langchain/langgraph on a MemorySaver of the debugger's own."""

from __future__ import annotations

import pytest

from debugger.runtimes.langgraphjs.runtime import FORK_FOLDER_PREFIX, LANGGRAPHJS, describe
from debugger.runtimes.runtime import RunRequest
from debugger.sources import forks as timetravel

from .conftest import app

pytestmark = pytest.mark.slow

INPUT = {"log": [], "count": 1}


def test_a_fork_as_a_node_replaces_its_write_and_runs_the_rest_again(langgraph_js) -> None:
    graph = describe(app("live_pipeline.mjs"), "graph")
    original = LANGGRAPHJS.record(RunRequest(graph, dict(INPUT), {}, "pipeline")).trace
    assert original.output == {"log": ["a", "b", "c"], "count": 8}
    fork = timetravel.fork(timetravel.ForkRequest(graph, dict(INPUT), {}, original, 2, "b", "count", 100))
    # updateState(before step 2, {log: ["b"], count: 100}, "b"): b's write with only `count` edited, then c
    assert fork.trace.status == "done" and fork.trace.output == {"log": ["a", "b", "c"], "count": 200}
    assert fork.replay_matches and fork.differing_steps == [2, 3]
    assert [t.name for s in fork.trace.steps if s.step == 2 for t in s.tasks] == ["b"]
    assert not graph.saver_file  # the app's graph is untouched: the copy had a saver of its own


def test_an_interrupted_run_is_resumed_with_the_answer(langgraph_js) -> None:
    graph = describe(app("interrupt_ask.mjs"), "graph")
    original = LANGGRAPHJS.record(RunRequest(graph, {}, {"configurable": {"thread_id": "mine"}}, "ask")).trace
    assert original.status == "interrupted"
    resumed = timetravel.resume(graph, {}, {}, original, "yes")
    assert resumed.trace.status == "done"
    assert resumed.trace.output == {"question": "Refund order 17?", "answer": "yes"}


def test_checkpoint_calls_on_the_apps_own_graph_are_refused_in_one_line(langgraph_js) -> None:
    graph = describe(app("live_pipeline.mjs"), "graph")
    with pytest.raises(Exception, match="checkpointed copy"):
        graph.get_state_history({"configurable": {"thread_id": "t"}})


def test_the_copys_temporary_folder_is_removed_when_the_fork_is_done_or_fails(
    langgraph_js, tmp_path, monkeypatch
) -> None:
    import tempfile
    from pathlib import Path

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))  # checkpointed_copy's folders land here
    discarded = []
    discard = LANGGRAPHJS.discard_copy

    def spy(copy) -> None:
        discarded.append(Path(copy.saver_file).is_file())  # the saver file was there until the fork was done
        discard(copy)

    monkeypatch.setattr(LANGGRAPHJS, "discard_copy", spy)
    graph = describe(app("live_pipeline.mjs"), "graph")
    original = LANGGRAPHJS.record(RunRequest(graph, dict(INPUT), {}, "pipeline")).trace
    assert (
        timetravel.fork(timetravel.ForkRequest(graph, dict(INPUT), {}, original, 2, "b", "count", 100)).trace.status
        == "done"
    )
    asked = describe(app("interrupt_ask.mjs"), "graph")
    interrupted = LANGGRAPHJS.record(RunRequest(asked, {}, {"configurable": {"thread_id": "t"}}, "ask")).trace
    assert timetravel.resume(asked, {}, {}, interrupted, "yes").trace.status == "done"
    with pytest.raises(timetravel.TimeTravelError, match="no checkpoint before step 9"):
        timetravel.fork(timetravel.ForkRequest(graph, dict(INPUT), {}, original, 9, "b", "count", 100))
    assert discarded == [True, True, True]
    assert list(tmp_path.glob(f"{FORK_FOLDER_PREFIX}*")) == []
