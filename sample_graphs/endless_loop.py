"""A loop whose stop condition never becomes true, ended by the recursion limit.

`attempts` is a plain key and the node returns `{"attempts": 1}` meaning "one more". Without a
reducer that is an overwrite: `attempts` stays 1, the router never says END, and after
`recursion_limit` supersteps LangGraph raises GraphRecursionError. The sample runs with
`example_config = {"recursion_limit": 25}`; LangGraph 1.2's default limit is 10007.
"""

import operator
import sys
from pathlib import Path
from typing import Annotated, TypedDict

if __package__ in (None, ""):  # `python sample_graphs/endless_loop.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import END, START, StateGraph
from sample_graphs._show import show

MAX_ATTEMPTS = 3
RECURSION_LIMIT = 25

title = "A loop that never stops: the recursion limit ends it"
summary = (
    "A counter that is overwritten instead of added never reaches its stop condition; the recursion limit ends the run."
)
source = "loops (seed 003, section 06) and additive counters (seed 000)"
lesson = (
    "`try_once` returns `{'attempts': 1}`, meaning 'one more attempt', and the router ends the loop once "
    "`attempts` reaches 3. "
    "But `attempts: int` has no reducer, so every write replaces the old value: it is 1 after every step, "
    "the condition never holds and the loop would run forever. "
    "LangGraph stops it after `recursion_limit` supersteps with GraphRecursionError ('Recursion limit of 25 "
    "reached without hitting a stop condition.'); this sample passes `{'recursion_limit': 25}` as "
    "`example_config`, because LangGraph 1.2's default limit is 10007 supersteps. "
    "Raising the limit only delays the error; make the counter additive "
    "(`attempts: Annotated[int, operator.add]`), and `fixed_graph` stops after three attempts."
)


class OverwrittenCounter(TypedDict):
    attempts: int  # no reducer: each write replaces the value


class AddingCounter(TypedDict):
    attempts: Annotated[int, operator.add]  # each write is added


def build(schema):
    def try_once(state) -> dict:
        return {"attempts": 1}  # "one more attempt"

    def again_or_stop(state) -> str:
        return END if state["attempts"] >= MAX_ATTEMPTS else "try_once"

    builder = StateGraph(schema)
    builder.add_node("try_once", try_once)
    builder.add_edge(START, "try_once")
    builder.add_conditional_edges("try_once", again_or_stop, ["try_once", END])
    return builder.compile()


graph = build(OverwrittenCounter)
example_input = {"attempts": 0}
fixed_graph = build(AddingCounter)
fixed_input = example_input
#: Passed as `config` to invoke/stream: keeps the failing run short (LangGraph 1.2's default is 10007).
example_config = {"recursion_limit": RECURSION_LIMIT}

if __name__ == "__main__":
    show("broken", graph, example_input, example_config)
    show("fixed ", fixed_graph, fixed_input, example_config)
