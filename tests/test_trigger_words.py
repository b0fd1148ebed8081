"""Why a node runs, and which task it is, in words: a node behind a waiting edge whose sources finished
together is explained once, naming both as the last to finish, not once per source with each called
"last"; a langgraph agent's tool call sent to its ToolNode is named by the call, not by its wrapper."""

from __future__ import annotations

import pytest

from debugger.model.trace_view import Scope, TraceView
from debugger.sources import runs as sources


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


def test_a_langgraph_agents_tool_call_send_is_named_by_its_call_not_its_wrapper():
    pytest.importorskip("langgraph")
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage
    from langchain_core.tools import tool
    from langgraph.prebuilt import create_react_agent

    from debugger.runtimes.langgraph.recorder import recording

    @tool
    def get_weather(city: str) -> str:
        """The weather in a city."""
        return f"It is sunny in {city}."

    class ToolFake(GenericFakeChatModel):
        def bind_tools(self, tools, **kwargs):
            return self

    call = {"name": "get_weather", "args": {"city": "Paris"}, "id": "call_1"}
    model = ToolFake(messages=iter([AIMessage(content="", tool_calls=[call]), AIMessage(content="Sunny.")]))
    with recording(db=False) as session:
        create_react_agent(model, [get_weather]).invoke({"messages": [("user", "weather in Paris?")]})
    view = TraceView(session.traces[0]).view(Scope())
    tools_step = next(s for s in view.steps if [t.name for t in view.tasks(s)] == ["tools"])
    (task,) = view.tasks(tools_step)
    assert view.label(task) == 'tools[0] get_weather({"city": "Paris"})'
    assert view.highlight(tools_step).labels == {"tools": '[0] get_weather({"city": "Paris"})'}
