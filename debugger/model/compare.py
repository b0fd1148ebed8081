"""Two runs side by side, superstep by superstep: the one comparison StepScope makes (`stepscope compare`,
the Compare page, and time travel's branch against its original all read it).

Steps are aligned by number (step 1 of A beside step 1 of B), which is what a superstep is: the graph's
own clock, the same for two versions of a graph. At each step the comparison lists the tasks that ran in
one run and not the other, each task's writes and each reducer call side by side (paired by node, channel
and occurrence, never by task id, which is generated), the state after the step key by key, and the
findings of `diagnose` that appear or disappear there.

Values are compared as `compare_values` says: as recorded, with generated ids set aside (the verdict
`SAME_BUT_IDS`, so the page and the command can say so). Pure: no Streamlit, nothing runs.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

from debugger.diagnostics import Finding, diagnose_trace
from debugger.diagnostics.findings import SEVERITY_WORDS
from debugger.diagnostics.replay import Replay
from debugger.diagnostics.value_text import MESSAGE_REDUCERS
from debugger.i18n import _, ngettext
from debugger.model.compare_values import (
    ABSENT,
    IDS_NOTE,
    ONLY_A,
    ONLY_B,
    SAME,
    SAME_BUT_IDS,
    call_verdict,
    verdict,
)
from debugger.model.present import code, md
from engine.trace import RunRecord, StepRecord

__all__ = [
    "ABSENT",
    "IDS_NOTE",
    "ONLY_A",
    "ONLY_B",
    "SAME",
    "SAME_BUT_IDS",
    "FindingChange",
    "Row",
    "RunComparison",
    "StepDiff",
    "compare_runs",
    "verdict",
]


@dataclass(frozen=True)
class Row:
    """One thing of a step (a write, a reducer call, a state key) in A beside the same thing in B."""

    what: str
    """What is compared: `node_a → messages` (a write), `messages ← node_a` (a reducer call), `messages`."""
    a: Any
    """The encoded value in A, or `ABSENT`; for a reducer call `{"reducer", "write", "after", "error"}`."""
    b: Any
    verdict: str

    @property
    def differs(self) -> bool:
        """Not equal, even with generated ids set aside."""
        return self.verdict not in (SAME, SAME_BUT_IDS)


@dataclass(frozen=True)
class FindingChange:
    """A finding of one run that the other run does not have."""

    finding: Finding
    side: str
    """`A` (it disappears in B) or `B` (it appears in B)."""

    def sentence(self, *, markdown: bool = False) -> str:
        """`the concurrent update on `answer` at step 1 is gone in B (...)`. With `markdown` (for a page that
        reads Markdown) the run's own words are escaped and the key is a code span, so it shows as code."""
        f = self.finding
        words = md if markdown else str
        on = _(" on `{key}`").format(key=code(f.key) if markdown else f.key) if f.key else ""
        at = _(" at step {step}").format(step=f.step) if f.step is not None else ""
        inside = _(" inside {scope}").format(scope=" › ".join(words(s) for s in f.scope)) if f.scope else ""
        severity = _(SEVERITY_WORDS.get(f.severity, f.severity))
        text = _("the {kind}{on}{at}{inside} is gone in B ({severity}: {title})")
        if self.side != "A":
            text = _("the {kind}{on}{at}{inside} appears in B ({severity}: {title})")
        kind = words(f.kind.replace("_", " "))
        return text.format(kind=kind, on=on, at=at, inside=inside, severity=severity, title=words(f.title))


@dataclass(frozen=True)
class StepDiff:
    """One superstep of A beside the step with the same number in B."""

    step: int
    in_a: bool
    in_b: bool
    tasks_only_a: tuple[str, ...]
    tasks_only_b: tuple[str, ...]
    writes: tuple[Row, ...]
    calls: tuple[Row, ...]
    state: tuple[Row, ...]
    state_a: dict[str, Any] | None
    """A's whole state after the step (encoded), None when A has no such step."""
    state_b: dict[str, Any] | None
    findings: tuple[FindingChange, ...] = ()
    inside: tuple[tuple[str, "RunComparison"], ...] = ()
    """Subgraph runs of a task in both runs that do not agree, by task (`child`, `child (run 2)`)."""

    @property
    def state_differs(self) -> bool:
        """The state after the step differs (or one run has no such step)."""
        return not (self.in_a and self.in_b) or any(r.differs for r in self.state)

    @property
    def differs(self) -> bool:
        """Anything of the step differs: tasks, writes, reducer calls, state or findings."""
        rows = (*self.writes, *self.calls, *self.state)
        return (
            not (self.in_a and self.in_b)
            or bool(self.tasks_only_a or self.tasks_only_b or self.findings or self.inside)
            or any(r.differs for r in rows)
        )

    @property
    def ids_set_aside(self) -> bool:
        """Some value of the step is equal only with its generated ids set aside."""
        return any(r.verdict == SAME_BUT_IDS for r in (*self.writes, *self.calls, *self.state))


