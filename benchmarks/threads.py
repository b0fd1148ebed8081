"""Opening a 1,000-checkpoint thread from each checkpointer backend, measured side by side.

A chat-like langgraph app runs 1,000 supersteps on one thread (one node that appends a message per
step, `add_messages`), stored by langgraph's own SqliteSaver and PostgresSaver (a PostgreSQL server
started here in a temporary folder, as the tests do). For each backend it prints:

- read: `saver.list()` of the whole thread through langgraph's saver (what any reader pays),
- history: langgraph's own `get_state_history` (what a user would otherwise call),
- first view: what the app opens a thread with (its newest `FIRST_VIEW_STEPS` steps rebuilt, the
  checkpointer opened and closed), and `show --step N` of the thread's middle step (that step alone),
- rebuild: `read_thread` of the whole thread (what `diagnose` needs), every reducer call checked,
- the ratios rebuild / read and rebuild / history (goals: first view under 1 s; rebuild at most 0.3x
  history on PostgreSQL, at most 1.0x on SQLite),
- reopen: the same thread again (from the cache of rebuilt threads), and reopen grown: after the
  conversation went on by a dozen checkpoints (the cached steps and only the new checkpoints).

Also the threads listing (`stepscope threads`) over that database. Median of `--repeat` runs.

The LangGraph.js row: a JS loop app (`tests/langgraphjs/apps/thread_loop.mjs`, one message appended per step)
writes a thread of as many checkpoints on `@langchain/langgraph-checkpoint-sqlite`, and it is opened as
the app opens it (rebuilt in node by LangGraph.js's own code): first view, `show --step N` of its middle
step, and the whole thread; beside them node's own start (loading the app and LangGraph.js, describing
the graph, nothing read), which every read of a JS thread pays once and no window can save.

Run: `.venv/bin/python benchmarks/threads.py [--checkpoints 1000] [--repeat 1]` (about 3 minutes: reading
a thread whose state grows each step costs langgraph's savers time quadratic in its length).
"""

import argparse
import os
import sqlite3
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Annotated, Any, Callable, TypedDict

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "threads"))  # the tests' PostgreSQL server helper


from langgraph.graph.message import add_messages  # noqa: E402


class Chat(TypedDict):
    messages: Annotated[list, add_messages]
    turns: int


def build(saver: Any) -> Any:
    from langchain_core.messages import AIMessage
    from langgraph.graph import START, StateGraph

    def reply(state: Chat) -> dict[str, Any]:
        n = state.get("turns", 0) + 1
        return {"messages": [AIMessage(f"reply {n}", id=f"m{n}")], "turns": n}

    builder = StateGraph(Chat)
    builder.add_node("reply", reply)
    builder.add_edge(START, "reply")
    builder.add_conditional_edges("reply", lambda s: "reply" if s["turns"] < LIMIT[0] else "__end__")
    return builder.compile(checkpointer=saver)


LIMIT = [1000]
"""Replies the app makes before it stops (set per measurement)."""


def best(fn: Callable[[], Any], repeat: int) -> float:
    """The median wall time of `repeat` runs of `fn` (the machine is shared: one run can be unlucky)."""
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def cpu(fn: Callable[[], Any], repeat: int) -> float:
    """The median CPU seconds of `repeat` runs of `fn`, this process's and its finished children's (node):
    what the work costs, less swayed than wall time by other jobs on a loaded machine."""
    spent = []
    for _ in range(repeat):
        before = os.times()
        fn()
        after = os.times()
        spent.append(sum(after[:4]) - sum(before[:4]))  # user, system, children's user, children's system
    return statistics.median(spent)


