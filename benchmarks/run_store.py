"""Recording a 1,000-step run into each run store, streamed superstep by superstep, side by side.

One engine graph loops one node 1,000 times (each step appends a short message to a list, the
shape of a chat agent). It is recorded with a `Recorder` whose sink is `StoreSink` (what `stepscope
run` does) into:

- the SQLite store (a file in a temporary folder),
- the PostgreSQL store (a server started here in a temporary folder, as the tests do: Debian's
  `postgresql`, on 127.0.0.1 over TCP), with `fsync` on, as production runs it (SQLite syncs each
  commit too), and with `fsync=off` as the tests' server runs, to show what the disk costs,

and, as references, with no store at all (the recorder alone) and into PostgreSQL written whole at
the end (`save`, what version 1 of the PostgreSQL store did, which lost every step of a killed run).
For each it prints the time per superstep, the ratios to SQLite and the store's write transactions per
run (the sink commits a batch of supersteps every `BATCH_STEPS` steps or `BATCH_SECONDS`: each commit
waits for the disk). Best of `--repeat` runs.

Run: `.venv/bin/python benchmarks/run_store.py [--steps 1000] [--repeat 3]`.
"""

import argparse
import operator
import sys
import tempfile
import time
from pathlib import Path
from typing import Annotated, Any, Callable, TypedDict

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "threads"))  # the tests' PostgreSQL server helper

from debugger.sources.recording import StoreSink  # noqa: E402
from debugger.stores.postgres import PostgresRunStore  # noqa: E402
from debugger.stores.sqlite import RunStore  # noqa: E402
from engine import END, START, StateGraph  # noqa: E402
from engine.trace import Recorder  # noqa: E402


class Chat(TypedDict):
    messages: Annotated[list, operator.add]


def build(steps: int) -> Any:
    graph = StateGraph(Chat)
    graph.add_node("reply", lambda s: {"messages": [f"message {len(s['messages'])}: the quick brown fox"]})
    graph.add_edge(START, "reply")
    graph.add_conditional_edges("reply", lambda s: "reply" if len(s["messages"]) < steps else END)
    return graph.compile()


WRITES: dict[int, int] = {}
"""Write transactions of the last run of each way (by the id of its `record` function)."""


def streamed(store: Any) -> Callable[[Any], str]:
    def record(graph: Any) -> str:
        sink = StoreSink(store)
        recorder = Recorder(target="bench", sink=sink)
        graph.invoke({"messages": []}, {"recursion_limit": 100_000}, hooks=recorder)
        sink.finish(recorder.trace)
        assert sink.error is None, sink.error
        WRITES[id(record)] = sink.writes
        return recorder.trace.run_id

    return record


def whole_at_end(store: Any) -> Callable[[Any], str]:
    def record(graph: Any) -> str:
        recorder = Recorder(target="bench")
        graph.invoke({"messages": []}, {"recursion_limit": 100_000}, hooks=recorder)
        WRITES[id(record)] = 1
        return store.save(recorder.trace)

    return record


def bare(graph: Any) -> str:
    recorder = Recorder(target="bench")
    graph.invoke({"messages": []}, {"recursion_limit": 100_000}, hooks=recorder)
    return recorder.trace.run_id


def best(record: Callable[[Any], str], graph: Any, repeat: int, check: Callable[[str], None] | None) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        run_id = record(graph)
        times.append(time.perf_counter() - started)
        if check is not None:
            check(run_id)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    from postgres_server import PostgresServer

    graph = build(args.steps)
    supersteps = args.steps + 1  # the loop's steps and the input's step 0

    def stored_whole(store: Any) -> Callable[[str], None]:
        def check(run_id: str) -> None:
            steps = [s for s in store.load(run_id).steps if s.step >= 0]
            assert len(steps) == supersteps, (len(steps), supersteps)

        return check

    servers = [PostgresServer(fsync=True).start(), PostgresServer(fsync=False).start()]
    try:
        with tempfile.TemporaryDirectory() as folder:
            sqlite = RunStore(Path(folder) / "runs.sqlite3")
            durable, fast = (PostgresRunStore(server.create_database("bench")) for server in servers)
            ways = [
                ("recorder alone (no store)", bare, None),
                ("SQLite, streamed", streamed(sqlite), stored_whole(sqlite)),
                ("PostgreSQL, streamed", streamed(durable), stored_whole(durable)),
                ("PostgreSQL, whole at the end", whole_at_end(durable), stored_whole(durable)),
                ("PostgreSQL fsync=off, streamed", streamed(fast), stored_whole(fast)),
            ]
            rows = [
                (name, best(record, graph, args.repeat, check), WRITES.get(id(record), 0))
                for name, record, check in ways
            ]
    finally:
        for server in servers:
            server.stop()
    sqlite_time = rows[1][1]
    print(f"{args.steps}-step run ({supersteps} supersteps), best of {args.repeat}")
    print(f"{'':34}{'total s':>10}{'ms/step':>10}{'/ SQLite':>10}{'writes':>8}")
    for name, seconds, writes in rows:
        print(f"{name:34}{seconds:10.3f}{seconds / supersteps * 1000:10.3f}{seconds / sqlite_time:10.2f}{writes:8}")


if __name__ == "__main__":
    main()
