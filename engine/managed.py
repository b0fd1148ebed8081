"""Managed values: state keys the engine fills in from where the run is, never stored in a channel.

Declare them in the state schema like LangGraph's (`remaining_steps: RemainingSteps`). A node (and its
routers) sees them in its input next to the channel keys; they never appear in the output, the
`values` stream or a checkpoint, and a node's write to one is ignored with a warning, as in LangGraph.
With `stop = start step + recursion_limit` (one past the last step the run may take):

- `RemainingSteps` = `stop - step`: 4 at the first node of a run with `recursion_limit=5`, 1 at the
  last step that can run (the prebuilt ReAct agent stops calling tools when it is small);
- `IsLastStep` = `step == stop - 1`: True on the last step the run can take without
  `GraphRecursionError`.
"""

from __future__ import annotations

from typing import Annotated, Any, Callable


class ManagedValue:
    """A value computed for each task from its step and the run's `stop`."""

    @staticmethod
    def get(step: int, stop: int) -> Any:  # pragma: no cover - abstract
        raise NotImplementedError


class RemainingStepsManager(ManagedValue):
    @staticmethod
    def get(step: int, stop: int) -> int:
        return stop - step


class IsLastStepManager(ManagedValue):
    @staticmethod
    def get(step: int, stop: int) -> bool:
        return step == stop - 1


RemainingSteps = Annotated[int, RemainingStepsManager]
IsLastStep = Annotated[bool, IsLastStepManager]

_BY_NAME: dict[str, Callable[[int, int], Any]] = {
    "RemainingStepsManager": RemainingStepsManager.get,
    "IsLastStepManager": IsLastStepManager.get,
}


def managed_getter(annotation: Any) -> Callable[[int, int], Any] | None:
    """How to compute the managed value a field's annotation declares, or None for a plain field.
    LangGraph's own `RemainingSteps`/`IsLastStep` are recognised too (by their managers' names), so a
    schema written for langgraph works unchanged."""
    for item in getattr(annotation, "__metadata__", ()):
        if isinstance(item, type):
            getter = _BY_NAME.get(item.__name__)
            if getter is not None:
                return getter
    return None
