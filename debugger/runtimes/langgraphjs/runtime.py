"""LangGraph.js as a runtime of the debugger: the third implementation of `debugger.runtimes.runtime.Runtime`.

A LangGraph.js app is not a Python object, so its "compiled graph" here is a `JSGraph`: where the app
is (`app.mjs`, the export), what node said of it when it was loaded (`describe`: the graph as the
debugger draws it, and the lesson's own `exampleInput`, `title`, `lesson`), and a `builder` stand-in
with its nodes and channels by name (what the forms read). Everything that runs it goes to node:
`record` is `record_js_app` (the app's own `@langchain/langgraph` under `recorder.mjs`).

Live runs are `drive` -> a `SegmentedRun` over `live.JSSegments` (one long-lived node process,
`live.mjs`); time travel is `checkpointed_copy`, a `JSGraph` with a `saver_file` whose
`get_state_history`/`update_state` go to node (`copies.py`, `fork.mjs`) and whose runs `record` records on
that saver. What this runtime does not do (yet), each refused in words: the checks before running (they
read Python code; a JS app is checked from its recorded run). Reading a checkpointer thread
(`read_thread`) and time travel on it (`fork_thread`, on a local SQLite copy) are `threads.py`: node
rebuilds and runs them with LangGraph.js's own code.
"""

from __future__ import annotations

import shutil
import tempfile
import uuid
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from debugger.runtimes.capabilities import LiveDriving, StaticChecks, Threads, TimeTravel
from debugger.runtimes.runtime import (
    NO_RESUME,
    RESUME_NEEDS_THREAD,
    LoadedTarget,
    Recorded,
    RunRequest,
    RunSetupError,
    TargetError,
    nothing_to_resume,
    own_saver_refusal,
    run_thread,
)
from debugger.runtimes.threads_api import ThreadFork, ThreadRead, thread_file
from debugger.stores.opening import local_db_path
from engine.codec import decode
from engine.trace import Trace

from . import JS_SUFFIXES, JSAppError, record_js_app
from .copies import JSResume, JSState, checkpoint_call
from .process import NodeRun
from .reader import EventReader

# A live run (`live.py`) and time travel (`threads.py`, over the langgraph runtime's thread readers) are
# imported where they are used: the registry asks this runtime about every target, and `stepscope run`
# of a Python app must not load them (tests/test_cli_lazy.py).

NAME = "langgraphjs"
FORK_FOLDER_PREFIX = "stepscope-js-fork-"
"""The temporary folders of time travel's copies (`checkpointed_copy`), removed by `discard_copy`."""
DESCRIBE_TIMEOUT = 60.0
"""Seconds node may take to load an app and describe its graph (importing LangGraph.js takes about 1 s)."""


class JSRunError(Exception):
    """A LangGraph.js run's own error (a node threw, the recursion limit), as Python sees it: its class
    name and message are LangGraph.js's, uncut."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(message)
        self.js_name = name


@dataclass(frozen=True)
class _Builder:
    """What the forms read of a graph's builder: its nodes and channels by name."""

    nodes: dict[str, Any]
    channels: dict[str, Any]


