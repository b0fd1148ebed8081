"""The loop's side of checkpointing: one `Persistence` per run drives the saver at LangGraph's points.

1. **Load** (`load`): the checkpoint the config names by `checkpoint_id`, else the thread's newest,
   else nothing (metadata step -2, so the input becomes step -1). Channels, versions and the pending
   writes of the step that was under way come back with it.
2. **Decide** (`begin`): input `None` or a `Command` on a thread with a checkpoint is a *resume*;
   anything else is *new input*, which discards the tasks still pending. Naming an older
   `checkpoint_id` is *time travel*: stored answers are dropped, finished tasks run again, and a
   `source="fork"` checkpoint starts the new branch.
3. **Each step**: `prepare` hands finished tasks their saved writes (they are not run again) and the
   others their answers to `interrupt()`; `put_task_writes` stores what every task did as pending
   writes as soon as the step's tasks are done; `save` stores a checkpoint after the barrier.

A run stopped by an error or by `interrupt()` saves no checkpoint: its pending writes are what the
next run resumes from. Nested graphs (subgraph nodes) checkpoint under their task's namespace,
`node:task_id`, so a resumed subgraph continues where it stopped.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Any, Sequence

from .algo import RunState, Task
from .channels import MISSING
from .constants import ERROR, INTERRUPT, NO_WRITES, NS_SEP, RESUME, START, TASKS, branch_channel
from .errors import EmptyInputError, GraphBubbleUp, GraphInterrupt, InvalidUpdateError
from .interrupts import interrupt_id, is_interrupt_id, task_ns
from .savers import (
    CHECKPOINT_VERSION,
    CONTROL_WRITES,
    NULL_TASK_ID,
    WRITES_IDX_MAP,
    BaseCheckpointSaver,
    Checkpoint,
    PendingWrite,
    checkpoint_metadata,
    empty_checkpoint,
    finished_writes,
    make_config,
    read_task_statuses,
    task_path_str,
    thread_config,
)
from .schema import update_as_pairs
from .types import Command

if TYPE_CHECKING:  # pragma: no cover
    from .compiled import CompiledStateGraph
    from .loop import Loop

MULTIPLE_INTERRUPTS = (
    "When there are multiple pending interrupts, you must specify the interrupt id when resuming. "
    "Docs: https://docs.langchain.com/oss/python/langgraph/interrupts#handling-multiple-interrupts."
)


def unknown_checkpoint(thread_id: str, checkpoint_ns: str, checkpoint_id: str) -> str:
    where = f"thread {thread_id!r}" + (f" (namespace {checkpoint_ns!r})" if checkpoint_ns else "")
    return (
        f"{where} has no checkpoint {checkpoint_id!r}. Take a checkpoint_id from "
        "graph.get_state_history(config) (or the config a run saved), or leave checkpoint_id out "
        "to continue from the thread's latest checkpoint."
    )


def restore_state(graph: "CompiledStateGraph", checkpoint: Checkpoint) -> RunState:
    """Fresh channels holding a checkpoint's values; those it does not hold start empty."""
    values = checkpoint["channel_values"]
    channels = {
        key: spec.restore(values[key]) if key in values else spec.fresh() for key, spec in graph.channels.items()
    }
    return RunState(
        channels,
        dict(checkpoint["channel_versions"]),
        {node: dict(seen) for node, seen in checkpoint["versions_seen"].items()},
        checkpoint["id"],
    )


def new_checkpoint(saver: BaseCheckpointSaver, state: RunState, step: int, updated: Any) -> Checkpoint:
    """The checkpoint of `state`: channels that have a version and hold a value."""
    values = {}
    for key, channel in state.channels.items():
        if key in state.versions:
            saved = channel.checkpoint()
            if saved is not MISSING:
                values[key] = saved
    return Checkpoint(
        v=CHECKPOINT_VERSION,
        id=saver.new_id(step),
        ts=saver.now(),
        channel_values=values,
        channel_versions=dict(state.versions),
        versions_seen={node: dict(seen) for node, seen in state.versions_seen.items()},
        updated_channels=sorted(updated) if updated is not None else None,
    )


def task_pending_writes(task: Task) -> list[tuple[str, Any]]:
    """What a task that ran leaves in the pending writes (LangGraph's `PregelRunner.commit`)."""
    resume = [(RESUME, list(task.resume))] if task.resume else []
    if isinstance(task.error, GraphInterrupt):
        return [(INTERRUPT, list(task.interrupts)), *resume] if task.interrupts else []
    if isinstance(task.error, GraphBubbleUp):
        return []
    writes = [*resume, *task.writes]
    if task.error is not None:
        return [*writes, (ERROR, task.error)]
    if all(channel in CONTROL_WRITES for channel, _ in writes):
        writes.append((NO_WRITES, None))  # finished without output: still finished
    return writes