def measure(label: str, url: str, saver: Any, checkpoints: int, repeat: int) -> None:
    from debugger.runtimes.checkpointers.open import FIRST_VIEW_STEPS
    from debugger.runtimes.checkpointers.savers import open_checkpointer
    from debugger.runtimes.langgraph.threads.cache import CACHE_ENV
    from debugger.runtimes.langgraph.threads.reader import read_thread
    from debugger.runtimes.threads_api import ThreadRead

    LIMIT[0] = checkpoints - 2  # input checkpoint + __start__ step + one per reply
    graph = build(saver)
    config = {"configurable": {"thread_id": "long"}, "recursion_limit": checkpoints + 10}
    graph.invoke({"messages": [("user", "hi")], "turns": 0}, config)
    stored = len(list(saver.list({"configurable": {"thread_id": "long"}})))

    def read() -> None:
        with open_checkpointer(url) as checkpointer:
            checkpointer.history("long")

    def history() -> None:
        list(graph.get_state_history({"configurable": {"thread_id": "long"}}))

    def open_thread() -> None:
        with open_checkpointer(url) as checkpointer:
            trace = read_thread(checkpointer, graph, ThreadRead("long"))
        assert trace.status == "done" and not any(s.mismatches for s in trace.steps)
        assert len(trace.steps) == stored, (len(trace.steps), stored)

    def first_view() -> None:
        with open_checkpointer(url) as checkpointer:
            trace = read_thread(checkpointer, graph, ThreadRead("long", newest=FIRST_VIEW_STEPS))
        assert trace.status == "done" and len(trace.steps) == FIRST_VIEW_STEPS + 1

    def show_middle() -> None:
        with open_checkpointer(url) as checkpointer:
            trace = read_thread(checkpointer, graph, ThreadRead("long", step=stored // 2))
        assert trace.steps[1].step == stored // 2 and trace.status == "done"

    def listing() -> None:
        with open_checkpointer(url) as checkpointer:
            checkpointer.threads()

    os.environ[CACHE_ENV] = "off"  # the rebuild measured cold, as the first `diagnose` of a thread pays it
    t_first, t_middle = best(first_view, repeat), best(show_middle, repeat)
    t_read, t_history, t_open, t_list = (best(f, repeat) for f in (read, history, open_thread, listing))
    with tempfile.TemporaryDirectory() as cache:
        os.environ[CACHE_ENV] = cache
        open_thread()  # fills the cache
        t_again = best(open_thread, repeat)
        LIMIT[0] += 10  # the conversation goes on: ten more replies after a new message
        graph.invoke({"messages": [("user", "more")]}, config)
        grown = len(list(saver.list({"configurable": {"thread_id": "long"}}))) - stored
        stored += grown
        start = time.perf_counter()
        open_thread()
        t_grown = time.perf_counter() - start
    os.environ.pop(CACHE_ENV)
    print(
        f"{label:<11} {stored - grown:>11} {t_first:>8.2f} s {t_middle:>8.2f} s {t_read:>8.2f} s {t_history:>9.2f} s "
        f"{t_open:>8.2f} s {t_open / t_read:>11.2f}x {t_open / t_history:>14.2f}x {t_again:>8.2f} s "
        f"{t_grown:>7.2f} s (+{grown}) {t_list * 1000:>8.1f} ms"
    )


JS_APP = ROOT / "tests" / "langgraphjs" / "apps" / "thread_loop.mjs"


def measure_js(folder: str, checkpoints: int, repeat: int) -> None:
    """The LangGraph.js row: a thread of `checkpoints` checkpoints written by the JS loop app, opened."""
    import subprocess

    from debugger.runtimes.checkpointers.open import FIRST_VIEW_STEPS
    from debugger.runtimes.checkpointers.savers import open_checkpointer
    from debugger.runtimes.langgraphjs.runtime import describe
    from debugger.runtimes.langgraphjs.threads import read_js_thread
    from debugger.runtimes.threads_api import ThreadRead

    path = str(Path(folder) / "js-app.sqlite")
    items = checkpoints - 2  # input checkpoint + __start__ step + one per item
    write = (
        f"const {{ graph }} = await import({JS_APP.as_uri()!r});"
        f"const config = {{ configurable: {{ thread_id: 'long' }}, recursionLimit: {items + 10} }};"
        f"await graph.invoke({{ steps: {items} }}, config);"
    )
    env = {**os.environ, "STEPSCOPE_TEST_THREADS": path}
    subprocess.run(["node", "--input-type=module", "-e", write], check=True, env=env, cwd=ROOT)
    graph = describe(JS_APP)
    with open_checkpointer(path) as checkpointer:
        stored = len(checkpointer.root_checkpoints("long"))

    def read(part: ThreadRead) -> Any:
        with open_checkpointer(path) as checkpointer:
            return read_js_thread(checkpointer, graph, part)

    def first_view() -> None:
        trace = read(ThreadRead("long", newest=FIRST_VIEW_STEPS))
        assert trace.status == "done" and len(trace.steps) == FIRST_VIEW_STEPS + 1

    def show_middle() -> None:
        trace = read(ThreadRead("long", step=stored // 2))
        assert trace.steps[1].step == stored // 2 and trace.status == "done"

    def whole() -> None:
        trace = read(ThreadRead("long"))
        assert trace.status == "done" and len(trace.steps) == stored and not any(s.mismatches for s in trace.steps)

    def start() -> None:
        describe(JS_APP)

    t_start, t_first, t_middle, t_whole = (best(f, repeat) for f in (start, first_view, show_middle, whole))
    c_start, c_first, c_middle, c_whole = (cpu(f, repeat) for f in (start, first_view, show_middle, whole))
    for kind, (a, b, c, d) in (
        ("wall", (t_first, t_middle, t_whole, t_start)),
        ("cpu", (c_first, c_middle, c_whole, c_start)),
    ):
        print(
            f"{'sqlite (js)':<12} {kind:<5} {stored:>11} {a:>8.2f} s {b:>8.2f} s {c:>10.2f} s "
            f"{c / a:>10.1f}x {d:>10.2f} s {a - d:>14.2f} s"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--checkpoints", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--only", choices=("sqlite", "postgresql", "js"), help="measure one backend")
    args = parser.parse_args()

    import psycopg
    from langgraph.checkpoint.postgres import PostgresSaver
    from langgraph.checkpoint.sqlite import SqliteSaver
    from postgres_server import PostgresServer
    from psycopg.rows import dict_row

    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    print(f"opening a thread of {args.checkpoints} checkpoints (median of {args.repeat}; load average {load})")
    if args.only in (None, "js"):
        print(
            f"{'LangGraph.js':<12} {'time':<5} {'checkpoints':>11} {'first view':>10} {'show mid':>10} "
            f"{'whole thread':>12} {'whole/first':>11} {'node start':>12} {'first - start':>16}"
        )
        with tempfile.TemporaryDirectory() as folder:
            measure_js(folder, args.checkpoints, args.repeat)
        if args.only == "js":
            return
    print(
        f"{'backend':<11} {'checkpoints':>11} {'first view':>10} {'show mid':>10} {'read':>10} {'history':>11} "
        f"{'rebuild':>10} {'rebuild/read':>12} {'rebuild/history':>15} {'reopen':>10} {'reopen grown':>15} "
        f"{'threads':>11}"
    )
    if args.only != "postgresql":
        with tempfile.TemporaryDirectory() as folder:
            path = str(Path(folder) / "app.sqlite")
            conn = sqlite3.connect(path, check_same_thread=False)
            measure("sqlite", path, SqliteSaver(conn), args.checkpoints, args.repeat)
            conn.close()
    if args.only == "sqlite":
        return
    server = PostgresServer().start()
    try:
        url = server.create_database("bench")
        with psycopg.connect(url, autocommit=True, prepare_threshold=0, row_factory=dict_row) as conn:
            saver = PostgresSaver(conn)
            saver.setup()
            measure("postgresql", url, saver, args.checkpoints, args.repeat)
    finally:
        server.stop()


if __name__ == "__main__":
    main()
