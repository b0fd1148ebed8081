"""The Compare page: the open run (A, whatever its source: a sample, a graph file, a stored run, a trace
file, a checkpointer thread) beside another (B: a stored run or a trace file), superstep by superstep.
It renders `debugger.model.compare`, the comparison `stepscope compare` prints."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from debugger.diagnostics.value_text import short
from debugger.i18n import N_, _
from debugger.model import run_status
from debugger.model.compare import ABSENT, IDS_NOTE, RunComparison, StepDiff, compare_runs
from debugger.sources import runs as sources
from debugger.stores.opening import open_store
from debugger.stores.protocol import StoreError
from debugger.views import session, widgets
from engine.trace import Trace

B_KIND = "compare_b_kind"
B_STORED = "compare_b_stored"
B_UPLOAD = "compare_b_upload"
B_STEP = "compare_step"
COMPARED = "compare_result"
"""The last comparison made, with the pair of runs it is of."""
MARKS = {
    "same": N_("= same"),
    "same but ids": N_("≈ same (ids aside)"),
    "differs": N_("✱ differs"),
    "only in A": N_("< only in A"),
    "only in B": N_("> only in B"),
}
"""A row's verdict as the page marks it (translated where it is shown)."""
_B_KINDS = {"stored": N_("A stored run"), "file": N_("A trace file")}
"""What B can be."""


def render() -> None:
    """A (the open run), the choice of B, and the comparison."""
    session.follow_step_page_request()
    st.title(_("Compare two runs"))
    run = session.loaded_run()
    if run is None:
        st.info(_("Open a run from the sidebar: it is A, and you pick B here."))
        return
    st.markdown(
        _("**A** is the open run: {run} ({status}).").format(
            run=widgets.md(_(run.title) or run.label), status=widgets.code(run.trace.status)
        )
    )
    _follow_link()
    other = _pick_b()
    if other is None:
        session.write_page_url("compare", {})
        return
    label, trace, link = other
    st.markdown(_("**B**: {run}.").format(run=widgets.md(label)))  # the label says B's status
    step = show(_compared(run.trace, trace))
    if link and step is not None:
        link["b_step"] = str(step)
    session.write_page_url("compare", link)


def _compared(a: Trace, b: Trace) -> RunComparison:
    """The comparison of A and B, made once per pair: the page reruns on every choice of a step, and
    comparing runs `diagnose` on both."""
    pair = (a.run_id, id(a), b.run_id, b.started_at, len(b.steps))
    kept = session.recall(COMPARED)
    if kept is None or kept[0] != pair:
        kept = (pair, compare_runs(a, b))
        session.remember(COMPARED, kept)
    return kept[1]


def _follow_link() -> None:
    """A URL that names a stored run B (`?b=<run id>`, and `b_step`) puts it into the page's choices."""
    linked = session.page_link("compare")
    if linked is None:
        return
    choices: dict[str, object] = {}
    if linked.get("b"):
        choices.update({B_KIND: "stored", B_STORED: linked["b"]})
    if linked.get("b_step", "").lstrip("-").isdigit():
        choices[B_STEP] = int(linked["b_step"])
    session.set_widgets(choices)


def _pick_b() -> tuple[str, Trace, dict[str, str]] | None:
    """(label, trace, the URL's parameters naming it) of the run B the user picked, else None (with what to
    do). A stored run is named in the URL; an uploaded trace file cannot be (a link holds no file)."""
    session.default_widgets({B_KIND: "stored"})
    kind = st.radio(
        _("B is"), ["stored", "file"], format_func=lambda k: _(_B_KINDS[k]), horizontal=True, key=B_KIND
    )  # the options are keys, so a language switch keeps the choice
    try:
        if kind == "file":
            upload = st.file_uploader(_("Trace file (.json)"), type=["json"], key=B_UPLOAD)
            if upload is None:
                st.caption(_("Upload a trace written by `stepscope run --out` or `stepscope export`."))
                return None
            opened = sources.open_upload(upload.getvalue(), upload.name)
            label = f"{upload.name} · {run_status.label(opened.trace.status, opened.trace.error)}"
            return label, opened.trace, {}
        runs = open_store().list(limit=500)
        if not runs:
            st.info(_("No stored runs yet: run the other version of the graph (it is stored), or upload a trace."))
            return None
        labels = {
            r.run_id: f"{r.run_id[:12]} · {r.target or r.graph} · {run_status.label(r.status, r.error)}" for r in runs
        }
        linked = session.recall(B_STORED)
        if linked and linked not in labels:  # a link's run older than the 500 listed: it is still offered
            labels[linked] = linked[:12]
        choice = st.selectbox(_("Stored run"), list(labels), format_func=labels.get, key=B_STORED)
        return labels[choice], sources.open_stored(choice).trace, {"b": choice}
    except (sources.OpenError, StoreError) as exc:
        widgets.open_error(str(exc))
        return None