class Persistence:
    """Checkpointing for one run of one graph (root or nested)."""

    def __init__(
        self,
        saver: BaseCheckpointSaver,
        config: dict[str, Any],
        ns: tuple[str, ...],
        parent: "Persistence | None" = None,
    ) -> None:
        self.saver = saver
        self.thread_id, _, addressed = thread_config(config)
        self.checkpoint_ns = NS_SEP.join(ns)
        self.addressed: str | None = None if ns else addressed
        """The `checkpoint_id` the config names (root runs only; a nested run follows its parent)."""
        self.run_config = config
        self.parents: dict[str, str] = {**parent.parents, parent.checkpoint_ns: parent.saved_id or ""} if parent else {}
        self.checkpoint: Checkpoint = empty_checkpoint()
        self.metadata: dict[str, Any] = {"step": -2}
        self.saved_id: str | None = None
        """The newest checkpoint loaded or saved: where pending writes go, the parent of the next one."""
        self.pending: list[PendingWrite] = []
        """The pending writes of the step under way: loaded with the checkpoint, then added to."""
        self.carried: list[tuple[str, Any]] = []
        """A forking resume's Command writes: applied to the fork, never stored on the old checkpoint."""
        self.resume_map: dict[str, Any] | None = None
        """`Command(resume={interrupt_id: answer})`: answers by id, for this run only (never stored)."""
        self.replaying = False
        """Time travel: finished tasks of the first step run again instead of being restored."""
        self.forks = False
        """This resume starts a branch with a `source="fork"` checkpoint."""
        self.missing = False
        """The config named a `checkpoint_id` the thread does not have."""
        self.lock = threading.Lock()

    # ---- start of a run --------------------------------------------------------------------------

    def load(self, graph: "CompiledStateGraph") -> RunState:
        saved = self.saver.get_tuple(make_config(self.thread_id, self.checkpoint_ns, self.addressed))
        if saved is None:
            self.missing = self.addressed is not None
            return RunState({key: spec.fresh() for key, spec in graph.channels.items()})
        self.checkpoint, self.metadata = saved.checkpoint, saved.metadata
        self.pending = list(saved.pending_writes or [])
        self.saved_id = saved.checkpoint["id"]
        return restore_state(graph, saved.checkpoint)

    @property
    def step(self) -> int:
        return self.metadata.get("step", -2) + 1

    @property
    def updated_channels(self) -> set[str] | None:
        updated = self.checkpoint.get("updated_channels")
        return set(updated) if updated else None

    def begin(self, input: Any, resuming: bool | None) -> bool:
        """Whether this run resumes the loaded checkpoint; `resuming` is a nested run's inherited flag."""
        if self.missing:
            message = unknown_checkpoint(self.thread_id, self.checkpoint_ns, self.addressed or "")
            if input is None:
                error = EmptyInputError("Received no input for __start__")
                error.add_note(message[0].upper() + message[1:])
                raise error
            raise ValueError(message[0].upper() + message[1:])
        is_command = isinstance(input, Command)
        if self.saved_id is None and not self.checkpoint_ns:
            self._check_fresh_thread(input)
        if not self.checkpoint["channel_versions"]:
            resumes = False
        else:
            resumes = resuming if resuming is not None else (input is None or is_command)
        time_travel = self.addressed is not None and not (is_command and input.resume is not None)
        superseded = self.addressed is not None and self._superseded()
        self.replaying = time_travel or superseded
        if time_travel:
            self.pending = [w for w in self.pending if w[1] != RESUME]
        self.forks = resumes and time_travel and (self.metadata.get("source") not in ("update", "fork") or superseded)
        if self.forks:
            self.pending = [w for w in self.pending if w[1] != INTERRUPT]
        return resumes

    def _check_fresh_thread(self, input: Any) -> None:
        """Resuming a thread that has no checkpoint: LangGraph's text for None, a clear error for
        Command(resume=...)."""
        fix = (
            f"Thread {self.thread_id!r} has no checkpoint to resume: start it with the graph's input, "
            "or check the thread_id."
        )
        if input is None:
            error = EmptyInputError("Received no input for __start__")
            error.add_note(fix)
            raise error
        if isinstance(input, Command) and input.resume is not None:
            raise ValueError(f"Command(resume=...) answers an interrupt of a paused run, and {fix[0].lower()}{fix[1:]}")

    def _superseded(self) -> bool:
        latest = self.saver.get_tuple(make_config(self.thread_id, self.checkpoint_ns, None))
        return latest is not None and latest.checkpoint["id"] != self.addressed

    def command(self, command: Command) -> None:
        """Stores a Command's goto, resume and update as the null task's writes (`map_command`)."""
        if command.graph == Command.PARENT:
            raise InvalidUpdateError("There is no parent graph")
        resume = command.resume
        is_map = isinstance(resume, dict) and all(is_interrupt_id(key) for key in resume)
        if resume is not None:
            if is_map:
                self.resume_map = resume
            elif len(self.pending_interrupt_ids()) > 1:
                raise RuntimeError(MULTIPLE_INTERRUPTS)
        writes = [(branch_channel(t), START) if isinstance(t, str) else (TASKS, t) for t in command.goto_targets()]
        if resume is not None and not is_map:
            writes.append((RESUME, resume))
        writes.extend(update_as_pairs(command.update))
        if not writes and not is_map:
            raise EmptyInputError("Received empty Command input")
        if self.forks:
            self.carried = writes
        else:
            self.put_writes(NULL_TASK_ID, writes)

    def null_writes(self) -> list[tuple[str, Any]]:
        """Writes from outside any task (earlier and current Commands), applied before the first step."""
        return [(c, v) for t, c, v in self.pending if t == NULL_TASK_ID] + self.carried

    def pending_interrupt_ids(self) -> set[str]:
        return {i.id for status in read_task_statuses(self.pending).values() for i in status.pending_interrupts}

    # ---- each step -------------------------------------------------------------------------------

    def prepare(self, tasks: Sequence[Task], loop: "Loop") -> None:
        """Finished tasks get their saved writes back (`restored`); the others their answers."""
        statuses = read_task_statuses(self.pending) if self.pending else {}
        resume_map = loop.resume_map()
        for task in tasks:
            status = statuses.get(task.id)
            if status is not None:
                if status.finished and not self.replaying:
                    task.writes = finished_writes(status)
                    task.restored = True
                    continue
                task.resume = list(status.resume)
            if resume_map:
                ns = task_ns(loop.ns, task.name, task.id)
                for answered in (len(task.resume), 0):  # LangGraph once named all of a task's interrupts by the first
                    key = interrupt_id(ns, answered)
                    if key in resume_map:
                        task.resume = [*task.resume, resume_map[key]]
                        break

    def put_task_writes(self, tasks: Sequence[Task]) -> None:
        for task in tasks:
            if not task.restored:
                self.put_writes(task.id, task_pending_writes(task), task_path_str(task.path))

    def put_writes(self, task_id: str, writes: Sequence[tuple[str, Any]], task_path: str = "") -> None:
        """Records a task's writes on the current checkpoint (LangGraph's `PregelLoop.put_writes`)."""
        if not writes:
            return
        if all(channel in WRITES_IDX_MAP for channel, _ in writes):
            writes = list({channel: (channel, value) for channel, value in writes}.values())
        with self.lock:
            if task_id == NULL_TASK_ID:  # Commands accumulate; their control writes replace older ones
                self.pending = [w for w in self.pending if w[0] != task_id or w[1] not in WRITES_IDX_MAP]
                writes = sorted(writes, key=lambda w: w[0] in WRITES_IDX_MAP)
                to_save = [(c, v) for t, c, v in self.pending if t == task_id] + list(writes)
            else:
                self.pending = [w for w in self.pending if w[0] != task_id]
                to_save = list(writes)
            self.pending.extend((task_id, channel, value) for channel, value in writes)
        if self.saved_id is not None:
            config = make_config(self.thread_id, self.checkpoint_ns, self.saved_id)
            self.saver.put_writes(config, to_save, task_id, task_path)

    def take_null_resume(self) -> Any:
        """Consumes the answer a `Command(resume=value)` gave (the first `interrupt()` to ask gets it)."""
        with self.lock:
            for index, (task_id, channel, value) in enumerate(self.pending):
                if task_id == NULL_TASK_ID and channel == RESUME:
                    del self.pending[index]
                    return value
        return None

    def save(self, state: RunState, step: int, updated: Any, source: str) -> tuple[dict[str, Any], dict[str, Any]]:
        """Saves the state as a checkpoint of `source` at `step`; returns its config and metadata."""
        checkpoint = new_checkpoint(self.saver, state, step, updated)
        configurable = {
            **(self.run_config.get("configurable") or {}),
            "thread_id": self.thread_id,
            "checkpoint_ns": self.checkpoint_ns,
            "checkpoint_id": self.saved_id,
        }
        put_config = {**self.run_config, "configurable": configurable}
        metadata = {"source": source, "step": step, "parents": dict(self.parents)}
        previous = self.checkpoint["channel_versions"]
        new_versions = {k: v for k, v in checkpoint["channel_versions"].items() if previous.get(k) != v}
        config = self.saver.put(put_config, checkpoint, metadata, new_versions)
        self.checkpoint, self.metadata = checkpoint, checkpoint_metadata(put_config, metadata)
        self.saved_id = state.checkpoint_id = checkpoint["id"]
        if source == "loop":
            self.pending = []  # the step finished: its pending writes stay with the checkpoint it started from
        return config, self.metadata
