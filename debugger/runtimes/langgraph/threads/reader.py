"""Reading a thread: which checkpoints to decode, and the rebuilt run (`rebuild.py`) of them.

`read_thread` is what the runtime calls. A thread's index (every checkpoint's namespace, id and parent)
is read without decoding anything; `ThreadReader` then decodes a checkpoint only when a run reaches it,
several at a time where the backend reads them together for less (`Checkpointer.read_many`):

- the app's first view asks for the `newest` steps only, so a long thread is on screen at once;
- `show --step N` asks for step N alone (`step`): the checkpoints before and after it, and the newest one,
  which says how the thread ended;
- a whole thread (`diagnose`, `show`) is read from the cache when it has not changed, from the cache and
  its new checkpoints when it went on (`cache.py`), else whole, each stored value decoded once
  (`Checkpointer.preload`).
"""

from __future__ import annotations

import uuid
from typing import Any

from debugger.runtimes.checkpointers.savers import Checkpointer
from debugger.runtimes.checkpointers.tables import DamagedCheckpoint
from debugger.runtimes.langgraph.recorder.names import DEFAULT_NAME, describe, state_keys
from debugger.runtimes.threads_api import CheckpointerError, CheckpointKey, ThreadRead, with_ending
from engine.trace import RunRecord, TaskRecord, Trace, TraceWriter, new_run, plain_config

from .cache import ThreadCache, splice
from .damage import DamagedData, damaged_ending, mark_damaged_checkpoint, nothing_decodes
from .rebuild import RunRebuild


