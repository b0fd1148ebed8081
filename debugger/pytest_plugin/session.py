"""The pytest plugin at work: one run store for the session, every graph run of each test recorded into it.

Engine graphs are recorded by a `Recorder` that `engine.hooks.watching` attaches to every root run started
in the test's context; langgraph graphs by the langgraph recorder's `recording()` block (when langgraph is
installed). Runs are named by the test's node id. An engine run is stored as `stepscope run` stores one,
through a `StoreSink`: its supersteps in batches as they commit (every 200 steps or 0.2 s), then its end.
So a test process killed mid-run (SIGKILL, a crash) leaves the run's steps but those of its last 0.2 s,
read as cut off once the process is gone (a SIGTERM writes those too first), and a session stopped with
Ctrl-C stores the run as stopped with Ctrl-C (`cancelled`), with its steps so far.
langgraph runs are streamed the same way, through the langgraph recorder's `sinks`.
"""

from __future__ import annotations

import importlib.util
import shlex
import threading
import time
from contextlib import ExitStack, contextmanager
from typing import Any, Callable, Iterator

import pytest

from debugger.diagnostics import SEVERITIES, Finding, counts, diagnose
from debugger.diagnostics.value_text import one_line
from debugger.sources.recording import StoreSink, mark_stopped, stopped_trace
from debugger.sources.store_sink import write_pending_on_sigterm
from debugger.stores.opening import open_store
from debugger.stores.protocol import StoreError
from debugger.stores.urls import masked
from engine.trace import Recorder, Trace, watching, where_stopped

SECTION = "StepScope runs"


class RecordedRun:
    """One recorded run of a test, as its report reads it: the whole trace is read back from the store
    only when a report asks for it (a run stored step by step keeps only its head in memory)."""

    def __init__(self, trace: Trace, sink: StoreSink | None = None) -> None:
        self.run_id = trace.run_id
        self.head = trace
        self.sink = sink
        self.unreadable = ""
        """Why the stored run could not be read back (the report then shows its head alone), or ''."""
        self._whole: Trace | None = None if sink is not None else trace

    @property
    def trace(self) -> Trace:
        """The run with every step: from the store, or what the sink kept where the store failed."""
        if self._whole is None:
            try:
                self._whole = self.sink.whole_trace(self.head)  # type: ignore[union-attr]
            except StoreError as exc:
                self.unreadable = str(exc)
                self._whole = self.head
        return self._whole

    @property
    def store_error(self) -> StoreError | None:
        """The store's error if it stopped taking the run's steps mid-run (a full disk, a lost server)."""
        return None if self.sink is None else self.sink.error


class TestRecorder(Recorder):
    """A Recorder for one root run of a test that streams it into the session's store (a `StoreSink`,
    as `stepscope run` does) and hands it over (`ended`) once its end is stored."""

    def __init__(self, target: str, store: Any, ended: Callable[[RecordedRun, "TestRecorder"], None]) -> None:
        self.store_sink = StoreSink(store)
        super().__init__(target=target, sink=self.store_sink)
        self.ended = ended
        self.begun = time.monotonic()
        self.ending = threading.Lock()
        """Held while the run's end is stored: the run's own end and a Ctrl-C may come from two threads."""
        self.stored = False

    def run_finished(self, *, ns: tuple[str, ...], **kw: Any) -> None:
        """The root run's end: its last steps and its head are stored."""
        super().run_finished(ns=ns, **kw)
        if not ns and self.trace is not None:
            self._store_end(lambda: self.trace)

    def stopped_by_ctrl_c(self) -> None:
        """Ctrl-C stopped the session while this run went on: it is stored as `stepscope run` stores a run
        stopped with Ctrl-C (status `cancelled`, the steps so far, a message saying where it stopped)."""
        self._store_end(lambda: stopped_trace(self, "cancelled", None, time.monotonic() - self.begun))

    def _store_end(self, ending: Callable[[], Trace | None]) -> None:
        with self.ending:
            trace = None if self.stored else ending()
            if trace is None:
                return
            self.stored = True
            self.store_sink.finish(trace)
        self.ended(RecordedRun(trace, self.store_sink), self)


