"""`interrupt(value)`: pause a run inside a node and ask the caller a question.

The first time a task calls `interrupt()` it raises `GraphInterrupt`; the run stops after the step's
other tasks finish, and `invoke` returns the state with `__interrupt__` listing the questions. Resume
with `invoke(Command(resume=answer), config)` on the same thread (this needs a checkpointer): the
interrupted task **re-runs from the top of the node**, and its `interrupt()` calls are matched by
position: calls that already have answers return them, the next one returns the new answer, the one
after that interrupts again. Finished sibling tasks are not re-run.

With several pending interrupts, resume with `Command(resume={interrupt_id: answer, ...})`. An
interrupt's id depends only on where it was raised: the task's namespace (`node:task_id`, and so the
checkpoint the step started from) and how many answers the task already has. LangGraph hashes that
with xxh3-128; we use blake2b-128, which is in the standard library: same rule, different digits.

A caller that owns the loop can answer while the run goes on instead: `graph.loop(..., asker=ask)`.
When a task's `interrupt(value)` has no answer yet, the runner calls `ask(task, value)` on the task's
own thread as soon as the node has raised; with an answer the node runs again from its top and that
`interrupt()` returns it, exactly as a resume with `Command(resume=answer)` would re-run it (earlier
calls keep their answers by position; finished sibling tasks are not re-run). `ask` returning
`NO_ANSWER` leaves the interrupt standing: the run ends `interrupted`, as without an asker. The asker
answers the root run's nodes only; a subgraph's `interrupt()` ends the run, to be resumed through
its checkpoints as LangGraph does.
"""

from __future__ import annotations

import re
from hashlib import blake2b
from typing import TYPE_CHECKING, Any, Callable

from .constants import NS_END, NS_SEP
from .context import current_task
from .errors import GraphInterrupt
from .types import Interrupt

if TYPE_CHECKING:  # pragma: no cover
    from .algo import Task

NO_ANSWER: Any = object()
"""What an asker returns to leave an `interrupt()` unanswered (the run then ends `interrupted`)."""

Asker = Callable[["Task", Any], Any]
"""`ask(task, question) -> answer | NO_ANSWER`, called on the task's thread (see the module doc)."""

_ID = re.compile(r"^[0-9a-f]{32}$")


def interrupt_id(task_ns: str, answered: int) -> str:
    """The id of the interrupt a task raises when it already holds `answered` answers."""
    key = f"{task_ns}{NS_SEP}{answered}" if answered else task_ns
    return blake2b(key.encode(), digest_size=16).hexdigest()


def is_interrupt_id(key: Any) -> bool:
    """True for strings shaped like interrupt ids (what tells a resume map from a resume value)."""
    return isinstance(key, str) and _ID.match(key) is not None


def task_ns(ns: tuple[str, ...], name: str, task_id: str) -> str:
    """A task's checkpoint namespace, `parent|node:task_id` (LangGraph's `langgraph_checkpoint_ns`)."""
    return NS_SEP.join((*ns, f"{name}{NS_END}{task_id}"))


def interrupt(value: Any) -> Any:
    """Pauses the run and surfaces `value` to the caller; returns the answer once resumed.

    Only valid inside a node of a running graph. The node re-runs from its top on resume, so code
    before an `interrupt()` runs again: keep side effects after it, or make them idempotent.
    """
    context = current_task.get()
    if context is None:
        raise RuntimeError(
            "interrupt() was called outside a running graph. Call it inside a node function; the run "
            "then pauses until you invoke the graph again with Command(resume=...) on the same thread."
        )
    task = context.task
    index = context.interrupt_calls
    context.interrupt_calls += 1
    if index < len(task.resume):
        return task.resume[index]
    answer = context.loop.take_resume()
    if answer is not None:
        task.resume = [*task.resume, answer]
        return answer
    ns = task_ns(context.loop.ns, task.name, task.id)
    raise GraphInterrupt((Interrupt(value=value, id=interrupt_id(ns, len(task.resume))),))