@dataclass
class JSGraph:
    """A LangGraph.js app's graph as the debugger holds it (see the module docstring)."""

    app: Path
    export: str
    description: dict[str, Any]
    lesson: dict[str, Any] = field(default_factory=dict)
    """The app's own `exampleInput`, `exampleConfig`, `title`, `lesson`, `pythonTwin`, decoded."""
    saver_file: str = ""
    """Time travel's copy (`checkpointed_copy`): the file its own `MemorySaver` lives in between node
    processes; '' for the app's graph as loaded."""

    def get_state_history(self, config: dict[str, Any]) -> list[JSState]:
        """The copy's checkpoints of `config`'s thread, newest first (LangGraph.js's `getStateHistory`)."""
        answer = checkpoint_call(str(self.app), self.export, "history", self._saver(), config)
        return [JSState(dict(s.get("config") or {}), dict(s.get("metadata") or {})) for s in answer["states"]]

    def update_state(self, config: dict[str, Any], values: Any, as_node: str | None = None) -> dict[str, Any]:
        """LangGraph.js's `updateState(config, values, asNode)` on the copy; the config of the new checkpoint."""
        answer = checkpoint_call(
            str(self.app), self.export, "update", self._saver(), config, values=values, as_node=as_node
        )
        return dict(answer["config"])

    def _saver(self) -> str:
        if not self.saver_file:
            raise TargetError("only time travel's checkpointed copy of a LangGraph.js app takes checkpoint calls")
        return self.saver_file

    @property
    def name(self) -> str:
        """The graph's name, as LangGraph.js gives it."""
        return str(self.description.get("name") or f"{self.app.name}:{self.export}")

    @property
    def builder(self) -> _Builder:
        """Node and channel names, for the forms that offer them."""
        nodes = {node["name"]: node for node in self.description.get("nodes", ())}
        return _Builder(nodes, dict(self.description.get("channels", {})))

    @property
    def nodes(self) -> dict[str, Any]:
        """The graph's nodes by name, as a compiled graph's `nodes` (what the Live run page offers)."""
        return self.builder.nodes

    @property
    def interrupt_before_nodes(self) -> list[str]:
        """The nodes the graph was compiled to pause before (`interruptBefore`)."""
        return list(self.description.get("interrupt_before", ()))

    @property
    def interrupt_after_nodes(self) -> list[str]:
        """The nodes the graph was compiled to pause after (`interruptAfter`)."""
        return list(self.description.get("interrupt_after", ()))


def _is_example(graph: JSGraph, graph_input: Any) -> bool:
    """True when `graph_input` is the app's own `exampleInput` (as `describe` decoded it): node then runs the
    original, whose messages are the app's own LangChain classes."""
    if "exampleInput" not in graph.lesson:
        return False
    example = graph.lesson["exampleInput"]
    try:
        return graph_input is example or bool(graph_input == example)
    except Exception:  # values whose == raises: only the same object counts
        return False


def is_js_target(spec: str) -> bool:
    """True for `app.mjs[:export]` (and .js, .cjs, .ts, .mts, .cts)."""
    return spec.partition(":")[0].lower().endswith(JS_SUFFIXES)


def describe(app: str | Path, export: str = "graph") -> JSGraph:
    """Loads the app in node without running its graph: its graph's description and its lesson exports.
    `JSAppError` (one line) when node, the file, the export or `@langchain/langgraph` is not right."""
    path = Path(app).expanduser().resolve()
    if not path.is_file():
        raise JSAppError(f"{app}: no such file. Give the path of a .mjs, .js, .cjs or .ts file")
    reader = _DescribeReader(target=f"{path.name}:{export}", run_id=uuid.uuid4().hex)
    run = NodeRun({"app": str(path), "export": export, "mode": "describe"}, reader)
    stopped = run.wait(DESCRIBE_TIMEOUT)
    if reader.fatal is not None:
        raise JSAppError(f"{path.name}: {reader.fatal}")
    if reader.described is None:
        why = (
            f"it did not load within {DESCRIBE_TIMEOUT:g} s (does the app wait for something when it is imported?)"
            if stopped == "timeout"
            else run.stderr_line() or f"node exited with status {run.process.returncode}"
        )
        raise JSAppError(f"{path.name} could not be loaded: {why}")
    lesson = {key: decode(value) for key, value in (reader.described.get("module") or {}).items()}
    return JSGraph(path, export, reader.described.get("graph") or {}, lesson)


class _DescribeReader(EventReader):
    """Reads the one `described` event of a describe request (and the refusals any request can end with)."""

    described: dict[str, Any] | None = None

    def _on_described(self, event: dict[str, Any]) -> None:
        self.described = event