class ThreadReader:
    """Rebuilds one thread's runs (the root graph and its subgraphs' namespaces) from its checkpoints,
    decoding a checkpoint only when a run reaches it (or all at once, given `loaded`)."""

    def __init__(
        self,
        checkpointer: Checkpointer,
        keys: list[CheckpointKey],
        thread_id: str,
        target: str,
        loaded: dict[tuple[str, str], Any] | None = None,
    ) -> None:
        self.checkpointer = checkpointer
        self.saver = checkpointer.saver
        self.thread_id = thread_id
        self.target = target
        self.parents: dict[str, dict[str, str | None]] = {}
        """Per namespace, each checkpoint id's parent id: the thread's shape, nothing decoded."""
        for key in keys:
            self.parents.setdefault(key.ns, {})[key.checkpoint_id] = key.parent_id
        self.loaded = dict(loaded or {})

    def saved(self, ns: str, checkpoint_id: str) -> Any:
        """The checkpoint tuple (or `DamagedCheckpoint`), decoded the first time it is asked for."""
        where = (ns, checkpoint_id)
        if where not in self.loaded:
            parent = self.parents.get(ns, {}).get(checkpoint_id)
            self.loaded[where] = self.checkpointer.read(self.thread_id, CheckpointKey(ns, checkpoint_id, parent))
        return self.loaded[where]

    def steps_after(self, ns: str, start: str, head: str) -> int | None:
        """How many checkpoints follow `start` on the way to `head` (None when `head` does not descend from it)."""
        parents = self.parents.get(ns, {})
        count, current = 0, head
        while current is not None and current in parents:
            if current == start:
                return count
            count += 1
            current = parents[current]
        return None

    def ancestor(self, ns: str, head: str, back: int) -> str | None:
        """The checkpoint `back` parent links before `head` (None when its lineage is shorter)."""
        parents = self.parents.get(ns, {})
        current: str | None = head
        for _ in range(back):
            current = parents.get(current) if current is not None else None
        return current if current in parents else None

    def lineage(self, ns: str, head: str | None = None, newest: int | None = None) -> list[Any]:
        """The checkpoints from the first to `head` (default: the newest), following parent links; with
        `newest`, only the last `newest + 1` of them (the newest steps and the state before them)."""
        parents = self.parents.get(ns, {})
        if not parents:
            return []
        if head is None:
            head = max(parents)
        elif head not in parents:
            raise CheckpointerError(f"no checkpoint {head!r} in thread {self.thread_id!r}.")
        ids: list[str] = []
        current: str | None = head
        while current is not None and current in parents:
            ids.append(current)
            current = parents[current]
        ids.reverse()
        if newest is not None:
            ids = ids[-(newest + 1) :]
        missing = [CheckpointKey(ns, i, parents[i]) for i in ids if (ns, i) not in self.loaded]
        if missing:  # read together: a backend that stores values by version decodes each version once
            self.loaded.update(self.checkpointer.read_many(self.thread_id, missing))
        return [self.saved(ns, checkpoint_id) for checkpoint_id in ids]

    def read_run(
        self,
        ns: tuple[str, ...],
        graph: Any,
        head: str | None = None,
        parent_task: TaskRecord | None = None,
        run_id: str = "",
        parent_writer: TraceWriter | None = None,
        newest: int | None = None,
    ) -> RunRecord | None:
        """Rebuilds the run of namespace `ns` from its checkpoints up to `head` (a subgraph: in `parent_task`);
        with `newest`, its last `newest` steps only, from the state the checkpoint before them stored."""
        from langgraph.pregel._checkpoint import channels_from_checkpoint

        lost, chain = self._decoding_chain(ns, head, newest)
        if not chain:
            return None
        first = chain[0]
        record = self._run_record(ns, graph, first, parent_task, run_id)
        keys = [k for k in state_keys(graph) if k in graph.channels]
        if parent_task is None or parent_writer is None:
            writer = TraceWriter(record, check_commits=True)
        else:  # a subgraph's run, nested in the task that ran it
            writer = parent_writer.subrun(parent_task, record, check_commits=True)
        run = RunRebuild(self, ns, graph, writer, keys)
        run.channels, run.managed = channels_from_checkpoint(
            graph.channels, first.checkpoint, saver=self.saver, config=first.config
        )
        first_step = int(first.metadata.get("step", -1))
        for back, child in enumerate(lost):  # the checkpoints before the first that decodes: damaged steps
            mark_damaged_checkpoint(writer, first_step - len(lost) + back, child)
        run.commit(first_step, first)
        self._rebuild_steps(ns, run, chain)
        return record

    def _decoding_chain(self, ns: tuple[str, ...], head: str | None, newest: int | None) -> tuple[list[Any], list[Any]]:
        """(the damaged checkpoints before the first that decodes, the chain from that one up to `head`)."""
        chain = self.lineage("|".join(ns), head, newest)
        if chain and all(isinstance(saved, DamagedCheckpoint) for saved in chain):  # nothing to start from
            raise nothing_decodes(self.checkpointer.label, self.thread_id, chain)
        skipped = 0
        while chain[skipped:] and isinstance(chain[skipped], DamagedCheckpoint):  # start at the first that decodes
            skipped += 1
        return chain[:skipped], chain[skipped:]

    def _run_record(
        self, ns: tuple[str, ...], graph: Any, first: Any, parent_task: TaskRecord | None, run_id: str
    ) -> RunRecord:
        """The run's record as its first checkpoint that decodes starts it: its graph, input and thread."""
        own = getattr(graph, "name", None)
        name = ns[-1].rpartition(":")[0] if ns else (own if own and own != DEFAULT_NAME else self.target or own)
        return new_run(
            ns=ns,
            graph=describe(graph, name),
            input=first.checkpoint.get("channel_values", {}).get("__start__"),
            config=plain_config(first.config, ("thread_id", "checkpoint_ns")),  # the thread, not one checkpoint
            started_at=str(first.checkpoint.get("ts", "")),
            trace=parent_task is None,
            run_id=run_id,
            target=self.target if parent_task is None else "",
            thread_id=self.thread_id if parent_task is None else "",
        )

    def _rebuild_steps(self, ns: tuple[str, ...], run: RunRebuild, chain: list[Any]) -> None:
        """Each step between two checkpoints of the chain, then how the run ended at its last."""
        for parent, child in zip(chain, chain[1:]):
            if isinstance(child, DamagedCheckpoint):
                run.damaged_step(parent, child)
            elif isinstance(parent, DamagedCheckpoint):
                run.commit(int(child.metadata.get("step", -1)), child)  # the state again from the next that decodes
            else:
                run.step_between(parent, child)
        last = chain[-1].config["configurable"]["checkpoint_id"]
        later = last in self.parents.get("|".join(ns), {}).values()
        if isinstance(chain[-1], DamagedCheckpoint):  # how the app's run went on is in the bytes that are damaged
            run.writer.finish("running", run.output(), DamagedData(damaged_ending(run.last_step, chain[-1])))
        else:
            run.finish(chain[-1], stop_here=later)