@dataclass
class RunComparison:
    """Two runs aligned superstep by superstep."""

    a: RunRecord
    b: RunRecord
    steps: list[StepDiff] = field(default_factory=list)
    findings: list[FindingChange] = field(default_factory=list)
    """Every finding that appears or disappears, the run-wide ones (no step) included."""

    @property
    def first_divergence(self) -> int | None:
        """The first step where the runs part, else None."""
        return next((s.step for s in self.steps if s.differs), None)

    @property
    def status_differs(self) -> bool:
        """The runs ended differently: `done` vs `error`, or two different errors."""
        return (self.a.status, _error_text(self.a.error)) != (self.b.status, _error_text(self.b.error))

    @property
    def agree(self) -> bool:
        """Same steps, same tasks, writes, merges and states, same findings, same ending."""
        return self.first_divergence is None and not self.findings and not self.status_differs

    @property
    def ids_set_aside(self) -> bool:
        """Some values were equal only with generated ids set aside: the reader is told."""
        return any(s.ids_set_aside for s in self.steps)

    def headline(self) -> str:
        """One sentence: whether they agree, and where they part."""
        if self.agree:
            return _("The runs agree at every one of their {count} steps.").format(count=len(self.steps))
        first = self.first_divergence
        parts = [
            _("The runs first differ at step {step}.").format(step=first)
            if first is not None
            else _("The steps agree.")
        ]
        if self.status_differs:
            ends = [f"{run.status} ({run.error.get('class')})" if run.error else run.status for run in (self.a, self.b)]
            parts.append(_("A ended {a}, B ended {b}.").format(a=ends[0], b=ends[1]))
        gone = sum(c.side == "A" for c in self.findings)
        if gone:
            parts.append(
                ngettext("{count} finding is gone in B.", "{count} findings are gone in B.", gone).format(count=gone)
            )
        if len(self.findings) - gone:
            new = len(self.findings) - gone
            parts.append(
                ngettext("{count} finding is new in B.", "{count} findings are new in B.", new).format(count=new)
            )
        return " ".join(parts)


def compare_runs(a: RunRecord, b: RunRecord, *, findings: bool = True) -> RunComparison:
    """A and B aligned step by step; `findings=False` skips `diagnose` (time travel's branch table)."""
    replay_a, replay_b = Replay(a), Replay(b)
    changes = _finding_changes(a, b) if findings else []
    by_step: dict[int | None, list[FindingChange]] = {}
    for change in changes:
        by_step.setdefault(change.finding.step, []).append(change)
    numbers = sorted(set(_shown(a)) | set(_shown(b)))
    message_keys = _message_keys(a, b)
    steps = [_step_diff(n, replay_a, replay_b, tuple(by_step.get(n, ())), message_keys) for n in numbers]
    return RunComparison(a, b, steps, changes)


def _shown(run: RunRecord) -> list[int]:
    """The steps compared: step -1 (the input) only when it changed the state (a Command input), as the
    step page shows them; otherwise its state is the channels' start values, which step 0 compares."""
    return [s.step for s in run.steps if s.step >= 0 or s.reducer_calls]


def _step_diff(
    number: int, a: Replay, b: Replay, findings: tuple[FindingChange, ...], message_keys: set[str]
) -> StepDiff:
    step_a, step_b = a.steps.get(number), b.steps.get(number)
    writes_a, writes_b = _writes(step_a), _writes(step_b)
    channels = {name: channel for name, (channel, _) in (writes_a | writes_b).items()}

    def judge_write(name: str, x: Any, y: Any) -> str:
        return verdict(x, y, messages=channels[name] in message_keys)

    names_a, names_b = _task_keys(step_a), _task_keys(step_b)
    state_a = a.state_after(number) if step_a is not None else None
    state_b = b.state_after(number) if step_b is not None else None
    return StepDiff(
        number,
        step_a is not None,
        step_b is not None,
        tuple(_label(k) for k in names_a if k not in names_b),
        tuple(_label(k) for k in names_b if k not in names_a),
        tuple(_paired(_values(writes_a), _values(writes_b), judge_write)),
        tuple(_paired(_calls(a, step_a), _calls(b, step_b), call_verdict)),
        tuple(_paired(_keys(state_a), _keys(state_b), lambda _name, x, y: verdict(x, y))),
        state_a,
        state_b,
        findings,
        _inside(step_a, step_b),
    )


