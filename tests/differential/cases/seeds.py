"""Differential cases: The seed articles, translated to Python."""

# No `from __future__ import annotations`: state schemas defined inside builders refer to local names.
import operator
from collections import Counter
from typing import Annotated, TypedDict

from ._common import Built, case, conflict, sleep_ms


@case(expect={"error": ("InvalidUpdateError", conflict("messages"))})
def build_seed000_race_whole_list_plain_key(lg):
    """Seed 000: two parallel nodes read [] and write back the whole list into a plain key."""

    class S(TypedDict):
        messages: list

    def node_a(s):
        return {"messages": [*s["messages"], "msgA"]}

    def node_b(s):
        return {"messages": [*s["messages"], "msgB"]}

    b = lg.StateGraph(S)
    b.add_node("node_a", node_a)
    b.add_node("node_b", node_b)
    b.add_edge(lg.START, "node_a")
    b.add_edge(lg.START, "node_b")
    return Built(b, {"messages": []})


@case(expect={"result": {"messages": ["msgA", "msgB"]}})
def build_seed000_race_deltas_reducer_key(lg):
    """Seed 000, the fix: nodes only send deltas into an operator.add key."""

    class S(TypedDict):
        messages: Annotated[list, operator.add]

    def node_a(s):
        sleep_ms(8)
        return {"messages": ["msgA"]}

    def node_b(s):
        return {"messages": ["msgB"]}

    b = lg.StateGraph(S)
    b.add_node("node_a", node_a)
    b.add_node("node_b", node_b)
    b.add_edge(lg.START, "node_a")
    b.add_edge(lg.START, "node_b")
    return Built(b, {"messages": []})


@case(
    expect={
        "result": {"messages": ["try-1", "try-2", "try-3"], "retries": 3, "answer": "final after 3"},
    }
)
def build_seed000_retries_and_answer(lg):
    """Seed 000: `retries` accumulates (nodes send 1), `answer` is overwritten by a single writer per
    step, `messages` appends; a loop retries until three attempts."""

    class S(TypedDict):
        messages: Annotated[list, operator.add]
        retries: Annotated[int, operator.add]
        answer: str

    def attempt(s):
        n = s["retries"] + 1
        return {"messages": [f"try-{n}"], "retries": 1, "answer": f"draft {n}"}

    def finish(s):
        return {"answer": f"final after {s['retries']}"}

    b = lg.StateGraph(S)
    b.add_node("attempt", attempt)
    b.add_node("finish", finish)
    b.add_edge(lg.START, "attempt")
    b.add_conditional_edges("attempt", lambda s: "finish" if s["retries"] >= 3 else "attempt", ["attempt", "finish"])
    b.add_edge("finish", lg.END)
    return Built(b, {"messages": []})


@case(expect={"error": ("InvalidUpdateError", conflict("v"))})
def build_seed001_refund_parallel_lookups(lg):
    """Seed 001 6.1: the refund assistant looks up the order (x) and the user history (y) in parallel;
    both write the plain key v."""

    class P(TypedDict):
        v: int

    def x(s):
        return {"v": 1}

    def y(s):
        return {"v": 2}

    builder = lg.StateGraph(P)
    builder.add_node("x", x)
    builder.add_node("y", y)
    builder.add_edge(lg.START, "x")
    builder.add_edge(lg.START, "y")
    return Built(builder, {"v": 0})


@case(expect={"result": {"steps": ["a", "b"], "amount": 9.5, "n": 4}})
def build_seed001_reducer_table(lg):
    """Seed 001 6.2: `steps` with operator.add gets ["a", "b"] from parallel A and B; the plain key
    `n` written 2 then 4 in consecutive steps ends at 4 (last writer wins); `amount` has no reducer."""

    class TicketState(TypedDict):
        steps: Annotated[list[str], operator.add]
        amount: float
        n: int

    b = lg.StateGraph(TicketState)
    b.add_node("A", lambda s: {"steps": ["a"]})
    b.add_node("B", lambda s: {"steps": ["b"], "n": 2})
    b.add_node("C", lambda s: {"n": 4, "amount": 9.5})
    b.add_edge(lg.START, "A")
    b.add_edge(lg.START, "B")
    b.add_edge("B", "C")
    return Built(b, {"amount": 1.0})


def _fake_llm(lg, script: list):
    """A scripted chat model: returns the next AIMessage of `script` on each call."""
    calls: list = []

    def invoke(messages):
        calls.append(len(messages))
        return script[len(calls) - 1]

    return invoke, calls


def add(a: int, b: int) -> int:
    """A real tool."""
    return a + b


def multiply(a: int, b: int) -> int:
    return a * b


TOOLS = {"add": add, "multiply": multiply}