def show(comparison: RunComparison) -> int | None:
    """The verdict, the findings that come and go, every step's verdict, and one step in detail (its number
    is returned; None when the runs have no steps)."""
    if comparison.agree:
        st.success(widgets.md(comparison.headline()))
    else:
        st.warning(widgets.md(comparison.headline()))
    if comparison.ids_set_aside:
        st.info(widgets.md(_(IDS_NOTE)))
    for change in comparison.findings:
        (st.success if change.side == "A" else st.error)(change.sentence(markdown=True))
    if not comparison.steps:
        return None
    st.dataframe(
        pd.DataFrame(
            [
                {
                    _("step"): s.step,
                    _("verdict"): _step_verdict(s),
                    _("only in A"): ", ".join(s.tasks_only_a),
                    _("only in B"): ", ".join(s.tasks_only_b),
                    _("findings"): " · ".join(c.sentence() for c in s.findings),
                }
                for s in comparison.steps
            ]
        ),
        hide_index=True,
        width="stretch",
    )
    numbers = [s.step for s in comparison.steps]
    first = comparison.first_divergence
    if session.recall(B_STEP) not in numbers:  # first shown, or a link's step this pair has not
        session.set_widgets({B_STEP: first if first is not None else numbers[0]})
    chosen = st.selectbox(
        _("Step"),
        numbers,
        format_func=lambda n: _("step {step} · {verdict}").format(
            step=n, verdict=_step_verdict(next(s for s in comparison.steps if s.step == n))
        ),
        key=B_STEP,
    )
    _step_detail(next(s for s in comparison.steps if s.step == chosen))
    return chosen


def _step_verdict(step: StepDiff) -> str:
    if not step.in_a or not step.in_b:
        return _(MARKS["only in B"] if step.in_b else MARKS["only in A"])
    return _(MARKS["differs"] if step.differs else MARKS["same but ids"] if step.ids_set_aside else MARKS["same"])


def _step_detail(step: StepDiff) -> None:
    """One step: the tasks of one run only, then writes, reducer calls and state side by side."""
    if step.tasks_only_a:
        st.markdown(_("**Tasks only in A:** ") + ", ".join(f"`{widgets.code(t)}`" for t in step.tasks_only_a))
    if step.tasks_only_b:
        st.markdown(_("**Tasks only in B:** ") + ", ".join(f"`{widgets.code(t)}`" for t in step.tasks_only_b))
    for change in step.findings:
        (st.success if change.side == "A" else st.error)(change.sentence(markdown=True))
    for task, nested in step.inside:
        _inside(task, nested)
    for title, rows in (
        (_("Writes"), step.writes),
        (_("Reducer calls"), step.calls),
        (_("State after the step"), step.state),
    ):
        st.markdown(f"**{title}**")
        if not rows:
            st.caption(_("None in either run."))
            continue
        # a table wraps its cells, so both sides are read whole; it reads them as Markdown, so each is escaped
        frame = pd.DataFrame(
            [{"": _(MARKS[r.verdict]), _("what"): r.what, "A": _cell(r.a), "B": _cell(r.b)} for r in rows]
        ).map(widgets.md)
        st.table(frame.set_index(""))


def _inside(task: str, nested: RunComparison) -> None:
    """A subgraph run of `task` that differs: its verdict and every differing row of its steps."""
    st.markdown(_("**Inside {task}:** {verdict}").format(task=widgets.md(task), verdict=widgets.md(nested.headline())))
    rows = [
        {_("step"): s.step, "": _(MARKS[r.verdict]), _("what"): r.what, "A": _cell(r.a), "B": _cell(r.b)}
        for s in nested.steps
        for r in (*s.writes, *s.calls, *s.state)
        if r.differs
    ]
    if rows:
        st.table(pd.DataFrame(rows).map(widgets.md).set_index(_("step")))  # Markdown cells: escaped


def _cell(value: object) -> str:
    """One side of a row as text: `(none)`, a reducer call as `reducer: write → result`, or the value."""
    if value is ABSENT:
        return _("(none)")
    if isinstance(value, dict) and set(value) == {"reducer", "write", "after", "error"}:
        result = _("REFUSED {error}").format(error=value["error"]) if value["error"] else short(value["after"], 120)
        return f"{value['reducer']}: {short(value['write'], 120)} → {result}"
    return short(value, 240)
