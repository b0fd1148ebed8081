"""The workloads both benchmarks run, built against any namespace with LangGraph's names."""

import argparse
import operator
from typing import Annotated, Any, TypedDict

from engine import Hooks

LOOP_STEPS = 2000
FAN_WIDTH = 64
FAN_RUNS = 20
MESSAGE_STEPS = 500


class KeepEverything(Hooks):
    """Keeps every event the engine emits, as emitted: the cost of observing a run, without turning
    it into a Trace (benchmarks/trace.py measures the full Recorder). The engine's event objects are
    already per-step snapshots (a fresh task list per step, a copy of the versions per barrier), so
    keeping them is keeping the events; nothing is copied again here."""

    def __init__(self) -> None:
        self.events: list[tuple[Any, ...]] = []

    def run_started(self, *, ns, run):
        self.events.append(("run", ns, run))

    def step_planned(self, *, ns, step, tasks):
        self.events.append(("planned", ns, step, tasks))

    def task_finished(self, *, ns, step, task):
        self.events.append(("task", ns, step, task))

    def reducer_called(self, *, ns, call):
        self.events.append(("reducer", ns, call))

    def step_committed(self, *, ns, commit):
        self.events.append(("commit", ns, commit))

    def run_finished(self, *, ns, status, output, error, step):
        self.events.append(("end", ns, status, output, error))


class Counter(TypedDict):
    n: Annotated[int, operator.add]


class Fan(TypedDict):
    results: Annotated[list, operator.add]
    total: int


def build_loop(lib: Any) -> tuple[Any, dict, dict]:
    def inc(state: Counter) -> dict:
        return {"n": 1}

    def again(state: Counter) -> str:
        return "inc" if state["n"] < LOOP_STEPS else lib.END

    g = lib.StateGraph(Counter)
    g.add_node("inc", inc)
    g.add_edge(lib.START, "inc")
    g.add_conditional_edges("inc", again, ["inc", lib.END])
    return g.compile(), {"n": 0}, {"recursion_limit": LOOP_STEPS + 10}


def build_fan(lib: Any) -> tuple[Any, dict, dict]:
    g = lib.StateGraph(Fan)
    g.add_node("split", lambda s: {"results": []})
    names = [f"w{i:02d}" for i in range(FAN_WIDTH)]
    for i, name in enumerate(names):
        g.add_node(name, lambda s, i=i: {"results": [i]})
        g.add_edge("split", name)
    g.add_node("join", lambda s: {"total": sum(s["results"])})
    g.add_edge(lib.START, "split")
    g.add_edge(names, "join")
    return g.compile(), {"results": []}, {}


def build_messages(lib: Any, steps: int = MESSAGE_STEPS) -> tuple[Any, dict, dict]:
    """A loop that appends one AI message per step until the list holds `steps` messages."""

    def speak(state: dict) -> dict:
        return {"messages": [lib.AIMessage(content=f"turn {len(state['messages'])}")]}

    def again(state: dict) -> str:
        return "speak" if len(state["messages"]) < steps else lib.END

    g = lib.StateGraph(lib.MessagesState)
    g.add_node("speak", speak)
    g.add_edge(lib.START, "speak")
    g.add_conditional_edges("speak", again, ["speak", lib.END])
    return g.compile(), {"messages": [lib.HumanMessage(content="hi")]}, {"recursion_limit": steps + 10}


def langgraph_namespace() -> Any:
    """The real library's names, or exit with how to install it."""
    try:
        import langchain_core.messages as lc_messages
        import langgraph.graph as lg_graph
    except ImportError:
        raise SystemExit("langgraph is not installed: `make install-test` installs it (test extra).")
    return argparse.Namespace(
        StateGraph=lg_graph.StateGraph,
        START=lg_graph.START,
        END=lg_graph.END,
        MessagesState=lg_graph.MessagesState,
        AIMessage=lc_messages.AIMessage,
        HumanMessage=lc_messages.HumanMessage,
    )


def floor_loop() -> None:
    n = 0
    while True:
        n = operator.add(n, {"n": 1}["n"])
        if not n < LOOP_STEPS:
            break


def floor_fan() -> None:
    for _ in range(FAN_RUNS):
        results: list = []
        for i in range(FAN_WIDTH):
            results = operator.add(results, [i])
        sum(results)


def floor_messages() -> None:
    import engine

    messages = [engine.HumanMessage(content="hi", id="0")]
    while len(messages) < MESSAGE_STEPS:
        messages = engine.add_messages(messages, [engine.AIMessage(content=f"turn {len(messages)}")])
