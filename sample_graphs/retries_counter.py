"""A retries counter with an additive reducer next to an overwritten `answer` (seed article 000).

`retries` is `Annotated[int, operator.add]`: nodes send `1` and the reducer adds. `answer` has no
reducer: each write replaces the last. The default (`int()` = 0) is where the adding starts.
"""

import operator
import sys
from pathlib import Path
from typing import Annotated, TypedDict

if __package__ in (None, ""):  # `python sample_graphs/retries_counter.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import END, START, StateGraph
from sample_graphs._show import show

MAX_RETRIES = 3

title = "A retries counter: send the increment, not the total"
summary = "An additive key adds what you send: send 1, not the new total; its type's zero is the start."
source = "seed 000 (retries, default is not decoration)"
lesson = (
    "`retries` is `Annotated[int, operator.add]` and `answer` is a plain key: the reducer adds every write "
    "to `retries`, while each write to `answer` replaces the previous one. "
    "Notice that `retries` is 0 before any node runs although the input never mentions it: LangGraph starts "
    "the reduction from the annotated type's zero (`int()`), the Python form of the article's "
    "`default: () => 0`, and without that start the first `+ 1` would have nothing to add to. "
    "The broken node returns the new total (`state['retries'] + 1`), which the reducer adds again: the "
    "counter goes 0, 1, 3 and the loop stops after two drafts instead of three. "
    "Send the increment (`{'retries': 1}`) and let the reducer keep the count, as `fixed_graph` does: "
    "0, 1, 2, 3 and the answer is 'draft 3'."
)
learn_prompt = (
    "`retries` is `Annotated[int, operator.add]` and `answer` is a plain key. The retry node returns "
    "`state['retries'] + 1`. Predict `retries` after each step."
)
"""Learn mode shows this set-up, without the results, until the learner has guessed every merge."""


class RetryState(TypedDict):
    question: str
    retries: Annotated[int, operator.add]  # additive: nodes send increments
    answer: str  # no reducer: the latest write wins


def keep_trying(state: RetryState) -> str:
    return "attempt" if state["retries"] < MAX_RETRIES else END


def build(send_total: bool):
    def attempt(state: RetryState) -> dict:
        draft = f"draft {state['retries'] + 1}"
        increment = state["retries"] + 1 if send_total else 1
        return {"retries": increment, "answer": draft}

    builder = StateGraph(RetryState)
    builder.add_node("attempt", attempt)
    builder.add_edge(START, "attempt")
    builder.add_conditional_edges("attempt", keep_trying, ["attempt", END])
    return builder.compile()


graph = build(send_total=True)
example_input = {"question": "What is the refund policy?"}
fixed_graph = build(send_total=False)
fixed_input = example_input


def counter_history(compiled, graph_input) -> list[int]:
    """`retries` after each superstep, starting with the state before the first node runs."""
    return [values["retries"] for values in compiled.stream(dict(graph_input), stream_mode="values")]


if __name__ == "__main__":
    print("state before any node:", next(iter(fixed_graph.stream(dict(fixed_input), stream_mode="values"))))
    show("broken (sends the total)", graph, example_input)
    print("   retries after each step:", counter_history(graph, example_input))
    show("fixed  (sends 1)        ", fixed_graph, fixed_input)
    print("   retries after each step:", counter_history(fixed_graph, fixed_input))
