"""Why a node runs, in words: a node behind a waiting edge whose sources finished together is
explained once, naming both as the last to finish, not once per source with each called "last"."""

from __future__ import annotations

from debugger import sources
from debugger.model import Scope, TraceView


def test_a_join_whose_sources_finished_together_is_explained_once_naming_both():
    trace = sources.open_sample("slow_research", store=False).trace  # search_web, search_docs -> write
    view = TraceView(trace).view(Scope())
    step = next(s for s in view.steps if [t.name for t in view.tasks(s)] == ["write"])
    (trigger,) = view.triggers(step)
    sentence = trigger.sentence()
    assert sentence.count("waiting edge") == 1, sentence
    assert sentence == (
        "write runs because every node of the waiting edge [search_web, search_docs] → write had finished "
        "(last: search_docs and search_web, together)"
    )
    assert {r.edge for r in trigger.reasons} == {("search_docs", "write"), ("search_web", "write")}  # both bold
