"""The hooks StepScope puts into langgraph's Pregel loop to watch a run (`probe.py` records what they see).

langgraph has no hook interface for what a debugger needs (each reducer call with its value before
and after, each failed attempt of a retried node, a router's own answer), so `install()` wraps, once,
the few places where those happen, and only runs started inside a recording session (`record.py`)
are observed: every other run goes straight through after one lookup.

    PregelLoop._first           the run starts: a LoopProbe; the state it starts from; the input's writes
    PregelLoop.tick             the tasks planned; each task's runnable wrapped (`watched.ObservedProc`)
    apply_writes (in _loop)     the barrier, observed (`LoopProbe.barrier`)
    PregelLoop._put_checkpoint  checkpoint id and parent of each step
    PregelLoop.output_writes    the interrupts langgraph streams, which `invoke` returns as `__interrupt__`
    __exit__ / __aexit__        status, output, error, interrupts; the unfinished step's tasks
    BranchSpec._finish          each router's own answer, filed under the running task
    Pregel.stream / astream     which compiled graph a loop belongs to (for nested runs' drawings)
"""

from __future__ import annotations

import threading
import weakref
from typing import Any

from .probe import _BY_CHANNELS, _GRAPHS, _PROBE_ATTR, ACTIVE, LoopProbe, UnsupportedLangGraph
from .superstep import check_recordable
from .watched import _TASK

_INSTALLED = False
_INSTALL_LOCK = threading.Lock()


def install() -> None:
    """Puts the hooks into langgraph's classes (once). Raises `UnsupportedLangGraph` for a langgraph
    whose internals differ from the 1.2 series StepScope knows."""
    global _INSTALLED
    with _INSTALL_LOCK:
        if _INSTALLED:
            return
        try:
            from langgraph.graph._branch import BranchSpec
            from langgraph.pregel import _loop
            from langgraph.pregel.main import Pregel
        except ImportError as exc:
            raise UnsupportedLangGraph(
                f"this langgraph cannot be recorded ({exc}); StepScope supports langgraph 1.2.x"
            ) from None
        loop_class = _loop.PregelLoop
        needed = [
            (loop_class, "_first"),
            (loop_class, "tick"),
            (loop_class, "_put_checkpoint"),
            (loop_class, "output_writes"),
            (_loop.SyncPregelLoop, "__exit__"),
            (_loop.AsyncPregelLoop, "__aexit__"),
            (_loop, "apply_writes"),
            (BranchSpec, "_finish"),
            (Pregel, "stream"),
            (Pregel, "astream"),
        ]
        missing = [f"{getattr(o, '__name__', o)}.{n}" for o, n in needed if not hasattr(o, n)]
        if missing:
            raise UnsupportedLangGraph(
                f"this langgraph has no {', '.join(missing)}; StepScope supports langgraph 1.2.x"
            )
        _patch_loop(_loop)
        _patch_branch(BranchSpec)
        _patch_pregel(Pregel)
        _INSTALLED = True


