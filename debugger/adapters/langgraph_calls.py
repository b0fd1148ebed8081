"""Calling a langgraph app's own functions from the engine: what crosses the boundary, translated.

`langgraph_graph.py` rebuilds a langgraph graph on the engine; this module is how the rebuilt
graph calls the user's node and router functions:

- **what they are given**: the parameters langgraph would inject (`config`, `runtime`, `writer`,
  `store`), chosen by langgraph's own rule (`RunnableCallable.func_accepts`); other LangChain
  runnables are called with `invoke(input, config)`, as langgraph does;
- **what they call**: inside the call, langgraph's `get_config()` finds a config (so
  `langgraph.types.interrupt()`, `get_stream_writer()` and `get_runtime()` work), and an
  `interrupt()` reads and records its answers on the engine's task, exactly as `engine.interrupt()`
  does, so pausing, resuming and checkpoints behave the same;
- **what they return**: langgraph's `Command`, `Send` and `Overwrite` become the engine's, and a
  langgraph `GraphInterrupt` / `ParentCommand` the engine's.

Imported only once a langgraph object has been found, so it may import langgraph freely.
"""

from __future__ import annotations

import inspect
from typing import Any, Callable

import langgraph.errors as lg_errors
import langgraph.types as lg_types
from langchain_core.runnables import Runnable
from langchain_core.runnables.config import var_child_runnable_config
from langgraph._internal._constants import (
    CONFIG_KEY_CALL,
    CONFIG_KEY_CHECKPOINT_NS,
    CONFIG_KEY_RUNTIME,
    CONFIG_KEY_SCRATCHPAD,
    CONFIG_KEY_SEND,
)
from langgraph._internal._runnable import RunnableCallable
from langgraph.runtime import ExecutionInfo, Runtime

import engine
from debugger.adapters.langgraph_graph import UnsupportedLangGraphFeature
from engine.errors import GraphInterrupt, ParentCommand
from engine.interrupts import interrupt_id, task_ns
from engine.runner import current_task

Call = Callable[[Any, Any], Any]
"""`call(input, config)`: one user function or runnable, called the way langgraph calls it."""


def caller(runnable: Any, where: str) -> tuple[Call, Any]:
    """How to call a node's or router's runnable, and the user's own function (or runnable) in it."""
    if isinstance(runnable, RunnableCallable):
        return _function_caller(runnable, where), runnable.func
    if isinstance(runnable, Runnable):
        func = getattr(runnable, "func", None)  # a RunnableLambda
        if func is None and getattr(runnable, "afunc", None) is not None:
            raise UnsupportedLangGraphFeature("async functions (`async def`)", where)
        return (lambda value, config: runnable.invoke(value, config)), (func or runnable)
    raise UnsupportedLangGraphFeature(f"a node of type {type(runnable).__name__}", where)


def _function_caller(runnable: RunnableCallable, where: str) -> Call:
    func = runnable.func
    if func is None:
        raise UnsupportedLangGraphFeature(
            "async functions (`async def`)", where, "StepScope runs graphs synchronously (use `def`)."
        )
    if runnable.explode_args:
        raise UnsupportedLangGraphFeature("a runnable with exploded arguments", where)
    accepts = dict(runnable.func_accepts)
    for kw in ("previous", "error"):
        if kw in accepts:
            raise UnsupportedLangGraphFeature(f"the injected `{kw}` parameter", where)
    bound = dict(runnable.kwargs or {})

    def call(value: Any, config: Any) -> Any:
        kwargs = dict(bound)
        for kw in accepts:
            if kw in kwargs:
                continue
            if kw == "config":
                kwargs[kw] = config
            elif kw == "runtime":
                kwargs[kw] = runtime(config)
            elif kw == "writer":
                kwargs[kw] = _no_op_writer
            elif kw == "store":
                kwargs[kw] = None  # a graph compiled with a store is refused before it runs
        result = func(value, **kwargs)
        if runnable.recurse and isinstance(result, Runnable):
            result = result.invoke(value, config)
        return result

    return call


