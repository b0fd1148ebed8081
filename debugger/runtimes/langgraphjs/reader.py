"""Reading the LangGraph.js recorder's events into a Trace.

`recorder.mjs` (run by `process.py`) writes one JSON object per line, as things happen, on its own file
descriptor (the app's console.log goes to stdout and cannot corrupt the stream). Values are already in
`engine.codec`'s encoded form (plus `{"$type": "undefined"}`); before/after are deltas. Every event has `e`:

    hello       {langgraph, node, pid, module}                      the recorder started, this LangGraph.js
    graph       {gid, graph}                                        a compiled graph's description
                                                                    (`engine.records.describe()`'s shape)
    run         {run, parent_run, parent_task, ns, gid, state_keys, a run of a graph started: the root run
                 input, config, recursion_limit, thread_id,         (parent_run null) or a subgraph's, nested
                 started_at}                                        under the task running it
    task        {run, step, task: {id, name, path, triggers, fired, a task planned for `step`
                 seen_versions, input}}
    task_done   {run, step, id, writes, result?, error?, routes?,  the task settled: writes in the node's
                 route_reads?, duration, attempts?}                 order; result absent when it failed;
                                                                    route_reads: per route, the keys it read
    call        {run, step, call: {channel, reducer, writer,       one reducer call, in LangGraph.js's
                 writer_name, write, before, after, error?}}        application order (tasks sorted by path)
    commit      {run, step, versions, updated, state?, mismatches?} the barrier finished; `versions` holds
                                                                    the ones that changed, `state` the changes
                                                                    no call explains, `mismatches` the keys
                                                                    whose committed value is not the last
                                                                    call's `after`
    checkpoint  {run, step, config, parent}                         the checkpoint saved after `step`
    end         {run, status, output, duration, error?, interrupts?} the run ended
    result      {output | error, seconds, cpu_seconds}              what the app's `graph.invoke` returned
                                                                    or threw (error name, message uncut,
                                                                    lc_error_code), how long it took (wall, CPU)
    fatal       {message, error}                                    nothing ran: a one-line reason with the fix
    crash       {kind, error}                                       an unhandled rejection or exception
                                                                    killed node (`kind` says which)
    exit        {code}                                              `process.exit(code)` before the run ended
    stopped     {signal}                                            SIGINT/SIGTERM: the recorder flushed and left

Every event goes through the one trace writer (`engine.trace_writer.TraceWriter`, one per run) in its
encoded form: the recorder in node computes the deltas and input views (it holds the real values and
their identity), so the writer files them as they come.

The recorder flushes after every planned step and every committed barrier, so whatever kills node,
each committed step has been read. `EventReader.close(...)` ends the runs still open (a timeout, Ctrl-C, a
crash) keeping every step that came.
"""

from __future__ import annotations

import threading
from typing import Any, Callable

from debugger.runtimes.runtime import target_name
from engine.codec import TYPE
from engine.trace import ReducerCallRecord, RunRecord, StepRecord, Trace, TraceWriter, utc_now, where_stopped

DEFAULT_NAME = "LangGraph"
"""The name LangGraph.js gives a graph compiled without one: the root run is named after its target instead."""