def _patch_loop(_loop: Any) -> None:
    """Installs every hook in langgraph's loop. Long because each patched method is a closure over the original
    it wraps and the session lookup they share; split, they would pass that state around."""
    loop_class = _loop.PregelLoop
    first, tick, put_checkpoint = loop_class._first, loop_class.tick, loop_class._put_checkpoint
    output_writes = loop_class.output_writes
    apply_writes = _loop.apply_writes
    sync_exit, async_exit = _loop.SyncPregelLoop.__exit__, _loop.AsyncPregelLoop.__aexit__
    resuming_key = getattr(_loop, "CONFIG_KEY_RESUMING", "__pregel_resuming")

    def _first_observed(self: Any, **kwargs: Any) -> Any:
        session = ACTIVE.get()
        if session is None:
            return first(self, **kwargs)
        check_recordable(
            self.specs,
            [
                k
                for k in self.specs
                if k not in (getattr(self, "managed", None) or ()) and not k.startswith(("__", "branch:", "join:"))
            ],
        )  # refused before it runs
        probe = LoopProbe(session, self)
        self.__dict__[_PROBE_ATTR] = probe
        configurable = self.config.get("configurable", {})
        resuming = bool(self.checkpoint["channel_versions"]) and bool(
            configurable.get(resuming_key, self.input is None or type(self.input).__name__ == "Command")
        )
        probe.first_step = self.step - 1 if resuming else self.step
        try:
            updated = first(self, **kwargs)
        except BaseException as exc:  # the loop never starts, so its __exit__ never runs: end the record here
            probe.first_step = None
            probe.finish(self, exc)
            raise
        finally:
            step, probe.first_step = probe.first_step, None
        probe.commit(step, self.channels, self.checkpoint["channel_versions"], updated)
        return updated

    def tick_observed(self: Any) -> bool:
        probe = self.__dict__.get(_PROBE_ATTR)
        if probe is None:
            return tick(self)
        probe.loop_step = self.step  # after_tick applies this step's writes at this step
        more = tick(self)
        if more:
            probe.planned(self)
        return more

    def apply_writes_observed(
        checkpoint: Any, channels: Any, tasks: Any, get_next_version: Any, trigger_to_nodes: Any
    ) -> Any:
        probe = _BY_CHANNELS.get(id(channels)) if _BY_CHANNELS else None
        if probe is None:
            return apply_writes(checkpoint, channels, tasks, get_next_version, trigger_to_nodes)
        step = probe.first_step if probe.first_step is not None else probe.loop_step
        return probe.barrier(apply_writes, checkpoint, channels, tasks, get_next_version, trigger_to_nodes, step)

    def put_checkpoint_observed(self: Any, metadata: Any) -> None:
        probe = self.__dict__.get(_PROBE_ATTR)
        if probe is None or self.checkpointer is None:
            return put_checkpoint(self, metadata)
        step = probe.first_step if probe.first_step is not None else self.step
        before = (self.checkpoint_config.get("configurable") or {}).get("checkpoint_id")
        put_checkpoint(self, metadata)
        after = (self.checkpoint_config.get("configurable") or {}).get("checkpoint_id")
        if self.checkpointer is not None and after and after != before:
            probe.run.checkpoint(step, self.checkpoint_config, self.prev_checkpoint_config)

    def output_writes_observed(self: Any, task_id: str, writes: Any, *, cached: bool = False) -> None:
        probe = self.__dict__.get(_PROBE_ATTR)
        if probe is not None:
            probe.streamed_interrupts(self, task_id, writes)
        return output_writes(self, task_id, writes, cached=cached)

    def sync_exit_observed(self: Any, exc_type: Any, exc: Any, tb: Any) -> Any:
        probe = self.__dict__.get(_PROBE_ATTR)
        if probe is None:
            return sync_exit(self, exc_type, exc, tb)
        probe.loop_step = self.step
        try:
            return sync_exit(self, exc_type, exc, tb)
        finally:
            probe.finish(self, exc)

    async def async_exit_observed(self: Any, exc_type: Any, exc: Any, tb: Any) -> Any:
        probe = self.__dict__.get(_PROBE_ATTR)
        if probe is None:
            return await async_exit(self, exc_type, exc, tb)
        probe.loop_step = self.step
        try:
            return await async_exit(self, exc_type, exc, tb)
        finally:
            probe.finish(self, exc)

    # after_tick calls apply_writes at the tick's step; `loop_step` remembers it (tick sets it).
    loop_class._first = _first_observed
    loop_class.tick = tick_observed
    loop_class._put_checkpoint = put_checkpoint_observed
    loop_class.output_writes = output_writes_observed
    _loop.apply_writes = apply_writes_observed
    _loop.SyncPregelLoop.__exit__ = sync_exit_observed
    _loop.AsyncPregelLoop.__aexit__ = async_exit_observed


def _patch_branch(branch_class: Any) -> None:
    finish = branch_class._finish

    def finish_observed(self: Any, writer: Any, input: Any, result: Any, config: Any) -> Any:
        probe = _TASK.get()
        if probe is not None:
            probe.routes.append((probe.loop.branch_names.get(id(self)) or _callable_name(self.path), result))
        return finish(self, writer, input, result, config)

    branch_class._finish = finish_observed


def _patch_pregel(pregel_class: Any) -> None:
    stream, astream = pregel_class.stream, pregel_class.astream

    def stream_observed(self: Any, *args: Any, **kwargs: Any) -> Any:
        if ACTIVE.get() is not None:
            _register(self)
        return stream(self, *args, **kwargs)

    def astream_observed(self: Any, *args: Any, **kwargs: Any) -> Any:
        if ACTIVE.get() is not None:
            _register(self)
        return astream(self, *args, **kwargs)

    pregel_class.stream = stream_observed
    pregel_class.astream = astream_observed


def _register(graph: Any) -> None:
    key = id(graph.nodes)
    known = _GRAPHS.get(key)
    if known is not None and known() is graph:
        return
    _GRAPHS[key] = weakref.ref(graph, lambda ref, key=key: _GRAPHS.pop(key, None) if _GRAPHS.get(key) is ref else None)


def _callable_name(path: Any) -> str:
    func = getattr(path, "func", None) or getattr(path, "afunc", None) or path
    return getattr(func, "__name__", None) or type(func).__name__
