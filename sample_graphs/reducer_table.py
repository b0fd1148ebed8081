"""The reducer table of seed article 001, section 6.2, measured.

| key   | declared                        | A returns | B returns | final              |
| steps | Annotated[list, operator.add]   | ["a"]     | ["b"]     | ["a", "b"]         |
| n     | int (no reducer), in sequence   | 2         | 4         | 4 (last write wins)|
| v     | int (no reducer), in parallel   | 1         | 2         | error              |
"""

import operator
import sys
from pathlib import Path
from typing import Annotated, TypedDict

if __package__ in (None, ""):  # `python sample_graphs/reducer_table.py`
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from engine import START, StateGraph
from sample_graphs._show import describe, outcome

title = "The reducer table: append, overwrite, or error"
summary = "A reducer key merges every write; a plain key keeps the last one, and fails on two in one step."
source = "seed 001, section 6.2"
lesson = (
    "`steps` has a reducer (`operator.add`), so every write is appended: A's ['a'] and B's ['b'] give "
    "['a', 'b']. "
    "`n` and `v` have none, so they hold the latest write: written by A then B in sequence, `n` ends as 4, "
    "the later write. "
    "Written by A and B in parallel (one superstep), `v` gets two values at once and the run fails with "
    "InvalidUpdateError, and that step produces no new state, not even for `steps`: a plain key accepts one "
    "write per step. "
    "For every key ask how parallel writes should merge: append (`operator.add`), keep the latest from a "
    "single writer per step (no reducer), or a custom reducer; `fixed_graph` runs A and B in sequence."
)


class TicketState(TypedDict):
    steps: Annotated[list[str], operator.add]  # reducer: append
    n: int  # no reducer: overwrite
    v: int  # no reducer: overwrite


def build_parallel():
    """A and B in one superstep, both writing `steps` and `v` (row 3: the error)."""
    builder = StateGraph(TicketState)
    builder.add_node("A", lambda state: {"steps": ["a"], "v": 1})
    builder.add_node("B", lambda state: {"steps": ["b"], "v": 2})
    builder.add_edge(START, "A")
    builder.add_edge(START, "B")
    return builder.compile()


def build_sequence():
    """A then B, both writing `steps` and `n` (rows 1 and 2)."""
    builder = StateGraph(TicketState)
    builder.add_node("A", lambda state: {"steps": ["a"], "n": 2})
    builder.add_node("B", lambda state: {"steps": ["b"], "n": 4})
    builder.add_edge(START, "A")
    builder.add_edge("A", "B")
    return builder.compile()


graph = build_parallel()
example_input = {"steps": []}
fixed_graph = build_sequence()
fixed_input = example_input


def table() -> list[tuple[str, str, str, str, str]]:
    """The article's table, each final value measured by running the graphs."""
    sequential = outcome(fixed_graph, fixed_input)
    parallel = outcome(graph, example_input)
    failed = type(parallel).__name__ if isinstance(parallel, BaseException) else repr(parallel.get("v"))
    return [
        ("steps", "Annotated[list, operator.add]", "['a']", "['b']", repr(sequential["steps"])),
        ("n", "int (no reducer), in sequence", "2", "4", f"{sequential['n']!r} (last write wins)"),
        ("v", "int (no reducer), in parallel", "1", "2", failed),
    ]


if __name__ == "__main__":
    header = ("key", "declared", "A returns", "B returns", "final")
    rows = [header, *table()]
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    for row in rows:
        print(" | ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip())
    print()
    print("parallel A, B:", describe(outcome(graph, example_input)))
    print("A then B:     ", describe(outcome(fixed_graph, fixed_input)))