class RecordingSession:
    """The plugin object registered for a test session that asked for StepScope."""

    def __init__(self, db: str, *, fail_on: str = "never") -> None:
        self.db = db
        self.fail_on = fail_on
        self.store: Any = None
        self.runs: dict[str, list[RecordedRun]] = {}
        self.findings: dict[str, list[Finding]] = {}
        self.unanalysed: dict[str, str] = {}
        """Runs whose analysis failed, with why (the report says so rather than "no findings")."""
        self.unstored: list[str] = []
        """Runs the store stopped taking mid-run, with its error (the summary names them)."""
        self.records_langgraph = importlib.util.find_spec("langgraph") is not None

    # ---- the session --------------------------------------------------------------------------------

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        """The store is opened (and proven writable) before any test runs: a session never runs its tests
        only to lose their runs at the end."""
        try:
            self.store = open_store(self.db)
        except (StoreError, OSError) as exc:
            raise pytest.UsageError(f"--stepscope: cannot record into {masked(self.db)}: {exc}") from None
        write_pending_on_sigterm()

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """One line: how many runs went where, and how to list them."""
        for line in self.unstored:  # the store failed mid-run: said first, where the session ends
            terminalreporter.write_line(f"StepScope: not stored whole: {line}")
        total = sum(len(runs) for runs in self.runs.values())
        if not total:
            terminalreporter.write_line(f"StepScope: no graph run was recorded (store: {masked(self.db)})")
            return
        terminalreporter.write_line(
            f"StepScope: {total} graph run(s) of {len(self.runs)} test(s) recorded in {masked(self.db)}; "
            f"list them: stepscope runs --db {shlex.quote(masked(self.db))}"
        )

    # ---- each test ---------------------------------------------------------------------------------

    # new-style wrappers: a Ctrl-C during the test is raised here, where `recording` sees it

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> Iterator[None]:
        with self.recording(item.nodeid):
            return (yield)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Iterator[None]:
        with self.recording(item.nodeid):
            return (yield)

    @pytest.hookimpl(wrapper=True)
    def pytest_runtest_teardown(self, item: pytest.Item) -> Iterator[None]:
        with self.recording(item.nodeid):
            return (yield)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: Any) -> Iterator[None]:
        """A failing phase's report gets the test's runs; `--stepscope-fail-on` fails a passing call."""
        outcome = yield
        report = outcome.get_result()
        runs = self.runs.get(item.nodeid, [])
        judged = report.when == "call" and report.passed and self.fail_on != "never"
        if not runs or not (judged or report.failed):  # nothing reads the runs: none is read back
            return
        failing = [(r, f) for r in runs for f in self.findings_of(r) if _at_least(f.severity, self.fail_on)]
        if judged and failing:
            run, finding = failing[0]
            report.outcome = "failed"
            report.longrepr = (
                f"StepScope: run {run.run_id[:12]} of this test has a {finding.severity} finding "
                f"(--stepscope-fail-on={self.fail_on}): {one_line(finding.title)}\n"
                f"open it: {self.open_command(run)}"
            )
        if report.failed:
            report.sections.append((SECTION, self.section(runs)))

    @contextmanager
    def recording(self, nodeid: str) -> Iterator[None]:
        """Every engine and langgraph root run started in the block is recorded under `nodeid`; an engine
        run still going when Ctrl-C stops the block is stored as stopped (`TestRecorder.stopped_by_ctrl_c`)."""
        live: list[TestRecorder] = []

        def ended(run: RecordedRun, recorder: TestRecorder) -> None:
            live.remove(recorder)
            self._keep(nodeid, run)

        def recorder() -> TestRecorder:
            made = TestRecorder(nodeid, self.store, ended)
            live.append(made)
            return made

        try:
            with ExitStack() as stack:
                stack.enter_context(watching(recorder))
                if self.records_langgraph:
                    stack.enter_context(self._langgraph_recording(nodeid))
                yield
        except KeyboardInterrupt:
            for made in list(live):
                made.stopped_by_ctrl_c()
            raise

    def _langgraph_recording(self, nodeid: str) -> Any:
        """langgraph runs, each streamed into the store through a `StoreSink` of its own as the engine's
        are; langgraph ends a run stopped by Ctrl-C itself, and it is stored as stopped with Ctrl-C."""
        # the langgraph recorder is imported only for sessions that record (it imports langgraph)
        from debugger.runtimes.registry import code_recording

        streams: dict[str, StoreSink] = {}

        def sink(trace: Trace) -> StoreSink:
            made = streams[trace.run_id] = StoreSink(self.store)
            return made

        def finished(trace: Trace) -> None:
            streamed = streams.pop(trace.run_id, None)
            if streamed is None:  # a run langgraph refused before its first superstep: stored whole
                self.store.save(trace)
                self._keep(nodeid, RecordedRun(trace))
                return
            if (trace.error or {}).get("class") == "KeyboardInterrupt":
                mark_stopped(trace, "cancelled", where_stopped(trace, stored_up_to=streamed.stored_up_to))
            streamed.finish(trace)
            self._keep(nodeid, RecordedRun(trace, streamed))

        return code_recording().recording(target=nodeid, db=False, on_trace=finished, sinks=sink)

    def _keep(self, nodeid: str, run: RecordedRun) -> None:
        self.runs.setdefault(nodeid, []).append(run)
        if run.store_error is not None:
            self.unstored.append(f"run {run.run_id[:12]} of {nodeid}: {one_line(run.store_error)}")

    # ---- what a report says --------------------------------------------------------------------------

    def findings_of(self, run: RecordedRun) -> list[Finding]:
        """The run's findings, as `stepscope diagnose RUN` gives them (computed once per run)."""
        if run.run_id not in self.findings:
            try:
                self.findings[run.run_id] = diagnose(None, run.trace)
            except Exception as exc:  # a report must not fail the session: the run is stored whatever this says
                self.findings[run.run_id] = []
                self.unanalysed[run.run_id] = f"{type(exc).__name__}: {exc}"
            if run.unreadable:
                self.unanalysed[run.run_id] = run.unreadable
        return self.findings[run.run_id]

    def open_command(self, run: RecordedRun) -> str:
        return f"stepscope show {run.run_id[:12]} --db {shlex.quote(masked(self.db))}"

    def section(self, runs: list[RecordedRun]) -> str:
        """Each run: id, status, steps and findings in a line, then its findings and the commands that open it."""
        lines = []
        for run in runs:
            found = self.findings_of(run)
            trace = run.trace
            totals = ", ".join(f"{n} {sev}" for sev, n in counts(found).items() if n) or "no findings"
            if run.run_id in self.unanalysed:
                totals = f"not analysed ({one_line(self.unanalysed[run.run_id])})"
            name = one_line((trace.graph or {}).get("name") or "graph")
            lines.append(f"run {run.run_id[:12]}  {name}  {trace.status}  {len(trace.steps)} superstep(s)  {totals}")
            for finding in found:
                step = "" if finding.step is None else f" at step {finding.step}"
                lines.append(f"    {finding.severity}{step}: {one_line(finding.title)}")
            lines.append(f"    open: {self.open_command(run)}")
            lines.append(f"          stepscope diagnose {run.run_id[:12]} --db {shlex.quote(masked(self.db))}")
        return "\n".join(lines)


def _at_least(severity: str, threshold: str) -> bool:
    """`severity` is `threshold` or worse (`SEVERITIES` runs from worst to mildest)."""
    if threshold not in SEVERITIES:
        return False
    return SEVERITIES.index(severity) <= SEVERITIES.index(threshold)
