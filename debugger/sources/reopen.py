"""A stored run's code back: the sample or graph file the run records as its target, or the checkpointer
thread it was read from, loaded again (never run) so What-if and Time travel work on a reopened link as
they did when the run was made.

The run is only given code that is still the code it was made from: a file that is gone, no longer
imports, or whose graph has other nodes than the recorded run is refused with one line that says which
(`CodeBack.why_not`), and the stored run is shown as data.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from debugger.runtimes.checkpointers.open import checkpointer_url, load_app
from debugger.runtimes.registry import loader_for
from debugger.runtimes.targets import load_target
from debugger.stores.urls import masked
from engine.trace import Trace
from sample_graphs.gallery import SAMPLES, load_sample

THREAD_MARK = " thread "
"""A checkpointer thread's trace is targeted `<app graph> thread <thread id>` (`checkpointers.open.open_thread`)."""


@dataclass
class CodeBack:
    """The graph a stored run was made from, or why it did not come back."""

    graph: Any = None
    config: dict[str, Any] | None = None
    lesson: str = ""
    title: str = ""
    why_not: str = ""
    """One line for the user when `graph` is None ('' when the run names no code at all)."""


def _node_names(nodes: Any) -> set[str]:
    return {str(name) for name in nodes if not str(name).startswith("__")}


def _recorded_nodes(trace: Trace) -> set[str]:
    return _node_names(n.get("name", "") for n in trace.graph.get("nodes", []))


def _graph_nodes(graph: Any) -> set[str] | None:
    """The node names a loaded graph declares (engine and langgraph graphs both keep them on their
    builder), or None when it does not say."""
    builder_nodes = getattr(getattr(graph, "builder", None), "nodes", None)
    nodes = builder_nodes if builder_nodes is not None else getattr(graph, "nodes", None)
    return None if nodes is None else _node_names(nodes)


def changed(trace: Trace, graph: Any) -> str:
    """Why `graph` is not the graph `trace` was recorded from ('' when it is): its nodes differ."""
    recorded, now = _recorded_nodes(trace), _graph_nodes(graph)
    if now is None or not recorded or recorded == now:
        return ""
    gone, new = sorted(recorded - now), sorted(now - recorded)
    parts = ([f"no node {', '.join(gone)} any more"] if gone else []) + ([f"new node {', '.join(new)}"] if new else [])
    return "; ".join(parts)


def code_back(trace: Trace, target: str) -> CodeBack:
    """Loads `target` (a sample name, `file.py[:attribute]`, `package.module:attribute`, or a target another
    runtime loads itself, `app.mjs[:export]`) without running it, for the stored run `trace`."""
    if THREAD_MARK in target:  # a branch of a checkpointer thread: its code is the thread's (`thread_back`)
        return CodeBack()
    try:
        if target in SAMPLES:
            module = load_sample(target)
            graph, config = module.graph, dict(getattr(module, "example_config", None) or {})
        elif target.partition(":")[0].endswith(".py") or ":" in target or loader_for(target) is not None:
            loaded = load_target(target)
            module, graph, config = loaded.module, loaded.graph, dict(loaded.example_config or {})
        else:
            return CodeBack()
    except Exception as exc:  # moved, deleted or broken since: the stored run is still shown, without its code
        return CodeBack(why_not=f"The code of this run did not come back: {_load_failure(target, exc)}.")
    difference = changed(trace, graph)
    if difference:
        return CodeBack(
            why_not=f"The code of this run did not come back: {target} has changed since the run ({difference}); "
            "run it again to debug the new code."
        )
    return CodeBack(graph, config, getattr(module, "lesson", "") or "", getattr(module, "title", "") or target)


def _load_failure(target: str, exc: Exception) -> str:
    """What went wrong loading `target`, in a few words (the loader's first sentence, not its advice)."""
    text = str(exc).strip().splitlines()[0].split(". ")[0].rstrip(".") if str(exc).strip() else type(exc).__name__
    return text if target.partition(":")[0] in text else f"{target}: {text}"


@dataclass
class ThreadBack:
    """A stored thread run's origin (graph target, checkpointer URL, thread id), or why it has none."""

    origin: tuple[str, str, str] | None = None
    why_not: str = ""


def thread_target(trace: Trace) -> str:
    """The app graph a stored checkpointer thread run was read with, or '' for a run of another kind."""
    suffix = f"{THREAD_MARK}{trace.thread_id}"
    if not trace.thread_id or not trace.target.endswith(suffix):
        return ""
    return trace.target[: -len(suffix)]


def thread_back(trace: Trace, url: str | None) -> ThreadBack:
    """The origin of the stored thread run `trace`, checkpointer `url` (from the link, else
    `$STEPSCOPE_CHECKPOINTER`), so time travel on it works again; its app graph is loaded, not run."""
    target = thread_target(trace)
    url = checkpointer_url(url)
    if not url:
        return ThreadBack(
            why_not="Time travel on this thread needs its checkpointer: open it from the sidebar's Checkpointer "
            "thread form, or start the app with `stepscope app --checkpointer URL`."
        )
    try:
        app = load_app(target)
    except Exception as exc:  # the app file moved or broke since: shown as the stored run it is
        return ThreadBack(why_not=f"The code of this thread did not come back: {_load_failure(target, exc)}.")
    difference = changed(trace, app.graph)
    if difference:
        return ThreadBack(why_not=f"The code of this thread did not come back: {target} has changed ({difference}).")
    return ThreadBack((target, url, trace.thread_id))


def linkable_checkpointer(url: str) -> str:
    """`url` when a page address may carry it (a file path or a URL without secrets), else ''."""
    return url if url and masked(url) == url else ""
