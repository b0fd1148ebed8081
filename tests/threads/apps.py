"""Realistic langgraph apps for the thread tests, each run on a real checkpointer the way an app runs in
production: `SCENARIOS[name](saver, thread_id)` builds the graph with `saver`, drives a whole
conversation (several turns, a resume) and returns (graph, live): `live` is what langgraph itself
reported while running, from its `debug` stream: one `(ns, step, task id, node, state writes)` per
finished task, to compare with what StepScope rebuilds later from the stored checkpoints.
"""

from __future__ import annotations

import operator
from typing import Annotated, Any, Callable, TypedDict

from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage
from langchain_core.tools import tool
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.prebuilt import ToolNode, tools_condition
from langgraph.types import Command, Send, interrupt

LiveTask = tuple[tuple[str, ...], int, str, str, list[tuple[str, Any]]]


def drive(graph: Any, inputs: list[Any], thread_id: str) -> list[LiveTask]:
    """Runs each input on the thread in turn; collects every finished task from the debug stream."""
    config = {"configurable": {"thread_id": thread_id}}
    live: list[LiveTask] = []
    for value in inputs:
        try:
            for ns, event in graph.stream(value, config, stream_mode="debug", subgraphs=True):
                if event["type"] == "task_result":
                    payload = event["payload"]
                    writes = []
                    for channel, written in payload["result"].items():
                        if isinstance(written, dict) and "$writes" in written:
                            writes.extend((channel, w) for w in written["$writes"])
                        else:
                            writes.append((channel, written))
                    live.append((tuple(ns), event["step"], payload["id"], payload["name"], writes))
        except Exception as exc:  # a failing turn is part of the scenario (the plain-key conflict)
            live.append(((), -99, "", type(exc).__name__, [("error", str(exc))]))
    return live


# ---- a tool-calling agent with a fake chat model, over several turns ------------------------------


@tool
def get_weather(city: str) -> str:
    """The weather in a city."""
    return f"sunny in {city}"


@tool
def add(a: int, b: int) -> int:
    """Adds two numbers."""
    return a + b


def agent_app(saver: Any, thread_id: str) -> tuple[Any, list[LiveTask]]:
    replies = iter(
        [
            AIMessage("", tool_calls=[{"name": "get_weather", "args": {"city": "Paris"}, "id": "call_1"}]),
            AIMessage("It is sunny in Paris."),
            AIMessage(
                "",
                tool_calls=[
                    {"name": "add", "args": {"a": 2, "b": 3}, "id": "call_2"},
                    {"name": "get_weather", "args": {"city": "Oslo"}, "id": "call_3"},
                ],
            ),
            AIMessage("2 + 3 = 5, and Oslo is sunny."),
            AIMessage("You are welcome."),
        ]
    )
    model = GenericFakeChatModel(messages=replies)

    def agent(state: MessagesState) -> dict[str, Any]:
        return {"messages": [model.invoke(state["messages"])]}

    builder = StateGraph(MessagesState)
    builder.add_node("agent", agent)
    builder.add_node("tools", ToolNode([get_weather, add]))
    builder.add_edge(START, "agent")
    builder.add_conditional_edges("agent", tools_condition)
    builder.add_edge("tools", "agent")
    graph = builder.compile(checkpointer=saver)
    turns = [
        {"messages": [HumanMessage("Weather in Paris?")]},
        {"messages": [HumanMessage("What is 2+3, and the weather in Oslo?")]},
        {"messages": [HumanMessage("Thanks!")]},
    ]
    return graph, drive(graph, turns, thread_id)


# ---- a Send fan-out (map-reduce) -------------------------------------------------------------------


