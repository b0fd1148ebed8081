"""What the Step-through page's stepper (the front-end component, views/stepper.py) shows, read in AppTest
from the model the page sent it, and a move made the way the browser reports one."""

from __future__ import annotations

import itertools
import json
from typing import Any

STEPPER = "stepscope_stepper"
_moves = itertools.count(1)


def model(at) -> dict[str, Any]:
    """The model the page sent its stepper on the last run (one stepper on the page)."""
    shown = at.get("bidi_component")
    assert len(shown) == 1, f"one stepper on the page, not {len(shown)}"
    return json.loads(shown[0].proto.json)


def shown_step(at) -> dict[str, Any]:
    """The step the stepper shows: its summary, nodes, edges, merge (the model's window at `at`)."""
    data = model(at)
    window = data["window"]
    return window["steps"][data["at"] - window["offset"]]


def summary(at) -> list[tuple[str, str]]:
    """(kind, text) of each summary line the stepper shows."""
    return [(kind, text) for kind, text in shown_step(at)["summary"]]


def summary_text(at) -> str:
    return "\n".join(text for _, text in summary(at))


def move(at, step: int):
    """The user moved the stepper to `step` (as its JavaScript reports it); runs the page."""
    at.session_state[STEPPER] = {"move": {"step": step, "seq": next(_moves)}}
    return at.run()


MOVES = ("first", "prev", "next", "last")


def _numbers(data: dict[str, Any]) -> list[int]:
    numbers = data["numbers"]
    return numbers if isinstance(numbers, list) else list(range(numbers["first"], numbers["first"] + data["count"]))


def can(at, button: str) -> bool:
    """Whether the stepper's button (first, prev, next, last) is enabled at the step shown."""
    data = model(at)
    return data["at"] > 0 if button in ("first", "prev") else data["at"] < data["count"] - 1


def press(at, button: str):
    """The user pressed the stepper's button (or its key: Home, ←, →, End); runs the page."""
    data = model(at)
    numbers = _numbers(data)
    index = {"first": 0, "prev": data["at"] - 1, "next": data["at"] + 1, "last": len(numbers) - 1}[button]
    return move(at, numbers[max(0, min(index, len(numbers) - 1))])


def node_states(at) -> dict[str, str]:
    """Drawn node name (`node_` taken off its DOT id) -> its state at the step shown (idle nodes left out)."""
    return {node_id.removeprefix("node_"): state for node_id, state in shown_step(at)["nodes"].items()}


def aside(at) -> list[dict[str, str]]:
    """What the page shows beside every step (its lesson): {title, text, caption}."""
    return model(at).get("aside", [])


def aside_text(at) -> str:
    return "\n".join(f"{a['title']}\n{a['text']}\n{a['caption']}" for a in aside(at))