@case(
    expect={
        "result": {
            "messages": [
                ("HumanMessage", "human", "你好，介绍一下自己", None, None, None, "<uuid-1>"),
                ("AIMessage", "ai", "I am a scripted model.", None, [], None, "<uuid-2>"),
            ]
        },
        "probe": [1],
    }
)
def build_seed003_single_node_agent(lg):
    """Seed 003 section 04: a single-node LLM agent, messages appended by a reducer."""
    llm, calls = _fake_llm(lg, [lg.AIMessage("I am a scripted model.")])

    class AgentState(TypedDict):
        messages: Annotated[list, lg.add_messages]

    def call_llm(state):
        return {"messages": [llm(state["messages"])]}

    b = lg.StateGraph(AgentState)
    b.add_node("llm", call_llm)
    b.add_edge(lg.START, "llm")
    b.add_edge("llm", lg.END)
    return Built(b, {"messages": [lg.HumanMessage("你好，介绍一下自己")]}, probe=lambda: calls)


@case(
    expect={
        "result": {
            "messages": [
                ("HumanMessage", "human", "What is (2 + 3) * 4?", None, None, None, "<uuid-1>"),
                (
                    "AIMessage",
                    "ai",
                    "",
                    None,
                    [{"name": "add", "args": {"a": 2, "b": 3}, "id": "call_1", "type": "tool_call"}],
                    None,
                    "<uuid-2>",
                ),
                ("ToolMessage", "tool", "5", "add", None, "call_1", "<uuid-3>"),
                (
                    "AIMessage",
                    "ai",
                    "",
                    None,
                    [{"name": "multiply", "args": {"a": 5, "b": 4}, "id": "call_2", "type": "tool_call"}],
                    None,
                    "<uuid-4>",
                ),
                ("ToolMessage", "tool", "20", "multiply", None, "call_2", "<uuid-5>"),
                ("AIMessage", "ai", "The answer is 20.", None, [], None, "<uuid-6>"),
            ]
        },
        "probe": [1, 3, 5],
    }
)
def build_seed003_react_loop(lg):
    """Seed 003 section 06: the ReAct loop llm -> tools -> llm with a scripted model and real tools."""
    llm, calls = _fake_llm(
        lg,
        [
            lg.AIMessage("", tool_calls=[{"name": "add", "args": {"a": 2, "b": 3}, "id": "call_1"}]),
            lg.AIMessage("", tool_calls=[{"name": "multiply", "args": {"a": 5, "b": 4}, "id": "call_2"}]),
            lg.AIMessage("The answer is 20."),
        ],
    )

    def call_llm(state: lg.MessagesState):
        return {"messages": [llm(state["messages"])]}

    def call_tools(state: lg.MessagesState):
        last = state["messages"][-1]
        out = []
        for call in last.tool_calls:
            result = TOOLS[call["name"]](**call["args"])
            out.append(lg.ToolMessage(str(result), tool_call_id=call["id"], name=call["name"]))
        return {"messages": out}

    def route_after_llm(state: lg.MessagesState) -> str:
        last = state["messages"][-1]
        if getattr(last, "tool_calls", None):
            return "tools"
        return lg.END

    b = lg.StateGraph(lg.MessagesState)
    b.add_node("llm", call_llm)
    b.add_node("tools", call_tools)
    b.add_edge(lg.START, "llm")
    b.add_conditional_edges("llm", route_after_llm, {"tools": "tools", lg.END: lg.END})
    b.add_edge("tools", "llm")
    return Built(b, {"messages": [lg.HumanMessage("What is (2 + 3) * 4?")]}, probe=lambda: calls)


@case(
    expect={
        "result": {
            "query": "langgraph",
            "results": ["db:langgraph", "web:langgraph"],
            "merged": "db:langgraph | web:langgraph",
        },
        "probe": {"merge": 1},
    }
)
def build_seed003_fan_out_search(lg):
    """Seed 003 section 07: start -> search_web, search_db (parallel) -> merge -> END."""
    runs = Counter()

    class S(TypedDict):
        query: str
        results: Annotated[list, operator.add]
        merged: str

    def start_node(s):
        return {}

    def search_web(s):
        sleep_ms(10)
        return {"results": [f"web:{s['query']}"]}

    def search_db(s):
        return {"results": [f"db:{s['query']}"]}

    def merge_results(s):
        runs["merge"] += 1
        return {"merged": " | ".join(sorted(s["results"]))}

    b = lg.StateGraph(S)
    b.add_node("start", start_node)
    b.add_node("search_web", search_web)
    b.add_node("search_db", search_db)
    b.add_node("merge", merge_results)
    b.add_edge(lg.START, "start")
    b.add_edge("start", "search_web")
    b.add_edge("start", "search_db")
    b.add_edge("search_web", "merge")
    b.add_edge("search_db", "merge")
    b.add_edge("merge", lg.END)
    return Built(b, {"query": "langgraph"}, probe=lambda: dict(runs))
