"""A user's tests whose second graph run hangs in its step 3 (copied by test_plugin_stopped.py as
test_user.py): the first test's run ends, the second's never does until the session is stopped. The
graphs are StepScope engine graphs, or langgraph ones where `HANGING_GRAPHS=langgraph`."""

import operator
import os
import time
from typing import Annotated, TypedDict

if os.environ.get("HANGING_GRAPHS") == "langgraph":
    from langgraph.graph import END, START, StateGraph
else:
    from engine import END, START, StateGraph


class Count(TypedDict):
    n: Annotated[int, operator.add]


def counter(hang_at: int | None = None) -> object:
    """Counts to 5, one `tick` a superstep (steps 1 to 5); with `hang_at`, the tick that sees that count
    never returns (`hang_at=2`: the tick of step 3)."""

    def tick(state: Count) -> dict:
        while state["n"] == hang_at:  # a network call without a timeout, say
            time.sleep(0.05)
        return {"n": 1}

    graph = StateGraph(Count)
    graph.add_node("tick", tick)
    graph.add_edge(START, "tick")
    graph.add_conditional_edges("tick", lambda state: END if state["n"] >= 5 else "tick")
    return graph.compile()


def test_counts_to_five():
    assert counter().invoke({"n": 0}) == {"n": 5}


def test_hangs_in_step_3():
    counter(hang_at=2).invoke({"n": 0})