class EventReader:
    """Folds recorder events into a Trace (and its nested subgraph runs). Thread-safe: the process reader
    thread feeds it while the caller may look at `trace`."""

    def __init__(self, *, target: str, run_id: str, on_step: Callable[[StepRecord], None] | None = None) -> None:
        self.target = target
        self.run_id = run_id
        self.on_step = on_step
        self.lock = threading.Lock()
        self.graphs: dict[int, dict[str, Any]] = {}
        self.runs: dict[int, TraceWriter] = {}
        self.root: TraceWriter | None = None
        self.trace: Trace | None = None
        self.result: dict[str, Any] | None = None
        self.fatal: str | None = None
        self.ending: dict[str, Any] | None = None
        """The crash, exit or stop event that ended node before the run did, if any."""
        self.version = ""
        self.outside: list[RunRecord] = []
        """Root-level runs after the first, outside any recorded task (a stored thread's ending, read apart
        from the one step shown; a graph the app's own code invoked)."""
        self.ended: set[int] = set()
        """The writers whose `end` came (a stored thread's run may end `running`: tasks planned, none run)."""

    def feed(self, event: dict[str, Any]) -> None:
        """Applies one event."""
        handler = getattr(self, f"_on_{event.get('e')}", None)
        if handler is not None:
            with self.lock:
                handler(event)

    # ---- events -----------------------------------------------------------------------------------

    def _on_hello(self, event: dict[str, Any]) -> None:
        self.version = str(event.get("langgraph", ""))

    def _on_graph(self, event: dict[str, Any]) -> None:
        self.graphs[event["gid"]] = event["graph"]

    def _on_run(self, event: dict[str, Any]) -> None:
        graph = dict(self.graphs.get(event.get("gid"), {}) or _unknown_graph(event.get("state_keys", [])))
        ns = [str(part) for part in event.get("ns", [])]
        parent = self.runs.get(event.get("parent_run")) if event.get("parent_run") is not None else None
        if parent is None:
            if graph.get("name") in (None, DEFAULT_NAME) and self.target:
                graph["name"] = target_name(self.target)
        elif ns:
            graph["name"] = ns[-1].partition(":")[0] or graph.get("name", DEFAULT_NAME)
        common = dict(
            ns=ns,
            graph=graph,
            input=event.get("input"),
            config=event.get("config"),
            recursion_limit=int(event.get("recursion_limit") or 0),
            started_at=event.get("started_at") or utc_now(),
        )
        parent_task = parent.tasks_by_id.get(event.get("parent_task")) if parent is not None else None
        if parent_task is None and self.root is None:
            record: RunRecord = Trace(
                **common, run_id=self.run_id, target=self.target, thread_id=str(event.get("thread_id") or "")
            )
            self.trace = record
            writer = self.root = TraceWriter(record)
        elif parent_task is not None:
            writer = parent.subrun(parent_task, RunRecord(**common))
        else:  # a graph run outside any recorded task: kept apart, not shown (`outside`)
            writer = TraceWriter(RunRecord(**common))
            self.outside.append(writer.record)
        self.runs[event["run"]] = writer

    def _on_task(self, event: dict[str, Any]) -> None:
        run = self.runs.get(event["run"])
        if run is None:
            return
        t = event["task"]
        run.plan_task(
            event["step"],
            id=t["id"],
            name=t["name"],
            path=t["path"],
            triggers=t["triggers"],
            fired=t["fired"],
            seen_versions=t["seen_versions"],
            input=t["input"],
        )

    def _on_task_done(self, event: dict[str, Any]) -> None:
        run = self.runs.get(event["run"])
        task = run.tasks_by_id.get(event["id"]) if run is not None else None
        if task is not None:
            run.task_done(
                task,
                writes=event.get("writes", []),
                result=event.get("result"),
                has_result="result" in event,
                error=event.get("error"),
                routes=event.get("routes") or (),
                duration=float(event.get("duration", 0.0)),
                attempts=event.get("attempts") or [],
                encoded=True,
            )
            _note_route_reads(run.record.graph, task.name, event.get("route_reads"))

    def _on_call(self, event: dict[str, Any]) -> None:
        run = self.runs.get(event["run"])
        if run is not None:
            step = event["step"]
            call = event["call"]
            index = len(run.open_step(step).reducer_calls)
            run.add_call_record(step, ReducerCallRecord(index=index, **call))  # the event's keys are the record's

    def _on_commit(self, event: dict[str, Any]) -> None:
        run = self.runs.get(event["run"])
        if run is None:
            return
        # the recorder sends only the versions that changed; the writer keeps the whole mapping
        versions = {**run.versions, **event.get("versions", {})}
        record = run.commit_encoded(event["step"], event.get("state") or {}, versions, event.get("updated", []))
        record.mismatches.extend(event.get("mismatches") or [])
        if run is self.root and self.on_step is not None:
            self.on_step(record)

    def _on_checkpoint(self, event: dict[str, Any]) -> None:
        run = self.runs.get(event["run"])
        if run is not None:
            run.checkpoint(event["step"], event.get("config"), event.get("parent"))

    def _on_end(self, event: dict[str, Any]) -> None:
        run = self.runs.get(event["run"])
        if run is not None:
            self.ended.add(id(run))
            record = run.finish(
                event["status"],
                event.get("output"),
                event.get("error"),
                event.get("interrupts") or (),
                encoded=True,
            )
            if event.get("duration") is not None:
                record.duration = event["duration"]  # node's own clock: the run, not the pipe

    def _on_result(self, event: dict[str, Any]) -> None:
        self.result = event

    def _on_fatal(self, event: dict[str, Any]) -> None:
        text = str(event.get("message") or "").strip()
        self.fatal = text.splitlines()[0] if text else "the LangGraph.js recorder failed"

    def _on_crash(self, event: dict[str, Any]) -> None:
        self.ending = event

    _on_exit = _on_crash
    _on_stopped = _on_crash

    # ---- the end ----------------------------------------------------------------------------------

    def close(self, *, stopped: str | None = None, why: str = "", empty_run: Callable[[], Trace]) -> Trace:
        """The finished Trace. `stopped` ("timeout", "cancelled") when the caller ended node, with `why`
        as the message; runs node left open end with the crash/exit that ended it. `empty_run` makes the
        Trace of a run that never started a loop."""
        with self.lock:
            if self.trace is None:
                self.trace = empty_run()
                self.root = TraceWriter(self.trace)
            result_error = (self.result or {}).get("error")
            if stopped is None and self.ending is None and self.result is not None:
                if not self._finished(self.root):  # failed before its first superstep (validation, a missing thread_id)
                    self.root.finish("error" if result_error else "done", self.result.get("output"), encoded=True)
                if result_error is not None and self.trace.status == "error":
                    self.trace.error = result_error  # what the app's own invoke threw, uncut
                elif result_error is not None and self.trace.error is None and self.trace.status != "interrupted":
                    self.trace.error = result_error
            else:
                status, error = self._stop_reason(stopped, why)
                for run in self.runs.values() or [self.root]:
                    if not self._finished(run):
                        run.finish(status, None, error)
                if not self._finished(self.root):
                    self.root.finish(status, None, error)
            return self.trace

    def _finished(self, run: TraceWriter) -> bool:
        """True once the run's `end` came (or the reader ended it)."""
        return id(run) in self.ended or run.record.status != "running"

    def _stop_reason(self, stopped: str | None, why: str) -> tuple[str, dict[str, Any]]:
        where = self._where()
        if stopped is not None:
            kind = "RunTimeout" if stopped == "timeout" else "RunCancelled"
            return stopped, _stepscope_error(kind, why.format(where=where) if "{where}" in why else f"{why} {where}")
        ending = self.ending or {}
        if ending.get("e") == "crash":
            thrown = ending.get("error") or {}
            unhandled = ending.get("kind") == "unhandledRejection"
            error = _stepscope_error(
                "UnhandledRejection" if unhandled else "UncaughtException",
                f"{thrown.get('class', 'Error')}: {thrown.get('message', '')} was "
                f"{'a promise rejection nobody awaited' if unhandled else 'thrown outside any node'}, so node "
                f"stopped {where}; what was recorded is kept. Await the promise (or catch it) in the node.",
            )
            error["traceback"] = str(thrown.get("traceback", ""))
            return "error", error
        if ending.get("e") == "exit":
            code = ending.get("code")
            return "error", _stepscope_error(
                "ProcessExit",
                f"The app called process.exit({code}) {where}: node ended before the run did. "
                "Remove the process.exit() call from the node (return a value instead).",
            )
        if ending.get("e") == "stopped":
            return "cancelled", _stepscope_error(
                "RunCancelled", f"node got {ending.get('signal')} {where}; what was recorded is kept."
            )
        return "error", _stepscope_error(
            "RecorderLost", f"node ended without a result {where}; what was recorded is kept."
        )

    def _where(self) -> str:
        return where_stopped(self.root.record) if self.root is not None else "before its first superstep"


