"""The pytest plugin at work: one run store for the session, every graph run of each test recorded into it.

Engine graphs are recorded by a `Recorder` that `engine.hooks.watching` attaches to every root run started
in the test's context; langgraph graphs by the langgraph recorder's `recording()` block (when langgraph is
installed). Each run is stored as it ends, named by the test's node id, so a test that crashes the
session still leaves the runs it made.
"""

from __future__ import annotations

import importlib.util
import shlex
from contextlib import ExitStack, contextmanager
from typing import Any, Iterator

import pytest

from debugger.diagnostics import SEVERITIES, Finding, counts, diagnose
from debugger.diagnostics.value_text import one_line
from debugger.stores.opening import open_store
from debugger.stores.protocol import StoreError
from debugger.stores.urls import masked
from engine.trace import Recorder, Trace, watching

SECTION = "StepScope runs"


class TestRecorder(Recorder):
    """A Recorder for one root run of a test: hands the finished trace over (to be stored) when it ends."""

    def __init__(self, target: str, finished: Any) -> None:
        super().__init__(target=target)
        self.finished = finished

    def run_finished(self, *, ns: tuple[str, ...], **kw: Any) -> None:
        """The root run's end: the trace is whole."""
        super().run_finished(ns=ns, **kw)
        if not ns and self.trace is not None:
            self.finished(self.trace)


class RecordingSession:
    """The plugin object registered for a test session that asked for StepScope."""

    def __init__(self, db: str, *, fail_on: str = "never") -> None:
        self.db = db
        self.fail_on = fail_on
        self.store: Any = None
        self.runs: dict[str, list[Trace]] = {}
        self.findings: dict[str, list[Finding]] = {}
        self.unanalysed: dict[str, str] = {}
        """Runs whose analysis failed, with why (the report says so rather than "no findings")."""
        self.records_langgraph = importlib.util.find_spec("langgraph") is not None

    # ---- the session --------------------------------------------------------------------------------

    def pytest_sessionstart(self, session: pytest.Session) -> None:
        """The store is opened (and proven writable) before any test runs: a session never runs its tests
        only to lose their runs at the end."""
        try:
            self.store = open_store(self.db)
        except (StoreError, OSError) as exc:
            raise pytest.UsageError(f"--stepscope: cannot record into {masked(self.db)}: {exc}") from None

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        """One line: how many runs went where, and how to list them."""
        total = sum(len(traces) for traces in self.runs.values())
        if not total:
            terminalreporter.write_line(f"StepScope: no graph run was recorded (store: {masked(self.db)})")
            return
        terminalreporter.write_line(
            f"StepScope: {total} graph run(s) of {len(self.runs)} test(s) recorded in {masked(self.db)}; "
            f"list them: stepscope runs --db {shlex.quote(masked(self.db))}"
        )

    # ---- each test ---------------------------------------------------------------------------------

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> Iterator[None]:
        with self.recording(item.nodeid):
            yield

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_call(self, item: pytest.Item) -> Iterator[None]:
        with self.recording(item.nodeid):
            yield

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_teardown(self, item: pytest.Item) -> Iterator[None]:
        with self.recording(item.nodeid):
            yield

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: Any) -> Iterator[None]:
        """A failing phase's report gets the test's runs; `--stepscope-fail-on` fails a passing call."""
        outcome = yield
        report = outcome.get_result()
        traces = self.runs.get(item.nodeid, [])
        if not traces:
            return
        failing = [(t, f) for t in traces for f in self.findings_of(t) if _at_least(f.severity, self.fail_on)]
        if report.when == "call" and report.passed and failing and self.fail_on != "never":
            trace, finding = failing[0]
            report.outcome = "failed"
            report.longrepr = (
                f"StepScope: run {trace.run_id[:12]} of this test has a {finding.severity} finding "
                f"(--stepscope-fail-on={self.fail_on}): {one_line(finding.title)}\n"
                f"open it: {self.open_command(trace)}"
            )
        if report.failed:
            report.sections.append((SECTION, self.section(traces)))

    @contextmanager
    def recording(self, nodeid: str) -> Iterator[None]:
        """Every engine and langgraph root run started in the block is recorded under `nodeid`."""
        finished = self._finisher(nodeid)
        with ExitStack() as stack:
            stack.enter_context(watching(lambda: TestRecorder(nodeid, finished)))
            if self.records_langgraph:
                # the langgraph recorder is imported only for sessions that record (it imports langgraph)
                from debugger.runtimes.langgraph.recorder import recording

                stack.enter_context(recording(target=nodeid, db=False, on_trace=finished))
            yield

    def _finisher(self, nodeid: str) -> Any:
        def finished(trace: Trace) -> None:
            self.store.save(trace)
            self.runs.setdefault(nodeid, []).append(trace)

        return finished

    # ---- what a report says --------------------------------------------------------------------------

    def findings_of(self, trace: Trace) -> list[Finding]:
        """The run's findings, as `stepscope diagnose RUN` gives them (computed once per run)."""
        if trace.run_id not in self.findings:
            try:
                self.findings[trace.run_id] = diagnose(None, trace)
            except Exception as exc:  # a report must not fail the session: the run is stored whatever this says
                self.findings[trace.run_id] = []
                self.unanalysed[trace.run_id] = f"{type(exc).__name__}: {exc}"
        return self.findings[trace.run_id]

    def open_command(self, trace: Trace) -> str:
        return f"stepscope show {trace.run_id[:12]} --db {shlex.quote(masked(self.db))}"

    def section(self, traces: list[Trace]) -> str:
        """Each run: id, status, steps and findings in a line, then its findings and the commands that open it."""
        lines = []
        for trace in traces:
            found = self.findings_of(trace)
            totals = ", ".join(f"{n} {sev}" for sev, n in counts(found).items() if n) or "no findings"
            if trace.run_id in self.unanalysed:
                totals = f"not analysed ({one_line(self.unanalysed[trace.run_id])})"
            name = one_line((trace.graph or {}).get("name") or "graph")
            lines.append(f"run {trace.run_id[:12]}  {name}  {trace.status}  {len(trace.steps)} superstep(s)  {totals}")
            for finding in found:
                step = "" if finding.step is None else f" at step {finding.step}"
                lines.append(f"    {finding.severity}{step}: {one_line(finding.title)}")
            lines.append(f"    open: {self.open_command(trace)}")
            lines.append(f"          stepscope diagnose {trace.run_id[:12]} --db {shlex.quote(masked(self.db))}")
        return "\n".join(lines)


def _at_least(severity: str, threshold: str) -> bool:
    """`severity` is `threshold` or worse (`SEVERITIES` runs from worst to mildest)."""
    if threshold not in SEVERITIES:
        return False
    return SEVERITIES.index(severity) <= SEVERITIES.index(threshold)