class LangGraphJSRuntime:
    """LangGraph.js apps, run in node (see the module docstring)."""

    name = NAME
    title = "LangGraph.js"
    language = "javascript"
    recursion_limit_key = "recursionLimit"
    errors: tuple[type[Exception], ...] = (JSAppError,)
    capabilities = (StaticChecks, TimeTravel, Threads, LiveDriving)
    """`--thread`/`--resume` reach the app's own saver through its config, and a `MemorySaver` thread
    outlives the node process in a file beside the run store (`saved_thread.mjs`): a run continues its
    thread, an interrupt is answered from a later process, and the app shows the thread's runs as turns.
    A SqliteSaver's or PostgresSaver's threads are read (`read_thread`) by LangGraph.js's own code in node."""

    def loads(self, spec: str) -> bool:
        """This runtime loads targets written in JavaScript (`app.mjs:graph`)."""
        return is_js_target(spec)

    def load(self, spec: str) -> Any:
        """The `LoadedTarget` of `app.mjs[:export]` (the export defaults to `graph`)."""
        path, _, export = spec.partition(":")
        try:
            graph = describe(path, export or "graph")
        except JSAppError as exc:
            raise TargetError(str(exc)) from None
        lesson = graph.lesson
        config = lesson.get("exampleConfig") if isinstance(lesson.get("exampleConfig"), dict) else {}
        return LoadedTarget(graph, lesson.get("exampleInput", {}), _Module(lesson), spec, dict(config), self)

    def claims(self, value: Any) -> bool:
        """A `JSGraph`: a LangGraph.js app loaded by `load`."""
        return isinstance(value, JSGraph)

    def records(self, trace: Trace) -> bool:
        """A trace recorded from LangGraph.js (its graph description says so)."""
        return isinstance(trace.graph, dict) and trace.graph.get("source") == NAME

    def check_run_options(self, given: dict[str, str], target: str) -> None:
        """LangGraph.js takes `--config` (its own camelCase keys), `--thread` and `--resume`; not `--context`."""
        if "context" in given:
            raise TargetError(
                f"{given['context']}: not for {target}, a LangGraph.js app: give its context inside the config "
                "('configurable')."
            )

    def checkpointer_class(self, graph: Any) -> str | None:
        """The class of the saver the app compiled its graph with, as node found it (`describe.mjs`), or None."""
        return graph.description.get("checkpointer") or None

    def record(self, request: RunRequest) -> Recorded:
        """Runs the app once in node, recorded. With a `sink`, the run is stored when node is done (however
        it ended: a killed or timed-out node still leaves every step it committed, which this process holds)."""
        config, resume, graph = dict(request.config or {}), request.resume, request.graph
        graph_input = request.graph_input
        if isinstance(graph_input, JSResume):  # time travel answering an interrupt on its copy
            graph_input, resume = None, graph_input.answer
        saver = self._run_saver(request)
        thread, new_thread = self._thread_for(request, config, resume)
        if thread:
            config["configurable"] = {**(config.get("configurable") or {}), "thread_id": thread}
        try:
            trace = record_js_app(
                str(graph.app),
                graph.export,
                graph_input,
                config,
                timeout=request.timeout,
                resume=None if resume is NO_RESUME else resume,
                example_input=_is_example(graph, graph_input),
                thread_file=graph.saver_file
                or (
                    str(thread_file(local_db_path(request.db), request.target or graph.name, thread))
                    if thread and request.keep_thread
                    else None
                ),
                fresh_saver=bool(graph.saver_file),
                checkpointer=saver,
            )
        except JSAppError as exc:
            raise RunSetupError(str(exc)) from None
        trace.target = request.target or trace.target
        trace.thread_id = thread
        if request.sink is not None:
            request.sink.finish(trace)
        error = trace.error or {}
        failed = trace.status in ("error", "recursion_limit")
        return Recorded(
            trace,
            output=decode(trace.output) if trace.status == "done" else None,
            error=JSRunError(error.get("class", "Error"), error.get("message", "")) if failed else None,
            thread_id=thread,
            new_thread=new_thread,
        )

    def _run_saver(self, request: RunRequest) -> dict[str, str] | None:
        """`--checkpointer`, checked (`run_on.checked_url`), as node opens it with the app's own saver package
        (`run_saver.mjs`); refused for an app compiled with a saver of its own."""
        if not request.checkpointer:
            return None
        found = self.checkpointer_class(request.graph)
        if found is not None:
            raise RunSetupError(own_saver_refusal(request.target, found))
        from debugger.runtimes.checkpointers.run_on import checked_url  # only for a run on a named saver
        from debugger.runtimes.threads_api import CheckpointerError
        from debugger.stores.urls import is_postgres_url

        try:
            url = checked_url(request.checkpointer, self.language)
        except CheckpointerError as exc:
            raise RunSetupError(str(exc)) from None
        return {"kind": "postgres" if is_postgres_url(url) else "sqlite", "url": url}

    def _thread_for(self, request: RunRequest, config: dict[str, Any], resume: Any) -> tuple[str, bool]:
        """(the thread the run goes on, made up for it): `--thread` or the config's `configurable.thread_id`;
        an app compiled with a checkpointer and given neither gets a fresh one, as a langgraph app does
        (LangGraph.js itself would refuse the run for the missing thread_id)."""
        thread = run_thread(config, request.thread)
        saver = self.checkpointer_class(request.graph) or request.checkpointer
        if resume is not NO_RESUME and saver is None and not request.graph.saver_file:
            raise RunSetupError(nothing_to_resume(request.target, "compile({ checkpointer: new MemorySaver() })"))
        if thread:
            return thread, False
        if resume is not NO_RESUME:
            raise RunSetupError(RESUME_NEEDS_THREAD)
        if saver and not request.graph.saver_file:
            return uuid.uuid4().hex[:12], True
        return "", False

    def static_view(self, graph: Any) -> tuple[Any, str | None]:
        """None: the checks before running read Python code; a LangGraph.js graph is checked from its run."""
        return None, "the checks before running read Python code; a LangGraph.js app is checked from its recorded run"

    def checkpointed_copy(self, graph: Any) -> Any:
        """The app's graph on a fresh `MemorySaver` of the debugger's own, kept in a file between the node
        processes of one time travel (`copies.py`); never the app's own saver."""
        folder = Path(tempfile.mkdtemp(prefix=FORK_FOLDER_PREFIX))
        return replace(graph, saver_file=str(folder / "saver.json"))

    def discard_copy(self, copy: Any) -> None:
        """Removes the copy's temporary folder (its saver file), made by `checkpointed_copy`."""
        if isinstance(copy, JSGraph) and copy.saver_file:
            folder = Path(copy.saver_file).parent
            if folder.name.startswith(FORK_FOLDER_PREFIX):  # only a folder `checkpointed_copy` made
                shutil.rmtree(folder, ignore_errors=True)

    def resume_input(self, answer: Any) -> Any:
        """The input that answers an interrupt (node sends it as `new Command({resume: answer})`)."""
        return JSResume(answer)

    def with_write_in_step(self, graph: Any, node: str, step: int, write: dict[str, Any]) -> Any | None:
        """A node's write replaced in one step: not for JavaScript nodes."""
        return None

    def read_thread(self, checkpointer: Any, graph: Any, read: ThreadRead) -> Trace:
        """The thread rebuilt in node by LangGraph.js's own planning and barrier (`threads.py`, `thread_replay.mjs`)."""
        from .threads import read_js_thread

        return read_js_thread(checkpointer, graph, read)

    def fork_thread(self, fork: ThreadFork) -> Any:
        """Time travel from a checkpoint of the thread on a local SQLite copy, run by node (`threads.py`)."""
        from .threads import fork_js_thread

        return fork_js_thread(fork)

    def drive(
        self, graph: Any, graph_input: Any, config: dict[str, Any] | None, *, target: str, hooks: Any = None
    ) -> Any:
        """A `SegmentedRun` over one node process that runs the app one superstep (segment) at a time."""
        from debugger.runtimes.segmented_live import SegmentedRun

        from .live import JSSegments

        return SegmentedRun(JSSegments, graph, graph_input, config, target=target, hooks=hooks)


@dataclass(frozen=True)
class _Module:
    """The app's lesson exports under the names the debugger reads from a Python module."""

    exports: dict[str, Any]

    @property
    def title(self) -> str:
        """The lesson's title, if the app exports one."""
        return str(self.exports.get("title", ""))

    @property
    def lesson(self) -> str:
        """The lesson's text, if the app exports one."""
        return str(self.exports.get("lesson", ""))

    @property
    def example_input(self) -> Any:
        """The app's `exampleInput`."""
        return self.exports.get("exampleInput", {})


LANGGRAPHJS = LangGraphJSRuntime()
"""The one LangGraph.js runtime the registry hands out."""
