"""Runs one superstep's tasks: calls each node and turns its return value into writes (`writes.py`).
Never touches a channel (the barrier in `algo.apply_writes` does that).

A step with one task runs it inline on the caller's thread; a step with several runs them
concurrently in a thread pool (LangGraph does the same), so eight nodes that each wait 50 ms finish
their step in about 50 ms. An async run (`ainvoke`/`astream`) runs them as asyncio tasks instead, the
same way. Whatever the timing, the loop reads results back in a fixed order, so the writes, the
recording and the final state are the same run after run.

A node with a `RetryPolicy` is retried here, inside its task: each failed attempt is kept on the task
(`task.attempts`) and reported to the hooks; only the last attempt's outcome reaches the barrier.

Two things a caller that owns the loop may add, both off unless asked for, so a plain run takes the
same path as ever: hooks that listen for `task_started`/`task_ended` hear of each task as it starts
and ends on its own thread, and the loop's asker answers an `interrupt()` while the task waits
(`interrupts.py`): the node then runs again from its top with the answer.
"""

from __future__ import annotations

import asyncio
import contextvars
import logging
import queue
import threading
import time
from typing import TYPE_CHECKING, Any, Callable

from .algo import Task, bare
from .channels import MISSING
from .context import TaskContext, current_task
from .errors import GraphBubbleUp, GraphInterrupt, ParentCommand
from .hooks import TaskAttempt, listens
from .interrupts import NO_ANSWER
from .types import Command
from .writes import anode_writes, node_writes

if TYPE_CHECKING:  # pragma: no cover
    from .loop import Loop

DEFAULT_MAX_WORKERS = 64
logger = logging.getLogger("engine")


class _Batch:
    """One step's tasks, claimed one at a time by whichever thread is free: workers or the caller."""

    __slots__ = ("work", "jobs", "next", "remaining", "lock", "done")

    def __init__(self, work: Callable[[Task], None], tasks: list[Task]) -> None:
        self.work = work
        # Each task runs in its own copy of the caller's context (contextvars reach the node).
        self.jobs = [(contextvars.copy_context(), task) for task in tasks]
        self.next = 0
        self.remaining = len(tasks)
        self.lock = threading.Lock()
        self.done = threading.Event()

    def help(self) -> None:
        jobs = self.jobs
        while True:
            with self.lock:
                index = self.next
                if index >= len(jobs):
                    return
                self.next = index + 1
            context, task = jobs[index]
            try:
                context.run(self.work, task)
            finally:
                with self.lock:
                    self.remaining -= 1
                    if self.remaining == 0:
                        self.done.set()


class ForkJoinPool:
    """Persistent daemon workers that help with batches; grows on demand up to `max_workers`.

    A future per task (ThreadPoolExecutor) costs more than a trivial node; here a step hands its
    batch to as many idle workers as it has tasks beyond the first, and the caller works on the
    batch too. Slow tasks overlap; trivial tasks run mostly on the caller; and a subgraph running
    inside a worker can never deadlock waiting for a free worker, because its own caller always
    makes progress.
    """

    def __init__(self, max_workers: int = DEFAULT_MAX_WORKERS) -> None:
        self.max_workers = max_workers
        self.queue: "queue.SimpleQueue[_Batch]" = queue.SimpleQueue()
        self.lock = threading.Lock()
        self.workers = 0
        self.idle = 0

    def run(self, work: Callable[[Task], None], tasks: list[Task]) -> None:
        batch = _Batch(work, tasks)
        helpers = len(tasks) - 1
        with self.lock:
            missing = min(helpers - self.idle, self.max_workers - self.workers)
            for _ in range(max(missing, 0)):
                self.workers += 1
                threading.Thread(target=self._serve, name=f"stepscope-{self.workers}", daemon=True).start()
                self.idle += 1
        for _ in range(helpers):
            self.queue.put(batch)
        batch.help()
        batch.done.wait()

    def _serve(self) -> None:
        while True:
            batch = self.queue.get()
            with self.lock:
                self.idle -= 1
            try:
                batch.help()
            finally:
                with self.lock:
                    self.idle += 1


_shared_pool: ForkJoinPool | None = None
_shared_pool_lock = threading.Lock()


def shared_pool() -> ForkJoinPool:
    global _shared_pool
    if _shared_pool is None:
        with _shared_pool_lock:
            if _shared_pool is None:
                _shared_pool = ForkJoinPool()
    return _shared_pool