def _stepscope_error(kind: str, message: str) -> dict[str, Any]:
    return {TYPE: "error", "class": kind, "module": "stepscope", "message": message, "notes": [], "traceback": ""}


def _note_route_reads(graph: dict[str, Any], source: str, reads: dict[str, list[str]] | None) -> None:
    """Adds to each conditional edge out of `source` the state keys its route read (`reads`, by route name):
    a LangGraph.js route's source is not Python, so the loop finding learns what it reads as it runs."""
    if not reads:
        return
    branches = []
    for branch in graph.get("branches", []):
        keys = reads.get(branch.get("name")) if branch.get("source") == source else None
        branches.append(branch if keys is None else {**branch, "reads": sorted({*branch.get("reads", ()), *keys})})
    graph["branches"] = branches


def _unknown_graph(keys: list[str]) -> dict[str, Any]:
    """The description of a run whose graph the recorder did not see compiled (built outside `stream`)."""
    return {
        "name": DEFAULT_NAME,
        "nodes": [],
        "edges": [],
        "waiting_edges": [],
        "branches": [],
        "channels": {k: {"kind": "unknown", "reducer": "unknown"} for k in keys},
        "managed": {},
        "input_keys": [],
        "output_keys": list(keys),
        "drawing": {"nodes": [], "edges": []},
        "drawing_flat": {"nodes": [], "edges": []},
        "source": "langgraphjs",
    }