def fan_out_graph(saver: Any, findings_reducer: Callable[[Any, Any], Any] = operator.add) -> Any:
    """The fan-out graph; `findings_reducer` other than `operator.add` stands for the app's code having
    changed since its threads were stored."""

    Research = TypedDict(  # noqa: UP013 (functional form: a reducer from the enclosing function)
        "Research",
        {
            "topic": str,
            "queries": list[str],
            "findings": Annotated[list[str], findings_reducer],
            "summary": str,
        },
    )

    def plan(state: dict) -> dict[str, Any]:
        return {"queries": [f"{state['topic']} {aspect}" for aspect in ("history", "usage", "risks")]}

    def dispatch(state: dict) -> list[Send]:
        return [Send("search", {"query": q}) for q in state["queries"]]

    def search(arg: dict[str, Any]) -> dict[str, Any]:
        return {"findings": [f"result for {arg['query']}"]}

    def summarize(state: dict) -> dict[str, Any]:
        return {"summary": f"{len(state['findings'])} findings"}

    builder = StateGraph(Research)
    builder.add_node("plan", plan)
    builder.add_node("search", search)
    builder.add_node("summarize", summarize)
    builder.add_edge(START, "plan")
    builder.add_conditional_edges("plan", dispatch, ["search"])
    builder.add_edge("search", "summarize")
    builder.add_edge("summarize", END)
    return builder.compile(checkpointer=saver)


def fan_out_app(saver: Any, thread_id: str) -> tuple[Any, list[LiveTask]]:
    graph = fan_out_graph(saver)
    return graph, drive(graph, [{"topic": "sqlite"}, {"topic": "postgres"}], thread_id)


# ---- a plain key written by two parallel nodes -----------------------------------------------------


class Refund(TypedDict):
    order: str
    status: str
    log: Annotated[list[str], operator.add]


def conflict_graph(saver: Any) -> Any:
    def intake(state: Refund) -> dict[str, Any]:
        return {"log": ["intake"]}

    def approve(state: Refund) -> dict[str, Any]:
        return {"status": "approved", "log": ["approve"]}

    def fraud_check(state: Refund) -> dict[str, Any]:
        return {"status": "held", "log": ["fraud_check"]}

    builder = StateGraph(Refund)
    builder.add_node("intake", intake)
    builder.add_node("approve", approve)
    builder.add_node("fraud_check", fraud_check)
    builder.add_edge(START, "intake")
    builder.add_edge("intake", "approve")
    builder.add_edge("intake", "fraud_check")
    builder.add_edge(["approve", "fraud_check"], END)
    return builder.compile(checkpointer=saver)


def conflict_app(saver: Any, thread_id: str) -> tuple[Any, list[LiveTask]]:
    graph = conflict_graph(saver)
    return graph, drive(graph, [{"order": "A-17", "log": []}], thread_id)


# ---- an interrupt, resumed; a subgraph with its own checkpoints ------------------------------------


class Ticket(TypedDict):
    request: str
    log: Annotated[list[str], operator.add]
    decision: str


def interrupt_graph(saver: Any) -> Any:
    def triage(state: Ticket) -> dict[str, Any]:
        return {"log": [f"triage {state['request']}"]}

    def sub_check(state: Ticket) -> dict[str, Any]:
        return {"log": ["sub-check"]}

    inner = StateGraph(Ticket)
    inner.add_node("sub_check", sub_check)
    inner.add_edge(START, "sub_check")
    checks = inner.compile()

    def notify(state: Ticket) -> dict[str, Any]:
        return {"log": ["notify"]}

    def approval(state: Ticket) -> dict[str, Any]:
        answer = interrupt({"question": f"approve {state['request']}?"})
        return {"decision": answer, "log": [f"decided {answer}"]}

    builder = StateGraph(Ticket)
    builder.add_node("triage", triage)
    builder.add_node("checks", checks)
    builder.add_node("notify", notify)
    builder.add_node("approval", approval)
    builder.add_edge(START, "triage")
    builder.add_edge("triage", "checks")
    builder.add_edge("checks", "approval")
    builder.add_edge("checks", "notify")
    builder.add_edge("approval", END)
    return builder.compile(checkpointer=saver)


def interrupt_app(saver: Any, thread_id: str) -> tuple[Any, list[LiveTask]]:
    graph = interrupt_graph(saver)
    inputs = [{"request": "refund", "log": []}, Command(resume="yes")]
    return graph, drive(graph, inputs, thread_id)


SCENARIOS: dict[str, Callable[[Any, str], tuple[Any, list[LiveTask]]]] = {
    "agent": agent_app,
    "fan_out": fan_out_app,
    "conflict": conflict_app,
    "interrupt": interrupt_app,
}