class Runner:
    """Executes tasks for one run: inline when a step has one task, else on the shared fork-join
    pool. `config["max_concurrency"]` gives the run a private pool of that many threads instead.

    In an async run (`ainvoke`, `astream`) the tasks of a step are asyncio tasks on the caller's
    event loop: `async def` nodes await concurrently, and sync nodes run on a worker thread (LangGraph
    does the same), so a blocking node never stalls the loop. Either way a task runs to completion
    here with its retries; its exception is stored on the task, never raised.
    """

    def __init__(self, loop: "Loop", max_concurrency: int | None) -> None:
        self.loop = loop
        self.max_concurrency = max_concurrency
        self.pool = ForkJoinPool(max(max_concurrency - 1, 0)) if max_concurrency else None
        self.watch = loop.hooks if listens(loop.hooks, "task_started", "task_ended") else None
        """The hooks to tell when each task starts and ends (None: no hook listens for that)."""
        self.asker = loop.asker
        """Answers the root run's `interrupt()`s while the task waits (None: an interrupt ends the run)."""
        self.plain = self.watch is None and self.asker is None
        """Nothing watches or answers: tasks take the same path as in a run without either."""
        self.work = self.execute if self.plain else self.watched
        """What runs one sync task: chosen once, so a plain run pays nothing for watching or asking."""

    def run(self, tasks: list[Task]) -> None:
        if not tasks:
            return
        if len(tasks) == 1:
            self.work(tasks[0])
        else:
            (self.pool or shared_pool()).run(self.work, tasks)

    async def arun(self, tasks: list[Task]) -> None:
        if not tasks:
            return
        if len(tasks) == 1:
            await self.aexecute(tasks[0])
            return
        limit = asyncio.Semaphore(self.max_concurrency) if self.max_concurrency else None

        async def one(task: Task) -> None:
            if limit is None:
                return await self.aexecute(task)
            async with limit:
                return await self.aexecute(task)

        # Each coroutine becomes an asyncio task with its own copy of the context, started in order.
        await asyncio.gather(*(one(task) for task in tasks))

    def close(self) -> None:
        """The run is over: let go of its loop. Loop and runner refer to each other; breaking the
        cycle frees a finished run (and all a recorder attached to it kept) as soon as its caller
        lets go, instead of leaving it for the garbage collector to find. Pool threads are daemons
        that wait for the next batch: nothing to release there."""
        self.loop = None  # type: ignore[assignment]

    def watched(self, task: Task) -> None:
        """`execute`, reported to the hooks as it starts and ends, with its `interrupt()`s answered."""
        loop = self.loop
        watch = self.watch
        if watch is not None:
            watch.task_started(ns=loop.ns, step=task.step, task=task)
        try:
            self.execute(task)
            while self.asks(task):
                answer = self.asker(task, task.interrupts[0].value)
                if answer is NO_ANSWER:
                    break
                rerun(task, answer)
                self.execute(task)
        finally:
            if watch is not None:
                watch.task_ended(ns=loop.ns, step=task.step, task=task)

    async def awatched(self, task: Task) -> None:
        """`watched` for an `async def` node: the asker is called on a worker thread, so the event
        loop (and the step's other tasks) go on while it waits for its answer."""
        loop = self.loop
        watch = self.watch
        if watch is not None:
            watch.task_started(ns=loop.ns, step=task.step, task=task)
        try:
            await self.aexecute_node(task)
            while self.asks(task):
                answer = await asyncio.to_thread(self.asker, task, task.interrupts[0].value)
                if answer is NO_ANSWER:
                    break
                rerun(task, answer)
                await self.aexecute_node(task)
        finally:
            if watch is not None:
                watch.task_ended(ns=loop.ns, step=task.step, task=task)

    def asks(self, task: Task) -> bool:
        """The task stopped on an `interrupt()` of its own that the asker may answer. A subgraph's
        own interrupt() answers through its checkpoints: it is left to end the run."""
        return bool(task.interrupts) and self.asker is not None and not task.node.is_subgraph

    def execute(self, task: Task) -> None:
        """Runs one task to completion, retries included (sync nodes)."""
        loop = self.loop
        node = task.node
        started = time.perf_counter()
        token = None
        if node.needs_context:  # `TaskContext(loop, task, loop.config)`, stored on a bare instance (`algo.bare`)
            context = bare(TaskContext)
            context.loop = loop
            context.task = task
            context.config = loop.config
            context.interrupt_calls = 0
            token = current_task.set(context)
        try:
            attempt_started = started
            while True:
                try:
                    action = node.plain_action
                    returned = node.call(task, loop) if action is None else action(task.input)
                    task.result = returned
                    task.writes = node_writes(node, task, returned, loop)
                    break
                except Exception as exc:  # noqa: BLE001 - stored on the task, re-raised by the loop
                    delay = self.failed(task, exc, attempt_started)
                    if delay is None:
                        break
                time.sleep(delay)
                attempt_started = time.perf_counter()
        finally:
            if token is not None:
                current_task.reset(token)
            task.duration = time.perf_counter() - started

    async def aexecute(self, task: Task) -> None:
        """Runs one task to completion, retries included, in an async run."""
        node = task.node
        if not node.is_async:
            if node.action is None:  # the input's `__start__` task: nothing that could block
                return self.work(task)
            # A sync node may block (I/O, time.sleep): it runs on a worker thread, so the event loop
            # and the other tasks of the step keep going (LangGraph's run_in_executor).
            return await asyncio.to_thread(self.work, task)
        return await (self.aexecute_node(task) if self.plain else self.awatched(task))

    async def aexecute_node(self, task: Task) -> None:
        """Runs one `async def` node's task to completion, retries included."""
        node = task.node
        loop = self.loop
        started = time.perf_counter()
        token = current_task.set(TaskContext(loop, task, loop.config))
        try:
            attempt_started = started
            while True:
                try:
                    returned = await node.acall(task, loop)
                    task.result = returned
                    task.writes = await anode_writes(node, task, returned, loop)
                    break
                except Exception as exc:  # noqa: BLE001 - stored on the task, re-raised by the loop
                    delay = self.failed(task, exc, attempt_started)
                    if delay is None:
                        break
                await asyncio.sleep(delay)
                attempt_started = time.perf_counter()
        finally:
            current_task.reset(token)
            task.duration = time.perf_counter() - started

    def failed(self, task: Task, exc: Exception, attempt_started: float) -> float | None:
        """Stores what an attempt raised on the task. Returns the seconds to wait before retrying, or
        None when the task is done (LangGraph's `run_with_retry`)."""
        node = task.node
        if isinstance(exc, ParentCommand) and node.is_subgraph:
            # The subgraph's node addressed its parent (us): apply it as this node's return.
            command = exc.command
            command = Command(update=command.update, goto=command.goto, resume=command.resume)
            task.result = command
            try:
                task.writes = node_writes(node, task, command, self.loop)
            except Exception as error:  # noqa: BLE001 - stored, re-raised by the loop
                _fail(task, error)
            return None
        if isinstance(exc, GraphInterrupt):  # interrupt(), here or in a subgraph this task runs
            task.error = exc
            task.interrupts = tuple(exc.interrupts)
            return None
        if isinstance(exc, GraphBubbleUp) and not isinstance(exc, ParentCommand):
            task.error = exc
            return None
        _fail(task, exc)
        if isinstance(exc, ParentCommand):  # addressed to a graph further up: never retried
            return None
        policy = next((p for p in node.retry_policy if p.accepts(exc)), None) if node.retry_policy else None
        if policy is None or len(task.attempts) + 1 >= policy.max_attempts:
            return None
        attempt = TaskAttempt(
            len(task.attempts) + 1, exc, time.perf_counter() - attempt_started, policy.interval(len(task.attempts) + 1)
        )
        task.attempts = [*task.attempts, attempt]
        logger.info(
            f"Retrying task {task.name} after {attempt.retry_in:.2f} seconds (attempt {attempt.attempt}) "
            f"after {exc.__class__.__name__} {exc}",
            exc_info=exc,
        )
        # A fresh start: nothing of the failed attempt is kept, and interrupt() answers restart at 0.
        clear_outcome(task)
        context = current_task.get()
        if context is not None:
            context.interrupt_calls = 0
        hooks = self.loop.hooks
        if hooks is not None:
            hooks.task_retrying(ns=self.loop.ns, step=task.step, task=task, attempt=attempt)
        return attempt.retry_in


def clear_outcome(task: Task) -> None:
    """Forgets what the task's last attempt did (its answers to `interrupt()` are kept)."""
    task.error = None
    task.interrupts = ()
    task.result = MISSING
    task.writes = []
    task.routes = ()


def rerun(task: Task, answer: Any) -> None:
    """The task as before it ran, with one more answer: its node runs again from the top, and the
    `interrupt()` that asked returns `answer` (earlier ones keep theirs, matched by position)."""
    clear_outcome(task)
    task.resume = [*task.resume, answer]


def _fail(task: Task, exc: BaseException) -> None:
    exc.add_note(f"During task with name '{task.name}' and id '{task.id}'")
    task.error = exc