SIGNATURE = inspect.Signature([
    inspect.Parameter("state", inspect.Parameter.POSITIONAL_OR_KEYWORD),
    inspect.Parameter("config", inspect.Parameter.POSITIONAL_OR_KEYWORD, default=None),
])
"""How the engine sees every wrapper: it passes the run's config (`compiled._takes_config`)."""


def wraps(wrapper: Any, original: Any) -> Any:
    """Points `wrapper.__wrapped__` at the user's function, so tools that read node code (the
    diagnostics) read theirs, while `inspect.signature` keeps seeing `(state, config)`."""
    wrapper.__wrapped__ = original
    wrapper.__signature__ = SIGNATURE
    if inspect.isfunction(wrapper):
        wrapper.__annotations__ = {}  # nothing for the engine to infer a schema or a path map from
    return wrapper


class NodeAction:
    """A user's node as the engine calls it: `action(state, config)`."""

    def __init__(self, call: Call, where: str, original: Any) -> None:
        self.call = call
        self.where = where
        wraps(self, original)

    def __call__(self, state: Any, config: Any = None) -> Any:
        return to_engine_value(call_translated(self.call, state, config))

    def __repr__(self) -> str:
        return f"<langgraph node: {self.where}>"


def router(call: Call, name: str, original: Any) -> Callable[..., Any]:
    """A user's router as the engine calls it (`router(state, config=...)`), named as langgraph names it."""

    def route(state: Any, config: Any = None) -> Any:
        result = call_translated(call, state, config)
        if isinstance(result, lg_types.Send):
            return engine.Send(result.node, result.arg)
        if isinstance(result, (list, tuple)) and any(isinstance(r, lg_types.Send) for r in result):
            return [engine.Send(r.node, r.arg) if isinstance(r, lg_types.Send) else r for r in result]
        return result

    route.__name__ = route.__qualname__ = name
    return wraps(route, original)


def call_translated(call: Call, state: Any, config: Any) -> Any:
    """`call(state, config)` inside langgraph's context, with langgraph's control-flow exceptions
    (`interrupt()`, a `Command.PARENT` raised by langgraph code) turned into the engine's."""
    try:
        with langgraph_context(config):
            return call(state, config)
    except lg_errors.GraphInterrupt as exc:  # langgraph's interrupt(): pause the engine's run instead
        raise _engine_interrupt(exc) from None
    except lg_errors.ParentCommand as exc:
        raise ParentCommand(to_engine_value(exc.args[0])) from None


# ---- what user code finds inside a call -----------------------------------------------------


def _no_op_writer(chunk: Any) -> None:
    """`writer` / `get_stream_writer()`: custom stream output. langgraph's `invoke` drops it too."""


def runtime(config: Any) -> Runtime:
    """The `Runtime` langgraph gives a node of a graph with no context and no store."""
    context = current_task.get()
    info = None
    if context is not None:
        task = context.task
        info = ExecutionInfo(
            checkpoint_id=context.loop.state.checkpoint_id,
            checkpoint_ns=task_ns(context.loop.ns, task.name, task.id),
            task_id=task.id,
            thread_id=((config or {}).get("configurable") or {}).get("thread_id"),
        )
    return Runtime(context=None, store=None, stream_writer=_no_op_writer, previous=None, execution_info=info)


class _Scratchpad:
    """What langgraph's `interrupt()` reads and writes, backed by the engine task's interrupt state:
    the same answers list (`task.resume`) and call counter `engine.interrupt()` uses."""

    def __init__(self, context: Any) -> None:
        self.context = context
        self.step = context.task.step
        self.stop = context.loop.stop

    @property
    def resume(self) -> list[Any]:
        return self.context.task.resume

    def interrupt_counter(self) -> int:
        index = self.context.interrupt_calls
        self.context.interrupt_calls += 1
        return index

    def get_null_resume(self, consume: bool = False) -> Any:
        return self.context.loop.take_resume()

    def call_counter(self) -> int:
        raise UnsupportedLangGraphFeature("the Functional API (`@task`)", f"node '{self.context.task.name}'")

    subgraph_counter = call_counter