def read_thread(checkpointer: Checkpointer, graph: Any, read: ThreadRead) -> Trace:
    """The part of thread `read.thread_id` of `checkpointer` that `read` asks for, rebuilt with the app's
    `graph` (a langgraph compiled graph), up to `read.checkpoint_id` (default: its newest checkpoint): its
    last `newest` steps (the first view of a long thread), its one `step` (`show --step N`), or the whole
    thread, each stored value decoded once where the backend allows (`Checkpointer.preload`)."""
    thread_id = read.thread_id
    keys = checkpointer.keys(thread_id)
    roots = [k.checkpoint_id for k in keys if k.ns == ""]
    if not roots:
        raise CheckpointerError(f"thread {thread_id!r} has no checkpoint of the root graph.")
    head = read.checkpoint_id or max(roots)
    target = read.target or f"thread {thread_id}"
    if read.whole:
        # the cache holds threads read to their newest checkpoint, whose ending reads the same each time
        return _read_whole(checkpointer, keys, thread_id, graph, head, target, cached=read.checkpoint_id is None)
    reader = ThreadReader(checkpointer, keys, thread_id, target)
    if read.step is not None:
        return _read_step(reader, graph, head, read.step, _run_id(checkpointer, thread_id, head, f"#step{read.step}"))
    return _rebuilt(reader, graph, head, read.newest, _run_id(checkpointer, thread_id, head, f"#last{read.newest}"))


def _read_whole(
    checkpointer: Checkpointer,
    keys: list[CheckpointKey],
    thread_id: str,
    graph: Any,
    head: str,
    target: str,
    *,
    cached: bool,
) -> Trace:
    """The whole thread: as saved (`cache.py`) when it has not changed; else the saved steps and the new
    checkpoints after them; else rebuilt from its first checkpoint, each stored value decoded once. Without
    `cached`, rebuilt and not saved."""
    run_id = _run_id(checkpointer, thread_id, head)
    cache = ThreadCache(checkpointer.label, thread_id, target, describe(graph) if cached else None, off=not cached)
    cached_run = cache.load()
    if cached_run is not None and cached_run.head == head and cached_run.trace.run_id == run_id:
        return cached_run.trace
    trace = None
    reader = ThreadReader(checkpointer, keys, thread_id, target)
    if cached_run is not None:
        after = reader.steps_after("", cached_run.head, head)
        if after:
            trace = splice(cached_run.trace, cached_run.head, _rebuilt(reader, graph, head, after, run_id))
    if trace is None:
        reader = ThreadReader(checkpointer, keys, thread_id, target, checkpointer.preload(thread_id, keys))
        trace = _rebuilt(reader, graph, head, None, run_id)
    cache.save(head, trace)
    return trace


def _run_id(checkpointer: Checkpointer, thread_id: str, head: str, shown: str = "") -> str:
    """The run id of a thread read up to `head` (the same each time it is read so; `shown` names a part)."""
    return uuid.uuid5(uuid.NAMESPACE_URL, f"{checkpointer.label}#{thread_id}#{head}{shown}").hex


def _rebuilt(reader: ThreadReader, graph: Any, head: str, newest: int | None, run_id: str) -> Trace:
    """The root run up to `head` (its `newest` steps only, when given), or one line on why it cannot be."""
    try:
        trace = reader.read_run((), graph, head, run_id=run_id, newest=newest)
    except CheckpointerError:
        raise
    except Exception as exc:  # langgraph refusing this graph on these checkpoints: name both, never a traceback
        raise CheckpointerError(
            f"thread {reader.thread_id!r} could not be rebuilt with this graph ({type(exc).__name__}: {exc}). Give "
            "the graph module of the app version that wrote the thread."
        ) from None
    if not isinstance(trace, Trace):  # a root without checkpoints: `read_thread` refuses it before this
        raise CheckpointerError(f"thread {reader.thread_id!r} has no checkpoint of the root graph.")
    return trace


def _read_step(reader: ThreadReader, graph: Any, head: str, step: int, run_id: str) -> Trace:
    """Root step `step` alone (the checkpoints before and after it) and the thread's ending (its newest
    checkpoint `head`, with the step it has pending): the root steps are numbered one per checkpoint along
    the lineage, so the head's own step says which ancestor is `step`, with nothing else decoded. A step
    the thread does not have gives its ending alone (its last step says how far it goes)."""
    saved = reader.saved("", head)
    if isinstance(saved, DamagedCheckpoint):  # the head cannot say its step: the whole thread, as it decodes
        return _rebuilt(reader, graph, head, None, run_id)
    last = int(saved.metadata.get("step", -1))
    at = reader.ancestor("", head, last - step) if step < last else None
    if at is None:  # step N is the head's (or the one it has pending), or not in the thread
        return _rebuilt(reader, graph, head, 1 if step == last else 0, run_id)
    shown = _rebuilt(reader, graph, at, 1, run_id)
    return with_ending(shown, _rebuilt(reader, graph, head, 0, run_id))  # the head alone: nothing between decoded