def _inside(step_a: StepRecord | None, step_b: StepRecord | None) -> tuple[tuple[str, "RunComparison"], ...]:
    """The subgraph runs of the tasks both steps ran (paired by node and occurrence, then in order), compared
    in turn, kept when they do not agree. Their findings are the root's (`diagnose` reads nested runs)."""
    if step_a is None or step_b is None:
        return ()
    tasks_b = dict(zip(_task_keys(step_b), step_b.tasks))
    found = []
    for key, task in zip(_task_keys(step_a), step_a.tasks):
        other = tasks_b.get(key)
        if other is None:
            continue
        for index, (run_a, run_b) in enumerate(zip(task.subgraphs, other.subgraphs)):
            nested = compare_runs(run_a, run_b, findings=False)
            if not nested.agree:
                found.append((_label(key) + (f" (run {index + 1})" if index else ""), nested))
    return tuple(found)


def _task_keys(step: StepRecord | None) -> list[tuple[str, int]]:
    """(node name, occurrence) per task: the second Send to one node is `(name, 1)`."""
    seen: dict[str, int] = {}
    keys = []
    for task in step.tasks if step is not None else ():
        keys.append((task.name, seen.get(task.name, 0)))
        seen[task.name] = seen.get(task.name, 0) + 1
    return keys


def _label(key: tuple[str, int]) -> str:
    return key[0] if key[1] == 0 else f"{key[0]}[{key[1]}]"


def _writes(step: StepRecord | None) -> dict[str, tuple[str, Any]]:
    """`node → channel` (with occurrence numbers where a node or channel repeats) to (channel, encoded value)."""
    rows: dict[str, tuple[str, Any]] = {}
    if step is None:
        return rows
    for (name, index), task in zip(_task_keys(step), step.tasks):
        for channel, value in task.writes:
            if channel.startswith("__"):  # a runtime's own (langgraph's __error__): the `raised` row says it
                continue
            base = f"{_label((name, index))} → {channel}"
            what, n = base, 1
            while what in rows:
                n += 1
                what = f"{base} ({n})"
            rows[what] = (channel, value)
        if task.error:  # an exception (or an interrupt) is what the task did instead of some of its writes
            rows[f"{_label((name, index))} raised"] = ("", _error_text(task.error))
    return rows


def _values(rows: dict[str, tuple[str, Any]]) -> dict[str, Any]:
    return {name: value for name, (_, value) in rows.items()}


def _calls(replay: Replay, step: StepRecord | None) -> dict[str, Any]:
    """`channel ← writer` (with occurrence numbers) to the call's reducer, write, the value it gave and its
    error: whole values, so the same write folded into a different value differs, and a changed reducer
    shows beside the old one."""
    rows: dict[str, Any] = {}
    if step is None:
        return rows
    for call, _before, after in replay.call_values(step.step):
        base = f"{call.channel} ← {call.writer_name}"
        what, n = base, 1
        while what in rows:
            n += 1
            what = f"{base} ({n})"
        rows[what] = {"reducer": call.reducer, "write": call.write, "after": after, "error": _error_text(call.error)}
    return rows


def _error_text(error: dict[str, Any] | None) -> str | None:
    """`InvalidUpdateError: At key 'v': ...` of a recorded exception, None for none."""
    return f"{error.get('class')}: {error.get('message')}" if error else None


def _keys(state: dict[str, Any] | None) -> dict[str, Any]:
    return dict(state or {})


def _paired(a: dict[str, Any], b: dict[str, Any], judge: Callable[[str, Any, Any], str]) -> list[Row]:
    """A's rows in A's order, then B's rows A lacks, each with its verdict by `judge(name, a, b)`."""
    names = list(a) + [name for name in b if name not in a]
    return [
        Row(name, a.get(name, ABSENT), b.get(name, ABSENT), judge(name, a.get(name, ABSENT), b.get(name, ABSENT)))
        for name in names
    ]


def _message_keys(*runs: RunRecord) -> set[str]:
    """The state keys whose reducer merges messages, in either run's graph."""
    return {
        key
        for run in runs
        for key, channel in (run.graph.get("channels") or {}).items()
        if isinstance(channel, dict) and channel.get("reducer") in MESSAGE_REDUCERS
    }


def _finding_identity(finding: Finding) -> tuple[Any, ...]:
    """What makes two runs' findings the same finding: never the evidence's values or the wording."""
    return (
        finding.kind,
        finding.scope,
        finding.step,
        finding.key,
        tuple(sorted(finding.nodes or (finding.node or "",))),
    )


def _finding_changes(a: RunRecord, b: RunRecord) -> list[FindingChange]:
    found_a, found_b = diagnose_trace(a), diagnose_trace(b)
    ids_a = {_finding_identity(f) for f in found_a}
    ids_b = {_finding_identity(f) for f in found_b}
    return [FindingChange(f, "A") for f in found_a if _finding_identity(f) not in ids_b] + [
        FindingChange(f, "B") for f in found_b if _finding_identity(f) not in ids_a
    ]
