"""Engine speed, side by side in one process: our engine bare, our engine with a hook that keeps every
event, the real `langgraph`, and a bare Python loop doing the same arithmetic (the floor).

Run: `.venv/bin/python benchmarks/engine.py [--repeat N]`. Prints the median wall time of each
workload per implementation and the ratios against langgraph. Rounds are interleaved (engine,
engine+hook, langgraph, floor, engine, ...) so a machine that drifts affects all of them alike.
Target (issue 2): engine with the hook <= 0.1x langgraph on the loop and on the fan-out.
"""

import argparse
import operator
import statistics
import sys
import time
from pathlib import Path
from typing import Annotated, Any, Callable, TypedDict

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import engine  # noqa: E402
from engine.hooks import Hooks  # noqa: E402

LOOP_STEPS = 2000
FAN_WIDTH = 64
FAN_RUNS = 20
MESSAGE_STEPS = 500


class KeepEverything(Hooks):
    """Keeps every event the engine emits: the cost of full observation without serialisation."""

    def __init__(self) -> None:
        self.events: list[tuple[Any, ...]] = []

    def run_started(self, *, ns, run):
        self.events.append(("run", ns, run))

    def step_planned(self, *, ns, step, tasks):
        self.events.append(("planned", ns, step, list(tasks)))

    def task_finished(self, *, ns, step, task):
        self.events.append(("task", ns, step, task.result, list(task.writes), task.duration))

    def reducer_called(self, *, ns, call):
        self.events.append(("reducer", ns, call))

    def step_committed(self, *, ns, commit):
        self.events.append(("commit", ns, commit.step, commit.versions, commit.read(None)))

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


def build_messages(lib: Any) -> tuple[Any, dict, dict]:
    def speak(state: dict) -> dict:
        return {"messages": [lib.AIMessage(content=f"turn {len(state['messages'])}")]}

    def again(state: dict) -> str:
        return "speak" if len(state["messages"]) < MESSAGE_STEPS else lib.END

    g = lib.StateGraph(lib.MessagesState)
    g.add_node("speak", speak)
    g.add_edge(lib.START, "speak")
    g.add_conditional_edges("speak", again, ["speak", lib.END])
    return g.compile(), {"messages": [lib.HumanMessage(content="hi")]}, {"recursion_limit": MESSAGE_STEPS + 10}


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
    messages = [engine.HumanMessage(content="hi", id="0")]
    while len(messages) < MESSAGE_STEPS:
        messages = engine.add_messages(messages, [engine.AIMessage(content=f"turn {len(messages)}")])


def runner(lib: Any, build: Callable, with_hook: bool, times: int = 1) -> Callable[[], Any]:
    app, inp, config = build(lib)

    def run() -> Any:
        for _ in range(times):
            if with_hook:
                out = app.invoke(inp, config, hooks=KeepEverything())
            else:
                out = app.invoke(inp, config)
        return out

    return run


def measure(fn: Callable[[], Any]) -> float:
    start = time.perf_counter()
    fn()
    return time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="interleaved rounds per workload (median reported)")
    args = parser.parse_args()
    try:
        import langchain_core.messages as lc_messages
        import langgraph.graph as lg_graph
    except ImportError:
        sys.exit("langgraph is not installed: `make install-test` installs it (test extra).")
    langgraph = argparse.Namespace(
        StateGraph=lg_graph.StateGraph, START=lg_graph.START, END=lg_graph.END, MessagesState=lg_graph.MessagesState,
        AIMessage=lc_messages.AIMessage, HumanMessage=lc_messages.HumanMessage,
    )
    workloads = [
        (f"loop: {LOOP_STEPS}-step self-loop, counter reducer", build_loop, 1, floor_loop),
        (f"fan-out: {FAN_WIDTH} wide + waiting edge, x{FAN_RUNS} runs", build_fan, FAN_RUNS, floor_fan),
        (f"messages: {MESSAGE_STEPS}-step add_messages loop", build_messages, 1, floor_messages),
    ]
    print(f"python {sys.version.split()[0]}; median of {args.repeat} interleaved rounds; wall seconds")
    header = f"{'workload':48} {'engine':>9} {'eng+hook':>9} {'langgraph':>10} {'floor':>9} {'eng/lg':>7} {'hook/lg':>8}"
    print(header)
    print("-" * len(header))
    for title, build, times, floor in workloads:
        candidates = {
            "engine": runner(engine, build, False, times),
            "hook": runner(engine, build, True, times),
            "langgraph": runner(langgraph, build, False, times),
            "floor": floor,
        }
        for fn in candidates.values():  # warm-up: imports, thread pools, caches
            fn()
        samples: dict[str, list[float]] = {name: [] for name in candidates}
        for _ in range(args.repeat):
            for name, fn in candidates.items():
                samples[name].append(measure(fn))
        med = {name: statistics.median(values) for name, values in samples.items()}
        print(
            f"{title:48} {med['engine']:9.4f} {med['hook']:9.4f} {med['langgraph']:10.4f} {med['floor']:9.5f} "
            f"{med['engine'] / med['langgraph']:7.3f} {med['hook'] / med['langgraph']:8.3f}"
        )


if __name__ == "__main__":
    main()
