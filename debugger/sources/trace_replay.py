"""Gate 3 of `trace_check`, consistency: the deltas of each channel must apply one after another (a
`merge` on a list, or a splice past the end, cannot be replayed), and write references must point at writes.
"""

from __future__ import annotations

from typing import Any

from debugger.sources.step_checks import first_step_problem
from debugger.sources.trace_values import is_write_ref
from engine.codec import TYPE


def _replay_problem(run: dict[str, Any], where: str = "") -> str | None:
    """Whether every channel's deltas apply in order (see `ReplayCheck`)."""
    return first_step_problem(ReplayCheck(where), run)


class ReplayCheck:
    """Whether every channel's deltas apply in order, one step at a time, tracking only each value's kind
    and length: linear in the file, memory per channel (not per step), and it catches what a later
    replay would crash on."""

    def __init__(self, where: str = "") -> None:
        self.where = where
        self.kinds: dict[str, tuple[str, int]] = {}

    def _apply(self, channel: str, change: dict[str, Any], at: str) -> str | None:
        kind, length = self.kinds.get(channel, ("missing", 0))
        if "same" in change:
            return None
        if "set" in change:
            self.kinds[channel] = _kind(change["set"])
            return None
        if "extend" in change:
            if kind != "list":
                return f"{at} extends {channel!r}, which is not a list there"
            added = change["extend"]
            self.kinds[channel] = ("list", length + (len(added) if type(added) is list else 0))
            return None
        if "splice" in change:
            if kind != "list" or change["splice"] > length:
                return f"{at} splices {channel!r} at {change['splice']}, past its end or not a list"
            self.kinds[channel] = ("list", change["splice"] + len(change["items"]))
            return None
        if kind != "dict":
            return f"{at} merges keys into {channel!r}, which is not an object there"
        return None

    def step(self, s: int, step: dict[str, Any]) -> str | None:
        """The first delta of `step` (the run's `s`-th) that cannot apply after the steps before it, or None."""
        where = self.where
        tasks = step.get("tasks", ())
        writes = {t["id"]: t.get("writes", ()) for t in tasks}
        for c, call in enumerate(step.get("reducer_calls", ())):
            at = f"{where}steps[{s}].reducer_calls[{c}]"
            ref = call["write"]
            if is_write_ref(ref) and ref["$write"] >= len(writes.get(call["writer"], ())):
                return f"{at}.write points at a write its task does not have"
            problem = self._apply(call["channel"], call["before"], f"{at}.before")
            if problem is None and call.get("error") is None:
                after = call["after"]
                if "extend" in after and is_write_ref(after["extend"]):
                    written = writes.get(call["writer"], ())[ref["$write"]][1] if is_write_ref(ref) else None
                    if type(written) is not list:
                        return f"{at}.after extends with a write that is not a list"
                    after = {"extend": written}
                problem = self._apply(call["channel"], after, f"{at}.after")
            if problem:
                return problem
        for key, change in step.get("state", {}).items():
            problem = self._apply(key, change, f"{where}steps[{s}].state.{key}")
            if problem:
                return problem
        for t, task in enumerate(tasks):
            for r, sub in enumerate(task.get("subgraphs", ())):
                problem = _replay_problem(sub, f"{where}steps[{s}].tasks[{t}].subgraphs[{r}].")
                if problem:
                    return problem
        return None


def _kind(value: Any) -> tuple[str, int]:
    if type(value) is list:
        return "list", len(value)
    if type(value) is dict and TYPE not in value:
        return "dict", len(value)
    return "other", 0