class langgraph_context:
    """Inside the block, langgraph's `get_config()` returns the engine's config plus the keys
    `interrupt()`, `get_stream_writer()` and `get_runtime()` read."""

    def __init__(self, config: Any) -> None:
        self.config = config or {}
        self.token: Any = None

    def __enter__(self) -> None:
        context = current_task.get()
        if context is None:
            return
        task = context.task
        configurable = {
            **(self.config.get("configurable") or {}),
            CONFIG_KEY_SCRATCHPAD: _Scratchpad(context),
            CONFIG_KEY_SEND: _keep_on_task,
            CONFIG_KEY_CHECKPOINT_NS: task_ns(context.loop.ns, task.name, task.id),
            CONFIG_KEY_RUNTIME: runtime(self.config),
            CONFIG_KEY_CALL: _functional_task(task.name),
        }
        self.token = var_child_runnable_config.set({**self.config, "configurable": configurable})

    def __exit__(self, *exc: Any) -> None:
        if self.token is not None:
            var_child_runnable_config.reset(self.token)


def _keep_on_task(writes: Any) -> None:
    """langgraph's `interrupt()` saves its answers as task writes; the engine already keeps them on
    the task (`_Scratchpad.resume` is `task.resume`) and checkpoints them itself."""


def _functional_task(node: str) -> Callable[..., Any]:
    def call(*args: Any, **kwargs: Any) -> Any:
        raise UnsupportedLangGraphFeature("the Functional API (`@task`)", f"node '{node}'")

    return call


def _engine_interrupt(exc: BaseException) -> GraphInterrupt:
    """langgraph's GraphInterrupt as the engine's, with the ids `engine.interrupt()` gives."""
    context = current_task.get()
    converted = []
    for item in tuple(exc.args[0]) if exc.args else ():
        ident = getattr(item, "id", "")
        if context is not None:
            task = context.task
            ident = interrupt_id(task_ns(context.loop.ns, task.name, task.id), len(task.resume))
        converted.append(engine.Interrupt(value=item.value, id=ident, response_schema=getattr(item, "response_schema", None)))
    return GraphInterrupt(tuple(converted))


# ---- what user code returns -----------------------------------------------------------------


def to_engine_value(value: Any) -> Any:
    """A node's return value (or a graph input) with langgraph's Command/Send/Overwrite made the
    engine's; everything else, the user's own objects included, is passed on as it is."""
    if isinstance(value, lg_types.Command):
        return _command(value)
    if isinstance(value, lg_types.Send):
        return engine.Send(value.node, value.arg)
    if type(value) is dict:
        if any(isinstance(v, lg_types.Overwrite) for v in value.values()):
            return {k: _write(v) for k, v in value.items()}
        return value
    if isinstance(value, (list, tuple)) and any(isinstance(item, lg_types.Command) for item in value):
        return type(value)(to_engine_value(item) for item in value)
    return value


def _write(value: Any) -> Any:
    return engine.Overwrite(value.value) if isinstance(value, lg_types.Overwrite) else value


def _command(command: lg_types.Command) -> engine.Command:
    update = command.update
    if isinstance(update, dict):
        update = {k: _write(v) for k, v in update.items()}
    elif isinstance(update, (list, tuple)) and all(isinstance(p, tuple) and len(p) == 2 for p in update):
        update = [(k, _write(v)) for k, v in update]
    goto = command.goto
    if isinstance(goto, lg_types.Send):
        goto = engine.Send(goto.node, goto.arg)
    elif isinstance(goto, (list, tuple)):
        goto = [engine.Send(g.node, g.arg) if isinstance(g, lg_types.Send) else g for g in goto]
    return engine.Command(graph=command.graph, update=update, resume=command.resume, goto=goto)
