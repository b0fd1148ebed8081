"""A task's runnable, watched while langgraph runs it (`probe.LoopProbe.planned` swaps it in): its raw
return value, its error, every failed attempt under a RetryPolicy, its time, and the routes its
conditional edges chose (`patches.py` files each router's answer under the task running it, `_TASK`).
"""

from __future__ import annotations

import time
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any, Iterator

from engine.codec import encode_error
from engine.trace import TaskRecord

if TYPE_CHECKING:
    from .probe import LoopProbe

_TASK: ContextVar["ObservedProc | None"] = ContextVar("stepscope_langgraph_task", default=None)
"""The task whose runnable is running in this context (its routers report to it)."""


class ObservedProc:
    """A task's runnable, watched, and what it saw (across retry attempts): langgraph calls
    `invoke`/`ainvoke`/`astream` on it per attempt; everything else is the runnable's own. One object
    per task (the watcher and its findings), as one is made for every task of every recorded step."""

    # What most tasks keep as it starts, as class attributes: a task sets only what it changes
    # (one object per task of every recorded step, made while the run's caller waits).
    result: Any = None
    has_result = False
    error: BaseException | None = None
    attempts: list[dict[str, Any]] | tuple[()] = ()
    started = 0.0
    duration = 0.0

    def __init__(self, proc: Any, record: TaskRecord, loop: "LoopProbe") -> None:
        self.proc = proc
        self.record = record
        self.loop = loop
        self.routes: list[tuple[str, Any]] = []

    def begin(self) -> Any:
        self.routes = []
        self.started = time.perf_counter()
        return _TASK.set(self)

    def returned(self, result: Any) -> None:
        self.duration += time.perf_counter() - self.started
        self.result, self.has_result, self.error = result, True, None

    def failed(self, error: BaseException) -> None:
        elapsed = time.perf_counter() - self.started
        self.duration += elapsed
        self.error = error
        if not _is_bubble_up(error):
            attempts = self.attempts = list(self.attempts)
            attempts.append({"attempt": len(attempts) + 1, "error": encode_error(error), "duration": round(elapsed, 6)})

    @contextmanager
    def _watched(self) -> Iterator[None]:
        """The task's run as its probe sees it: begun, failed with what it raised, and ended."""
        token = self.begin()
        try:
            yield
        except BaseException as exc:
            self.failed(exc)
            raise
        finally:
            _TASK.reset(token)

    def invoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
        # `_watched`, `begin` and `returned` written out: this runs once per task of every recorded
        # step, and a generator-based context manager costs more than the rest of the watching
        if self.routes:  # a failed attempt's
            self.routes = []
        token = _TASK.set(self)
        self.started = started = time.perf_counter()
        try:
            result = self.proc.invoke(input, config, **kwargs)
        except BaseException as exc:
            self.failed(exc)
            raise
        finally:
            _TASK.reset(token)
        self.duration += time.perf_counter() - started
        self.result, self.has_result, self.error = result, True, None
        return result

    async def ainvoke(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
        with self._watched():
            result = await self.proc.ainvoke(input, config, **kwargs)
        self.returned(result)
        return result

    async def astream(self, input: Any, config: Any = None, **kwargs: Any) -> Any:
        chunks = []
        with self._watched():
            async for chunk in self.proc.astream(input, config, **kwargs):
                chunks.append(chunk)
                yield chunk
        self.returned(chunks[0] if len(chunks) == 1 else chunks)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.proc, name)


def _is_bubble_up(error: BaseException) -> bool:
    return any(cls.__name__ == "GraphBubbleUp" for cls in type(error).__mro__)
